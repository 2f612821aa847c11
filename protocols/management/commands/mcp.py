"""`manage.py mcp`: the MCP server over stdio, for a desktop assistant or agent to launch.

It runs as the user of an API token (`RAGSPINE_API_TOKEN`, or `--token`), with that user's
clearance and the API's throttles, exactly as the HTTP server at `/mcp` would for that token.
Standard output carries the protocol and nothing else; everything else goes to standard error.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from protocols.auth import token_user
from protocols.callers import CALLER, INVALID_REQUEST, Caller

PARSE_ERROR = -32700

TOKEN_VARIABLE = "RAGSPINE_API_TOKEN"


class Command(BaseCommand):
    help = f"Serve the MCP tools over stdio as the user of an API token (${TOKEN_VARIABLE} or --token)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--token", help=f"an API token (default: ${TOKEN_VARIABLE}; the variable keeps it out of `ps`)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        key = options["token"] or os.environ.get(TOKEN_VARIABLE, "")
        if not key:
            raise CommandError(f"give an API token in ${TOKEN_VARIABLE} (or --token)")
        try:
            user = token_user(key.strip())
        except DatabaseError as error:
            raise CommandError(
                f"the database cannot be read ({type(error).__name__}): set DATABASE_URL to the server's "
                "database, or run `manage.py migrate` (and `load_demo`) on this one"
            ) from None
        if user is None:
            raise CommandError("that API token is not valid")
        from protocols.mcp_server import mcp_server  # the SDK only once a server is wanted

        CALLER.set(Caller(user=user, long_lived=True))
        anyio.run(_serve_stdio, mcp_server(throttle=True))


async def _serve_stdio(server: Any) -> None:
    """The server over stdio, as the SDK serves it, with two differences. A line that is not a
    JSON-RPC message is answered (`-32700` for text that is not JSON, `-32600` for JSON that is not
    a message) rather than dropped: a client that sent it waits for no reply in vain. And when
    standard input closes, the requests already read are answered before the server stops (the SDK
    would answer them `Connection closed`): a script may pipe its requests and close its end."""
    import mcp_types
    from mcp.server.stdio import stdio_server
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    lowlevel = server._lowlevel_server  # what `MCPServer.run_stdio_async` runs, on streams of ours
    async with stdio_server() as (read_stream, write_stream):
        relayed, relay_reader = create_context_streams[SessionMessage | Exception](0)

        answering = _Answering(write_stream)

        async def relay() -> None:
            async with relayed:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(_refused(item, mcp_types, ValidationError)))
                    else:
                        answering.asked(item)
                        await relayed.send(item)
                with anyio.move_on_after(DRAIN_SECONDS):
                    await answering.drained.wait()

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await lowlevel.run(relay_reader, answering, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def _message(item: Any) -> Any:
    """The JSON-RPC message a session message carries (a request, notification, response or error)."""
    return getattr(item, "message", None)


DRAIN_SECONDS = 120  # the longest the server waits, once its input closed, for answers still owed


class _Answering:
    """The server's output stream, counting the requests read and not yet answered: `drained` is
    set whenever none is owed."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._owed: set[Any] = set()
        self.drained = anyio.Event()
        self.drained.set()

    def asked(self, item: Any) -> None:
        message = _message(item)
        if getattr(message, "method", None) is not None and getattr(message, "id", None) is not None:
            self._owed.add(message.id)
            if self.drained.is_set():
                self.drained = anyio.Event()

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        message = _message(item)
        if getattr(message, "method", None) is None and getattr(message, "id", None) in self._owed:
            self._owed.discard(message.id)
            if not self._owed:
                self.drained.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def __aenter__(self) -> _Answering:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._stream.__aexit__(*exc)


def _refused(error: Exception, mcp_types: Any, invalid: type[Exception]) -> Any:
    """The JSON-RPC error for a line the transport could not read as a message (id null: none was read)."""
    parse = isinstance(error, invalid) and any(e["type"] == "json_invalid" for e in error.errors())  # type: ignore[attr-defined]
    code, said = (PARSE_ERROR, "not JSON") if parse else (INVALID_REQUEST, "not a JSON-RPC message")
    message = f"The line is {said}: send one JSON-RPC message per line."
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=None, error=mcp_types.ErrorData(code=code, message=message))
