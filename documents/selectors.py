"""Reads of documents and ingest jobs, clearance-filtered in the query."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from common.access import user_cleared, visible_to
from facts.models import FactMetric
from facts.selectors import fact_list
from ingestion.ir import cell_address, locator_place
from retrieval.models import Chunk
from retrieval.selectors import chunk_list

from .models import Document, IngestJob


def document_list(*, cleared: bool) -> QuerySet[Document]:
    """Documents the caller may open."""
    return visible_to(Document.objects.all(), cleared=cleared)


def ingest_job_list(*, user: Any) -> QuerySet[IngestJob]:
    """Jobs a user may follow: their own uploads; a curator also sees others' unless RESTRICTED."""
    jobs = IngestJob.objects.all()
    if not (user.is_staff and user.has_perm("documents.view_ingestjob")):
        return jobs.filter(created_by=user)
    if user_cleared(user):
        return jobs
    return jobs.filter(created_by=user) | visible_to(jobs, cleared=False, lookups=IngestJob.RESTRICTED_LOOKUPS)


@dataclass(frozen=True)
class LocatorContext:
    """What a cited locator points at in its document, with what surrounds it.

    A passage (a chunk at that locator) comes with up to `around` passages before and after
    it. A cell (an approved fact at that locator) comes with the other cells of its row and
    of its column in the same table, and the passages of the place it sits in (its slide,
    page or section), which often state its unit or scope.
    """

    document: Document
    locator: str
    passage: Chunk | None = None
    before: list[Chunk] = field(default_factory=list)
    after: list[Chunk] = field(default_factory=list)
    cell: FactMetric | None = None
    row: list[FactMetric] = field(default_factory=list)
    column: list[FactMetric] = field(default_factory=list)
    place: list[Chunk] = field(default_factory=list)


def locator_context(*, document_id: int, locator: str, cleared: bool, around: int = 1) -> LocatorContext | None:
    """The passage or cell at `locator` in the document, as far as the caller may see them; None
    when the document is not visible to the caller (or does not exist: the two are one answer)
    or nothing visible sits at that locator."""
    document = document_list(cleared=cleared).filter(pk=document_id).first()
    if document is None:
        return None
    chunks = list(chunk_list(document_id=document.pk, cleared=cleared))
    at = next((index for index, chunk in enumerate(chunks) if chunk.locator == locator), None)
    if at is not None:
        return LocatorContext(
            document=document,
            locator=locator,
            passage=chunks[at],
            before=chunks[max(0, at - around) : at],
            after=chunks[at + 1 : at + 1 + around],
        )
    facts = fact_list(cleared=cleared).filter(document_id=document.pk).order_by("pk")
    cell = facts.filter(locator=locator).first()
    if cell is None:
        return None
    address = cell_address(locator)
    row: list[FactMetric] = []
    column: list[FactMetric] = []
    if address is not None:
        for other in facts.filter(locator__startswith=address.table).exclude(pk=cell.pk):
            there = cell_address(other.locator)
            if there is None or there.table != address.table:
                continue
            if there.row == address.row:
                row.append(other)
            elif there.column == address.column:
                column.append(other)
    place = locator_place(locator)
    return LocatorContext(
        document=document,
        locator=locator,
        cell=cell,
        row=row,
        column=column,
        place=[chunk for chunk in chunks if place and locator_place(chunk.locator) == place],
    )
