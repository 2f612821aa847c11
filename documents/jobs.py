"""The ingestion queue: uploads stored as `IngestJob`s and queued for the background worker, and
the recovery of jobs whose worker died (liveness by `host:pid`). What the worker runs is in
`documents.tasks`; the pipeline a job runs is `documents.services.document_ingest`."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from .models import Document, IngestJob
from .services import ContextChoice
from .tasks import ingest_job_run, worker_name
from .warning_groups import JOB_RETRYING, JOB_WORKER_GONE


def ingest_job_create(
    *,
    name: str,
    data: bytes,
    sensitivity: str = "",
    created_by: Any = None,
    issuer: str = "",
    report_type: str = "",
    report_period: str = "",
) -> IngestJob:
    """Store an upload, with the context its uploader gave, and queue it for the background
    worker; returns at once."""
    job = IngestJob.objects.create(
        name=name[:255],
        data=data,
        sensitivity=sensitivity,
        created_by=created_by,
        issuer=issuer,
        report_type=report_type,
        report_period=report_period,
    )
    _enqueue(job)
    job.refresh_from_db()
    return job


def reread_job_create(*, document: Document, context: ContextChoice | None = None, created_by: Any = None) -> IngestJob:
    """Queue `document` to be read again from its stored file, with the current glossary and
    `context` (what a curator set); returns at once. The document stays as it is until the job
    commits its new reading, all at once."""
    given = context.given() if context is not None else {}
    job = IngestJob.objects.create(
        kind=IngestJob.Kind.REREAD,
        name=document.name[:255],
        data=b"",
        sensitivity=document.sensitivity,
        document=document,
        created_by=created_by,
        issuer=given.get("issuer", ""),
        report_type=given.get("report_type", ""),
        report_period=given.get("period", ""),
        context=context.as_dict() if context is not None else {},
    )
    _enqueue(job)
    job.refresh_from_db()
    return job


def document_jobs_open(document: Document) -> QuerySet[IngestJob]:
    """The jobs queued or running for `document`, newest first."""
    return IngestJob.objects.filter(
        document=document, status__in=[IngestJob.Status.QUEUED, IngestJob.Status.RUNNING]
    ).order_by("-created_at")


def _enqueue(job: IngestJob) -> None:
    IngestJob.objects.filter(pk=job.pk).update(task_id="")
    result = ingest_job_run.enqueue(str(job.pk))
    IngestJob.objects.filter(pk=job.pk, task_id="").update(task_id=str(result.id)[:64])


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
                message=JOB_RETRYING % {"attempts": job.attempts},
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
                message=JOB_WORKER_GONE % {"attempts": job.attempts},
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
