"""`/mcp`: the MCP server over Streamable HTTP, inside the Django app as it is served.

The app runs under WSGI (`runserver` in `make run`, gunicorn in production), so the MCP
transport runs in its stateless mode with JSON responses: every POST carries one complete
JSON-RPC exchange, which this view hands to the SDK's session manager as an ASGI request (on
an event loop of its own, `async_to_sync`) and returns as one HTTP response. Nothing is kept
between requests, so any worker can serve any request, and no stream is held open (a GET for
server-sent events, and a DELETE that would end a session, are answered 405, which clients take
as "no stream"). A JSON-RPC batch is refused (-32600): MCP has had none since 2025-06-18.
The tools reach the ORM back on this request's thread (`sync_to_async`), so
the request's database connection and transaction are the ones used.

Authentication and throttling are the API's: the same tokens (`Authorization: Bearer` or
`Token`), the per-user rate for every message and the `ask` rate for an `ask` call, counted
with `/v1/ask`'s. A failure before the server is reached is a JSON-RPC error object with the
HTTP status it stands for (401, 413, 429 with Retry-After), with the request's id when its body
could be read; nothing answers with a trace.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from common.api.authentication import ClearanceTokenAuthentication
from common.middleware import database_error_answer

from .auth import BearerTokenAuthentication
from .callers import ASK_SCOPE, CALLER, INTERNAL_ERROR, INVALID_REQUEST, THROTTLED, Caller, throttle_wait
from .chat import JsonWhateverIsAccepted

logger = logging.getLogger("ragspine")
# Response headers that describe the SDK's own framing, which Django redoes.
FRAMING = {"content-length", "transfer-encoding", "connection"}


def jsonrpc_error(
    status: int, code: int, message: str, *, headers: dict[str, str] | None = None, id: Any = None
) -> HttpResponse:
    body = {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
    response = JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _message_id(body: bytes) -> str | int | None:
    """The id of the request a refusal answers, when its body can be read: a client matches a
    response to its request by id, and an error with `id: null` answers none of them."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


def _asks(body: bytes) -> bool:
    """Whether the message is a call of the `ask` tool (which the `ask` rate also counts)."""
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict):
        return False
    params = message.get("params")
    return message.get("method") == "tools/call" and isinstance(params, dict) and params.get("name") == "ask"


def _scope(request: HttpRequest) -> dict[str, Any]:
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()]
    port = int(request.get_port() or 80)
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "server": (request.get_host().rsplit(":", 1)[0], port),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
    }


async def _exchange(scope: dict[str, Any], body: bytes) -> list[dict[str, Any]]:
    """One HTTP exchange with a server of its own (a fraction of a millisecond to build, and no
    state shared between the event loops of concurrent requests): the ASGI messages it sent back."""
    # Imported on first use: the SDK costs most of a second to import, which every process that
    # loads the URLconf (each worker, each management command's checks) would otherwise pay.
    from mcp.server.transport_security import TransportSecuritySettings

    from .mcp_server import mcp_server

    server = mcp_server(throttle=False)
    # The SDK's own Host check is off: Django has checked the Host against ALLOWED_HOSTS, and
    # the token, not a cookie, is what authenticates, so a rebound page has nothing to borrow.
    checks = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server.streamable_http_app(json_response=True, stateless_http=True, transport_security=checks)
    manager = server.session_manager
    delivered = False
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if delivered:
            return {"type": "http.disconnect"}
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return sent


class McpApi(APIView):
    authentication_classes = [BearerTokenAuthentication, ClearanceTokenAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes: list[type] = []  # per message, below: which rate applies depends on the message
    parser_classes: list[type] = []  # the body goes to the MCP server as it came
    schema = None  # JSON-RPC, described by the MCP server itself, not by the OpenAPI schema
    content_negotiation_class = JsonWhateverIsAccepted  # a refusal is JSON-RPC whatever the client accepts

    def post(self, request: Request) -> HttpResponse:
        body = request.body
        if body.lstrip().startswith(b"["):
            message = "JSON-RPC batches are not part of MCP (since 2025-06-18): send one message per request."
            return jsonrpc_error(400, INVALID_REQUEST, message)
        wait = throttle_wait(request.user, scope=ASK_SCOPE if _asks(body) else None)
        if wait is not None:
            raise exceptions.Throttled(wait)
        messages = self._served(request, body)
        start = next(m for m in messages if m["type"] == "http.response.start")
        content = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        response = HttpResponse(content, status=start["status"])
        for name, value in start.get("headers", []):
            if name.decode("latin-1").lower() not in FRAMING:
                response[name.decode("latin-1")] = value.decode("latin-1")
        return response

    def _answered(self) -> str | int | None:
        """The refused request's id; none for a body too large to have been read."""
        try:
            return _message_id(self.request._request.body) if self.request._request.method == "POST" else None
        except RequestDataTooBig:
            return None

    def _served(self, request: Request, body: bytes) -> list[dict[str, Any]]:
        caller = CALLER.set(Caller(user=request.user, request_id=request._request.request_id))
        try:
            return async_to_sync(_exchange)(_scope(request._request), body)
        finally:
            CALLER.reset(caller)

    def handle_exception(self, exc: Exception) -> HttpResponse:
        answered = self._answered()
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            return jsonrpc_error(
                401, INVALID_REQUEST, str(exc.detail), headers={"WWW-Authenticate": "Bearer"}, id=answered
            )
        if isinstance(exc, exceptions.MethodNotAllowed):
            # No stream from the server (a GET) and no session to end (a DELETE): every answer is
            # the POST's response. 405 is what Streamable HTTP asks for then, and what clients read
            # as "no stream", whatever they accept (the TypeScript SDK accepts only event streams).
            message = "This MCP server keeps no session and sends no stream: POST each message."
            return jsonrpc_error(405, INVALID_REQUEST, message)
        if isinstance(exc, exceptions.Throttled):
            wait = int(exc.wait or 1)
            message = f"Too many requests: try again in {wait} seconds."
            return jsonrpc_error(429, THROTTLED, message, headers={"Retry-After": str(wait)}, id=answered)
        if isinstance(exc, RequestDataTooBig):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            return jsonrpc_error(413, INVALID_REQUEST, f"The request body is larger than {limit} bytes.")
        if isinstance(exc, exceptions.APIException):
            return jsonrpc_error(exc.status_code, INVALID_REQUEST, str(exc.detail), id=answered)
        answer = database_error_answer(exc)
        if answer is not None:
            logger.warning("database error in /mcp: %s", type(exc).__name__)
            return jsonrpc_error(answer[0], INTERNAL_ERROR, answer[2])
        logger.exception("unhandled error in /mcp")
        return jsonrpc_error(500, INTERNAL_ERROR, "Something went wrong on our side; it has been logged.")
