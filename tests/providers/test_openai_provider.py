"""`OpenAICompatibleProvider` against a local Chat Completions API: translation, parsing, errors."""

from __future__ import annotations

import json

import pytest

from agent.providers.openai_provider import OpenAICompatibleProvider, arguments_parse
from core.ports import ProviderError, ToolCall
from tests.providers import stub_servers as stubs
from tests.providers.conftest import API_KEY, OPENAI

NEUTRAL = [
    {"role": "user", "content": "中国内地和香港FY2025的营收"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "name": "query_metric", "arguments": {"metric": "REVENUE", "entity": "中国内地"}},
            {"id": "c2", "name": "query_metric", "arguments": "{not json"},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "found"}'},
    {"role": "tool", "tool_call_id": "c2", "content": '{"status": "unrecognized_param"}'},
]


def ask(provider: OpenAICompatibleProvider, messages=None, tools=None, system: str = "be exact"):
    return provider.create_message(
        system=system, messages=messages or [{"role": "user", "content": "hi"}], tools=tools or []
    )


def test_neutral_messages_become_chat_completions_messages(openai_stub: stubs.StubServer) -> None:
    openai_stub.script(stubs.openai_completion("ok"))
    ask(OPENAI.provider(openai_stub), NEUTRAL)

    received = openai_stub.requests[0]
    assert received.path == "/v1/chat/completions"
    messages = received.body["messages"]
    assert messages[0] == {"role": "system", "content": "be exact"}
    assert messages[1] == {"role": "user", "content": "中国内地和香港FY2025的营收"}
    assert messages[2]["role"] == "assistant" and messages[2]["content"] is None
    first, second = messages[2]["tool_calls"]
    assert first["type"] == "function" and first["id"] == "c1"
    assert json.loads(first["function"]["arguments"]) == {"metric": "REVENUE", "entity": "中国内地"}
    assert second["function"]["arguments"] == "{not json"
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "found"}'},
        {"role": "tool", "tool_call_id": "c2", "content": '{"status": "unrecognized_param"}'},
    ]
    assert received.body["model"] == "gpt-test" and "tools" not in received.body


def test_the_reply_is_parsed_into_text_tool_calls_and_usage(openai_stub: stubs.StubServer) -> None:
    openai_stub.script(
        stubs.openai_completion(
            "Checking.",
            [
                stubs.openai_tool_call("query_metric", '{"metric": "REVENUE", "period": "FY2025"}', "c1"),
                stubs.openai_tool_call("query_metric", "{not json", "c2"),
                stubs.openai_tool_call("query_metric", '["REVENUE"]', "c3"),
            ],
            prompt_tokens=61,
            completion_tokens=17,
        )
    )
    response = ask(OPENAI.provider(openai_stub), tools=[{"type": "function", "function": {"name": "query_metric"}}])

    assert response.text == "Checking."
    assert response.tool_calls == (
        ToolCall("c1", "query_metric", {"metric": "REVENUE", "period": "FY2025"}),
        ToolCall("c2", "query_metric", "{not json"),  # type: ignore[arg-type]
        ToolCall("c3", "query_metric", '["REVENUE"]'),  # type: ignore[arg-type]
    )
    assert response.stop_reason == "tool_use"
    assert response.usage == {"input_tokens": 61, "output_tokens": 17}
    assert openai_stub.requests[0].body["tools"][0]["type"] == "function"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [('{"a": 1}', {"a": 1}), ("{not json", "{not json"), ("42", "42"), ("null", "null"), ("", ""), (None, None)],
)
def test_arguments_are_a_dict_or_the_raw_value(raw, expected) -> None:
    assert arguments_parse(raw) == expected


def test_a_text_reply_without_usage_has_empty_counts(openai_stub: stubs.StubServer) -> None:
    reply = stubs.openai_completion("plain answer")
    del reply.body["usage"]  # type: ignore[union-attr]
    openai_stub.script(reply)
    response = ask(OPENAI.provider(openai_stub))

    assert response.text == "plain answer" and response.tool_calls == ()
    assert response.stop_reason == "end_turn"
    assert response.usage == {"input_tokens": 0, "output_tokens": 0}


@pytest.mark.parametrize("status", [400, 401, 429, 500, 503])
def test_status_errors_become_provider_errors_without_the_key(openai_stub: stubs.StubServer, status: int) -> None:
    openai_stub.script(stubs.openai_error(status, f"Incorrect API key provided: {API_KEY}"))
    with pytest.raises(ProviderError) as caught:
        ask(OPENAI.provider(openai_stub))

    message = str(caught.value)
    assert f"HTTP {status}" in message and "[redacted]" in message
    assert API_KEY not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("body", ["<html>sign in</html>", {"object": "chat.completion", "choices": []}])
def test_a_reply_without_choices_is_a_provider_error(openai_stub: stubs.StubServer, body) -> None:
    openai_stub.script(stubs.Reply(200, body))
    with pytest.raises(ProviderError, match="no choices"):
        ask(OPENAI.provider(openai_stub))


def test_a_timeout_is_a_provider_error(openai_stub: stubs.StubServer) -> None:
    openai_stub.script(stubs.Reply(200, stubs.openai_completion("late").body, delay=1.0))
    with pytest.raises(ProviderError, match="APITimeoutError"):
        ask(OPENAI.provider(openai_stub, timeout=0.2))


def test_programming_errors_propagate(openai_stub: stubs.StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = OPENAI.provider(openai_stub)

    def broken(**kwargs):
        raise TypeError("create() got an unexpected keyword argument")

    monkeypatch.setattr(provider._client.chat.completions, "create", broken)
    with pytest.raises(TypeError):
        ask(provider)
    with pytest.raises(ValueError, match="unknown message role"):
        ask(OPENAI.provider(openai_stub), [{"role": "narrator", "content": "x"}])


def test_the_key_is_not_in_the_repr(openai_stub: stubs.StubServer) -> None:
    provider = OPENAI.provider(openai_stub)
    assert API_KEY not in repr(provider) and "gpt-test" in repr(provider)
    assert provider.name == "openai" and provider.tool_format == "openai"
