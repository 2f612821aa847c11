"""Local HTTP servers that speak the Anthropic Messages and OpenAI Chat Completions APIs.

Each is scripted with a queue of replies (status, JSON body, optional delay) and records every
request it receives (path, headers, JSON body), so tests drive the real SDKs through
`base_url` and assert on what went over the wire.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any] | str  # a str is sent as text/html, as a misrouted base_url would answer
    delay: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class StubServer:
    """The scripted state shared with the handler threads."""

    path: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    root: str = ""
    default: Reply | None = None  # sent when the script has run out (a model that always says the same)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]


def _handler(stub: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms stall

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            with stub.lock:
                stub.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw or b"{}"))
                )
                reply = stub.replies.pop(0) if stub.replies else stub.default
            if self.path != stub.path:
                reply = Reply(404, {"error": {"type": "not_found_error", "message": f"no route {self.path}"}})
            elif reply is None:
                reply = Reply(500, {"error": {"type": "api_error", "message": "the test scripted no reply"}})
            if reply.delay:
                time.sleep(reply.delay)
            is_json = not isinstance(reply.body, str)
            payload = (json.dumps(reply.body) if is_json else str(reply.body)).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json" if is_json else "text/html")
                self.send_header("content-length", str(len(payload)))
                self.send_header("request-id", "req_stub")
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test)

    return Handler


@contextmanager
def stub_serve(path: str) -> Iterator[StubServer]:
    stub = StubServer(path)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    stub.root = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)


# -- Anthropic Messages API replies ---------------------------------------------------------
def anthropic_message(
    *blocks: dict[str, Any], stop_reason: str | None = None, input_tokens: int = 11, output_tokens: int = 7
) -> Reply:
    has_tool = any(b["type"] == "tool_use" for b in blocks)
    return Reply(
        200,
        {
            "id": "msg_stub",
            "type": "message",
            "role": "assistant",
            "model": "claude-stub",
            "content": list(blocks),
            "stop_reason": stop_reason or ("tool_use" if has_tool else "end_turn"),
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
    )


def anthropic_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def anthropic_tool_use(name: str, tool_input: Any, tool_id: str = "toolu_01") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def anthropic_error(status: int, message: str = "upstream trouble") -> Reply:
    kinds = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error", 401: "authentication_error"}
    return Reply(status, {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": message}})


# -- OpenAI Chat Completions replies --------------------------------------------------------
def openai_completion(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    *,
    prompt_tokens: int = 13,
    completion_tokens: int = 5,
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Reply(
        200,
        {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1_760_000_000,
            "model": "gpt-stub",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
    )


def openai_tool_call(name: str, arguments: str, call_id: str = "call_01") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai_error(status: int, message: str = "upstream trouble") -> Reply:
    kinds = {429: "rate_limit_exceeded", 500: "server_error", 401: "invalid_api_key"}
    return Reply(status, {"error": {"message": message, "type": kinds.get(status, "server_error"), "code": None}})
