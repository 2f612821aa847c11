"""The golden set through the real Anthropic SDK against a local server that behaves like a compliant model.

It calls `query_metric` with the slots it is given, answers in prose after the tool result, and
writes narrative answers from the first numbered snippet with a `[1]` citation. The gates must
be exactly those the offline mock reaches.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "golden.jsonl"
pytestmark = pytest.mark.django_db


def compliant_reply(body: dict[str, Any]) -> dict[str, Any]:
    messages = body["messages"]
    last = messages[-1]["content"]
    blocks: list[dict[str, Any]]
    if body.get("tools"):
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            blocks = [{"type": "text", "text": "已根据工具结果作答。"}]
        else:
            text = messages[0]["content"] if isinstance(messages[0]["content"], str) else ""
            slots = json.loads(re.search(r"slots: (\{.*\})", text).group(1))
            blocks = [{"type": "tool_use", "id": "toolu_1", "name": "query_metric", "input": slots}]
    else:
        text = last if isinstance(last, str) else ""
        snippet = re.search(r"\[1\] （[^）]*）([^。\n]*。?)", text)
        blocks = [{"type": "text", "text": (snippet.group(1) if snippet else "资料不足。") + " [1]"}]
    stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "m"),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        payload = json.dumps(compliant_reply(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def evaluate() -> dict[str, Any]:
    out = StringIO()
    call_command("evaluate", "--golden", str(GOLDEN), "--json", "--baseline", "/nonexistent", stdout=out)
    return json.loads(out.getvalue())


def test_the_golden_set_passes_the_same_with_anthropic_as_with_mock(demo, settings, monkeypatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with_mock = evaluate()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings.RAGSPINE = {
            **settings.RAGSPINE,
            "LLM_PROVIDER": "anthropic",
            "ANTHROPIC_API_KEY": "test-key",
            "LLM_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
            "LLM_MAX_RETRIES": 0,
        }
        with_anthropic = evaluate()
    finally:
        server.shutdown()
    assert with_anthropic["passed"] == with_mock["passed"], with_anthropic["failed"]
    assert with_anthropic["gates"] == with_mock["gates"] and with_anthropic["fabrication_count"] == 0
