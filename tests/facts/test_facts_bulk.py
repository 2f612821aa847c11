"""`facts_get` reads many keys at once and returns exactly what the ORM reads key by key
(`fact_queried`, the definition of which approved facts a caller may see); `fact_get` is its
one-key form."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.model.facts import RESTRICTED, SubTask
from core.model.period import Period
from facts import selectors
from facts.models import Entity, FactMetric, Metric

pytestmark = pytest.mark.django_db


def test_bulk_read_equals_one_by_one_reads_with_and_without_clearance(demo) -> None:
    entities = list(Entity.objects.values_list("code", flat=True))
    metrics = list(Metric.objects.values_list("code", flat=True))
    channels = ["TOTAL", "ONLINE", "STORE"]
    periods = [Period("FY", "2024"), Period("FY", "2025"), Period("QUARTER", "2025Q4"), Period("FY", "2019")]
    rng = random.Random(7)
    tasks = [
        SubTask(rng.choice(metrics), rng.choice(entities), rng.choice(periods), rng.choice(channels))
        for _ in range(400)
    ]
    assert FactMetric.objects.filter(sensitivity=RESTRICTED).exists()
    for cleared in (True, False):
        one_by_one = {t.key: f for t in tasks if (f := selectors.fact_queried(t, cleared=cleared)) is not None}
        got = {t.key: f for t in tasks if (f := selectors.fact_get(t, cleared=cleared)) is not None}
        assert got == one_by_one
        assert one_by_one, "the sample must hit some facts"
        assert selectors.facts_get(tasks, cleared=cleared) == one_by_one
    restricted = FactMetric.objects.filter(sensitivity=RESTRICTED).first()
    task = SubTask(
        restricted.metric_id,
        restricted.entity_id,
        Period(restricted.period_type, restricted.period),
        restricted.channel_id,
    )
    assert task.key in selectors.facts_get([task], cleared=True)
    assert selectors.facts_get([task], cleared=False) == {}


def test_a_few_keys_over_several_channels_are_one_query_of_exactly_those_keys(demo) -> None:
    """A why's lineage: the whole and its channels in two periods, and a quarter beside them. One
    statement reads their cross product; a fact it reads that no key named is not returned."""
    entities = ["ACME_GROUP", "ACME_CN", "ACME_HK"]
    periods = [Period("FY", "2024"), Period("FY", "2025"), Period("QUARTER", "2025Q4")]
    rng = random.Random(11)
    for _ in range(20):
        tasks = [
            SubTask("REVENUE", rng.choice(entities), rng.choice(periods), rng.choice(["TOTAL", "ONLINE", "STORE"]))
            for _ in range(rng.randint(2, 12))
        ]
        for cleared in (True, False):
            one_by_one = {t.key: f for t in tasks if (f := selectors.fact_queried(t, cleared=cleared)) is not None}
            with CaptureQueriesContext(connection) as queries:
                assert selectors.facts_get(tasks, cleared=cleared) == one_by_one
            assert len(queries) == 1
    assert FactMetric.objects.filter(entity_id="ACME_CN", channel_id="STORE", period="2025").exists()
    asked = [
        SubTask("REVENUE", "ACME_CN", Period("FY", "2025"), "ONLINE"),
        SubTask("REVENUE", "ACME_HK", Period("FY", "2024"), "STORE"),
    ]
    assert SubTask("REVENUE", "ACME_CN", Period("FY", "2025"), "STORE").key not in selectors.facts_get(
        asked, cleared=True
    )


def test_bulk_read_batches_long_entity_lists(demo) -> None:
    base = FactMetric.objects.filter(sensitivity="INTERNAL", channel_id="TOTAL").first()
    metric, period = base.metric_id, Period(base.period_type, base.period)
    codes = [f"BULK{i:04d}" for i in range(1_203)]
    Entity.objects.bulk_create([Entity(code=c, name=c, kind="subsidiary") for c in codes])
    FactMetric.objects.bulk_create(
        [
            FactMetric(
                entity_id=c,
                metric_id=metric,
                period_type=base.period_type,
                period=base.period,
                channel_id="TOTAL",
                value=Decimal(i),
                unit_id=base.unit_id,
                source_doc="bulk.csv",
                locator=f"row={i}",
                review_status=FactMetric.Review.APPROVED,
            )
            for i, c in enumerate(codes)
        ]
    )
    tasks = [SubTask(metric, c, period) for c in codes] + [SubTask(metric, "NO_SUCH", period)]
    found = selectors.facts_get(tasks, cleared=False)
    assert len(found) == len(codes)
    assert found[SubTask(metric, codes[1_202], period).key].value == Decimal(1_202)


@pytest.mark.parametrize("extra", [0, 700])  # a short list goes into the query; a long one is matched after
def test_bare_figures_are_the_facts_values_and_sensitivities(demo, extra: int) -> None:
    real = list(Entity.objects.values_list("code", flat=True))
    entities = [*real, *(f"NONE{i:04d}" for i in range(extra))]  # codes with no fact at all
    columns = ("metric_id", "period_type", "period", "channel_id")
    keys = sorted(FactMetric.objects.values_list(*columns).distinct())
    restricted = FactMetric.objects.filter(sensitivity=RESTRICTED).values_list(*columns)[0]
    sample = [*random.Random(5).sample(keys, 8), restricted]
    for metric, period_type, period, channel in sample:
        key = Period(period_type, period)
        for cleared in (True, False):
            expected = {
                e: (f.value, f.sensitivity)
                for e in real
                if (f := selectors.fact_queried(SubTask(metric, e, key, channel), cleared=cleared)) is not None
            }
            for order in ("desc", "asc"):
                rows = selectors.figures_get(metric, entities, key, channel, cleared=cleared, order=order)
                assert {e: (Decimal(str(v)), s) for e, v, s, _ in rows} == expected and len(rows) == len(expected)
                values = [Decimal(str(v)) for _, v, _, _ in rows]
                assert values == sorted(values, reverse=order == "desc")
    restricted = FactMetric.objects.filter(sensitivity=RESTRICTED).first()
    key = Period(restricted.period_type, restricted.period)
    args = (restricted.metric_id, [restricted.entity_id], key, restricted.channel_id)
    assert [row[0] for row in selectors.figures_get(*args, cleared=True)] == [restricted.entity_id]
    assert selectors.figures_get(*args, cleared=False) == []
