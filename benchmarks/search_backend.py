"""`/v1/search` over 100,000 chunks through a real HTTP server, and ingestion throughput, for one
backend, in a fresh process (`python -m benchmarks.search_backend --backend sqlite|postgres`).

1. Ingestion: generated markdown documents (CMRC passages as sections) through
   `documents.services.document_ingest` — the service `manage.py ingest`, the upload jobs and
   `load_demo` use.
2. Corpus: 100,000 chunks cut from CMRC 2018 dev passages (`retrieval_bench.speed_corpus`),
   tokenised by the product tokenizer and stored as chunks of 1,000 documents.
3. Search: gunicorn (one worker) on 127.0.0.1 serves the app; 200 CMRC questions go to
   `GET /v1/search?mode=bm25` over keep-alive HTTP after a warm-up request that builds the index.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ingest-docs", type=int, default=200)
    args = parser.parse_args()

    os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"
    os.environ["RAGSPINE_BENCH_DB"] = args.backend
    os.environ["RAGSPINE_BENCH_SQLITE"] = str(args.workdir / f"search-{os.getpid()}.sqlite3")
    import django

    django.setup()
    import httpx
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from benchmarks.retrieval_bench import cmrc_corpus, speed_corpus
    from documents.models import Document
    from documents.services import document_ingest
    from retrieval.models import Chunk
    from retrieval.services import retrieval_changed
    from retrieval.text import tokens

    call_command("migrate", verbosity=0)
    passages, queries = cmrc_corpus()
    result: dict[str, object] = {"backend": args.backend}

    began = time.perf_counter()
    made = 0
    for n in range(args.ingest_docs):
        sections = [passages[(n * 3 + i) % len(passages)] for i in range(3)]
        body = "\n".join(f"## 第{i + 1}节\n" + "\n".join(s.split("\n")) for i, s in enumerate(sections))
        made += document_ingest(name=f"ingest-{n}.md", data=f"# 文档{n}\n{body}\n".encode()).chunks
    seconds = time.perf_counter() - began
    chars = sum(len(passages[(n * 3 + i) % len(passages)]) for n in range(args.ingest_docs) for i in range(3))
    result["ingest"] = {
        "documents": args.ingest_docs,
        "chunks": made,
        "seconds": round(seconds, 2),
        "documents_per_s": round(args.ingest_docs / seconds, 1),
        "chunks_per_s": round(made / seconds),
        "chars_per_s": round(chars / seconds),
    }

    chunks, _, described = speed_corpus(passages, args.chunks)
    began = time.perf_counter()
    per_doc = 100
    for start in range(0, len(chunks), per_doc * 50):
        documents = Document.objects.bulk_create(
            [
                Document(name=f"corpus-{i // per_doc}.md", sha256="", status="ready", media_type="text/markdown")
                for i in range(start, min(start + per_doc * 50, len(chunks)), per_doc)
            ]
        )
        rows = []
        for offset, document in enumerate(documents):
            for seq in range(per_doc):
                index = start + offset * per_doc + seq
                if index >= len(chunks):
                    break
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
        Chunk.objects.bulk_create(rows, batch_size=2000)
    retrieval_changed()
    result["corpus"] = {
        **{k: described[k] for k in ("chunks", "avg_chars", "how")},
        "load_seconds": round(time.perf_counter() - began, 1),
        "total_chunks": Chunk.objects.count(),
    }
    user = get_user_model().objects.create_user("bench")
    token = Token.objects.create(user=user).key

    env = dict(os.environ)
    database = settings.DATABASES["default"]
    if args.backend == "postgres":
        env["RAGSPINE_BENCH_PG_HOST"] = database["HOST"]
    env["RAGSPINE_BENCH_SQLITE"] = str(database["NAME"])
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    backends = ["inprocess", "postgres"] if args.backend == "postgres" else ["inprocess"]
    searches = {}
    for lexical in backends:
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
            env={**env, "RAGSPINE_LEXICAL_BACKEND": lexical},
            cwd=str(Path(__file__).resolve().parent.parent),
        )
        try:
            with httpx.Client(
                base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Token {token}"}, timeout=120
            ) as client:
                for _ in range(100):
                    try:
                        client.get("/v1/health")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                began = time.perf_counter()
                first = client.get("/v1/search", params={"q": queries[0][0], "mode": "bm25"})
                assert first.status_code == 200, first.text
                warm = time.perf_counter() - began
                times = []
                empty = 0
                for query in queries[1 : args.queries + 1]:
                    began = time.perf_counter()
                    response = client.get("/v1/search", params={"q": query[0], "mode": "bm25", "k": 10})
                    times.append((time.perf_counter() - began) * 1000)
                    assert response.status_code == 200, response.text
                    empty += not response.json()
                times.sort()
                searches[lexical] = {
                    "n": len(times),
                    "p50_ms": round(statistics.median(times), 2),
                    "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                    "first_request_s": round(warm, 2),
                    "empty_results": empty,
                }
        finally:
            server.terminate()
            server.wait(timeout=30)
    result["search_http"] = searches
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
