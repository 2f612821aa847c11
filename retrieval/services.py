"""Writes to the chunk set and its index: a document's chunks, with their tokens and embeddings,
replaced or removed in one transaction. Every write bumps the retrieval version stamp, so each
process reloads its lexical index. `Document` rows are the documents app's to write."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from ingestion.ir import Block

from .chunking import ChunkDraft, chunks_build
from .embedders import Embedder, embedder_build
from .models import Chunk, RetrievalState
from .text import tokens, user_words_load


@dataclass(frozen=True)
class PreparedChunks:
    """A document's chunks ready to store: drafts, their index tokens and (with an embedder) vectors."""

    drafts: list[ChunkDraft]
    tokens: list[str]
    vectors: list[list[float]] | None


def retrieval_changed() -> None:
    token = uuid.uuid4().hex
    if not RetrievalState.objects.filter(pk=1).update(version=F("version") + 1, token=token):
        RetrievalState.objects.create(pk=1, version=1, token=token)


def chunks_prepare(
    *, title: str, blocks: list[Block], user_words: Iterable[str] = (), embedder: Embedder | None = None
) -> PreparedChunks:
    """Chunk, tokenise and embed, before any row is written (an embedder may be slow or fail).

    `user_words` (the glossary's aliases) teach the segmenter words first, so a stored token
    list splits the way a question naming the same alias does. Raises `EmbedderError`.
    """
    drafts = chunks_build(blocks)
    user_words_load(user_words)
    token_lists = [" ".join(tokens(" ".join(filter(None, [title, d.heading, d.text])))) for d in drafts]
    return PreparedChunks(drafts, token_lists, _embed(embedder, [d.text for d in drafts]))


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
                embedding=chunks.vectors[seq] if chunks.vectors else None,
            )
            for seq, (draft, token_list) in enumerate(zip(chunks.drafts, chunks.tokens, strict=True))
        ],
        batch_size=500,
    )
    if chunks.vectors:
        vector_index_ensure(len(chunks.vectors[0]))
    retrieval_changed()
    return len(chunks.drafts)


@transaction.atomic
def chunks_delete(*, document: Any) -> None:
    Chunk.objects.filter(document=document).delete()
    retrieval_changed()


def _embed(embedder: Embedder | None, texts: list[str]) -> list[list[float]] | None:
    embedder = embedder if embedder is not None else embedder_build()
    if not getattr(embedder, "enabled", False):
        return None
    return embedder.embed(texts)


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
