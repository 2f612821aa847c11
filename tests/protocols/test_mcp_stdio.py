"""`manage.py mcp`: the real `mcp` client SDK launches it as a subprocess and talks over stdio.

The subprocess cannot see the test database, so this module builds a SQLite file with the
demo data once (in a subprocess too) and points each server at it with `DATABASE_URL`.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.leakage import secrets_in
from tests.protocols.support import (
    COMPETITOR,
    FIGURE,
    FIRST,
    FOLLOW_UP,
    GROWTH,
    MISSING,
    restricted_probe,
    structured,
)

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-03-15"
# Runs in a subprocess against the file database: the demo data, a token per analyst, and the
# RESTRICTED rows (with the locators of the RESTRICTED document) the probes look for.
PREPARE = """
import json, django
from io import StringIO
django.setup()
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from django.contrib.auth import get_user_model
from tests.leakage import restricted_rows
from documents.models import Document
from facts.models import FactMetric
from retrieval.models import Chunk
call_command("migrate", verbosity=0)
call_command("load_demo", stdout=StringIO())
users = get_user_model().objects
tokens = {name: Token.objects.get_or_create(user=users.get(username=name))[0].key
          for name in ("analyst", "analyst_cleared")}
rows = restricted_rows()
documents = {
    pk: [*Chunk.objects.filter(document_id=pk).values_list("locator", flat=True),
         *FactMetric.objects.filter(document_id=pk).values_list("locator", flat=True)]
    for pk in rows["document_ids"]
}
print(json.dumps({"tokens": tokens, "rows": {k: sorted(v) for k, v in rows.items()}, "documents": documents}))
"""


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("stdio") / "demo.sqlite3"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ragspine_site.settings.test", "DATABASE_URL": f"sqlite:///{path}"}
    done = subprocess.run(
        [sys.executable, "-c", PREPARE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    prepared = json.loads(done.stdout.strip().splitlines()[-1])
    return {"env": env, **prepared}


def _serve(demo_file: dict[str, Any], token: str, session: Callable[[Client], Awaitable[Any]]) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp"],
        cwd=str(ROOT),
        env={**demo_file["env"], "RAGSPINE_API_TOKEN": token},
    )

    async def run() -> Any:
        async with Client(params) as client:
            return await session(client)

    return asyncio.run(run())


def test_the_stdio_server_answers_as_the_tokens_user_and_keeps_restricted_data_back(
    demo_file: dict[str, Any],
) -> None:
    documents = {int(pk): locators for pk, locators in demo_file["documents"].items()}

    async def session(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for name, question in (("figure", FIGURE), ("growth", GROWTH), ("missing", MISSING), ("rival", COMPETITOR)):
            seen[name] = structured(await client.call_tool("ask", {"question": question, "reference_date": DAY}))
        for name, question in (("first", FIRST), ("follow_up", FOLLOW_UP)):
            arguments = {"question": question, "conversation_id": "stdio-1", "reference_date": DAY}
            seen[name] = structured(await client.call_tool("ask", arguments))
        seen["probe"] = await restricted_probe(client, documents)
        return seen

    seen = _serve(demo_file, demo_file["tokens"]["analyst"], session)
    [fact] = seen["figure"]["facts"]
    assert fact["value"] == "96120.3" and fact["source"]["locator"] == "slide=3,table=1,row=营业收入,col=FY2025"
    assert seen["growth"]["computed"][0]["display"] in seen["growth"]["answer"]
    assert seen["missing"]["answer_kind"] == "refusal" and not seen["missing"]["facts"]
    assert seen["rival"]["clarification"]["mode"] == "out_of_scope_entity"
    assert [(f["entity"], f["value"]) for f in seen["follow_up"]["facts"]] == [("ACME_HK", "24015.8")]
    text, named = seen["probe"]
    rows = {kind: set(pks) for kind, pks in demo_file["rows"].items()}
    assert secrets_in(text) == []
    assert all(not (named[kind] & rows[kind]) for kind in named), named


def test_the_stdio_server_shows_a_cleared_user_what_the_probes_look_for(demo_file: dict[str, Any]) -> None:
    documents = {int(pk): locators for pk, locators in demo_file["documents"].items()}

    async def session(client: Client) -> tuple[str, dict[str, set[int]]]:
        return await restricted_probe(client, documents)

    text, named = _serve(demo_file, demo_file["tokens"]["analyst_cleared"], session)
    assert secrets_in(text) and named["document_ids"] & set(demo_file["rows"]["document_ids"])


def test_a_line_that_is_no_message_is_answered_and_the_session_goes_on(demo_file: dict[str, Any]) -> None:
    """A client that writes a broken line hears why (-32700, or -32600 for JSON that is not a
    message) and the server keeps serving: the next request is answered."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    lines = ["{not json", json.dumps({"hello": "world"}), json.dumps(initialize)]
    done = subprocess.run(
        [sys.executable, "manage.py", "mcp"],
        cwd=ROOT,
        env={**demo_file["env"], "RAGSPINE_API_TOKEN": demo_file["tokens"]["analyst"]},
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [reply.get("error", {}).get("code") for reply in replies[:2]] == [-32700, -32600], done.stderr[-2000:]
    assert all(reply["id"] is None for reply in replies[:2])
    assert replies[2]["id"] == 1 and replies[2]["result"]["serverInfo"]["name"] == "ragspine"


def _stdio(env: dict[str, str], lines: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    """`manage.py mcp` fed `lines` on standard input, which then closes."""
    return subprocess.run(
        [sys.executable, "manage.py", "mcp"],
        cwd=ROOT,
        env=env,
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_request_sent_before_the_input_closes_is_still_answered(demo_file: dict[str, Any]) -> None:
    """A script that pipes its requests and closes standard input gets every answer: the server
    finishes what it was asked before it stops (it answered `Connection closed` instead)."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "ask", "arguments": {"question": FIGURE}},
    }
    env = {**demo_file["env"], "RAGSPINE_API_TOKEN": demo_file["tokens"]["analyst"]}
    done = _stdio(env, [initialize, initialized, call])
    replies = {reply.get("id"): reply for reply in map(json.loads, filter(str.strip, done.stdout.splitlines()))}
    assert "result" in replies[2], (replies.get(2), done.stderr[-2000:])
    assert "96,120.3" in json.dumps(replies[2]["result"], ensure_ascii=False)


def test_a_database_without_the_tables_is_a_clear_error(demo_file: dict[str, Any], tmp_path: Path) -> None:
    env = {**demo_file["env"], "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}", "RAGSPINE_API_TOKEN": "x"}
    done = _stdio(env, [])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "DATABASE_URL" in done.stderr and "migrate" in done.stderr
