"""The review queue keeps everything: a value that disagrees with the approved fact of its key
waits beside it with the conflict as its note, and is never approved over it."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client

from facts.models import FactMetric
from facts.services import facts_replace, facts_review
from facts.services.fact_rows import conflict_note
from tests.factories import candidate_make, curator_make, document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

KEY = {"entity_id": "ACME_HK", "metric_id": "REVENUE", "period_type": "FY", "period": "2025", "channel_id": "TOTAL"}


@pytest.fixture
def glossary_rows() -> None:
    entity_make()
    metric_make()


def _rows(status: str) -> list[FactMetric]:
    return list(FactMetric.objects.filter(**KEY, review_status=status).order_by("pk"))


def test_a_second_document_with_another_value_waits_with_the_conflict(glossary_rows: None) -> None:
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make()])
    other = candidate_make(value=Decimal("24100.2"), locator="sheet=ACME香港!C2")
    counts = facts_replace(document_id=second.pk, source_doc=second.name, candidates=[other])
    assert counts == {"approved": 0, "pending": 1, "conflicts": 1}
    (approved,) = _rows("approved")
    assert (approved.value, approved.document_id) == (Decimal("24015.8"), first.pk)
    (pending,) = _rows("pending")
    assert (pending.value, pending.document_id, pending.locator) == (Decimal("24100.2"), second.pk, "sheet=ACME香港!C2")
    assert pending.review_note == "conflicts with the approved value 24015.8 CNY_M from first.xlsx sheet=ACME香港!B2"


def test_one_document_with_two_values_for_a_key_keeps_both(glossary_rows: None) -> None:
    report = document_make()
    twice = [candidate_make(), candidate_make(value=Decimal("1.5"), locator="sheet=ACME香港!B9")]
    counts = facts_replace(document_id=report.pk, source_doc=report.name, candidates=twice)
    assert counts == {"approved": 1, "pending": 1, "conflicts": 1}
    assert [f.value for f in _rows("approved")] == [Decimal("24015.8")]
    (pending,) = _rows("pending")
    assert pending.value == Decimal("1.5")
    assert pending.review_note.startswith("conflicts with the approved value 24015.8 CNY_M from report.xlsx")


def test_pending_cells_of_one_key_are_all_kept_with_their_reasons(glossary_rows: None) -> None:
    report = document_make()
    reason = "conflicting values in document"
    both = [
        candidate_make(status="pending", reason=reason),
        candidate_make(status="pending", reason=reason, value=Decimal("1.5"), locator="sheet=ACME香港!B9"),
    ]
    counts = facts_replace(document_id=report.pk, source_doc=report.name, candidates=both)
    assert counts == {"approved": 0, "pending": 2, "conflicts": 0}
    assert [(f.value, f.review_note) for f in _rows("pending")] == [
        (Decimal("24015.8"), reason),
        (Decimal("1.5"), reason),
    ]


def test_a_pending_cell_against_an_approved_fact_names_both_reasons(glossary_rows: None) -> None:
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make()])
    odd = candidate_make(status="pending", reason="scale not stated", value=Decimal("24015800"))
    counts = facts_replace(document_id=second.pk, source_doc=second.name, candidates=[odd])
    assert counts == {"approved": 0, "pending": 1, "conflicts": 1}
    (pending,) = _rows("pending")
    assert pending.review_note == (
        "conflicts with the approved value 24015.8 CNY_M from first.xlsx sheet=ACME香港!B2; scale not stated"
    )


def test_the_same_value_from_another_document_takes_the_fact_over(glossary_rows: None) -> None:
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make()])
    same = candidate_make(value=Decimal("24015.80"), locator="page=3,table=1")
    counts = facts_replace(document_id=second.pk, source_doc=second.name, candidates=[same])
    assert counts == {"approved": 1, "pending": 0, "conflicts": 0}
    (approved,) = FactMetric.objects.filter(**KEY)
    assert (approved.document_id, approved.locator, approved.review_status) == (second.pk, "page=3,table=1", "approved")


def test_approving_a_pending_fact_whose_key_is_held_is_refused(glossary_rows: None) -> None:
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make()])
    facts_replace(document_id=second.pk, source_doc=second.name, candidates=[candidate_make(value=Decimal("1.5"))])
    outcome = facts_review(facts=FactMetric.objects.filter(review_status="pending"), status="approved")
    assert (outcome.changed, outcome.held, outcome.incomplete) == (0, 1, 0)
    assert [f.value for f in _rows("approved")] == [Decimal("24015.8")]
    # The curator rejects the wrong one; then the other can be approved.
    assert facts_review(facts=FactMetric.objects.filter(document=first), status="rejected").changed == 1
    outcome = facts_review(facts=FactMetric.objects.filter(document=second), status="approved")
    assert (outcome.changed, outcome.held) == (1, 0)
    assert [f.value for f in _rows("approved")] == [Decimal("1.5")]


def test_approving_two_pending_facts_of_one_key_at_once_approves_neither(glossary_rows: None) -> None:
    report = document_make()
    both = [
        candidate_make(status="pending", reason="conflicting values in document"),
        candidate_make(status="pending", reason="conflicting values in document", value=Decimal("1.5")),
    ]
    facts_replace(document_id=report.pk, source_doc=report.name, candidates=both)
    incomplete = candidate_make(metric="", status="pending", reason="unknown row label '坪效'")
    other = document_make("other.xlsx")
    facts_replace(document_id=other.pk, source_doc=other.name, candidates=[incomplete])
    outcome = facts_review(facts=FactMetric.objects.all(), status="approved")
    assert (outcome.changed, outcome.held, outcome.incomplete) == (0, 2, 1)
    assert not FactMetric.objects.filter(review_status="approved").exists()
    outcome = facts_review(facts=FactMetric.objects.filter(value=Decimal("1.5")), status="approved")
    assert (outcome.changed, outcome.held) == (1, 0)


def test_the_database_refuses_a_second_approved_fact_for_a_key(glossary_rows: None) -> None:
    fact = {**KEY, "value": Decimal("1"), "unit_id": "CNY_M", "source_doc": "a", "locator": "b"}
    FactMetric.objects.create(**fact, review_status="approved")
    FactMetric.objects.create(**fact, review_status="pending")
    FactMetric.objects.create(**fact, review_status="rejected")
    with pytest.raises(IntegrityError), transaction.atomic():
        FactMetric.objects.create(**fact, review_status="approved")
    with pytest.raises(IntegrityError), transaction.atomic():
        FactMetric.objects.filter(review_status="pending").update(review_status="approved")


def test_the_admin_says_why_a_pending_fact_was_not_approved(glossary_rows: None) -> None:
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make()])
    facts_replace(document_id=second.pk, source_doc=second.name, candidates=[candidate_make(value=Decimal("1.5"))])
    pending = FactMetric.objects.get(review_status="pending")
    client = Client()
    client.force_login(curator_make())
    queue = client.get("/admin/facts/factmetric/?review_status__exact=pending")
    assert "conflicts with the approved value 24015.8 CNY_M" in queue.content.decode()
    response = client.post(
        "/admin/facts/factmetric/", {"action": "approve", "_selected_action": [pending.pk]}, follow=True
    )
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert shown[0] == "已批准 0 条事实。"
    assert shown[1].startswith("1 条未批准：同一指标、实体、期间和渠道已有已批准的事实")
    assert FactMetric.objects.get(pk=pending.pk).review_status == "pending"


def test_import_facts_upserts_the_approved_fact_beside_a_pending_one(glossary_rows: None, tmp_path: Path) -> None:
    report = document_make()
    facts_replace(
        document_id=report.pk,
        source_doc=report.name,
        candidates=[candidate_make(status="pending", reason="scale not stated", value=Decimal("24015800"))],
    )
    path = tmp_path / "facts.csv"

    def run(value: str) -> str:
        path.write_text(f"entity,metric,period,value,unit\nACME_HK,REVENUE,FY2025,{value},CNY_M\n", encoding="utf-8")
        out = StringIO()
        call_command("import_facts", str(path), "--no-progress", stdout=out)
        return out.getvalue()

    assert "1 created, 0 updated, 0 unchanged" in run("24015.8")
    assert "0 created, 0 updated, 1 unchanged" in run("24015.8")
    assert "0 created, 1 updated, 0 unchanged" in run("24015.9")
    assert [f.value for f in _rows("approved")] == [Decimal("24015.9")]
    (pending,) = _rows("pending")
    assert (pending.value, pending.review_note, pending.document_id) == (
        Decimal("24015800"),
        "scale not stated",
        report.pk,
    )


def test_a_conflict_note_fits_its_column_and_never_cuts_the_value(glossary_rows: None) -> None:
    holder = FactMetric(
        **KEY,
        value=Decimal("123456789.123456789"),
        unit_id="CNY_M",
        source_doc="年报" * 100,
        locator="sheet=" + "x" * 200,
    )
    note = conflict_note(holder, "unknown row label '" + "y" * 300 + "'")
    assert len(note) == 255
    assert note.startswith("conflicts with the approved value 123456789.123456789 CNY_M from 年报年报")
    huge = FactMetric(**{**KEY, "value": Decimal("9" * 200), "unit_id": "CNY_M", "source_doc": "a", "locator": "b"})
    assert conflict_note(huge) == "conflicts with an approved value from a b"
