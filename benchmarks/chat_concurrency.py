"""Concurrent chat calls on the SQLite default (issue Y): `python -m benchmarks.chat_concurrency
--workdir DIR [--clients 50]`. A fresh SQLite database with the demo data, gunicorn with the
settings `make run` uses (threads in two workers), and `--clients` analysts, each with an API
token, sending the same OpenAI-SDK chat call at once, then a follow-up in the same transcript:
every call writes a conversation turn and a trace row. Prints the errors (must be 0) and the
latencies as JSON."""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ("中国内地FY2025的营收是多少", "那香港呢？")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    database = args.workdir / f"chat-{os.getpid()}.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "ragspine_site.settings.base",
    }
    env["RAGSPINE_API_RATE"] = env["RAGSPINE_ASK_RATE"] = "100000/min"
    python = sys.executable
    for command in (["migrate", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    tokens = subprocess.run(
        [python, "-c", _TOKENS, str(args.clients)], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    port = _free_port()
    server = subprocess.Popen(
        [
            str(Path(python).parent / "gunicorn"),
            "ragspine_site.wsgi",
            f"--bind=127.0.0.1:{port}",
            f"--workers={args.workers}",
            f"--threads={args.threads}",
            "--timeout=120",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(port)
        result = _load(f"http://127.0.0.1:{port}", tokens)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(json.dumps({"clients": args.clients, "backend": "sqlite", **result}, ensure_ascii=False))


_TOKENS = """
import sys, django
django.setup()
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
users = get_user_model()
for i in range(int(sys.argv[1])):
    user, _ = users.objects.get_or_create(username=f"bench_analyst_{i}")
    print(Token.objects.get_or_create(user=user)[0].key)
"""


def _load(base: str, tokens: list[str]) -> dict[str, Any]:
    from openai import OpenAI

    errors: list[str] = []
    times: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(len(tokens))

    def analyst(token: str) -> None:
        client = OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0, timeout=120)
        start.wait()
        messages: list[dict[str, str]] = []
        for question in QUESTIONS:
            messages.append({"role": "user", "content": question})
            began = time.perf_counter()
            try:
                reply = client.chat.completions.create(
                    model="ragspine", messages=messages, extra_body={"reference_date": "2026-03-15"}
                )
                text = reply.choices[0].message.content or ""
                if not reply.ragspine["facts"]:  # type: ignore[attr-defined]
                    raise ValueError(f"no figure for {question}: {text[:60]}")
            except Exception as error:  # every failure is counted, whatever it is
                with lock:
                    errors.append(f"{type(error).__name__}: {str(error)[:120]}")
                return
            with lock:
                times.append((time.perf_counter() - began) * 1000)
            messages.append({"role": "assistant", "content": text})

    threads = [threading.Thread(target=analyst, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times.sort()
    return {
        "calls": len(tokens) * len(QUESTIONS),
        "errors": len(errors),
        "error_examples": errors[:3],
        "p50_ms": round(statistics.median(times), 1) if times else None,
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1) if times else None,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(port: int) -> None:
    for _ in range(600):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not start")


if __name__ == "__main__":
    main()
