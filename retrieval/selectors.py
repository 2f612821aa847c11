"""Reads of the chunk set: lexical, vector and hybrid search, and the `NarrativeRetriever` port.

Clearance is applied inside every query (the indexes mask RESTRICTED chunks before their top-k,
and the row fetch filters again), so an uncleared caller never loads a RESTRICTED chunk. A search
about some entities is kept within them the same way (`chunk_scope`: the documents they issued
and the chunks naming them by a glossary alias), before the top-k.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import Q, QuerySet

from common.access import visible_to, visible_to_sql
from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.facts import RESTRICTED
from core.model.result import Source
from core.ports import RetrievedChunk
from facts.selectors import glossary_snapshot

from .embedders import EmbedderError, embedder_build
from .fusion import scores_fuse
from .index import ChunkScope, VectorIndex, lexical_index, vectors_token
from .models import Chunk
from .text import glossary_words_ensure, name_terms, tokens

logger = logging.getLogger("ragspine.retrieval")
MODES = ("bm25", "vector", "hybrid")
CANDIDATES = 50


class SearchModeUnavailable(ValueError):
    """Vector search was asked for, but no embedder is configured."""


@dataclass(frozen=True)
class SearchHit:
    chunk_id: int
    doc: str
    locator: str
    score: float
    snippet: str
    document_id: int
    issuer: str = ""  # the entity code of the company whose document it is ("" when unknown)
    sensitivity: str = ""  # RESTRICTED when the chunk or its document is; "" otherwise


_names_of: tuple[GlossarySnapshot | None, dict[frozenset[str], frozenset[tuple[str, ...]]]] = (None, {})


def _scope_names(glossary: GlossarySnapshot, entities: frozenset[str]) -> frozenset[tuple[str, ...]]:
    """The index terms of every alias of `entities`, kept for the glossary snapshot they were read
    from (held, so a new snapshot is always told apart): a group's scope holds every subsidiary's
    names, thousands of them, read once rather than on every question."""
    global _names_of
    snapshot, cache = _names_of
    if snapshot is not glossary or len(cache) >= 64:
        cache = {}
        _names_of = (glossary, cache)
    found = cache.get(entities)
    if found is None:
        found = frozenset(
            terms for code in entities for alias in glossary.aliases_of("entity", code) if (terms := name_terms(alias))
        )
        cache[entities] = found
    return found


def chunk_scope(entities: frozenset[str]) -> ChunkScope:
    """What is about `entities`: the documents whose issuer is one of them, and the chunks that
    name one of them by any glossary alias (an alias's index terms, see `text.name_terms`)."""
    names = _scope_names(glossary_snapshot(), entities)
    documents = Chunk.document.field.related_model.objects.filter(issuer__in=entities).values_list("pk", flat=True)
    return ChunkScope(frozenset(documents) if entities else frozenset(), frozenset(names))


def _ranked(
    queries: Sequence[str], *, cleared: bool, mode: str, k: int, scope: ChunkScope | None = None
) -> list[list[tuple[int, float]]]:
    """One ranking per query (within `scope`, when given). The queries' vectors come from one call
    to the embedder, and the indexes read their version stamps once for all of them."""
    lexical: list[list[tuple[int, float]]] = []
    vector: list[list[tuple[int, float]]] = []
    if mode in ("bm25", "hybrid"):
        glossary_words_ensure(glossary_snapshot)
        lexical = lexical_index().search_many(
            [tokens(q) for q in queries], cleared=cleared, k=max(k, CANDIDATES), scope=scope
        )
    if mode in ("vector", "hybrid"):
        embedder = embedder_build()
        if not embedder.enabled:
            if mode == "vector":
                raise SearchModeUnavailable("vector search needs an embedder (set RAGSPINE_EMBEDDER)")
        else:
            try:
                embedded = _queries_embedded(queries)
                vectors = embedder.embed_queries([queries[i] for i in embedded])
                found = VectorIndex().search_many(
                    vectors, cleared=cleared, k=max(k, CANDIDATES), space=embedder.signature, scope=scope
                )
                # a near copy of the question shares the question's vector, and so its neighbours
                by_query = dict(zip(embedded, found, strict=True))
                vector = [by_query.get(i, by_query[0]) for i in range(len(queries))]
            except EmbedderError as error:
                if mode == "vector":
                    raise SearchModeUnavailable(f"the embedder failed: {error}") from None
                logger.warning("embedder failed, lexical results only: %s", error)
    if lexical and vector:
        return [scores_fuse(b, v)[:k] for b, v in zip(lexical, vector, strict=True)]
    return [ranking[:k] for ranking in (lexical or vector or [[] for _ in queries])]


def near_copy(text: str, other: str) -> bool:
    """Whether `text` is `other` with words added to or cut from one stretch (`acme香港收入` and
    `香港收入`, `香港营业收入` and `香港收入`): the same question with a longer or shorter name."""
    if text == other:
        return True
    start = 0
    while start < min(len(text), len(other)) and text[start] == other[start]:
        start += 1
    end = 0
    while end < min(len(text), len(other)) - start and text[-1 - end] == other[-1 - end]:
        end += 1
    mine, theirs = text[start : len(text) - end], other[start : len(other) - end]
    return mine in theirs or theirs in mine


def _queries_embedded(queries: Sequence[str]) -> list[int]:
    """The positions of the queries to embed: the first (the question) and every one that is no
    near copy of it; a near copy searches with the question's vector."""
    return [i for i, q in enumerate(queries) if i == 0 or not near_copy(q, queries[0])]


def chunks_unembedded(signature: str, *, document_id: int | None = None) -> QuerySet[Chunk]:
    """Active chunks without a vector of this embedder (missing, or made by another one)."""
    chunks = Chunk.objects.filter(active=True).filter(Q(embedding__isnull=True) | ~Q(embedder=signature))
    return chunks.filter(document_id=document_id) if document_id is not None else chunks


_pending_cache: dict[tuple[str, bool], tuple[str, int]] = {}  # (signature, cleared) -> (stamps, count)


def vectors_pending(*, cleared: bool) -> int:
    """How many chunks the caller may see have no vector of the configured embedder yet (0 without
    one): hybrid search finds them by BM25 alone until the background embedding reaches them.
    Counted once per change of the chunks or the stored vectors, not per search."""
    embedder = embedder_build()
    if not embedder.enabled:
        return 0
    stamps, key = vectors_token(), (embedder.signature, cleared)
    cached = _pending_cache.get(key)
    if cached is None or cached[0] != stamps:
        cached = (stamps, visible_to(chunks_unembedded(embedder.signature), cleared=cleared).count())
        _pending_cache[key] = cached
    return cached[1]


def chunk_search(
    query: str, *, cleared: bool, k: int = 10, mode: str = "hybrid", names: bool = False
) -> list[SearchHit]:
    """Passages ranked for `query`; with `names`, also under the glossary's other names for what
    it names (`query_names_added`): a caller's own search, in whatever language it writes."""
    asked = query_names_added(query, glossary_snapshot()) if names else query
    return chunk_search_many([asked], cleared=cleared, k=k, mode=mode)[0]


def query_names_added(query: str, glossary: GlossarySnapshot) -> str:
    """`query` with every other name the glossary gives each metric, entity and channel it names:
    "Hong Kong revenue decline" also searches 香港 and 营收 in Chinese documents (and a Chinese
    query the English names of English ones). Words the glossary does not know are searched as
    written; the embedder, when on, matches across languages by itself."""
    found = glossary.match(text_normalize(query))
    if not found:
        return query
    asked = text_normalize(query)
    names = dict.fromkeys(
        name
        for match in found
        if not match.external
        for name in glossary.aliases_of(match.kind, match.code)
        if text_normalize(name) not in asked
    )
    return " ".join([query, *names]) if names else query


def chunk_search_many(
    queries: Sequence[str],
    *,
    cleared: bool,
    k: int = 10,
    mode: str = "hybrid",
    entities: frozenset[str] | None = None,
) -> list[list[SearchHit]]:
    """`chunk_search` for each query, in order: one embedding call and one read of the hits; with
    `entities`, within what is about them (`chunk_scope`), empty when nothing within matches.

    The queries after the first are its variants (the narrative route's glossary rewrites); one
    that is a near copy of the first (`near_copy`) searches the vector index with the first's vector.
    """
    scope = chunk_scope(entities) if entities is not None else None
    rankings = _ranked(queries, cleared=cleared, mode=mode, k=k, scope=scope)
    wanted = sorted({pk for ranked in rankings for pk, _ in ranked})
    by_id = {row[0]: row for row in _chunk_rows(wanted, cleared=cleared)} if wanted else {}
    return [
        [
            SearchHit(pk, by_id[pk][1], by_id[pk][2], score, by_id[pk][3], by_id[pk][4], by_id[pk][5], by_id[pk][6])
            for pk, score in ranked
            if pk in by_id
        ]
        for ranked in rankings
    ]


def _chunk_rows(ids: list[int], *, cleared: bool) -> list[tuple[int, str, str, str, int, str, str]]:
    """(id, document name, locator, text, document id, document issuer, RESTRICTED or "") of
    active chunks the caller may see.

    Plain SQL: this runs on every search, and the ORM's query compilation cost more than the query.
    """
    hidden, hidden_params = visible_to_sql("c.sensitivity", "d.sensitivity", cleared=cleared)
    # The documents table through the chunk's foreign key: retrieval sits below the documents app.
    chunk_table, document_table = Chunk._meta.db_table, Chunk.document.field.related_model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT c.id, d.name, c.locator, c.text, c.document_id, d.issuer, "
            "CASE WHEN c.sensitivity = %s OR d.sensitivity = %s THEN %s ELSE '' END "
            f"FROM {chunk_table} c JOIN {document_table} d ON d.id = c.document_id "
            f"WHERE c.id IN ({', '.join(['%s'] * len(ids))}) AND c.active{hidden}",
            [RESTRICTED, RESTRICTED, RESTRICTED, *ids, *hidden_params],
        )
        return [tuple(row) for row in cursor.fetchall()]


def chunk_list(*, document_id: int, cleared: bool) -> QuerySet[Chunk]:
    """A document's active chunks in reading order, as far as the caller may see them."""
    return visible_to(Chunk.objects.filter(document_id=document_id, active=True).order_by("seq"), cleared=cleared)


class OrmNarrativeRetriever:
    """The `NarrativeRetriever` port over the chunk table (hybrid when an embedder is configured)."""

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        return self.retrieve_many([query], cleared=cleared, k=k)[0]

    def retrieve_many(self, queries: Sequence[str], *, cleared: bool, k: int = 8) -> list[list[RetrievedChunk]]:
        return self._retrieved(chunk_search_many(queries, cleared=cleared, k=k))

    def retrieve_within(
        self, queries: Sequence[str], *, entities: frozenset[str], cleared: bool, k: int = 8
    ) -> list[list[RetrievedChunk]]:
        return self._retrieved(chunk_search_many(queries, cleared=cleared, k=k, entities=entities))

    @staticmethod
    def _retrieved(found: list[list[SearchHit]]) -> list[list[RetrievedChunk]]:
        return [
            [
                RetrievedChunk(h.chunk_id, h.doc, h.locator, h.snippet, h.score, h.document_id, h.issuer, h.sensitivity)
                for h in hits
            ]
            for hits in found
        ]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        """Documents ranked by their best chunk, each with up to three locators and a snippet."""
        hits = chunk_search(query, cleared=cleared, k=40)
        grouped: dict[int, list[SearchHit]] = {}
        for hit in hits:
            grouped.setdefault(hit.document_id, []).append(hit)
        sources = []
        for document_id, group in list(grouped.items())[:k]:
            locators = "; ".join(h.locator for h in group[:3])
            snippet = group[0].snippet if len(group[0].snippet) <= 160 else group[0].snippet[:159] + "…"
            sensitivity = next((h.sensitivity for h in group if h.sensitivity), "")
            sources.append(Source("document", group[0].doc, locators, document_id, snippet, sensitivity))
        return sources
