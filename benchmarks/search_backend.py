"""`/v1/search` over 100,000 chunks through a real HTTP server, and ingestion throughput, for one
backend, in a fresh process (`python -m benchmarks.search_backend --backend sqlite|postgres`).

1. Ingestion: generated markdown documents (CMRC passages as sections) through
   `documents.services.document_ingest` — the service `manage.py ingest`, the upload jobs and
   `load_demo` use. `--ingest-docs 0` skips it.
2. Corpus: 100,000 chunks cut from CMRC 2018 dev passages (`corpora.speed_corpus`),
   tokenised by the product tokenizer and stored as chunks of 1,000 documents. With a mode other
   than bm25, every chunk also gets the real e5 vector of its text (`benchmarks.e5_vectors`:
   read from the disk cache, embedded on a miss), written by `_vectors_store`.
3. Search: gunicorn (one worker) on 127.0.0.1 serves the app; 200 CMRC questions go to
   `GET /v1/search?mode=…` (`--modes`, default bm25) over keep-alive HTTP after a warm-up request
   that builds the index (and, for hybrid or vector, loads the model). Modes other than bm25 are
   served with `RAGSPINE_EMBEDDER=e5-small`, so their time includes embedding the question. Each
   mode also reports the share of questions whose own CMRC passage has a chunk among the 10 hits,
   and a digest of every question's hits (ids and scores to 4 decimals), so two runs can be
   compared answer by answer.
4. `--scoped N`: the corpus's documents get N issuers in turn, and the same questions are searched
   in process (`chunk_search_many`, bm25) within one issuer's documents (SPEC §7, scoped to the
   entity asked) and unscoped, reporting both (the scoped path has no `/v1/search` parameter).
5. `--roots before=PATH,after=PATH` serves the same database from several checkouts of the
   code, alternating them `--rounds` times (before and after side by side in one run);
   each served run reports its own figures and digest under `label/lexical`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PER_DOC = 100


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _vectors_store(chunks: Sequence[Any], vectors: Any) -> None:
    """Give each unsaved `Chunk` its vector (one row of `vectors` per chunk, same order), stamped
    with the e5 embedder's signature, as the product's background embedding would."""
    from retrieval.embedders import E5SmallEmbedder

    signature = E5SmallEmbedder().signature
    for chunk, vector in zip(chunks, vectors, strict=True):
        chunk.embedding = vector
        chunk.embedder = signature


def _ingest(passages: list[str], documents: int) -> dict:
    from documents.services import document_ingest

    began = time.perf_counter()
    made = 0
    for n in range(documents):
        sections = [passages[(n * 3 + i) % len(passages)] for i in range(3)]
        body = "\n".join(f"## 第{i + 1}节\n" + "\n".join(s.split("\n")) for i, s in enumerate(sections))
        made += document_ingest(name=f"ingest-{n}.md", data=f"# 文档{n}\n{body}\n".encode()).chunks
    seconds = time.perf_counter() - began
    chars = sum(len(passages[(n * 3 + i) % len(passages)]) for n in range(documents) for i in range(3))
    return {
        "documents": documents,
        "chunks": made,
        "seconds": round(seconds, 2),
        "documents_per_s": round(documents / seconds, 1),
        "chunks_per_s": round(made / seconds),
        "chars_per_s": round(chars / seconds),
    }


def _corpus_store(chunks: list[str], vectors: Any) -> dict[int, int]:
    """Store `chunks` (with `vectors` when given) as documents of PER_DOC chunks; chunk id → chunk index."""
    from documents.models import Document
    from retrieval.models import Chunk
    from retrieval.services import retrieval_changed, vector_index_ensure
    from retrieval.text import tokens

    for start in range(0, len(chunks), PER_DOC * 50):
        documents = Document.objects.bulk_create(
            [
                Document(name=f"corpus-{i // PER_DOC}.md", sha256="", status="ready", media_type="text/markdown")
                for i in range(start, min(start + PER_DOC * 50, len(chunks)), PER_DOC)
            ]
        )
        rows, indexes = [], []
        for offset, document in enumerate(documents):
            for seq in range(PER_DOC):
                index = start + offset * PER_DOC + seq
                if index >= len(chunks):
                    break
                indexes.append(index)
                rows.append(
                    Chunk(
                        document=document,
                        seq=seq,
                        text=chunks[index],
                        locator=f"para={seq + 1}",
                        sensitivity="INTERNAL",
                        tokens=" ".join(tokens(chunks[index])),
                    )
                )
        if vectors is not None:
            _vectors_store(rows, [vectors[i] for i in indexes])
        Chunk.objects.bulk_create(rows, batch_size=2000)
    if vectors is not None:
        vector_index_ensure(int(vectors.shape[1]))
    retrieval_changed()
    by_id = {}
    for pk, name, seq in Chunk.objects.filter(document__name__startswith="corpus-").values_list(
        "pk", "document__name", "seq"
    ):
        by_id[pk] = int(name.removeprefix("corpus-").removesuffix(".md")) * PER_DOC + seq
    return by_id


def _vector_storage() -> dict:
    """Bytes the stored vectors take in the database (and the HNSW index on PostgreSQL)."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT count(*), coalesce(sum(pg_column_size(embedding)), 0) FROM retrieval_chunk")
            count, column = cursor.fetchone()
            cursor.execute(
                "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'chunk_embedding_hnsw_%'"
            )
            (index,) = cursor.fetchone()
            return {"rows": count, "column_bytes": int(column), "hnsw_index_bytes": int(index)}
        cursor.execute("SELECT count(*), coalesce(sum(length(embedding)), 0) FROM retrieval_chunk")
        count, column = cursor.fetchone()
    # SQLite searches an in-process numpy matrix: what loading it costs a process.
    from retrieval.embedders import E5SmallEmbedder
    from retrieval.index import VectorIndex

    before = _rss_kb()
    _token, ids, restricted, matrix = VectorIndex._matrix(E5SmallEmbedder().signature)
    return {
        "rows": count,
        "column_bytes": int(column),
        "numpy_bytes": int(matrix.nbytes + ids.nbytes + restricted.nbytes),
        "rss_growth_bytes": (_rss_kb() - before) * 1024,
    }


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _serve_and_measure(
    *,
    root: Path,
    env: dict[str, str],
    token: str,
    queries: list[tuple[str, frozenset[int]]],
    modes: list[str],
    hit_source: dict[int, int],
    sources: list[int],
    answers_out: dict[str, list] | None = None,
) -> dict[str, dict]:
    import httpx

    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    port = free_port()
    server = subprocess.Popen(
        [
            gunicorn,
            "ragspine_site.wsgi:application",
            "--worker-class",
            "gthread",
            "--workers",
            "1",
            "--threads",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=str(root),
    )
    out: dict[str, dict] = {}
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Token {token}"}, timeout=300
        ) as client:
            for _ in range(300):
                try:
                    client.get("/v1/health")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            for mode in modes:
                began = time.perf_counter()
                first = client.get("/v1/search", params={"q": queries[0][0], "mode": mode})
                assert first.status_code == 200, first.text
                warm = time.perf_counter() - began
                times, found, empty, answers = [], [], 0, []
                for question, relevant in queries[1:]:
                    began = time.perf_counter()
                    response = client.get("/v1/search", params={"q": question, "mode": mode, "k": 10})
                    times.append((time.perf_counter() - began) * 1000)
                    assert response.status_code == 200, response.text
                    hits = response.json()
                    answers.append([[hit["chunk_id"], round(hit["score"], 4)] for hit in hits])
                    empty += not hits
                    own = next(iter(relevant))
                    indexes = [hit_source.get(hit["chunk_id"]) for hit in hits[:10]]  # ingested ones are None
                    found.append(any(index is not None and sources[index] == own for index in indexes))
                times.sort()
                out[mode] = {
                    "n": len(times),
                    "p50_ms": round(statistics.median(times), 2),
                    "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                    "first_request_s": round(warm, 2),
                    "empty_results": empty,
                    "own_passage_recall@10": round(statistics.fmean(found), 4),
                    "answers_digest": hashlib.sha256(json.dumps(answers).encode()).hexdigest()[:16],
                }
                if answers_out is not None:
                    answers_out[mode] = answers
    finally:
        server.terminate()
        server.wait(timeout=30)
    return out


def answers_compare(reference: list, other: list) -> dict[str, int]:
    """Question by question: `same` hits in the same order; `tie_order` the same scores at every
    rank (to 1e-4 relative) but chunks of equal score in another order; `wrong` anything else."""
    out = {"same": 0, "tie_order": 0, "wrong": 0}
    for mine, theirs in zip(reference, other, strict=True):
        if [h[0] for h in mine] == [h[0] for h in theirs]:
            out["same"] += 1
        elif len(mine) == len(theirs) and all(
            abs(a[1] - b[1]) <= 1e-4 * max(abs(a[1]), 1.0) for a, b in zip(mine, theirs, strict=True)
        ):
            out["tie_order"] += 1
        else:
            out["wrong"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ingest-docs", type=int, default=200, help="0 skips the ingestion measure")
    parser.add_argument("--modes", default="bm25", help="comma-separated /v1/search modes: bm25, hybrid, vector")
    parser.add_argument("--roots", default="", help="label=PATH,...: checkouts to serve the same database from")
    parser.add_argument("--rounds", type=int, default=1, help="with --roots: how many times to alternate them")
    parser.add_argument("--lexical", default="inprocess,postgres", help="lexical backends to serve (PostgreSQL)")
    parser.add_argument("--scoped", type=int, default=0, help="issuers to give the documents; 0 skips the measure")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    roots = [(label, Path(path)) for label, _, path in (r.partition("=") for r in args.roots.split(",") if r)]
    roots = roots or [("", here)]
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    semantic = any(mode != "bm25" for mode in modes)

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"search-{os.getpid()}.sqlite3")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from benchmarks.corpora import cmrc_corpus, speed_corpus
    from retrieval.models import Chunk

    call_command("migrate", verbosity=0)
    passages, queries = cmrc_corpus()
    result: dict[str, object] = {"backend": args.backend}
    if args.ingest_docs:
        result["ingest"] = _ingest(passages, args.ingest_docs)

    chunks, sources, described = speed_corpus(passages, args.chunks)
    vectors = None
    if semantic:
        from benchmarks.e5_vectors import model_signature, vectors_cached

        began = time.perf_counter()
        vectors = vectors_cached(chunks, "passage")
        result["vectors"] = {
            "model": model_signature(),
            "chunks": len(vectors),
            "cache_read_or_embed_s": round(time.perf_counter() - began, 1),
        }
    began = time.perf_counter()
    hit_source = _corpus_store(chunks, vectors)
    result["corpus"] = {
        **{k: described[k] for k in ("chunks", "avg_chars", "how")},
        "load_seconds": round(time.perf_counter() - began, 1),
        "total_chunks": Chunk.objects.count(),
    }
    if semantic:
        result["vectors"]["storage"] = _vector_storage()  # type: ignore[index]
    user = get_user_model().objects.create_user("bench")
    token = Token.objects.create(user=user).key

    env = dict(os.environ)
    database = settings.DATABASES["default"]
    if args.backend == "postgres":
        env["RAGSPINE_BENCH_PG_HOST"] = database["HOST"]
    env["RAGSPINE_BENCH_SQLITE"] = str(database["NAME"])
    sample = queries[: args.queries + 1]
    searches: dict[str, dict] = {}
    lexical_modes = {"inprocess": modes, "postgres": ["bm25"] if "bm25" in modes else []}
    wanted = [name.strip() for name in args.lexical.split(",") if name.strip()]
    references: dict[str, tuple[str, list]] = {}  # each backend and mode's first run, to compare the others with
    for round_ in range(args.rounds if args.roots else 1):
        for label, root in roots:
            for lexical in wanted if args.backend == "postgres" else ["inprocess"]:
                if not lexical_modes[lexical]:
                    continue
                server_env = {**env, "RAGSPINE_LEXICAL_BACKEND": lexical}
                if semantic:
                    server_env["RAGSPINE_EMBEDDER"] = "e5-small"
                answers: dict[str, list] = {}
                measured = _serve_and_measure(
                    answers_out=answers,
                    root=root,
                    env=server_env,
                    token=token,
                    queries=sample,
                    modes=lexical_modes[lexical],
                    hit_source=hit_source,
                    sources=sources,
                )
                for mode, figures in measured.items():
                    key = lexical if mode == "bm25" else f"{lexical}+{mode}"
                    key = f"{label}/{key}" if label else key
                    key = f"{key}#{round_ + 1}" if args.rounds > 1 and args.roots else key
                    searches[key] = {"mode": mode, **figures}
                    reference = references.setdefault(f"{lexical}:{mode}", (key, answers[mode]))
                    if reference[0] != key:
                        searches[key]["answers_against"] = {reference[0]: answers_compare(reference[1], answers[mode])}
    result["search_http"] = searches
    if args.scoped:
        result["scoped"] = _scoped_measure(sample, args.scoped)
    print(json.dumps(result, ensure_ascii=False))


def _scoped_measure(queries: list[tuple[str, frozenset[int]]], issuers: int) -> dict:
    """In process: each question within one issuer's documents, and unscoped (p50 of each)."""
    from django.conf import settings

    from documents.models import Document
    from retrieval.selectors import chunk_search_many

    for n in range(issuers):
        Document.objects.filter(
            name__startswith="corpus-",
            pk__in=list(Document.objects.filter(name__startswith="corpus-").values_list("pk", flat=True)[n::issuers]),
        ).update(issuer=f"E{n:03d}")
    backends = (
        ["inprocess", "postgres"] if settings.DATABASES["default"]["ENGINE"].endswith("postgresql") else ["inprocess"]
    )
    out: dict[str, dict] = {}
    for backend in backends:
        settings.RAGSPINE["LEXICAL_BACKEND"] = backend
        chunk_search_many([queries[0][0]], cleared=False, k=10, mode="bm25")  # builds the index
        for label, entities in (("unscoped", None), ("scoped", frozenset({"E007"}))):
            began = time.perf_counter()
            chunk_search_many([queries[0][0]], cleared=False, k=10, mode="bm25", entities=entities)
            first = (time.perf_counter() - began) * 1000
            times, hits = [], 0
            for question, _ in queries[1:]:
                began = time.perf_counter()
                found = chunk_search_many([question], cleared=False, k=10, mode="bm25", entities=entities)[0]
                times.append((time.perf_counter() - began) * 1000)
                hits += len(found)
            times.sort()
            out[f"{backend}/{label}"] = {
                "issuers": issuers,
                "n": len(times),
                "first_ms": round(first, 2),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                "hits_per_query": round(hits / len(times), 2),
            }
    return out


if __name__ == "__main__":
    main()
