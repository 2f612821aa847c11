"""Background tasks (Django's tasks framework; the worker is `manage.py ingest_worker`): run one
queued ingestion job through the pipeline and record, under the worker's name, how it went. The
worker has no reader: its messages are English msgids (`warning_groups.JOB_MESSAGES`), said in the
curator's language when the admin shows them."""

from __future__ import annotations

import logging
import os
import socket

from django.db import DatabaseError
from django.db.models import F
from django.tasks import task
from django.utils import timezone

from .models import IngestJob
from .services import (
    ContextChoice,
    DocumentOutcome,
    IngestError,
    Progress,
    context_choice_read,
    document_ingest,
    document_reingest,
)
from .warning_groups import JOB_DATABASE_REFUSED, JOB_DELETED

logger = logging.getLogger(__name__)


@task()
def ingest_job_run(job_id: str) -> str:
    return str(ingest_job_execute(job_id).status)


def _run(job: IngestJob, progress: Progress) -> DocumentOutcome:
    """An upload through the pipeline, or a stored document read again."""
    if job.kind == IngestJob.Kind.REREAD:
        if job.document is None:
            raise IngestError(JOB_DELETED)
        context = context_choice_read(job.context) if job.context else None
        return document_reingest(document=job.document, context=context, progress=progress)
    choice = ContextChoice(
        issuer=job.issuer,
        report_type=job.report_type,
        period=job.report_period,
        by=job.created_by.get_username() if job.created_by else "",
    )
    return document_ingest(
        name=job.name,
        data=bytes(job.data),
        sensitivity=job.sensitivity or None,
        uploaded_by=job.created_by,
        progress=progress,
        context=choice if choice.given() else None,
    )


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
        outcome = _run(job, progress)
    except IngestError as error:
        job.status, job.message, job.progress = IngestJob.Status.FAILED, str(error), 100
    except DatabaseError:
        # the ingestion is atomic, so nothing of the document was kept; the job must not stay
        # "running" for ever, and the curator is told what happened without a trace
        logger.exception("ingest job %s failed", job.pk)
        job.status, job.progress = IngestJob.Status.FAILED, 100
        job.message = JOB_DATABASE_REFUSED
    else:
        job.status, job.message, job.document, job.progress = (
            IngestJob.Status.DONE,
            outcome.summary(),
            outcome.document,
            100,
        )
        job.outcome = outcome.as_dict()
    job.data = b""
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "message", "outcome", "document", "progress", "data", "finished_at"])
    return job
