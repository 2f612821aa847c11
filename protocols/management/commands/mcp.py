"""`manage.py mcp`: the MCP server over stdio, for a desktop assistant or agent to launch.

It runs as the user of an API token (`RAGSPINE_API_TOKEN`, or `--token`), with that user's
clearance and the API's throttles, exactly as the HTTP server at `/mcp` would for that token.
Standard output carries the protocol and nothing else; everything else goes to standard error.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from protocols.auth import token_user
from protocols.callers import CALLER, Caller

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
        mcp_server(throttle=True).run("stdio")
