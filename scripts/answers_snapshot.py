"""Snapshot every golden-set answer, blocking and streamed, plus the OpenAPI schema, to a folder.

Usage: `.venv/bin/python scripts/answers_snapshot.py OUT_DIR [GOLDEN_DIR]`. On a fresh SQLite
database holding the demo data, asks each question of `golden`, `computed`, `phrasing` and
`trends` (in GOLDEN_DIR, default `../shared/golden`) as the cleared and the uncleared analyst,
through `POST /v1/ask` and `POST /v1/ask/stream`, and writes one JSON file per set with request
ids and conversation ids blanked, plus `openapi.yaml`. Two snapshots of trees that behave the
same are identical under `diff -r`, so a refactor can show it changed no answer.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from io import StringIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_DB = Path(tempfile.mkdtemp(prefix="ragspine-snapshot-")) / "snapshot.sqlite3"
os.environ["RAGSPINE_BENCH_SQLITE"] = str(_DB)
os.environ["DJANGO_SETTINGS_MODULE"] = "ragspine_site.settings.bench"

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

SETS = ("golden", "computed", "phrasing", "trends")
USERS = ("analyst", "analyst_cleared")
VOLATILE = {"request_id", "conversation_id"}


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else _scrub(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _stream_events(body: str) -> list[dict[str, Any]]:
    events = []
    for block in body.split("\n\n"):
        if not block.strip():
            continue
        name, data = "", ""
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
        events.append({"event": name, "data": _scrub(json.loads(data))})
    return events


def _client(username: str) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=get_user_model().objects.get(username=username))
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def _ask(client: APIClient, path: str, case: dict[str, Any], conversation: str | None) -> Any:
    body: dict[str, Any] = {"question": case["question"]}
    if case.get("reference_date"):
        body["reference_date"] = case["reference_date"]
    if conversation:
        body["conversation_id"] = conversation
    response = client.post(path, body, format="json")
    if path.endswith("/stream") and response.status_code == 200:
        text = b"".join(response.streaming_content).decode("utf-8")
        return {"status": 200, "events": _stream_events(text)}
    return {"status": response.status_code, "body": _scrub(response.json())}


def main() -> None:
    out = Path(sys.argv[1])
    golden = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT.parent / "shared" / "golden"
    out.mkdir(parents=True, exist_ok=True)
    call_command("migrate", verbosity=0)
    call_command("load_demo", stdout=StringIO())
    clients = {name: _client(name) for name in USERS}
    counter = 0
    for name in SETS:
        cases = [json.loads(line) for line in (golden / f"{name}.jsonl").read_text().splitlines() if line.strip()]
        record = []
        for case in cases:
            for username in USERS:
                for path in ("/v1/ask", "/v1/ask/stream"):
                    conversation = None
                    if case.get("before"):
                        counter += 1
                        conversation = f"snapshot-{counter}"
                        for question in case["before"]:
                            _ask(clients[username], "/v1/ask", {**case, "question": question}, conversation)
                    answer = _ask(clients[username], path, case, conversation)
                    record.append({"id": case["id"], "user": username, "path": path, "answer": answer})
        text = json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True)
        (out / f"{name}.json").write_text(text + "\n", encoding="utf-8")
    schema = StringIO()
    call_command("spectacular", stdout=schema)
    (out / "openapi.yaml").write_text(schema.getvalue(), encoding="utf-8")
    print(f"wrote {len(SETS)} sets and openapi.yaml to {out}")


if __name__ == "__main__":
    main()
