"""`AnthropicProvider`: `SdkProvider` over the Claude Messages API.

The system prompt goes in its own field; the neutral messages become Messages API turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anthropic

from core.ports import ProviderResponse, ToolCall

from ._base import SdkProvider


class AnthropicProvider(SdkProvider):
    name = "anthropic"
    tool_format = "anthropic"
    api_error = anthropic.APIError

    def _client_build(self, **options: Any) -> Any:
        return anthropic.Anthropic(**options)

    def _messages_build(self, system: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        fields: dict[str, Any] = {"messages": messages_to_anthropic(messages)}
        if system:
            fields["system"] = system
        return fields

    def _request_send(self, request: dict[str, Any]) -> Any:
        return self._client.messages.create(**request)

    def _reply_problem(self, reply: Any) -> str | None:
        if not isinstance(getattr(reply, "content", None), list):
            return "the response is not a Messages API message"
        return None

    def _response_read(self, reply: Any) -> ProviderResponse:
        return response_from_anthropic(reply)


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
