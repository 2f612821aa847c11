"""`changes_head` ranks one metric's changes between two periods across entities in the database,
with the count, units, strictest level, exact sum and the entities with one period only: the
same as reading both periods' figures (`figures_get`) and ranking them here, over generated
fields with ties, hidden RESTRICTED figures (the fact's level or its document's), entities with
one period only, and other metrics, channels and periods as noise; for a short entity list and
a long one (said by the entities it leaves out)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import sensitivity_max
from core.model.facts import INTERNAL, PUBLIC, RESTRICTED
from core.model.period import Period
from documents.models import Document
from facts import selectors
from facts.models import Entity, FactMetric
from tests.factories import channel_make, document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

NOW, BEFORE = Period("FY", "2025"), Period("FY", "2024")
CODES = [f"SUB{i:04d}" for i in range(600)]  # more than `IN_BATCH`: the long list says who is out
GENERATED = 30  # the subsidiaries the examples give figures to
PROPERTY = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
value = st.one_of(
    st.sampled_from([Decimal(v) for v in ("0", "1", "1.0", "2.5", "-2.5", "10", "31.1", "100.25", "-7")]),
    st.decimals(min_value=-(10**6), max_value=10**6, places=2, allow_nan=False, allow_infinity=False),
    st.decimals(min_value=-10, max_value=10, places=7, allow_nan=False, allow_infinity=False),
)
figure = st.one_of(value, value, value, st.none())
level = st.sampled_from([PUBLIC, INTERNAL, INTERNAL, RESTRICTED, "DOCUMENT"])  # DOCUMENT: a RESTRICTED document's


@pytest.fixture
def field(db: object) -> list[str]:
    metric_make()
    metric_make("COST", "成本")
    channel_make()
    entity_make("HOME", "集团", kind="home")
    Entity.objects.bulk_create([Entity(code=c, name=c, kind="subsidiary", parent_id="HOME") for c in CODES])
    return CODES


def _store(parts: list[tuple[Decimal | None, Decimal | None, str]], whole: Decimal) -> None:
    FactMetric.objects.all().delete()
    secret = Document.objects.filter(name="board_pack.xlsx").first() or document_make(
        "board_pack.xlsx", sensitivity=RESTRICTED
    )
    rows = []

    def add(entity: str, period: Period, amount: Decimal, sensitivity: str = INTERNAL, **other: str) -> None:
        restricted_document = sensitivity == "DOCUMENT"
        rows.append(
            FactMetric(
                entity_id=entity,
                metric_id=other.get("metric", "REVENUE"),
                period_type=period.period_type,
                period=period.period,
                channel_id=other.get("channel", "TOTAL"),
                value=amount,
                unit_id="CNY_M",
                source_doc="t.csv",
                locator=f"row={len(rows)}",
                sensitivity=INTERNAL if restricted_document else sensitivity,
                document=secret if restricted_document else None,
            )
        )

    for i, (now, before, sensitivity) in enumerate(parts):
        code = CODES[(i * 7) % GENERATED]  # written out of code order
        for period, amount in ((NOW, now), (BEFORE, before)):
            if amount is not None:
                add(code, period, amount, sensitivity)
        add(code, NOW, Decimal(999), metric="COST")
        add(code, NOW, Decimal(-999), channel="ONLINE")
        add(code, Period("FY", "2023"), Decimal(12345))
    add("HOME", NOW, whole)  # outside the list, above everyone
    add("HOME", BEFORE, Decimal(0))
    FactMetric.objects.bulk_create(rows)


def _expected(entities: list[str], cleared: bool, top: int) -> tuple[object, ...]:
    """The head read the long way: both periods' every figure, ranked here."""
    now, before = (
        {r[0]: r for r in selectors.figures_get("REVENUE", entities, p, "TOTAL", cleared=cleared)}
        for p in (NOW, BEFORE)
    )
    pairs = [
        (e, Decimal(str(now[e][1])), Decimal(str(before[e][1])), now[e][2], before[e][2], now[e][3], before[e][3])
        for e in now.keys() & before.keys()
    ]
    pairs.sort(key=lambda row: (-abs(row[1] - row[2]), row[0]))
    return (
        tuple(pairs[:top]),
        len(pairs),
        frozenset(u for row in pairs for u in row[5:]),
        sensitivity_max(level for row in pairs for level in row[3:5]) if pairs else PUBLIC,
        frozenset(now.keys() ^ before.keys()),
        sum((row[1] - row[2] for row in pairs), Decimal(0)),
    )


@PROPERTY
@given(
    parts=st.lists(st.tuples(figure, figure, level), min_size=0, max_size=GENERATED),
    whole=value,
    top=st.sampled_from([1, 3, 11]),
)
def test_the_head_and_totals_are_those_of_every_figure(field: list[str], parts, whole, top) -> None:
    _store(parts, whole)
    # a long list, a short one, and one that leaves out most of the figures
    for entities in (field, field[:GENERATED], field[: GENERATED // 3]):
        for cleared in (False, True):
            head = selectors.OrmFactStore().changes_head(
                "REVENUE", entities, NOW, BEFORE, "TOTAL", cleared=cleared, top=top
            )
            assert head is not None  # these figures are few and short enough to rank exactly
            found = (head.rows[:top], head.count, head.units, head.sensitivity, head.lacking, head.total)
            assert found == _expected(entities, cleared, top)
            assert len(head.rows) == min(top, head.count)
            assert "HOME" not in {row[0] for row in head.rows}


def test_a_sum_a_double_cannot_hold_is_left_to_the_caller(field: list[str]) -> None:
    _store([(Decimal("123456789012.123456789"), Decimal(1), INTERNAL), (Decimal(2), Decimal(1), INTERNAL)], Decimal(0))
    head = selectors.changes_head("REVENUE", field, NOW, BEFORE, "TOTAL", cleared=True, top=1)
    if head is not None:  # PostgreSQL sums numerics exactly
        assert head.total == Decimal("123456789012.123456789")
        assert head.rows[0][0] == CODES[0]


def test_bad_arguments_are_refused(field: list[str]) -> None:
    with pytest.raises(ValueError, match="top"):
        selectors.changes_head("REVENUE", field, NOW, BEFORE, "TOTAL", cleared=True, top=0)


def test_ties_go_by_entity_code_and_one_period_only_is_lacking(field: list[str]) -> None:
    # as the benchmark's subsidiaries: most tie, a few move more, written in reverse code order
    parts = [(Decimal("100.1") + i, Decimal(69) + i, INTERNAL) for i in range(GENERATED)]
    parts[5] = (Decimal(500), Decimal(0), INTERNAL)
    parts[6] = (Decimal(7), None, INTERNAL)
    _store(list(reversed(parts)), Decimal(1))
    for top in (1, 3, 11):
        head = selectors.changes_head("REVENUE", field, NOW, BEFORE, "TOTAL", cleared=True, top=top)
        assert head == selectors.changes_head("REVENUE", field[:GENERATED], NOW, BEFORE, "TOTAL", cleared=True, top=top)
        assert head is not None and head.count == GENERATED - 1 and len(head.lacking) == 1
        expected = _expected(field, True, top)
        assert (head.rows, head.count, head.units, head.sensitivity, head.lacking, head.total) == expected
        tied = [row[0] for row in head.rows[1:]]
        assert tied == sorted(tied)


def _head(cleared: bool = False) -> tuple[object, ...] | None:
    head = selectors.changes_head("REVENUE", CODES, NOW, BEFORE, "TOTAL", cleared=cleared, top=3)
    return None if head is None else (head.rows, head.count, head.units, head.sensitivity, head.lacking, head.total)


def _raw(sql: str, *params: object) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_a_field_read_once_serves_the_next_why_with_one_read_of_the_stamp(field: list[str]) -> None:
    _store([(Decimal(5), Decimal(1), INTERNAL), (Decimal(2), Decimal(1), INTERNAL)], Decimal(0))
    first = _head()
    assert first is not None and first[1] == 2
    with CaptureQueriesContext(connection) as queries:
        assert _head() == first
        assert _head(cleared=True) is not None
    assert len(queries) == 2 and all("facts_factsstamp" in q["sql"] and "value" not in q["sql"] for q in queries)


@pytest.mark.parametrize(
    "write",
    [
        "an ORM save",
        "a queryset update",
        "raw SQL",
        "a delete",
        "a rejection",
        "a new figure",
        "a document's level raised",
    ],
)
def test_every_kind_of_write_is_seen_by_the_next_why(field: list[str], write: str) -> None:
    _store([(Decimal(5), Decimal(1), INTERNAL), (Decimal(2), Decimal(1), INTERNAL)], Decimal(0))
    before = _head()
    moved = FactMetric.objects.get(entity_id=CODES[0], period="2025", metric_id="REVENUE", channel_id="TOTAL")
    if write == "an ORM save":
        moved.value = Decimal(105)
        moved.save()
    elif write == "a queryset update":
        FactMetric.objects.filter(pk=moved.pk).update(value=Decimal(105))
    elif write == "raw SQL":
        _raw(f"UPDATE {FactMetric._meta.db_table} SET value = %s WHERE id = %s", "105", moved.pk)
    elif write == "a delete":
        moved.delete()
    elif write == "a rejection":
        FactMetric.objects.filter(pk=moved.pk).update(review_status=FactMetric.Review.REJECTED)
    elif write == "a new figure":
        FactMetric.objects.create(**{**_fields(moved), "entity_id": CODES[1], "value": Decimal(-50)})
    else:
        secret = document_make("minutes.pdf", sensitivity=INTERNAL)
        FactMetric.objects.filter(pk=moved.pk).update(document=secret)
        assert _head() == before  # an INTERNAL document hides nothing
        Document.objects.filter(pk=secret.pk).update(sensitivity=RESTRICTED)  # no signal, no save
    after = _head()
    assert after != before
    assert after == _expected_head(cleared=False)


def test_a_rolled_back_write_leaves_no_trace(field: list[str]) -> None:
    _store([(Decimal(5), Decimal(1), INTERNAL), (Decimal(2), Decimal(1), INTERNAL)], Decimal(0))
    before = _head()
    try:
        with transaction.atomic():
            FactMetric.objects.filter(entity_id=CODES[0], period="2025").update(value=Decimal(105))
            inside = _head()
            assert inside is not None and inside != before  # read, and kept, under the write's stamp
            raise _RolledBack
    except _RolledBack:
        pass
    assert _head() == before == _expected_head(cleared=False)


class _RolledBack(Exception):
    pass


def _fields(fact: FactMetric) -> dict[str, object]:
    return {f.attname: getattr(fact, f.attname) for f in FactMetric._meta.concrete_fields if not f.primary_key}


def _expected_head(*, cleared: bool) -> tuple[object, ...]:
    rows, count, units, level, lacking, total = _expected(CODES, cleared, 3)
    return tuple(rows)[:3], count, units, level, lacking, total  # type: ignore[index]
