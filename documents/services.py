"""Office files and text in, facts (with cell-level locators) and chunks out: one document at a
time, all or nothing, idempotent by sha256."""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from facts.models import FactMetric
from facts.selectors import glossary_snapshot
from facts.services import unit_ensure
from ingestion.extract import extract
from ingestion.ir import ExtractionError
from ingestion.tables import FactCandidate, facts_from_document
from retrieval.embedders import Embedder
from retrieval.services import IngestError, blocks_ingest, retrieval_changed, sensitivity_classify

from .models import Document, IngestJob

Progress = Callable[[int], None]


@dataclass
class DocumentOutcome:
    document: Document
    status: str  # created | replaced | unchanged
    chunks: int = 0
    facts: dict[str, int] = field(default_factory=lambda: {"approved": 0, "pending": 0, "conflicts": 0})

    def summary(self) -> str:
        f = self.facts
        return (
            f"{self.document.name}: {self.status}, {self.chunks} chunk(s), {f['approved']} fact(s), "
            f"{f['pending']} pending for review{f', {f["conflicts"]} conflicting' if f['conflicts'] else ''}, "
            f"{self.document.sensitivity}"
        )


def document_ingest(
    *,
    name: str,
    data: bytes,
    sensitivity: str | None = None,
    uploaded_by: Any = None,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> DocumentOutcome:
    """Extract, then write the document's chunks and facts in one transaction (or nothing)."""
    step = progress or (lambda percent: None)
    if not name or len(name) > 255 or "/" in name or "\x00" in name:
        raise IngestError("a document name is 1 to 255 characters, without '/'")
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Document.objects.filter(name=name).first()
    if existing is not None and existing.sha256 == sha256 and existing.status == Document.Status.READY:
        step(100)
        return DocumentOutcome(existing, "unchanged", existing.chunks.count(), _fact_counts(existing))
    try:
        extracted = extract(name, data)
    except ExtractionError as error:
        raise IngestError(str(error)) from None
    step(40)
    # The title and one line per paragraph, as in a text file: a `sensitivity:` paragraph is
    # read as the front-matter line, and a hint in the title counts as one in the body.
    text = "\n".join([extracted.title, *(block.text for block in extracted.blocks[:40])])
    level = sensitivity_classify(name=name, text=text, explicit=sensitivity)
    candidates = facts_from_document(extracted, glossary=glossary_snapshot(), sensitivity=level)
    if not extracted.blocks and not candidates:
        raise IngestError(f"{name}: nothing to index (no text and no table values)")
    step(60)
    with transaction.atomic():
        written = blocks_ingest(
            name=name,
            sha256=sha256,
            media_type=extracted.media_type,
            size=len(data),
            title=extracted.title,
            blocks=extracted.blocks,
            sensitivity=level,
            uploaded_by=uploaded_by,
            embedder=embedder,
        )
        counts = facts_replace(document=written.document, candidates=candidates)
    step(100)
    return DocumentOutcome(written.document, written.status, written.chunks, counts)


def _fact_counts(document: Document) -> dict[str, int]:
    facts = document.facts.all()
    return {
        "approved": facts.filter(review_status="approved").count(),
        "pending": facts.filter(review_status="pending").count(),
        "conflicts": 0,
    }


@transaction.atomic
def facts_replace(*, document: Document, candidates: list[FactCandidate]) -> dict[str, int]:
    """Replace the facts this document produced. Approved cells upsert on the natural key (and
    take over the lineage); pending cells wait in the review queue unless a row already holds
    their key."""
    FactMetric.objects.filter(document=document).delete()
    counts = {"approved": 0, "pending": 0, "conflicts": 0}
    for candidate in candidates:
        if candidate.unit:
            unit_ensure(candidate.unit)
        key = {
            "metric_id": candidate.metric or None,
            "entity_id": candidate.entity or None,
            "period_type": candidate.period_type,
            "period": candidate.period,
            "channel_id": candidate.channel or "TOTAL",
        }
        values = {
            "value": candidate.value,
            "unit_id": candidate.unit or None,
            "source_doc": document.name,
            "locator": candidate.locator[:255],
            "document": document,
            "sensitivity": candidate.sensitivity,
            "suggested_alias": candidate.suggested_alias[:255],
            "review_note": candidate.reason[:255],
        }
        approved = candidate.status == "approved" and key["metric_id"] and key["entity_id"]
        holder = FactMetric.objects.filter(**key).first() if key["metric_id"] and key["entity_id"] else None
        if approved:
            if holder is None:
                FactMetric.objects.create(**key, **values, review_status="approved")
            else:
                for attribute, value in {**values, "review_status": "approved"}.items():
                    setattr(holder, attribute, value)
                holder.save()
            counts["approved"] += 1
        elif holder is not None:
            counts["conflicts"] += 1
        else:
            FactMetric.objects.create(**key, **values, review_status="pending")
            counts["pending"] += 1
    return counts


@transaction.atomic
def document_delete(document: Document) -> None:
    """A document goes with the facts and chunks it produced."""
    FactMetric.objects.filter(document=document).delete()
    document.delete()
    retrieval_changed()


def ingest_job_create(*, name: str, data: bytes, sensitivity: str = "", created_by: Any = None) -> IngestJob:
    """Store an upload and queue it for the background worker; returns at once."""
    job = IngestJob.objects.create(name=name[:255], data=data, sensitivity=sensitivity, created_by=created_by)
    _enqueue(job)
    job.refresh_from_db()
    return job


def _enqueue(job: IngestJob) -> None:
    from .tasks import ingest_job_run

    IngestJob.objects.filter(pk=job.pk).update(task_id="")
    result = ingest_job_run.enqueue(str(job.pk))
    IngestJob.objects.filter(pk=job.pk, task_id="").update(task_id=str(result.id)[:64])


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:255]


def ingest_job_execute(job_id: str) -> IngestJob:
    job = IngestJob.objects.get(pk=job_id)
    if job.status not in (IngestJob.Status.QUEUED, IngestJob.Status.RUNNING):
        return job  # already finished (a duplicate delivery)
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestJob.Status.RUNNING,
        progress=5,
        attempts=F("attempts") + 1,
        worker=worker_name(),
        started_at=timezone.now(),
    )

    def progress(percent: int) -> None:
        IngestJob.objects.filter(pk=job.pk).update(progress=percent)

    try:
        outcome = document_ingest(
            name=job.name,
            data=bytes(job.data),
            sensitivity=job.sensitivity or None,
            uploaded_by=job.created_by,
            progress=progress,
        )
    except IngestError as error:
        job.status, job.message, job.progress = IngestJob.Status.FAILED, str(error), 100
    else:
        job.status, job.message, job.document, job.progress = (
            IngestJob.Status.DONE,
            outcome.summary(),
            outcome.document,
            100,
        )
    job.data = b""
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "message", "document", "progress", "data", "finished_at"])
    return job


def _worker_is_gone(job: IngestJob, *, now: datetime, stale_after: timedelta) -> bool:
    host, _, pid = job.worker.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)  # signal 0: does the process exist?
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    return job.started_at is None or now - job.started_at > stale_after


def ingest_jobs_recover(*, jobs: QuerySet[IngestJob] | None = None, mine_too: bool = False) -> dict[str, int]:
    """Jobs whose worker died mid-ingest: queued again, or failed after the last attempt.

    Ingestion writes a document in one transaction, so a dead worker left nothing behind: the
    database rolled its transaction back. Run by `manage.py ingest_worker` when it starts and
    every minute, and when a job's status is read.
    """
    config = settings.RAGSPINE
    limit = int(config.get("INGEST_MAX_ATTEMPTS", 3))
    stale_after = timedelta(seconds=int(config.get("INGEST_STALE_SECONDS", 3600)))
    now = timezone.now()
    counts = {"requeued": 0, "failed": 0}
    running = (jobs if jobs is not None else IngestJob.objects.all()).filter(status=IngestJob.Status.RUNNING)
    me = worker_name()
    for job in running:
        # This process's own jobs count as abandoned only when the caller knows it runs none
        # (the worker, after a database outage broke the job it was running).
        if job.worker == me and not mine_too:
            continue
        if job.worker != me and not _worker_is_gone(job, now=now, stale_after=stale_after):
            continue
        _orphaned_task_fail(job.task_id)
        if job.attempts < limit:
            claimed = IngestJob.objects.filter(pk=job.pk, status=IngestJob.Status.RUNNING, worker=job.worker).update(
                status=IngestJob.Status.QUEUED,
                progress=0,
                worker="",
                message=f"retrying: attempt {job.attempts} stopped",
            )
            if claimed:
                _enqueue(job)
                counts["requeued"] += 1
        else:
            claimed = IngestJob.objects.filter(pk=job.pk, status=IngestJob.Status.RUNNING, worker=job.worker).update(
                status=IngestJob.Status.FAILED,
                progress=100,
                data=b"",
                finished_at=now,
                message=f"the worker stopped during ingestion {job.attempts} times; nothing was written",
            )
            counts["failed"] += claimed
    return counts


def _orphaned_task_fail(task_id: str) -> None:
    """The database queue's row for a task whose worker died stays RUNNING; close it."""
    if not task_id or not apps.is_installed("django_tasks_db"):
        return
    from django.tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(id=task_id, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.FAILED, finished_at=timezone.now()
    )
