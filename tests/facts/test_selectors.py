"""A fact is as sensitive as its document: every fact read applies the stricter
of the fact's own level and its document's, derived in the query rather than copied at ingestion."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from core.model.facts import INTERNAL, PUBLIC, RESTRICTED, SubTask
from core.model.period import Period
from documents.models import Document
from facts import selectors
from facts.models import FactMetric
from tests.factories import document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

FY2025 = Period("FY", "2025")


def task(entity: str) -> SubTask:
    return SubTask("REVENUE", entity, FY2025, "TOTAL")


def fact_make(entity: str, value: str, sensitivity: str, document: Document | None) -> FactMetric:
    return FactMetric.objects.create(
        metric_id="REVENUE",
        entity_id=entity,
        period_type="FY",
        period="2025",
        value=Decimal(value),
        unit_id="CNY_M",
        source_doc=document.name if document else "facts.csv",
        locator="sheet=1!B2",
        document=document,
        sensitivity=sensitivity,
    )


@pytest.fixture
def facts(db: Any) -> dict[str, Document]:
    """Four facts of one metric: INTERNAL in a RESTRICTED document, PUBLIC in an INTERNAL one,
    and two with no document (imported), INTERNAL and RESTRICTED."""
    metric_make()
    for code in ("ACME_HK", "ACME_SEA", "ACME_CN", "ACME_MO"):
        entity_make(code, code)
    secret = document_make("board_pack.xlsx", sensitivity=RESTRICTED)
    summary = document_make("summary.xlsx", sensitivity=INTERNAL)
    fact_make("ACME_HK", "24015.8", INTERNAL, secret)
    fact_make("ACME_SEA", "8314.5", PUBLIC, summary)
    fact_make("ACME_CN", "96120.3", INTERNAL, None)
    fact_make("ACME_MO", "512.0", RESTRICTED, None)
    return {"secret": secret, "summary": summary}


def levels(*, cleared: bool) -> dict[str, str]:
    """Each fact the caller may see, by entity, with the level every read reports for it."""
    return dict(selectors.fact_list(cleared=cleared).values_list("entity_id", "effective_sensitivity"))


def test_a_fact_from_a_restricted_document_is_hidden_from_the_uncleared_on_every_read(facts) -> None:
    assert selectors.fact_get(task("ACME_HK"), cleared=False) is None
    assert selectors.facts_get([task("ACME_HK"), task("ACME_SEA")], cleared=False).keys() == {task("ACME_SEA").key}
    figures = selectors.figures_get(
        "REVENUE", ["ACME_HK", "ACME_SEA", "ACME_CN", "ACME_MO"], FY2025, "TOTAL", cleared=False
    )
    assert [(entity, sensitivity) for entity, _, sensitivity, _ in figures] == [
        ("ACME_CN", INTERNAL),
        ("ACME_SEA", INTERNAL),
    ]
    assert levels(cleared=False) == {"ACME_SEA": INTERNAL, "ACME_CN": INTERNAL}


def test_a_cleared_reader_sees_it_at_its_documents_level(facts) -> None:
    shown = selectors.fact_get(task("ACME_HK"), cleared=True)
    assert shown is not None and shown.value == Decimal("24015.8") and shown.sensitivity == RESTRICTED
    assert selectors.facts_get([task("ACME_HK")], cleared=True)[task("ACME_HK").key].sensitivity == RESTRICTED
    figures = selectors.figures_get(
        "REVENUE", ["ACME_HK", "ACME_SEA", "ACME_CN", "ACME_MO"], FY2025, "TOTAL", cleared=True
    )
    assert {entity: sensitivity for entity, _, sensitivity, _ in figures} == {
        "ACME_CN": INTERNAL,
        "ACME_HK": RESTRICTED,
        "ACME_SEA": INTERNAL,
        "ACME_MO": RESTRICTED,
    }
    assert levels(cleared=True) == {
        "ACME_HK": RESTRICTED,
        "ACME_SEA": INTERNAL,
        "ACME_CN": INTERNAL,
        "ACME_MO": RESTRICTED,
    }


def test_a_long_entity_list_is_filtered_the_same_way(facts) -> None:
    # Past `IN_BATCH` codes the entity list is matched in Python, not in the query.
    entities = ["ACME_HK", "ACME_SEA", "ACME_CN", "ACME_MO", *(f"NONE{i:04d}" for i in range(600))]
    figures = selectors.figures_get("REVENUE", entities, FY2025, "TOTAL", cleared=False, order="asc")
    assert [entity for entity, *_ in figures] == ["ACME_SEA", "ACME_CN"]


def test_raising_a_documents_level_after_ingestion_takes_its_facts_along_at_once(facts) -> None:
    summary = facts["summary"]
    summary.sensitivity = RESTRICTED
    summary.save()
    assert selectors.fact_get(task("ACME_SEA"), cleared=False) is None
    assert selectors.fact_get(task("ACME_SEA"), cleared=True).sensitivity == RESTRICTED
    assert levels(cleared=False) == {"ACME_CN": INTERNAL}
    # and lowering it gives the fact back its own level, which was never overwritten
    summary.sensitivity = PUBLIC
    summary.save()
    assert selectors.fact_get(task("ACME_SEA"), cleared=False).sensitivity == PUBLIC


def test_a_fact_imported_with_no_document_keeps_its_own_level(facts, tmp_path: Path) -> None:
    path = tmp_path / "more.csv"
    path.write_text(
        "entity,metric,period,value,unit,sensitivity\n"
        "ACME_CN,REVENUE,FY2024,88000.1,CNY_M,PUBLIC\n"
        "ACME_MO,REVENUE,FY2024,480.0,CNY_M,RESTRICTED\n",
        encoding="utf-8",
    )
    call_command("import_facts", str(path), "--no-progress", stdout=StringIO())
    fy2024 = [SubTask("REVENUE", e, Period("FY", "2024"), "TOTAL") for e in ("ACME_CN", "ACME_MO")]
    assert FactMetric.objects.filter(period="2024", document__isnull=True).count() == 2
    assert {k[1]: f.sensitivity for k, f in selectors.facts_get(fy2024, cleared=True).items()} == {
        "ACME_CN": PUBLIC,
        "ACME_MO": RESTRICTED,
    }
    assert {k[1] for k in selectors.facts_get(fy2024, cleared=False)} == {"ACME_CN"}


def test_a_level_the_rule_does_not_know_counts_as_restricted(facts) -> None:
    FactMetric.objects.filter(entity_id="ACME_CN").update(sensitivity="CONFIDENTIAL")
    assert selectors.fact_get(task("ACME_CN"), cleared=False) is None
    assert selectors.fact_get(task("ACME_CN"), cleared=True).sensitivity == RESTRICTED


def test_every_fact_read_stays_one_query(facts, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(1):
        selectors.fact_get(task("ACME_HK"), cleared=True)
    with django_assert_num_queries(1):
        selectors.facts_get([task(e) for e in ("ACME_HK", "ACME_SEA", "ACME_CN")], cleared=False)
    with django_assert_num_queries(1):
        selectors.figures_get("REVENUE", ["ACME_HK", "ACME_SEA"], FY2025, "TOTAL", cleared=False)
    with django_assert_num_queries(1):
        rows = list(selectors.fact_list(cleared=True))
        assert {row.entity_id: row.effective_sensitivity for row in rows}["ACME_HK"] == RESTRICTED


def pending_make(entity: str, sensitivity: str, document: Document | None, *, period: str = "2025") -> FactMetric:
    return FactMetric.objects.create(
        metric_id="REVENUE",
        entity_id=entity,
        period_type="FY",
        period=period,
        value=Decimal("1.0"),
        unit_id="CNY_M",
        source_doc=document.name if document else "facts.csv",
        locator="sheet=1!B2",
        document=document,
        sensitivity=sensitivity,
        review_status=FactMetric.Review.PENDING,
    )


def test_pending_count_counts_only_the_candidates_the_caller_may_see(facts, django_assert_num_queries: Any) -> None:
    """Pending is visible, but a RESTRICTED candidate, by its own level or its
    document's, is not counted for the uncleared: counting it would reveal that it exists."""
    pending_make("ACME_SEA", INTERNAL, facts["summary"], period="2026")
    pending_make("ACME_SEA", INTERNAL, facts["secret"], period="2026")
    pending_make("ACME_SEA", RESTRICTED, None, period="2026")
    pending_make("ACME_SEA", INTERNAL, None, period="2024")  # another key
    FactMetric.objects.create(  # rejected: not waiting for review
        metric_id="REVENUE",
        entity_id="ACME_SEA",
        period_type="FY",
        period="2026",
        value=Decimal(2),
        unit_id="CNY_M",
        source_doc="x",
        locator="y",
        review_status=FactMetric.Review.REJECTED,
    )
    key = SubTask("REVENUE", "ACME_SEA", Period("FY", "2026"), "TOTAL")
    store = selectors.OrmFactStore()
    with django_assert_num_queries(1):
        assert store.pending_count(key, cleared=False) == 1
    with django_assert_num_queries(1):
        assert store.pending_count(key, cleared=True) == 3
    assert store.pending_count(task("ACME_CN"), cleared=True) == 0  # approved rows are not candidates
