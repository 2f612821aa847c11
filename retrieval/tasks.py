"""Background embedding (Django's tasks framework; the worker is `manage.py ingest_worker`):
ingestion stores a document's chunks and queues their embedding here, so it never waits for
the embedder. A failure leaves the chunks searchable by BM25 and listed as pending (admin,
`manage.py embed --missing` retries)."""

from __future__ import annotations

import logging

from django.apps import apps
from django.db import transaction
from django.tasks import task

from .embedders import EmbedderError, embedder_build
from .selectors import chunks_unembedded
from .services import chunks_embed

logger = logging.getLogger("ragspine.retrieval")


@task()
def chunks_embed_run(document_id: int | None = None) -> str:
    try:
        outcome = chunks_embed(document_id=document_id)
    except EmbedderError as error:
        logger.warning("embedding stopped, the chunks stay on BM25 until `manage.py embed`: %s", error)
        return f"failed: {error}"
    return f"embedded {outcome.embedded}, {outcome.remaining} remaining"


def embedding_catch_up() -> bool:
    """Queue one embedding of every chunk still without its vector (after a failed task, a change
    of embedder, or chunks stored while no worker ran), unless one is already queued or running.
    Called by `manage.py ingest_worker` when it starts and every minute; returns whether it queued."""
    embedder = embedder_build()
    if not embedder.enabled or not chunks_unembedded(embedder.signature).exists():
        return False
    if apps.is_installed("django_tasks_db"):
        from django.tasks import TaskResultStatus
        from django_tasks_db.models import DBTaskResult

        waiting = (TaskResultStatus.READY, TaskResultStatus.RUNNING)
        if DBTaskResult.objects.filter(task_path=chunks_embed_run.module_path, status__in=waiting).exists():
            return False
    chunks_embed_run.enqueue(None)
    return True


def embedding_schedule(document_id: int) -> None:
    """Queue the document's embedding once the current transaction commits (nothing, without an
    embedder)."""
    if not embedder_build().enabled:
        return
    transaction.on_commit(lambda: chunks_embed_run.enqueue(document_id))
