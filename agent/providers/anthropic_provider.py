"""`AnthropicProvider`: the core's `LLMProvider` port over the Claude Messages API.

Takes the core's neutral messages (see `core.routes.lookup.provider`) and returns a `ProviderResponse`.
Network, API, timeout, rate-limit and HTTP-status failures become `ProviderError`, so the
core degrades honestly (invariant 7); programming errors propagate. Retries and timeouts are
the SDK's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anthropic

from core.ports import ProviderError, ProviderResponse, ToolCall

from ._base import SdkProvider
from ._errors import error_wrap

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-6"


class AnthropicProvider(SdkProvider):
    name = "anthropic"
    tool_format = "anthropic"

    def _client_build(self, **options: Any) -> Any:
        return anthropic.Anthropic(**options)

    def create_message(
        self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ProviderResponse:
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": messages_to_anthropic(messages),
        }
        if system:
            request["system"] = system
        if tools:
            request["tools"] = tools
        try:
            message = self._client.messages.create(**request)
        except anthropic.APIError as exc:
            raise error_wrap(exc, vendor="anthropic", api_key=self._api_key) from None
        if not isinstance(getattr(message, "content", None), list):
            # e.g. an HTML page from a base_url that is not a Messages API: an upstream failure.
            raise ProviderError("anthropic request failed: the response is not a Messages API message")
        return response_from_anthropic(message)


def messages_to_anthropic(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral messages → Messages API turns.

    An assistant turn becomes `text` + `tool_use` blocks; each run of consecutive `tool`
    messages becomes one user turn of `tool_result` blocks (the API wants every result of a
    turn in the user message that follows it).
    """
    wire: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id", "")),
                "content": str(message.get("content", "")),
            }
            previous = wire[-1] if wire else None
            if previous is not None and previous["role"] == "user" and _is_tool_results(previous["content"]):
                previous["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            text = str(message.get("content") or "")
            if text.strip():
                blocks.append({"type": "text", "text": text})
            for call in message.get("tool_calls") or ():
                arguments = call.get("arguments")
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(call.get("id", "")),
                        "name": str(call.get("name", "")),
                        # The API only accepts an object here; a malformed input the model sent
                        # has already been answered as unrecognized, so echo an empty one.
                        "input": arguments if isinstance(arguments, dict) else {},
                    }
                )
            wire.append({"role": "assistant", "content": blocks or text})
        elif role == "user":
            wire.append({"role": "user", "content": message.get("content", "")})
        else:
            raise ValueError(f"unknown message role {role!r}")
    return wire


def _is_tool_results(content: object) -> bool:
    return isinstance(content, list) and all(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def response_from_anthropic(message: Any) -> ProviderResponse:
    """Text blocks joined, tool_use blocks as `ToolCall`s; other block kinds (thinking…) ignored.

    A tool_use `input` that is not an object is passed through as given: the core reports it
    as an unrecognized call instead of crashing on it.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(getattr(block, "text", "") or "")
        elif kind == "tool_use":
            calls.append(ToolCall(id=str(block.id), name=str(block.name), arguments=block.input))
    usage = getattr(message, "usage", None)
    return ProviderResponse(
        text="".join(texts),
        tool_calls=tuple(calls),
        stop_reason=str(getattr(message, "stop_reason", None) or "end_turn"),
        usage={
            "input_tokens": int(getattr(usage, "input_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "output_tokens", 0) or 0),
        },
    )
