"""`facts.services` on a few rows made by factories: aliases and the facts a document produced."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from facts.models import Alias, Entity, FactMetric
from facts.selectors import glossary_snapshot
from facts.services import (
    AliasDraft,
    ImportAborted,
    alias_create,
    aliases_create,
    facts_delete,
    facts_replace,
    glossary_import,
)
from tests.factories import candidate_make, document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db


def test_an_alias_is_read_by_the_next_question() -> None:
    entity_make()
    alias = alias_create(kind="entity", text="港区", code="ACME_HK")
    assert (alias.kind, alias.target_code) == ("entity", "ACME_HK")
    assert glossary_snapshot().resolve("entity", "港区") == "ACME_HK"


def test_an_alias_needs_its_target_and_may_name_nothing_else() -> None:
    entity_make()
    entity_make("ACME_SEA", "ACME东南亚")
    alias_create(kind="entity", text="香港", code="ACME_HK")
    with pytest.raises(ValidationError) as missing:
        alias_create(kind="metric", text="营业额", code="NOPE")
    assert missing.value.message_dict == {"code": ["no metric with code 'NOPE'"]}
    with pytest.raises(ValidationError) as clash:
        alias_create(kind="entity", text="香港", code="ACME_SEA")
    assert clash.value.message_dict == {"text": ["'香港' already names entity ACME_HK."]}
    with pytest.raises(ValidationError, match="already names entity ACME_HK"):
        alias_create(kind="entity", text="ACME香港", code="ACME_SEA")  # a name is an alias too
    twice = [AliasDraft("entity", "港区", "ACME_HK"), AliasDraft("entity", "港 区", "ACME_SEA")]
    with pytest.raises(ValidationError, match="already names entity ACME_HK"):
        aliases_create(drafts=twice)  # all or none
    assert list(Alias.objects.values_list("text", flat=True)) == ["香港"]


def test_a_glossary_import_with_a_bad_alias_writes_nothing() -> None:
    row = {"kind": "entity", "code": "ACME_TW", "name": "ACME台湾", "entity_kind": "subsidiary"}
    rows = [(2, {**row, "alias": "台湾"}), (3, {**row, "alias": "台" * 300})]
    with pytest.raises(ImportAborted, match="255"):
        glossary_import(rows=rows)
    assert not Entity.objects.filter(code="ACME_TW").exists() and not Alias.objects.exists()


def test_a_documents_facts_upsert_on_the_natural_key_and_go_with_it() -> None:
    entity_make()
    metric_make()
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    unknown = candidate_make(metric="", status="pending", suggested_alias="坪效", reason="unknown row label '坪效'")
    counts = facts_replace(document_id=first.pk, source_doc=first.name, candidates=[candidate_make(), unknown])
    assert counts == {"approved": 1, "pending": 1, "conflicts": 0}
    held = candidate_make(locator="sheet=ACME香港!C7")
    counts = facts_replace(document_id=second.pk, source_doc=second.name, candidates=[held, held])
    assert counts == {"approved": 2, "pending": 0, "conflicts": 0}
    fact = FactMetric.objects.get(review_status="approved")
    assert (fact.document_id, fact.source_doc, fact.locator) == (second.pk, "second.xlsx", "sheet=ACME香港!C7")
    pending = candidate_make(status="pending", reason="conflicting values in document", value=Decimal("1.5"))
    counts = facts_replace(document_id=first.pk, source_doc=first.name, candidates=[pending])
    assert counts == {"approved": 0, "pending": 1, "conflicts": 1}
    assert facts_delete(document_id=second.pk) == 1
    assert facts_delete(document_id=first.pk) == 1
    assert not FactMetric.objects.exists()


def test_a_parent_company_figure_or_a_guessed_metric_is_no_conflict_with_the_approved_fact() -> None:
    """Only a candidate that claims the key (the group's figure, its metric read, not guessed)
    conflicts with the approved fact; the others wait with their own reason."""
    entity_make()
    metric_make()
    report = document_make("report.html")
    parent = "a parent-company statement (利润表 of the parent alone): never the group's figure"
    candidates = [
        candidate_make(),
        candidate_make(status="pending", scope="parent", reason=parent, value=Decimal("7"), locator="table=79"),
        candidate_make(
            status="pending",
            guessed=True,
            suggested_alias="负债合计",
            reason="unknown row label '负债合计'",
            value=Decimal("9"),
        ),
        candidate_make(status="pending", reason="scale in doubt", value=Decimal("8"), locator="table=80"),
    ]
    counts = facts_replace(document_id=report.pk, source_doc=report.name, candidates=candidates)
    assert counts == {"approved": 1, "pending": 3, "conflicts": 1}
    notes = dict(FactMetric.objects.filter(review_status="pending").values_list("value", "review_note"))
    assert notes[Decimal("7")] == parent and notes[Decimal("9")] == "unknown row label '负债合计'"
    assert notes[Decimal("8")].startswith("conflicts with the approved value 24015.8")
