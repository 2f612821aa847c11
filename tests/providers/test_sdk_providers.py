"""Both SDK providers against local stub servers: translation, parsing and the error contract.

Every case runs against `AnthropicProvider` and `OpenAICompatibleProvider` through their real
SDKs; where the wire shapes differ, the expectation is looked up by the flavor's name.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from agent.providers.openai_provider import arguments_parse
from core.ports import ProviderError, ProviderResponse, ToolCall
from tests.providers import stub_servers as stubs
from tests.providers.conftest import API_KEY, Flavor

MODELS = {"anthropic": "claude-test", "openai": "gpt-test"}
FOUND = {"metric": "REVENUE", "entity": "中国内地"}

NEUTRAL = [
    {"role": "user", "content": "中国内地和香港FY2025的营收"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "t1", "name": "query_metric", "arguments": FOUND},
            {"id": "t2", "name": "query_metric", "arguments": "{not json"},
        ],
    },
    {"role": "tool", "tool_call_id": "t1", "content": '{"status": "found"}'},
    {"role": "tool", "tool_call_id": "t2", "content": '{"status": "unrecognized_param"}'},
]

TOOL_RESULTS = [("t1", '{"status": "found"}'), ("t2", '{"status": "unrecognized_param"}')]

# NEUTRAL asked with the system prompt "be exact" and no tools, as each API receives it.
NEUTRAL_REQUESTS = {
    "anthropic": {
        "model": "claude-test",
        "max_tokens": 1024,
        "messages": [
            NEUTRAL[0],
            {
                "role": "assistant",
                # No empty text block (the API rejects those); an input that is not an object
                # is echoed as an empty one, the only kind the API accepts.
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "query_metric", "input": FOUND},
                    {"type": "tool_use", "id": "t2", "name": "query_metric", "input": {}},
                ],
            },
            # Consecutive tool results are merged into one user turn, in order.
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": i, "content": c} for i, c in TOOL_RESULTS],
            },
        ],
        "system": "be exact",
    },
    "openai": {
        "model": "gpt-test",
        "max_tokens": 1024,
        "messages": [
            {"role": "system", "content": "be exact"},
            NEUTRAL[0],
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "query_metric", "arguments": json.dumps(FOUND, ensure_ascii=False)},
                    },
                    # Malformed arguments are echoed verbatim.
                    {"id": "t2", "type": "function", "function": {"name": "query_metric", "arguments": "{not json"}},
                ],
            },
            *({"role": "tool", "tool_call_id": i, "content": c} for i, c in TOOL_RESULTS),
        ],
    },
}

TOOLS = {
    "anthropic": [{"name": "t", "description": "d", "input_schema": {"type": "object"}}],
    "openai": [{"type": "function", "function": {"name": "query_metric"}}],
}

# A reply with every part the parser reads, and what it must become.
REPLIES = {
    "anthropic": (
        stubs.anthropic_message(
            {"type": "thinking", "thinking": "secret reasoning", "signature": "sig"},  # ignored
            stubs.anthropic_text("Looking "),
            stubs.anthropic_text("it up."),
            stubs.anthropic_tool_use("query_metric", {"metric": "REVENUE"}, tool_id="toolu_9"),
            input_tokens=42,
            output_tokens=9,
        ),
        ProviderResponse(
            text="Looking it up.",
            tool_calls=(ToolCall("toolu_9", "query_metric", {"metric": "REVENUE"}),),
            stop_reason="tool_use",
            usage={"input_tokens": 42, "output_tokens": 9},
        ),
    ),
    "openai": (
        stubs.openai_completion(
            "Checking.",
            [
                stubs.openai_tool_call("query_metric", '{"metric": "REVENUE", "period": "FY2025"}', "c1"),
                stubs.openai_tool_call("query_metric", "{not json", "c2"),
                stubs.openai_tool_call("query_metric", '["REVENUE"]', "c3"),
            ],
            prompt_tokens=61,
            completion_tokens=17,
        ),
        ProviderResponse(
            text="Checking.",
            tool_calls=(
                ToolCall("c1", "query_metric", {"metric": "REVENUE", "period": "FY2025"}),
                ToolCall("c2", "query_metric", "{not json"),  # type: ignore[arg-type]
                ToolCall("c3", "query_metric", '["REVENUE"]'),  # type: ignore[arg-type]
            ),
            stop_reason="tool_use",
            usage={"input_tokens": 61, "output_tokens": 17},
        ),
    ),
}

# A tool input of `["REVENUE"]` as the core receives it: what the model sent, as the API carries it.
NOT_AN_OBJECT = {"anthropic": ["REVENUE"], "openai": '["REVENUE"]'}

UNREADABLE = {
    "anthropic": "anthropic request failed: the response is not a Messages API message",
    "openai": "openai request failed: the response has no choices",
}

SDK_CREATE_OWNER = {"anthropic": lambda client: client.messages, "openai": lambda client: client.chat.completions}


def ask(provider: Any, messages=None, tools=None, system: str = "be exact") -> ProviderResponse:
    return provider.create_message(
        system=system, messages=messages or [{"role": "user", "content": "hi"}], tools=tools or []
    )


def test_neutral_messages_become_the_wire_request(flavor: Flavor, stub: stubs.StubServer) -> None:
    stub.script(flavor.prose("ok"))
    ask(flavor.provider(stub), NEUTRAL)

    [received] = stub.requests
    assert received.path == flavor.path
    assert received.body == NEUTRAL_REQUESTS[flavor.name]


def test_tools_are_sent_only_when_there_are_some(flavor: Flavor, stub: stubs.StubServer) -> None:
    stub.script(flavor.prose("a"), flavor.prose("b"))
    provider = flavor.provider(stub)
    ask(provider)
    ask(provider, tools=TOOLS[flavor.name])

    without, with_tools = stub.bodies()
    assert "tools" not in without
    assert with_tools["tools"] == TOOLS[flavor.name]


def test_the_reply_is_parsed_into_text_tool_calls_and_usage(flavor: Flavor, stub: stubs.StubServer) -> None:
    reply, expected = REPLIES[flavor.name]
    stub.script(reply)

    assert ask(flavor.provider(stub), tools=TOOLS[flavor.name]) == expected


def test_a_tool_input_that_is_not_an_object_is_passed_through(flavor: Flavor, stub: stubs.StubServer) -> None:
    stub.script(flavor.tool_call(["REVENUE"]))
    response = ask(flavor.provider(stub))

    assert response.tool_calls[0].arguments == NOT_AN_OBJECT[flavor.name]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [('{"a": 1}', {"a": 1}), ("{not json", "{not json"), ("42", "42"), ("null", "null"), ("", ""), (None, None)],
)
def test_openai_arguments_are_a_dict_or_the_raw_value(raw, expected) -> None:
    assert arguments_parse(raw) == expected


def test_a_text_reply_without_usage_has_empty_counts(flavor: Flavor, stub: stubs.StubServer) -> None:
    reply = flavor.prose("plain answer")
    del reply.body["usage"]  # type: ignore[union-attr]
    stub.script(reply)
    response = ask(flavor.provider(stub))

    assert response.text == "plain answer" and response.tool_calls == ()
    assert response.stop_reason == "end_turn"
    assert response.usage == {"input_tokens": 0, "output_tokens": 0}


@pytest.mark.parametrize("status", [400, 401, 429, 500, 503, 529])
def test_status_errors_become_provider_errors_without_the_key(
    flavor: Flavor, stub: stubs.StubServer, status: int
) -> None:
    stub.script(flavor.error(status, f"Incorrect API key provided: {API_KEY}"))
    with pytest.raises(ProviderError) as caught:
        ask(flavor.provider(stub))

    message = str(caught.value)
    assert message.startswith(f"{flavor.name} request failed: ")
    assert f"HTTP {status}" in message and "[redacted]" in message
    assert API_KEY not in message and API_KEY not in repr(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_refused_connection_is_a_provider_error(flavor: Flavor) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    nobody = stubs.StubServer(flavor.path, root=f"http://127.0.0.1:{port}")
    with pytest.raises(ProviderError, match="APIConnectionError"):
        ask(flavor.provider(nobody, timeout=2.0))


@pytest.mark.parametrize("body", ["<html>sign in</html>", {"object": "chat.completion", "choices": []}])
def test_a_reply_of_another_shape_is_a_provider_error(flavor: Flavor, stub: stubs.StubServer, body) -> None:
    stub.script(stubs.Reply(200, body))
    with pytest.raises(ProviderError) as caught:
        ask(flavor.provider(stub))

    assert str(caught.value) == UNREADABLE[flavor.name]


def test_a_timeout_is_a_provider_error(flavor: Flavor, stub: stubs.StubServer) -> None:
    stub.script(stubs.Reply(200, flavor.prose("late").body, delay=1.0))
    with pytest.raises(ProviderError, match="APITimeoutError"):
        ask(flavor.provider(stub, timeout=0.2))


def test_programming_errors_propagate(flavor: Flavor, stub: stubs.StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = flavor.provider(stub)

    def broken(**kwargs):
        raise TypeError("create() got an unexpected keyword argument")

    monkeypatch.setattr(SDK_CREATE_OWNER[flavor.name](provider._client), "create", broken)
    with pytest.raises(TypeError):
        ask(provider)
    with pytest.raises(ValueError, match="unknown message role"):
        ask(flavor.provider(stub), [{"role": "narrator", "content": "x"}])


def test_the_key_is_not_in_the_repr(flavor: Flavor, stub: stubs.StubServer) -> None:
    provider = flavor.provider(stub)
    assert API_KEY not in repr(provider) and MODELS[flavor.name] in repr(provider)
    assert provider.name == flavor.name and provider.tool_format == flavor.name
    assert provider.max_tokens == 1024 and provider.model == MODELS[flavor.name]
