"""Writes to the chunk set and its index: a document's chunks, with their tokens, replaced or
removed in one transaction, and their embeddings, written afterwards in batches.

Ingestion never waits for an embedder: `chunks_replace` stores chunks without vectors, and
`chunks_embed` (run by the background worker, or `manage.py embed`) fills them in, each batch in
its own transaction, recording the embedder's signature with every vector. A chunk whose vector
is missing or from another embedder is found by BM25 only until then: nothing is lost, the
vector side just does not know it yet. Every chunk write bumps the retrieval version stamp, so
each process reloads its lexical index; every embedding batch bumps only the vectors stamp.
`Document` rows are the documents app's to write."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from ingestion.ir import Block

from .chunking import ChunkDraft, chunks_build
from .embedders import Embedder, embedder_build
from .models import Chunk, RetrievalState
from .selectors import chunks_unembedded
from .text import tokens, user_words_load

EMBED_BATCH = 16


@dataclass(frozen=True)
class PreparedChunks:
    """A document's chunks ready to store: drafts and their index tokens."""

    drafts: list[ChunkDraft]
    tokens: list[str]


def retrieval_changed() -> None:
    token = uuid.uuid4().hex
    if not RetrievalState.objects.filter(pk=1).update(version=F("version") + 1, token=token):
        RetrievalState.objects.create(pk=1, version=1, token=token)


def vectors_changed() -> None:
    if not RetrievalState.objects.filter(pk=1).update(vectors=F("vectors") + 1):
        RetrievalState.objects.create(pk=1, version=0, token="", vectors=1)


def chunks_prepare(*, title: str, blocks: list[Block], user_words: Iterable[str] = ()) -> PreparedChunks:
    """Chunk and tokenise, before any row is written.

    `user_words` (the glossary's aliases) teach the segmenter words first, so a stored token
    list splits the way a question naming the same alias does.
    """
    drafts = chunks_build(blocks)
    user_words_load(user_words)
    token_lists = [" ".join(tokens(" ".join(filter(None, [title, d.heading, d.text])))) for d in drafts]
    return PreparedChunks(drafts, token_lists)


@transaction.atomic
def chunks_replace(*, document: Any, chunks: PreparedChunks, sensitivity: str) -> int:
    """Replace the document's chunks with `chunks`; returns how many were stored."""
    Chunk.objects.filter(document=document).delete()
    Chunk.objects.bulk_create(
        [
            Chunk(
                document=document,
                seq=seq,
                text=draft.text,
                locator=draft.locator[:255],
                heading=draft.heading[:255],
                sensitivity=sensitivity,
                tokens=token_list,
            )
            for seq, (draft, token_list) in enumerate(zip(chunks.drafts, chunks.tokens, strict=True))
        ],
        batch_size=500,
    )
    retrieval_changed()
    return len(chunks.drafts)


@transaction.atomic
def chunks_delete(*, document: Any) -> None:
    Chunk.objects.filter(document=document).delete()
    retrieval_changed()


@dataclass(frozen=True)
class EmbedOutcome:
    embedded: int
    remaining: int


def chunks_embed(
    *,
    embedder: Embedder | None = None,
    document_id: int | None = None,
    everything: bool = False,
    batch: int = EMBED_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedOutcome:
    """Embed the chunks that lack this embedder's vector (or, with `everything`, all active chunks),
    `batch` at a time, each batch written in its own transaction: an interruption keeps every
    finished batch. A chunk replaced or deleted meanwhile is skipped, never resurrected.
    `progress(done, total)` is called after each batch. Raises `EmbedderError`; what was written
    before the failure stays.
    """
    embedder = embedder if embedder is not None else embedder_build()
    if not embedder.enabled:
        return EmbedOutcome(0, 0)
    chunks = (
        Chunk.objects.filter(active=True, **({"document_id": document_id} if document_id is not None else {}))
        if everything
        else chunks_unembedded(embedder.signature, document_id=document_id)
    )
    pending = list(chunks.order_by("pk").values_list("pk", flat=True))  # ids only: texts batch by batch
    embedded, size = 0, max(1, batch)
    for start in range(0, len(pending), size):
        rows = list(Chunk.objects.filter(pk__in=pending[start : start + size], active=True).values_list("pk", "text"))
        if rows:  # none when replaced or deleted since the ids were read
            _vectors_write(rows, embedder)
            embedded += len(rows)
        if progress is not None:
            progress(min(start + size, len(pending)), len(pending))
    return EmbedOutcome(embedded, chunks_unembedded(embedder.signature, document_id=document_id).count())


def _vectors_write(rows: list[tuple[int, str]], embedder: Embedder) -> None:
    vectors = embedder.embed([text for _, text in rows])
    with transaction.atomic():
        # The index first: built after these updates in the same transaction, PostgreSQL would
        # not let this transaction use it (broken HOT chains).
        vector_index_ensure(len(vectors[0]))
        for (pk, text), vector in zip(rows, vectors, strict=True):
            # `text` in the filter: a chunk rewritten since it was read keeps its own state.
            Chunk.objects.filter(pk=pk, text=text).update(embedding=vector, embedder=embedder.signature)
        vectors_changed()


def vector_index_ensure(dim: int) -> None:
    """PostgreSQL: an HNSW cosine index for vectors of this dimension (created once)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        # Deferred foreign-key checks of rows written earlier in this transaction would block
        # CREATE INDEX ("pending trigger events"): run them now, then defer again.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS chunk_embedding_hnsw_{int(dim)} ON retrieval_chunk "
            f"USING hnsw ((embedding::vector({int(dim)})) vector_cosine_ops) "
            f"WHERE embedding IS NOT NULL AND vector_dims(embedding) = {int(dim)}"
        )
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
