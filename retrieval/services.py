"""Writes to the chunk set: text documents in, chunks with tokens (and embeddings) out, atomically."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from core.types import SENSITIVITIES
from documents.models import Document

from .chunking import Block, ChunkDraft, blocks_from_text, chunks_build
from .embedders import Embedder, EmbedderError, embedder_build
from .models import Chunk, RetrievalState
from .text import tokens, user_words_load

MAX_BYTES = 20 * 1024 * 1024
TEXT_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain"}
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


@dataclass(frozen=True)
class IngestOutcome:
    document: Document
    status: str  # created | replaced | unchanged
    chunks: int


def retrieval_changed() -> None:
    token = uuid.uuid4().hex
    if not RetrievalState.objects.filter(pk=1).update(version=F("version") + 1, token=token):
        RetrievalState.objects.create(pk=1, version=1, token=token)


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


def text_decode(data: bytes, name: str) -> str:
    if not data.strip():
        raise IngestError(f"{name}: the file is empty")
    if len(data) > MAX_BYTES:
        raise IngestError(f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MB")
    if b"\x00" in data[:4096]:
        raise IngestError(f"{name}: a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise IngestError(f"{name}: not UTF-8 text") from None


def text_document_ingest(
    *,
    name: str,
    data: bytes,
    sensitivity: str | None = None,
    uploaded_by: Any = None,
    embedder: Embedder | None = None,
    text_name: str | None = None,
) -> IngestOutcome:
    """Ingest a `.md` / `.txt` document under `name`: all of it, or (on IngestError) none of it.

    `text_name` names the text file when `name` is another (the demo stores the text of an
    office file under the office file's name until office ingestion reads the file itself).
    """
    suffix = Path(text_name or name).suffix.lower()
    if suffix not in TEXT_TYPES:
        raise IngestError(f"{name}: only .md and .txt are ingested as text")
    text = text_decode(data, name)
    title, blocks = blocks_from_text(text, markdown=suffix != ".txt")
    if not blocks:
        raise IngestError(f"{name}: no text to index")
    level = sensitivity_classify(name=name, text=text, explicit=sensitivity)
    return blocks_ingest(
        name=name,
        sha256=hashlib.sha256(data).hexdigest(),
        media_type=TEXT_TYPES[suffix],
        size=len(data),
        title=title,
        blocks=blocks,
        sensitivity=level,
        uploaded_by=uploaded_by,
        embedder=embedder,
    )


def blocks_ingest(
    *,
    name: str,
    sha256: str,
    media_type: str,
    size: int,
    title: str,
    blocks: list[Block],
    sensitivity: str,
    uploaded_by: Any = None,
    embedder: Embedder | None = None,
) -> IngestOutcome:
    """Store a document's chunks; unchanged (same sha256) documents are left alone."""
    existing = Document.objects.filter(name=name).first()
    if existing is not None and existing.sha256 == sha256 and existing.status == Document.Status.READY:
        if existing.sensitivity != sensitivity:
            with transaction.atomic():
                existing.sensitivity = sensitivity
                existing.save(update_fields=["sensitivity"])
                Chunk.objects.filter(document=existing).update(sensitivity=sensitivity)
                retrieval_changed()
        return IngestOutcome(existing, "unchanged", existing.chunks.count())
    drafts = chunks_build(blocks)
    _glossary_words()
    token_lists = [tokens(" ".join(filter(None, [title, d.heading, d.text]))) for d in drafts]
    vectors = _embed(embedder, [d.text for d in drafts])
    with transaction.atomic():
        document = existing or Document(name=name)
        document.sha256, document.media_type, document.size_bytes = sha256, media_type, size
        document.sensitivity, document.status, document.error = sensitivity, Document.Status.READY, ""
        if uploaded_by is not None and getattr(uploaded_by, "is_authenticated", False):
            document.uploaded_by = uploaded_by
        document.full_clean()
        document.save()
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
                    tokens=" ".join(token_list),
                    embedding=vectors[seq] if vectors else None,
                )
                for seq, (draft, token_list) in enumerate(zip(drafts, token_lists, strict=True))
            ],
            batch_size=500,
        )
        if vectors:
            vector_index_ensure(len(vectors[0]))
        retrieval_changed()
    return IngestOutcome(document, "replaced" if existing else "created", len(drafts))


def _embed(embedder: Embedder | None, texts: list[str]) -> list[list[float]] | None:
    embedder = embedder if embedder is not None else embedder_build()
    if not getattr(embedder, "enabled", False):
        return None
    try:
        return embedder.embed(texts)
    except EmbedderError as error:
        raise IngestError(f"embedding failed: {error}") from None


def _glossary_words() -> None:
    from facts.selectors import glossary_snapshot

    user_words_load(glossary_snapshot().alias_texts())


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


@transaction.atomic
def document_delete(document: Document) -> None:
    document.delete()
    retrieval_changed()


__all__ = ["ChunkDraft", "IngestError", "IngestOutcome", "text_document_ingest"]
