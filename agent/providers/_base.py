"""`SdkProvider`: the core's `LLMProvider` port over a vendor SDK, less what the vendor decides.

Takes the core's neutral messages (see `core.routes.lookup.provider`) and returns a
`ProviderResponse`. The request is the model, `max_tokens`, the vendor's messages and the tools
when there are any. Network, API, timeout, rate-limit and HTTP-status failures (the SDK's
`api_error`) and a reply that is not the vendor's shape become `ProviderError`, with the key
redacted, so the core degrades honestly (invariant 7); programming errors propagate. Retries
and timeouts are the SDK's own.

A provider supplies its SDK client, its error class, its message shape and how it reads a reply.
"""

from __future__ import annotations

from typing import Any

from core.ports import ProviderError, ProviderResponse

from ._errors import error_wrap


class SdkProvider:
    name = ""
    tool_format = ""
    api_error: type[Exception]

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._client = self._client_build(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=max_retries
        )

    def create_message(
        self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ProviderResponse:
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            **self._messages_build(system, messages),
        }
        if tools:
            request["tools"] = tools
        try:
            reply = self._request_send(request)
        except self.api_error as exc:
            raise error_wrap(exc, vendor=self.name, api_key=self._api_key) from None
        problem = self._reply_problem(reply)
        if problem:
            # e.g. an HTML page from a base_url that is not the vendor's API: an upstream failure.
            raise ProviderError(f"{self.name} request failed: {problem}")
        return self._response_read(reply)

    def _client_build(self, **options: Any) -> Any:
        raise NotImplementedError

    def _messages_build(self, system: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The request fields that carry the system prompt and the conversation."""
        raise NotImplementedError

    def _request_send(self, request: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _reply_problem(self, reply: Any) -> str | None:
        """What makes `reply` unreadable, or None when it has the vendor's shape."""
        raise NotImplementedError

    def _response_read(self, reply: Any) -> ProviderResponse:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={str(self._client.base_url)!r})"
