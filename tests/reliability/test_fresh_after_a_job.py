"""No stale answers after a change: a long-lived process that answered before a background job
committed answers from the job's writes at its very next question, as a second web worker would.

The reader (`fresh_process.py reader`) keeps the production default, an index rebuilt in the
background; the writer runs each onboarding step through the job path and exits. On SQLite they
share a database file; on PostgreSQL the test database, with the in-process index and with the
full-text backend that keeps none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from tests.factories import migration_seeds

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = HERE / "fresh_process.py"
ASK_BUSINESS = "远岫精工的主营业务是什么"
ASK_REVENUE = "远岫精工2024年营业收入是多少"
pytestmark = pytest.mark.django_db(transaction=True)


def _database_url(tmp_path: Path) -> str:
    """The database both processes use: the test database on PostgreSQL; on SQLite (held in
    memory by the test run) a file, migrated and loaded with the demo data by a process of its own."""
    if connection.vendor == "postgresql":
        migration_seeds()  # a transactional test that ran before flushed what the migrations wrote
        call_command("load_demo", stdout=StringIO())
        db = connection.settings_dict
        return f"postgres://{db['USER']}@/{db['NAME']}?host={db['HOST']}"
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url}
    for command in (["migrate", "-v0"], ["load_demo", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    return url


class _Reader:
    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), "reader"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, question: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(question + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the reader process died"
        return json.loads(line)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def _write(step: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "writer", step], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("lexical", ["inprocess", "postgres"])
def test_every_process_answers_from_a_job_from_its_next_question(tmp_path: Path, lexical: str) -> None:
    if lexical == "postgres" and connection.vendor != "postgresql":
        pytest.skip("the full-text backend is PostgreSQL's")
    env = {**os.environ, "DATABASE_URL": _database_url(tmp_path), "FRESH_LEXICAL": lexical}
    reader = _Reader(env)
    try:
        before = reader.ask(ASK_BUSINESS)  # the reader builds its index and glossary now
        assert "yuanxiu.docx" not in before["docs"]

        assert _write("upload", env) == "done"
        assert "yuanxiu.docx" in reader.ask(ASK_BUSINESS)["docs"]

        assert _write("company", env) == "done"  # the company added, the report read again with it
        after = reader.ask(ASK_BUSINESS)
        assert after["docs"] == ["yuanxiu.docx"] and "精密轴承" in after["answer"]
        # its revenue row, in the metric's unit (百万元): approved with the company as its issuer
        revenue = reader.ask(ASK_REVENUE)
        assert revenue["values"] == ["1.25000000"], revenue
    finally:
        reader.close()
