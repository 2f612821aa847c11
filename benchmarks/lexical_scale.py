"""The two multi-host lexical paths (`docs/operations.md`) at scale, for one backend, in fresh
processes (`python -m benchmarks.lexical_scale --backend sqlite|postgres --chunks N --workdir DIR`).

1. Corpus: `--chunks` chunks of `corpora.speed_corpus` (CMRC 2018 dev sentence windows;
   past the ~100k unique windows, copies with a ` #copyN` suffix), stored as chunks of documents of
   100 with their product tokens (`retrieval.text.tokens`; a copy's tokens are its window's tokens
   plus the suffix's, the same bag of words as tokenising the copy).
2. Per-host in-process index (`--lexical inprocess`, the default): a fresh process builds
   `InProcessLexicalIndex` from the database, as a web worker does on its first search, and
   reports the build time, its resident memory (RSS growth and peak during the build, and the
   bytes of the index's arrays), the p50 / p95 of `search` over CMRC questions (the version-stamp
   read included) and their top-10 ids. Then freshness: a new document is written with
   `document_ingest` (the product's write path, bumping the version stamp) and the process
   searches for it every 50 ms; the time from the write's commit to the first search that returns
   it is the freshness after a write (the previous index serves meanwhile). Then it searches the
   CMRC questions every 50 ms until the full rebuild has replaced the refresh (`exact_after`);
   the search times from the write to then are reported too.
3. PostgreSQL full-text backend (`--lexical postgres`, PostgreSQL only): the same questions through
   `PostgresLexicalIndex.search`, and, as a floor for any ranking in SQL, the time PostgreSQL takes
   only to count the chunks matching the question's terms through the GIN index.
4. `--roots before=PATH,after=PATH --rounds R`: each measure runs from each checkout in turn
   (alternating, R times) against the same database; the checkout needs this file in its
   `benchmarks/` (copy it into an older one). Results are keyed `label/lexical#round`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PER_DOC = 100


def _rss_kb(field: str = "VmRSS") -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _setup(args: argparse.Namespace) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ.setdefault("RAGSPINE_BENCH_SQLITE", str(args.workdir / f"lexical-{os.getpid()}.sqlite3"))
    import django

    django.setup()


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
    }


def _store(n_chunks: int) -> dict[str, Any]:
    """Store `n_chunks` chunks with their tokens; returns how the corpus was made."""
    from django.db import connection, transaction

    from benchmarks.corpora import cmrc_corpus, speed_corpus
    from documents.models import Document
    from retrieval.models import Chunk
    from retrieval.services import retrieval_changed
    from retrieval.text import tokens

    passages, _ = cmrc_corpus()
    chunks, _sources, described = speed_corpus(passages, n_chunks)
    began = time.perf_counter()
    cache: dict[str, str] = {}
    suffixes: dict[str, str] = {}
    stored: list[str] = []
    for text in chunks:
        window, marker, copy = text.partition(" #copy")
        words = cache.get(window)
        if words is None:
            words = cache[window] = " ".join(tokens(window))
        if marker:
            suffix = suffixes.get(copy)
            if suffix is None:
                suffix = suffixes[copy] = " ".join(tokens(f" #copy{copy}"))
            words = f"{words} {suffix}"
        stored.append(words)
    tokenise_s = time.perf_counter() - began
    began = time.perf_counter()
    chunk_table = Chunk._meta.db_table
    step = PER_DOC * 1000
    for start in range(0, len(chunks), step):
        with transaction.atomic():
            documents = Document.objects.bulk_create(
                [
                    Document(name=f"corpus-{i // PER_DOC}.md", sha256="", status="ready", media_type="text/markdown")
                    for i in range(start, min(start + step, len(chunks)), PER_DOC)
                ]
            )
            rows = []
            for offset, document in enumerate(documents):
                for seq in range(PER_DOC):
                    index = start + offset * PER_DOC + seq
                    if index >= len(chunks):
                        break
                    rows.append(
                        (document.pk, seq, chunks[index], f"para={seq + 1}", "", "INTERNAL", stored[index], "", True)
                    )
            with connection.cursor() as cursor:
                cursor.executemany(
                    f"INSERT INTO {chunk_table} (document_id, seq, text, locator, heading, sensitivity, tokens, "
                    "embedder, active) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )
    retrieval_changed()
    return {
        **{k: described[k] for k in ("chunks", "unique_windows", "avg_chars")},
        "avg_tokens": round(statistics.fmean(len(s.split()) for s in stored), 1),
        "tokenise_s": round(tokenise_s, 1),
        "store_s": round(time.perf_counter() - began, 1),
    }


def _questions(count: int) -> list[str]:
    from benchmarks.corpora import cmrc_corpus

    _, queries = cmrc_corpus()
    return [question for question, _ in queries[:count]]


def answers_compare(reference: list, other: list) -> dict[str, int]:
    from benchmarks.search_backend import answers_compare as compare

    return compare(reference, other)


def _digest(rankings: list[list[int]]) -> str:
    return hashlib.sha256(json.dumps(rankings).encode()).hexdigest()[:16]


def measure_inprocess(args: argparse.Namespace) -> dict[str, Any]:
    from django.conf import settings

    from documents.services import document_delete, document_ingest
    from retrieval.index import InProcessLexicalIndex
    from retrieval.text import tokens

    settings.RAGSPINE["INDEX_BACKGROUND_REBUILD"] = True
    questions = [tokens(q) for q in _questions(args.queries)]
    index = InProcessLexicalIndex()
    before, began = _rss_kb(), time.perf_counter()
    snapshot = InProcessLexicalIndex.current()
    build_s = time.perf_counter() - began
    after, peak = _rss_kb(), _rss_kb("VmHWM")
    matrix = snapshot.bm25.matrix
    arrays = matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes
    arrays += snapshot.ids.nbytes + snapshot.restricted.nbytes
    times, tops = [], []
    for query in questions:
        began = time.perf_counter()
        hits = index.search(query, cleared=False, k=10)
        times.append((time.perf_counter() - began) * 1000)
        tops.append([[pk, round(score, 4)] for pk, score in hits])
    # Freshness: a write through the product's path, then a search every 50 ms until it is found.
    probe = f"火星仓库的钛合金货架 probe{os.getpid()}"  # a word no other chunk has
    written_doc = document_ingest(
        name=f"fresh-probe-{os.getpid()}.md", data=f"# 火星\n## 仓储\n{probe}启用。\n".encode()
    )
    written = time.perf_counter()
    during: list[float] = []
    found_after = None
    while time.perf_counter() - written < args.fresh_timeout:
        began = time.perf_counter()
        hits = index.search(tokens(probe), cleared=False, k=3)
        during.append((time.perf_counter() - began) * 1000)
        if any(pk not in snapshot.ids for pk, _ in hits):
            found_after = time.perf_counter() - written
            break
        time.sleep(0.05)
    # A refresh finds it before the full rebuild lands: keep searching until that lands too.
    exact_after = found_after
    while getattr(InProcessLexicalIndex._snapshot, "delta", None) is not None:
        began = time.perf_counter()
        index.search(questions[len(during) % len(questions)], cleared=False, k=10)
        during.append((time.perf_counter() - began) * 1000)
        time.sleep(0.05)
        exact_after = time.perf_counter() - written
    document_delete(document=written_doc.document)  # the next measure reads the corpus as it was
    return {
        "build_s": round(build_s, 2),
        "rss_growth_mb": round((after - before) / 1024, 1),
        "rss_peak_growth_mb": round((peak - before) / 1024, 1),
        "index_arrays_mb": round(arrays / 2**20, 1),
        "nonzeros": int(matrix.nnz),
        "terms": int(matrix.shape[0]),
        "search": _percentiles(times),
        "top10_digest": _digest(tops),
        "tops": tops,
        "fresh_after_write_s": round(found_after, 2) if found_after is not None else None,
        "exact_after_write_s": round(exact_after, 2) if exact_after is not None else None,
        "search_during_rebuild": _percentiles(during),
    }


def measure_postgres(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection

    from retrieval.index import PostgresLexicalIndex
    from retrieval.text import tokens

    index = PostgresLexicalIndex()
    questions = [tokens(q) for q in _questions(args.pg_queries)]
    index.search(questions[0], cleared=False, k=10)
    times, counts, tops, matched = [], [], [], []
    for query in questions:
        began = time.perf_counter()
        hits = index.search(query, cleared=False, k=10)
        times.append((time.perf_counter() - began) * 1000)
        tops.append([[pk, round(score, 4)] for pk, score in hits])
        terms = " | ".join("'" + t.replace("'", "''").replace("\\", "\\\\") + "'" for t in sorted(set(query)))
        began = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM retrieval_chunk, to_tsquery('simple', %s) q WHERE active AND tokens_tsv @@ q",
                [terms],
            )
            matched.append(cursor.fetchone()[0])
        counts.append((time.perf_counter() - began) * 1000)
    return {
        "search": _percentiles(times),
        "match_count_only": _percentiles(counts),
        "matched_chunks_p50": int(statistics.median(matched)),
        "top10_digest": _digest(tops),
        "tops": tops,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pg-queries", type=int, default=50)
    parser.add_argument("--lexical", default="inprocess", help="comma-separated: inprocess, postgres")
    parser.add_argument("--fresh-timeout", type=float, default=900.0)
    parser.add_argument("--roots", default="", help="label=PATH,...: checkouts to measure from, alternating")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--child", choices=["inprocess", "postgres"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.child:
        _setup(args)
        measure = measure_inprocess if args.child == "inprocess" else measure_postgres
        print(json.dumps(measure(args)))
        return
    _setup(args)
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    result: dict[str, Any] = {"backend": args.backend, "corpus": _store(args.chunks)}
    env = dict(os.environ)
    database = settings.DATABASES["default"]
    if args.backend == "postgres":
        env["RAGSPINE_BENCH_PG_HOST"] = database["HOST"]
    env["RAGSPINE_BENCH_SQLITE"] = str(database["NAME"])
    references: dict[str, tuple[str, list]] = {}  # each backend's first run, to compare the others with
    roots = [(label, Path(path)) for label, _, path in (r.partition("=") for r in args.roots.split(",") if r)]
    roots = roots or [("", Path(__file__).resolve().parent.parent)]
    for round_ in range(args.rounds if args.roots else 1):
        for label, root in roots:
            for lexical in [name.strip() for name in args.lexical.split(",") if name.strip()]:
                if lexical == "postgres" and args.backend != "postgres":
                    continue
                command = [sys.executable, "-m", "benchmarks.lexical_scale", *sys.argv[1:], "--child", lexical]
                done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=root)
                if done.returncode != 0:
                    raise SystemExit(f"{lexical} measure failed:\n{done.stderr[-3000:]}")
                key = f"{label}/{lexical}" if label else lexical
                key = f"{key}#{round_ + 1}" if args.roots and args.rounds > 1 else key
                measured = json.loads(done.stdout.strip().splitlines()[-1])
                tops = measured.pop("tops")
                reference = references.setdefault(lexical, (key, tops))
                if reference[0] != key:
                    measured["answers_against"] = {reference[0]: answers_compare(reference[1], tops)}
                result[key] = {**measured, "load_average": round(os.getloadavg()[0], 2)}
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
