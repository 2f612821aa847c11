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
        user = token_user(key.strip())
        if user is None:
            raise CommandError("that API token is not valid")
        from protocols.mcp_server import mcp_server  # the SDK only once a server is wanted

        CALLER.set(Caller(user=user, long_lived=True))
        anyio.run(_serve_stdio, mcp_server(throttle=True))


async def _serve_stdio(server: Any) -> None:
    """The server over stdio, as the SDK serves it, but a line that is not a JSON-RPC message is
    answered (`-32700` for text that is not JSON, `-32600` for JSON that is not a message) rather
    than dropped: a client that sent it waits for no reply in vain."""
    import mcp_types
    from mcp.server.stdio import stdio_server
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    lowlevel = server._lowlevel_server  # what `MCPServer.run_stdio_async` runs, on streams of ours
    async with stdio_server() as (read_stream, write_stream):
        relayed, relay_reader = create_context_streams[SessionMessage | Exception](0)

        async def relay() -> None:
            async with relayed:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(_refused(item, mcp_types, ValidationError)))
                    else:
                        await relayed.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await lowlevel.run(relay_reader, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def _refused(error: Exception, mcp_types: Any, invalid: type[Exception]) -> Any:
    """The JSON-RPC error for a line the transport could not read as a message (id null: none was read)."""
    parse = isinstance(error, invalid) and any(e["type"] == "json_invalid" for e in error.errors())  # type: ignore[attr-defined]
    code, said = (PARSE_ERROR, "not JSON") if parse else (INVALID_REQUEST, "not a JSON-RPC message")
    message = f"The line is {said}: send one JSON-RPC message per line."
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=None, error=mcp_types.ErrorData(code=code, message=message))
