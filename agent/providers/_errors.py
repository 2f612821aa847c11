"""Turning an SDK failure into the core's `ProviderError` without leaking the API key."""

from __future__ import annotations

from core.ports import ProviderError

MAX_DETAIL = 300


def error_wrap(exc: Exception, *, vendor: str, api_key: str) -> ProviderError:
    """A `ProviderError` naming the failure (class, HTTP status, request id) with the key redacted.

    An upstream error body may echo the credential back (a misconfigured proxy, a gateway that
    quotes the request), so the key is scrubbed from every piece of text we keep.
    """
    parts = [f"{vendor} request failed: {type(exc).__name__}"]
    status = getattr(exc, "status_code", None)
    if status is not None:
        parts.append(f"HTTP {status}")
    request_id = getattr(exc, "request_id", None)
    if request_id:
        parts.append(f"request id {request_id}")
    detail = str(exc)
    if detail:
        parts.append(detail)
    message = " · ".join(parts)
    if api_key:
        message = message.replace(api_key, "[redacted]")
    if len(message) > MAX_DETAIL:
        message = message[: MAX_DETAIL - 1] + "…"
    return ProviderError(message)
