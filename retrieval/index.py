"""The lexical and vector indexes each process keeps in memory, refreshed and rebuilt only when the
chunk set's version stamp changes (never per request): the lexical search of every host, one or many
(`docs/operations.md`). A PostgreSQL full-text backend serves the same `LexicalIndex` port
without any index in the process, an order of magnitude slower.

A search may be kept within a `ChunkScope` (the documents some entities issued and the chunks
naming them): the scope is a mask applied before the top-k, like clearance, so its `k` places go
to chunks within it. In process the mask is read off the index itself (a name's terms are rows of
its matrix) and kept per snapshot; on PostgreSQL it is a condition of the same query.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from django.conf import settings
from django.db import close_old_connections, connection

from common.access import visible_to_sql
from core.model.facts import RESTRICTED

from .engine import BM25Index
from .models import Chunk, RetrievalState


@dataclass(frozen=True)
class ChunkScope:
    """What a search is kept within: the chunks of `documents`, and the chunks whose stored tokens
    hold every term of one of `names` (each a name as `text.name_terms` gives it)."""

    documents: frozenset[int]
    names: frozenset[tuple[str, ...]]


class LexicalIndex(Protocol):
    def search(
        self, query_tokens: list[str], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]: ...

    def search_many(
        self, queries_tokens: Sequence[list[str]], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[list[tuple[int, float]]]: ...


def _within(bm25: BM25Index, documents: np.ndarray, scope: ChunkScope) -> np.ndarray:
    """Which of the index's chunks lie within `scope`: a chunk of one of its documents, or one
    holding every term of one of its names (the terms' rows of the matrix say which do)."""
    inside = np.isin(documents, np.fromiter(scope.documents, dtype=np.int64, count=len(scope.documents)))
    matrix = bm25.matrix
    for terms in scope.names:
        rows = [bm25.vocabulary.get(term) for term in terms]
        if not rows or any(row is None for row in rows):
            continue  # a term no chunk holds: no chunk names it
        named = np.ones(bm25.size, dtype=bool)
        for row in rows:
            holds = np.zeros(bm25.size, dtype=bool)
            holds[matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]]] = True
            named &= holds
        inside |= named
    return inside


def retrieval_token() -> str:
    """The chunk set's version stamp: one primary-key read, done before every search."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version, token FROM {RetrievalState._meta.db_table} WHERE id = 1")
        state = cursor.fetchone()
    return f"{state[0]}:{state[1]}" if state else "0:"


def vectors_token() -> str:
    """The chunk set's and the stored vectors' stamps together (a vector index depends on both)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version, token, vectors FROM {RetrievalState._meta.db_table} WHERE id = 1")
        state = cursor.fetchone()
    return f"{state[0]}:{state[1]}:{state[2]}" if state else "0::0"


@dataclass
class _Delta:
    """What a refresh adds to a main index without rebuilding it: the chunks written since it was
    built (`pk` above its last), weighted with the main index's statistics, and which of the main
    index's chunks are still active."""

    ids: np.ndarray
    restricted: np.ndarray
    documents: np.ndarray  # each chunk's document id
    bm25: BM25Index
    alive: np.ndarray  # over the main index's chunks


@dataclass
class _Snapshot:
    token: str  # the version stamp this snapshot answers for
    ids: np.ndarray
    restricted: np.ndarray
    documents: np.ndarray  # each chunk's document id
    bm25: BM25Index
    delta: _Delta | None = None
    built: str = ""  # the stamp the main index was built at (`token` too, without a delta)
    # scope → its masks over the main index and the delta: a question's follow-ups ask the same one
    scopes: dict[ChunkScope, tuple[np.ndarray, np.ndarray | None]] = field(default_factory=dict, repr=False)

    def within(self, scope: ChunkScope) -> tuple[np.ndarray, np.ndarray | None]:
        """The masks of the chunks within `scope`, over the main index and over the delta."""
        masks = self.scopes.get(scope)
        if masks is None:
            delta = self.delta
            masks = (
                _within(self.bm25, self.documents, scope),
                _within(delta.bm25, delta.documents, scope) if delta is not None else None,
            )
            if len(self.scopes) >= SCOPES_KEPT:
                self.scopes.pop(next(iter(self.scopes)))
            self.scopes[scope] = masks
        return masks

    def within_ids(self, scope: ChunkScope) -> np.ndarray:
        """The ids of the chunks within `scope` (some perhaps inactive since: every hit is re-read)."""
        main, extra = self.within(scope)
        ids = self.ids[main]
        return ids if extra is None or self.delta is None else np.concatenate([ids, self.delta.ids[extra]])

    def search(
        self, query_tokens: list[str], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]:
        delta = self.delta
        main, extra = self.within(scope) if scope is not None else (None, None)
        allowed = None if cleared else ~self.restricted
        for mask in (delta.alive if delta is not None else None, main):
            if mask is not None:
                allowed = mask if allowed is None else allowed & mask
        positions, scores = self.bm25.search(query_tokens, k, allowed=allowed)
        hits = [(int(self.ids[p]), float(s)) for p, s in zip(positions, scores, strict=True)]
        if delta is None or not len(delta.ids):
            return hits
        allowed = None if cleared else ~delta.restricted
        if extra is not None:
            allowed = extra if allowed is None else allowed & extra
        positions, scores = delta.bm25.search(query_tokens, k, allowed=allowed)
        hits += [(int(delta.ids[p]), float(s)) for p, s in zip(positions, scores, strict=True)]
        return sorted(hits, key=lambda hit: -hit[1])[:k]  # stable: a tie keeps the older chunk first


SCOPES_KEPT = 64  # scopes whose masks a snapshot keeps


class InProcessLexicalIndex:
    """BM25 over the stored tokens of every active chunk, cached per process.

    The first search of a process builds the index. After a change (the chunk set's version stamp
    moved), the first search refreshes it before it runs: it adds the chunks written since the
    index was built (scored with the index's statistics) and drops the ones deleted or deactivated
    since (0.1–0.4 s at 100,000 chunks), so no process answers from before a write it could see.
    By default a background thread then rebuilds the exact index and replaces the refreshed one
    when it is done; searches meanwhile use the refreshed one. Every hit is re-read from the
    database with the caller's clearance and the chunk's `active` flag as well.
    """

    _lock = threading.Lock()
    _snapshot: _Snapshot | None = None
    _rebuilding: threading.Thread | None = None
    _refreshing: threading.Thread | None = None

    @classmethod
    def current(cls) -> _Snapshot:
        token = retrieval_token()
        snapshot = cls._snapshot
        background = settings.RAGSPINE.get("INDEX_BACKGROUND_REBUILD", True)
        if snapshot is not None and snapshot.token == token:
            if snapshot.built != token and background:  # current through a refresh: make it exact
                cls._rebuild_in_background(token)
            return snapshot
        if snapshot is not None and background:
            with cls._lock:  # the chunks written since, before this search: never an answer from before a write
                if cls._snapshot is not None and cls._snapshot.token != token:
                    cls._snapshot = cls._refreshed(cls._snapshot, token)
                fresh = cls._snapshot
            cls._rebuild_in_background(token)
            return fresh
        with cls._lock:
            if cls._snapshot is None or cls._snapshot.token != token:
                cls._snapshot = cls._build(token)
            return cls._snapshot

    @classmethod
    def _in_background(cls, slot: str, name: str, work: Callable[[], None]) -> None:
        with cls._lock:
            running = getattr(cls, slot)
            if running is not None and running.is_alive():
                return

            def run() -> None:
                try:
                    work()
                finally:
                    close_old_connections()
                    connection.close()

            thread = threading.Thread(target=run, name=name, daemon=True)
            setattr(cls, slot, thread)
            thread.start()

    @classmethod
    def _rebuild_in_background(cls, token: str) -> None:
        def rebuild() -> None:
            fresh = cls._build(token)
            now = retrieval_token()
            if now != token:  # written to while it was built: never publish an index older than a refresh's
                fresh = cls._refreshed(fresh, now)
            with cls._lock:
                cls._snapshot = fresh

        cls._in_background("_rebuilding", "ragspine-bm25-rebuild", rebuild)

    @staticmethod
    def _refreshed(base: _Snapshot, token: str) -> _Snapshot:
        last = int(base.ids[-1]) if len(base.ids) else 0
        ids, restricted, owners = array("q"), array("b"), array("q")
        rows = (
            Chunk.objects.filter(active=True, pk__gt=last)
            .order_by("pk")
            .values_list("pk", "tokens", "sensitivity", "document_id")
        )

        def documents() -> Iterator[list[str]]:
            for pk, stored, sensitivity, document in rows.iterator(chunk_size=5000):
                ids.append(pk)
                restricted.append(sensitivity == RESTRICTED)
                owners.append(document)
                yield stored.split()

        bm25 = BM25Index(documents(), statistics=base.bm25)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {Chunk._meta.db_table} WHERE active AND id <= %s", [last])
            active = np.fromiter((row[0] for row in cursor.fetchall()), dtype=np.int64)
        delta = _Delta(
            np.asarray(ids, dtype=np.int64),
            np.asarray(restricted, dtype=np.int8).astype(bool),
            np.asarray(owners, dtype=np.int64),
            bm25,
            np.isin(base.ids, active),
        )
        return _Snapshot(token, base.ids, base.restricted, base.documents, base.bm25, delta, base.built)

    @staticmethod
    def _build(token: str) -> _Snapshot:
        rows = (
            Chunk.objects.filter(active=True).order_by("pk").values_list("pk", "tokens", "sensitivity", "document_id")
        )
        ids, restricted, owners = array("q"), array("b"), array("q")

        def documents() -> Iterator[list[str]]:  # streamed: the index never holds every token list
            for pk, stored, sensitivity, document in rows.iterator(chunk_size=5000):
                ids.append(pk)
                restricted.append(sensitivity == RESTRICTED)
                owners.append(document)
                yield stored.split()

        bm25 = BM25Index(documents())
        return _Snapshot(
            token,
            np.asarray(ids, dtype=np.int64),
            np.asarray(restricted, dtype=np.int8).astype(bool),
            np.asarray(owners, dtype=np.int64),
            bm25,
            built=token,
        )

    def search(
        self, query_tokens: list[str], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]:
        return self.search_many([query_tokens], cleared=cleared, k=k, scope=scope)[0]

    def search_many(
        self, queries_tokens: Sequence[list[str]], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[list[tuple[int, float]]]:
        snapshot = self.current()  # one version-stamp read for all the queries
        return [snapshot.search(query_tokens, cleared=cleared, k=k, scope=scope) for query_tokens in queries_tokens]

    def within_ids(self, scope: ChunkScope) -> np.ndarray:
        return self.current().within_ids(scope)


def _quoted(term: str) -> str:
    return "'" + term.replace("'", "''").replace("\\", "\\\\") + "'"


def scope_sql(scope: ChunkScope, prefix: str = "") -> tuple[str, list[object]]:
    """` AND (…)`: the condition that keeps a chunk-table query within `scope` (PostgreSQL)."""
    parts: list[str] = []
    params: list[object] = []
    if scope.documents:
        parts.append(f"{prefix}document_id = ANY(%s)")
        params.append(sorted(scope.documents))
    names = sorted(terms for terms in scope.names if terms)
    if names:
        parts.append(f"{prefix}tokens_tsv @@ to_tsquery('simple', %s)")
        params.append(" | ".join("(" + " & ".join(_quoted(t) for t in terms) + ")" for terms in names))
    return (f" AND ({' OR '.join(parts)})" if parts else " AND FALSE"), params


class PostgresLexicalIndex:
    """Full-text search over the stored tokens, with the GIN index of migration 0002."""

    def search(
        self, query_tokens: list[str], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]:
        terms = sorted({t for t in query_tokens if t})
        if not terms:
            return []
        query = " | ".join(_quoted(t) for t in terms)
        hidden, hidden_params = visible_to_sql("sensitivity", cleared=cleared)
        within, within_params = scope_sql(scope) if scope is not None else ("", [])
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id, ts_rank(tokens_tsv, q) AS score "
                "FROM retrieval_chunk, to_tsquery('simple', %s) AS q "
                f"WHERE active AND tokens_tsv @@ q{hidden}{within} "
                "ORDER BY score DESC, id LIMIT %s",
                [query, *hidden_params, *within_params, k],
            )
            return [(int(pk), float(score)) for pk, score in cursor.fetchall()]

    def search_many(
        self, queries_tokens: Sequence[list[str]], *, cleared: bool, k: int, scope: ChunkScope | None = None
    ) -> list[list[tuple[int, float]]]:
        return [self.search(query_tokens, cleared=cleared, k=k, scope=scope) for query_tokens in queries_tokens]


def lexical_index() -> LexicalIndex:
    if settings.RAGSPINE.get("LEXICAL_BACKEND") == "postgres" and connection.vendor == "postgresql":
        return PostgresLexicalIndex()
    return InProcessLexicalIndex()


EF_SEARCH = 100


class VectorIndex:
    """Cosine nearest neighbours among the vectors of one embedder (`space`, its signature):
    pgvector's HNSW on PostgreSQL, exact numpy search on SQLite (a matrix per process, reloaded
    when the chunks or the stored vectors change)."""

    _lock = threading.Lock()
    _cache: tuple[str, np.ndarray, np.ndarray, np.ndarray] | None = None

    def search(
        self, vector: list[float], *, cleared: bool, k: int, space: str, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]:
        return self.search_many([vector], cleared=cleared, k=k, space=space, scope=scope)[0]

    def search_many(
        self, vectors: Sequence[list[float]], *, cleared: bool, k: int, space: str, scope: ChunkScope | None = None
    ) -> list[list[tuple[int, float]]]:
        if connection.vendor == "postgresql":
            return [self._pg_search(vector, cleared=cleared, k=k, space=space, scope=scope) for vector in vectors]
        if not vectors:
            return []
        _, ids, restricted, matrix = self._matrix(space)  # one version-stamp read for all of them
        # The chunks within the scope, as the in-process lexical index tells them (its terms are the chunks').
        outside = None if scope is None else ~np.isin(ids, InProcessLexicalIndex().within_ids(scope))
        return [
            self._numpy_search(ids, restricted, matrix, vector, cleared=cleared, k=k, outside=outside)
            for vector in vectors
        ]

    @staticmethod
    def _numpy_search(
        ids: np.ndarray,
        restricted: np.ndarray,
        matrix: np.ndarray,
        vector: list[float],
        *,
        cleared: bool,
        k: int,
        outside: np.ndarray | None = None,
    ) -> list[tuple[int, float]]:
        if not len(ids) or matrix.shape[1] != len(vector):
            return []
        query = np.asarray(vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        scores = matrix @ query
        if not cleared:
            scores = np.where(restricted, -np.inf, scores)
        if outside is not None:
            scores = np.where(outside, -np.inf, scores)
        k = min(k, len(ids))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    @classmethod
    def _matrix(cls, space: str) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
        key = f"{vectors_token()}:{space}"
        cache = cls._cache
        if cache is not None and cache[0] == key:
            return cache
        with cls._lock:
            rows = list(
                Chunk.objects.filter(active=True, embedding__isnull=False, embedder=space)
                .order_by("pk")
                .values_list("pk", "sensitivity", "embedding")
            )
            ids = np.asarray([r[0] for r in rows], dtype=np.int64)
            restricted = np.asarray([r[1] == RESTRICTED for r in rows], dtype=bool)
            dims = {len(r[2]) for r in rows}
            width = dims.pop() if len(dims) == 1 else 0
            matrix = np.asarray([r[2] for r in rows] if width else [], dtype=np.float32).reshape(
                len(rows) if width else 0, width
            )
            if not width:
                ids, restricted = ids[:0], restricted[:0]
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = matrix / np.where(norms == 0, 1.0, norms)
            cls._cache = (key, ids, restricted, matrix)
            return cls._cache

    @staticmethod
    def _pg_search(
        vector: list[float], *, cleared: bool, k: int, space: str, scope: ChunkScope | None = None
    ) -> list[tuple[int, float]]:
        dim = len(vector)
        literal = "[" + ",".join(repr(float(x)) for x in vector) + "]"
        hidden, hidden_params = visible_to_sql("sensitivity", cleared=cleared)
        within, within_params = scope_sql(scope) if scope is not None else ("", [])
        with connection.cursor() as cursor:
            # pgvector's HNSW scan returns at most `ef_search` rows (40 by default): never fewer
            # than the candidates asked for.
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(max(EF_SEARCH, 2 * k))])
            if scope is not None:  # scan on until the scope's rows are found, for this query only
                cursor.execute(_ITERATIVE_SCAN, ["strict_order"])
            cursor.execute(
                f"SELECT id, 1 - ((embedding::vector({dim})) <=> %s::vector({dim})) AS score FROM retrieval_chunk "
                f"WHERE active AND embedding IS NOT NULL AND vector_dims(embedding) = {dim} AND embedder = %s"
                f"{hidden}{within} ORDER BY (embedding::vector({dim})) <=> %s::vector({dim}) LIMIT %s",
                [literal, space, *hidden_params, *within_params, literal, k],
            )
            found = [(int(pk), float(score)) for pk, score in cursor.fetchall()]
            if scope is not None:
                cursor.execute(_ITERATIVE_SCAN, ["off"])
            return found


# A filtered HNSW scan stops at `ef_search` candidates, most of them outside a narrow scope;
# pgvector 0.8 can scan on until it has its rows (an older one has no such setting).
_ITERATIVE_SCAN = (
    "SELECT set_config('hnsw.iterative_scan', %s, false) FROM pg_extension "
    "WHERE extname = 'vector' AND string_to_array(extversion, '.')::int[] >= '{0,8}'"
)
