"""Reads of documents and ingest jobs, clearance-filtered in the query (SPEC §9)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from common.access import user_cleared, visible_to

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
