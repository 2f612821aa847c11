"""`AnthropicProvider` against a local Messages API: translation, parsing and the error contract."""

from __future__ import annotations

import socket

import pytest

from agent.providers.anthropic_provider import AnthropicProvider
from core.ports import ProviderError, ToolCall
from tests.providers import stub_servers as stubs
from tests.providers.conftest import ANTHROPIC, API_KEY

NEUTRAL = [
    {"role": "user", "content": "中国内地和香港FY2025的营收"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "t1", "name": "query_metric", "arguments": {"metric": "REVENUE", "entity": "ACME_CN"}},
            {"id": "t2", "name": "query_metric", "arguments": "not an object"},
        ],
    },
    {"role": "tool", "tool_call_id": "t1", "content": '{"status": "found"}'},
    {"role": "tool", "tool_call_id": "t2", "content": '{"status": "unrecognized_param"}'},
]


def ask(provider: AnthropicProvider, messages=None, tools=None, system: str = "be exact"):
    return provider.create_message(
        system=system, messages=messages or [{"role": "user", "content": "hi"}], tools=tools or []
    )


def test_neutral_messages_become_messages_api_turns(anthropic_stub: stubs.StubServer) -> None:
    anthropic_stub.script(stubs.anthropic_message(stubs.anthropic_text("ok")))
    ask(ANTHROPIC.provider(anthropic_stub), NEUTRAL)

    body = anthropic_stub.requests[0].body
    assert body["system"] == "be exact"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [  # no empty text block: the API rejects those
        {"type": "tool_use", "id": "t1", "name": "query_metric", "input": {"metric": "REVENUE", "entity": "ACME_CN"}},
        {"type": "tool_use", "id": "t2", "name": "query_metric", "input": {}},
    ]
    # Consecutive tool results are merged into one user turn, in order.
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": '{"status": "found"}'},
        {"type": "tool_result", "tool_use_id": "t2", "content": '{"status": "unrecognized_param"}'},
    ]


def test_tools_are_omitted_when_there_are_none(anthropic_stub: stubs.StubServer) -> None:
    anthropic_stub.script(stubs.anthropic_message(stubs.anthropic_text("a")), stubs.anthropic_message())
    provider = ANTHROPIC.provider(anthropic_stub)
    ask(provider)
    ask(provider, tools=[{"name": "t", "description": "d", "input_schema": {"type": "object"}}])

    without, with_tools = anthropic_stub.bodies()
    assert "tools" not in without
    assert with_tools["tools"][0]["input_schema"] == {"type": "object"}


def test_the_reply_is_parsed_into_text_tool_calls_and_usage(anthropic_stub: stubs.StubServer) -> None:
    anthropic_stub.script(
        stubs.anthropic_message(
            {"type": "thinking", "thinking": "secret reasoning", "signature": "sig"},
            stubs.anthropic_text("Looking "),
            stubs.anthropic_text("it up."),
            stubs.anthropic_tool_use("query_metric", {"metric": "REVENUE"}, tool_id="toolu_9"),
            input_tokens=42,
            output_tokens=9,
        )
    )
    response = ask(ANTHROPIC.provider(anthropic_stub))

    assert response.text == "Looking it up."
    assert response.tool_calls == (ToolCall("toolu_9", "query_metric", {"metric": "REVENUE"}),)
    assert response.stop_reason == "tool_use"
    assert response.usage == {"input_tokens": 42, "output_tokens": 9}


def test_a_tool_input_that_is_not_an_object_is_passed_through(anthropic_stub: stubs.StubServer) -> None:
    anthropic_stub.script(stubs.anthropic_message(stubs.anthropic_tool_use("query_metric", ["REVENUE"])))
    response = ask(ANTHROPIC.provider(anthropic_stub))

    assert response.tool_calls[0].arguments == ["REVENUE"]


@pytest.mark.parametrize("status", [400, 401, 429, 500, 529])
def test_status_errors_become_provider_errors_without_the_key(anthropic_stub: stubs.StubServer, status: int) -> None:
    anthropic_stub.script(stubs.anthropic_error(status, f"invalid x-api-key {API_KEY}"))
    with pytest.raises(ProviderError) as caught:
        ask(ANTHROPIC.provider(anthropic_stub))

    message = str(caught.value)
    assert f"HTTP {status}" in message and "[redacted]" in message
    assert API_KEY not in message and API_KEY not in repr(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_refused_connection_is_a_provider_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = AnthropicProvider(
        api_key=API_KEY, model="m", base_url=f"http://127.0.0.1:{port}", timeout=2.0, max_retries=0
    )
    with pytest.raises(ProviderError, match="APIConnectionError"):
        ask(provider)


def test_a_reply_that_is_not_a_message_is_a_provider_error(anthropic_stub: stubs.StubServer) -> None:
    anthropic_stub.script(stubs.Reply(200, "<html>sign in</html>"))
    with pytest.raises(ProviderError, match="not a Messages API message"):
        ask(ANTHROPIC.provider(anthropic_stub))


def test_programming_errors_propagate(anthropic_stub: stubs.StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = ANTHROPIC.provider(anthropic_stub)

    def broken(**kwargs):
        raise TypeError("create() got an unexpected keyword argument")

    monkeypatch.setattr(provider._client.messages, "create", broken)
    with pytest.raises(TypeError):
        ask(provider)
    with pytest.raises(ValueError, match="unknown message role"):
        ask(ANTHROPIC.provider(anthropic_stub), [{"role": "narrator", "content": "x"}])


def test_the_key_is_not_in_the_repr(anthropic_stub: stubs.StubServer) -> None:
    provider = ANTHROPIC.provider(anthropic_stub)
    assert API_KEY not in repr(provider) and "claude-test" in repr(provider)
    assert provider.name == "anthropic" and provider.tool_format == "anthropic"
    assert provider.max_tokens == 1024 and provider.model == "claude-test"
