"""`locator_context`: a cited passage or cell opened in its document, with what surrounds it,
as far as the caller's clearance reaches (both databases)."""

from __future__ import annotations

from typing import Any

import pytest

from documents.models import Document
from documents.selectors import locator_context
from facts.models import FactMetric
from ingestion.ir import cell_address
from retrieval.models import Chunk

pytestmark = pytest.mark.django_db


def _document(name: str) -> Document:
    return Document.objects.get(name=name)


def test_a_passage_comes_with_its_neighbours_in_reading_order(demo: dict[str, Any]) -> None:
    document = _document("监管动态_2025H2.docx")
    chunks = list(Chunk.objects.filter(document=document).order_by("seq"))
    context = locator_context(document_id=document.pk, locator=chunks[1].locator, cleared=False)
    assert context is not None and context.passage == chunks[1] and context.cell is None
    assert context.before == chunks[:1] and context.after == chunks[2:3]
    wider = locator_context(document_id=document.pk, locator=chunks[1].locator, cleared=False, around=5)
    assert wider is not None and wider.after == chunks[2:]


def test_a_cell_comes_with_its_row_its_column_and_its_slide(demo: dict[str, Any]) -> None:
    document = _document("ACME_FY2025_Annual_Results.pptx")
    context = locator_context(document_id=document.pk, locator="slide=3,table=1,row=营业收入,col=FY2025", cleared=False)
    assert context is not None and context.passage is None and context.cell is not None
    assert (context.cell.entity_id, context.cell.metric_id, str(context.cell.value)) == (
        "ACME_CN",
        "REVENUE",
        "96120.3",
    )
    assert context.column and {fact.locator.rsplit(",", 1)[1] for fact in context.column} == {"col=FY2025"}
    assert all(",row=营业收入," in fact.locator for fact in context.row)
    assert [chunk.locator for chunk in context.place] == ["slide=3", "slide=3,notes"]  # its title and its notes


def test_a_sheet_cell_reads_its_row_and_column_from_the_a1_reference(demo: dict[str, Any]) -> None:
    fact = FactMetric.objects.filter(locator="sheet=ACME集团!D3").get()
    context = locator_context(document_id=fact.document_id, locator=fact.locator, cleared=False)
    assert context is not None and context.cell == fact
    assert {other.locator for other in context.row} >= {"sheet=ACME集团!B3", "sheet=ACME集团!C3"}
    assert {cell_address(other.locator).column for other in context.column} == {"D"}  # type: ignore[union-attr]
    assert all(other.locator.startswith("sheet=ACME集团!") for other in context.row + context.column)


@pytest.mark.parametrize("cleared", [False, True])
def test_the_restricted_document_is_not_there_for_the_uncleared(demo: dict[str, Any], cleared: bool) -> None:
    secret = Document.objects.get(sensitivity="RESTRICTED")
    locators = [
        *Chunk.objects.filter(document=secret).values_list("locator", flat=True),
        *FactMetric.objects.filter(document=secret).values_list("locator", flat=True),
    ]
    found = [locator_context(document_id=secret.pk, locator=locator, cleared=cleared) for locator in locators]
    assert all(context is not None for context in found) if cleared else found == [None] * len(locators)


def test_a_restricted_cell_in_a_visible_document_is_not_there_for_the_uncleared(demo: dict[str, Any]) -> None:
    fact = FactMetric.objects.get(locator="slide=3,table=1,row=营业收入,col=FY2025")
    fact.sensitivity = "RESTRICTED"
    fact.save(update_fields=["sensitivity"])
    assert locator_context(document_id=fact.document_id, locator=fact.locator, cleared=False) is None
    neighbour = FactMetric.objects.get(locator="slide=3,table=1,row=毛利率,col=FY2025")
    context = locator_context(document_id=neighbour.document_id, locator=neighbour.locator, cleared=False)
    assert context is not None and fact not in context.column and fact not in context.row
    assert locator_context(document_id=fact.document_id, locator=fact.locator, cleared=True) is not None


def test_nothing_at_a_locator_or_no_document_is_none(demo: dict[str, Any]) -> None:
    document = _document("ACME_FY2025_Annual_Results.pptx")
    assert locator_context(document_id=document.pk, locator="slide=99", cleared=True) is None
    assert locator_context(document_id=10_000, locator="slide=1", cleared=True) is None
