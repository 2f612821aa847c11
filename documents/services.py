"""Office files and text in, facts (with cell-level locators) and chunks out: one document at a
time, all or nothing, idempotent by sha256. The pipeline writes the `Document`; the chunks and
the facts are written by their owners' services (`retrieval`, `facts`)."""

from __future__ import annotations

import hashlib
import os
import re
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

from agent.core.types import SENSITIVITIES
from facts.selectors import glossary_snapshot
from facts.services import facts_delete, facts_replace
from ingestion.extract import extract
from ingestion.ir import ExtractionError
from ingestion.tables import facts_from_document
from retrieval.embedders import Embedder, EmbedderError
from retrieval.services import chunks_delete, chunks_prepare, chunks_replace

from .models import Document, IngestJob

Progress = Callable[[int], None]
_FRONT_MATTER = re.compile(r"^\s*sensitivity\s*[:：]\s*(PUBLIC|INTERNAL|RESTRICTED)\s*$", re.IGNORECASE | re.MULTILINE)


def _hint_pattern(cjk: list[str], ascii_words: list[str]) -> re.Pattern[str]:
    """CJK hints anywhere; ASCII hints as whole words, so `press` is not found in `express`.

    Only an ASCII letter continues a word: `_`, `-`, `.`, digits and CJK bound it, as they do
    in file names (`press_release.md`, `confidential-plan.docx`, `2025public.md`).
    """
    words = "|".join(ascii_words)
    return re.compile("|".join([*cjk, rf"(?<![a-z])(?:{words})(?![a-z])"]), re.IGNORECASE)


# Strongest first: a document that carries hints of several levels takes the strictest.
_HINTS = (
    ("RESTRICTED", _hint_pattern(["严格保密", "绝密", "机密"], ["restricted", "confidential", "strictly"])),
    ("INTERNAL", _hint_pattern(["内部"], ["internal"])),
    ("PUBLIC", _hint_pattern(["公开", "行业周报"], ["public", "press"])),
)
# A hint right after a negation (`非公开`, `不得对外公开`, `not for public`, `non-confidential`)
# says the opposite of the hint. "Not public" still says "internal at least"; a negated
# RESTRICTED or INTERNAL hint says nothing about the level.
_NEGATION_BEFORE = re.compile(
    r"(?:(?:非|不|未|勿|禁止|严禁)[得宜可予能应]?(?:对外|向外)?(?:予以)?"
    r"|(?<![a-z])(?:not|non|never)(?:[\s_-]+(?:for|to|be|made|the|general))*[\s_-]*)$",
    re.IGNORECASE,
)
_NEGATED_LEVEL = {"PUBLIC": "INTERNAL"}


class IngestError(Exception):
    """A document that cannot be ingested; nothing of it was written."""


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
    """Extract, then write the document, its chunks and its facts in one transaction (or nothing)."""
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
    glossary = glossary_snapshot()
    candidates = facts_from_document(extracted, glossary=glossary, sensitivity=level)
    if not extracted.blocks and not candidates:
        raise IngestError(f"{name}: nothing to index (no text and no table values)")
    step(60)
    try:
        chunks = chunks_prepare(
            title=extracted.title, blocks=extracted.blocks, user_words=glossary.alias_texts(), embedder=embedder
        )
    except EmbedderError as error:
        raise IngestError(f"embedding failed: {error}") from None
    with transaction.atomic():
        existing = Document.objects.filter(name=name).first()
        document = existing or Document(name=name)
        document.sha256, document.media_type, document.size_bytes = sha256, extracted.media_type, len(data)
        document.sensitivity, document.status, document.error = level, Document.Status.READY, ""
        if uploaded_by is not None and getattr(uploaded_by, "is_authenticated", False):
            document.uploaded_by = uploaded_by
        document.full_clean()
        document.save()
        stored = chunks_replace(document=document, chunks=chunks, sensitivity=level)
        counts = facts_replace(document_id=document.pk, source_doc=document.name, candidates=candidates)
    step(100)
    return DocumentOutcome(document, "replaced" if existing else "created", stored, counts)


def _fact_counts(document: Document) -> dict[str, int]:
    facts = document.facts.all()
    return {
        "approved": facts.filter(review_status="approved").count(),
        "pending": facts.filter(review_status="pending").count(),
        "conflicts": 0,
    }


@transaction.atomic
def document_delete(*, document: Document) -> None:
    """A document goes with the facts and chunks it produced."""
    facts_delete(document_id=document.pk)
    chunks_delete(document=document)
    document.delete()


def sensitivity_classify(*, name: str, text: str, explicit: str | None = None, default: str = "INTERNAL") -> str:
    """Explicit metadata, then a `sensitivity:` line, then the strictest hint in the name or body.

    A RESTRICTED hint anywhere wins over every other hint, then INTERNAL, then PUBLIC; with no
    hint, `default`.
    """
    if explicit:
        value = explicit.upper()
        if value not in SENSITIVITIES:
            raise IngestError(f"sensitivity must be one of {', '.join(SENSITIVITIES)}")
        return value
    body = text[:2000]
    declared = _FRONT_MATTER.search(body)
    if declared:
        return declared.group(1).upper()
    hinted = _levels_hinted(name) | _levels_hinted(body)
    return next((level for level, _ in _HINTS if level in hinted), default)


def _levels_hinted(probe: str) -> set[str]:
    levels: set[str] = set()
    for level, pattern in _HINTS:
        for hit in pattern.finditer(probe):
            negated = _NEGATION_BEFORE.search(probe, max(0, hit.start() - 24), hit.start())
            said = _NEGATED_LEVEL.get(level) if negated else level
            if said:
                levels.add(said)
    return levels


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
