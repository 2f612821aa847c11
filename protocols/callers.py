"""Who an MCP message comes from, and the API's throttles for it: what both transports set up
before the MCP SDK (slow to import) is loaded.

`CALLER` holds the user of the API token the client presented; every tool runs as that user.
`throttle_wait` applies the API's throttle classes, with the API's counters, to one message.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle

ASK_SCOPE = "ask"
# JSON-RPC error codes: the specification's, and a server error of ours in the range it leaves
# to servers (-32000 to -32099).
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
THROTTLED = -32029


@dataclass(frozen=True)
class Caller:
    """Who the tools run as. `long_lived`: a stdio process, which checks its database
    connection before each call as a request would."""

    user: Any
    request_id: str | None = None
    long_lived: bool = False


CALLER: contextvars.ContextVar[Caller] = contextvars.ContextVar("ragspine_mcp_caller")


def throttle_wait(user: Any, *, scope: str | None) -> float | None:
    """The API's throttles for one message of `user`: None when it may go ahead, else the
    seconds to wait. The per-user rate counts every message; `scope` (`ask`) adds the rate of
    the endpoint the tool mirrors. The counters are the API's, so both share one budget."""
    request = SimpleNamespace(user=user, META={})
    view = SimpleNamespace(throttle_scope=scope)
    throttles: list[UserRateThrottle | ScopedRateThrottle] = [UserRateThrottle()]
    if scope:
        throttles.append(ScopedRateThrottle())
    waits = [throttle.wait() or 1.0 for throttle in throttles if not throttle.allow_request(request, view)]
    return max(waits) if waits else None
