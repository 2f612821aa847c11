"""Background embedding (Django's tasks framework; the worker is `manage.py ingest_worker`):
ingestion stores a document's chunks and queues their embedding here, so it never waits for
the embedder. A failure leaves the chunks searchable by BM25 and listed as pending (admin,
`manage.py embed --missing` retries)."""

from __future__ import annotations

import logging

from django.db import transaction
from django.tasks import task

from .embedders import EmbedderError, embedder_build
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


def embedding_schedule(document_id: int) -> None:
    """Queue the document's embedding once the current transaction commits (nothing, without an
    embedder)."""
    if not embedder_build().enabled:
        return
    transaction.on_commit(lambda: chunks_embed_run.enqueue(document_id))
