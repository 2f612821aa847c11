"""`OpenAICompatibleProvider`: `SdkProvider` over Chat Completions.

Works with OpenAI and any OpenAI-compatible server (vLLM, DashScope, Ollama…) through
`base_url`. The system prompt is the first message. Tool arguments that are not a JSON object
are passed through raw, so the core names the call as unrecognized instead of crashing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import openai

from core.ports import ProviderResponse, ToolCall

from ._base import SdkProvider

# Chat Completions finish reasons in the vocabulary `ProviderResponse` uses elsewhere.
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}


class OpenAICompatibleProvider(SdkProvider):
    name = "openai"
    tool_format = "openai"
    api_error = openai.APIError

    def _client_build(self, **options: Any) -> Any:
        return openai.OpenAI(**options)

    def _messages_build(self, system: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"messages": messages_to_openai(system, messages)}

    def _request_send(self, request: dict[str, Any]) -> Any:
        return self._client.chat.completions.create(**request)

    def _reply_problem(self, reply: Any) -> str | None:
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list) or not choices:
            return "the response has no choices"
        return None

    def _response_read(self, reply: Any) -> ProviderResponse:
        return response_from_openai(reply)


def messages_to_openai(system: str, messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral messages → Chat Completions messages, the system prompt first."""
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": str(message.get("tool_call_id", "")),
                    "content": str(message.get("content", "")),
                }
            )
        elif role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
            calls = [
                {
                    "id": str(call.get("id", "")),
                    "type": "function",
                    "function": {
                        "name": str(call.get("name", "")),
                        "arguments": _arguments_text(call.get("arguments")),
                    },
                }
                for call in message.get("tool_calls") or ()
            ]
            if calls:
                entry["tool_calls"] = calls
            elif entry["content"] is None:
                entry["content"] = ""
            wire.append(entry)
        elif role == "user":
            wire.append({"role": "user", "content": message.get("content", "")})
        else:
            raise ValueError(f"unknown message role {role!r}")
    return wire


def _arguments_text(arguments: object) -> str:
    # A raw string is what the model sent (possibly malformed JSON): echo it back verbatim.
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def arguments_parse(raw: object) -> Any:
    """The tool arguments as a dict, or the raw value when it is not a JSON object."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return raw
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return parsed if isinstance(parsed, dict) else raw


def response_from_openai(completion: Any) -> ProviderResponse:
    choice = completion.choices[0]
    message = choice.message
    calls: list[ToolCall] = []
    for call in getattr(message, "tool_calls", None) or ():
        function = getattr(call, "function", None)
        if function is not None:
            name, raw = getattr(function, "name", ""), getattr(function, "arguments", "")
        else:  # a non-function ("custom") tool call: its name and raw input, for the core to reject
            custom = getattr(call, "custom", None)
            name, raw = getattr(custom, "name", ""), getattr(custom, "input", "")
        calls.append(ToolCall(id=str(call.id), name=str(name or ""), arguments=arguments_parse(raw)))
    usage = getattr(completion, "usage", None)
    finish = getattr(choice, "finish_reason", None) or ("tool_calls" if calls else "stop")
    return ProviderResponse(
        text=getattr(message, "content", None) or "",
        tool_calls=tuple(calls),
        stop_reason=STOP_REASONS.get(str(finish), str(finish)),
        usage={
            "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
        },
    )
