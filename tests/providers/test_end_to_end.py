"""`answer_question` over the real SDKs against local stub servers: invariants 1 and 7 per provider."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import pytest

from core.glossary import GlossarySnapshot
from core.model.result import AgentResult
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.loop import SYSTEM_PROMPT
from core.routes.lookup.tools import tool_schema_anthropic, tool_schema_openai
from tests.fakes import InMemoryFactStore, demo_facts
from tests.providers import stub_servers as stubs
from tests.providers.conftest import ANTHROPIC, API_KEY, OPENAI, Flavor

REFERENCE = date(2026, 3, 15)
QUESTION = "中国内地FY2025的营收是多少"
FOUND_ARGS = {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"}
DEGRADED = "AI 服务暂时不可用，未能完成本次查询，请稍后再试。"


def ask(provider: Any, glossary: GlossarySnapshot, question: str = QUESTION) -> AgentResult:
    return answer_question(
        question,
        Ports(glossary=glossary, store=InMemoryFactStore(demo_facts()), provider=provider),
        cleared=False,
        reference_date=REFERENCE,
    )


def test_a_tool_call_round_trip_answers_from_the_fact(flavor: Flavor, stub: stubs.StubServer, glossary) -> None:
    stub.script(flavor.tool_call(FOUND_ARGS), flavor.prose("中国内地FY2025营收为96,120.3百万元。"))
    result = ask(flavor.provider(stub), glossary)

    assert result.answer_kind == "answer"
    assert "96,120.3" in result.answer and "ACME_FY2025_Annual_Results.pptx" in result.answer
    assert [r["status"] for r in result.tool_results] == ["found"]
    assert len(stub.requests) == 2
    first, second = stub.bodies()
    assert flavor.tool_results(first) == []
    [(call_id, carried)] = flavor.tool_results(second)
    assert call_id == flavor.call_id()
    assert carried["status"] == "found" and carried["value"] == "96120.3" and carried["entity"] == "ACME_CN"


def test_the_assistant_turn_is_echoed_in_the_wire_shape(flavor: Flavor, stub: stubs.StubServer, glossary) -> None:
    stub.script(flavor.tool_call(FOUND_ARGS, text="Let me look that up."), flavor.prose("done"))
    ask(flavor.provider(stub), glossary)

    messages = stub.bodies()[1]["messages"]
    if flavor is ANTHROPIC:
        assert [m["role"] for m in messages] == ["user", "assistant", "user"]
        assert messages[1]["content"] == [
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_use", "id": "toolu_01", "name": "query_metric", "input": FOUND_ARGS},
        ]
        assert messages[2]["content"][0]["type"] == "tool_result"
    else:
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
        [call] = messages[2]["tool_calls"]
        assert messages[2]["content"] == "Let me look that up."
        assert call["id"] == "call_01" and call["type"] == "function"
        assert call["function"]["name"] == "query_metric"
        assert json.loads(call["function"]["arguments"]) == FOUND_ARGS


def test_a_figure_the_model_adds_after_the_tool_call_is_dropped(
    flavor: Flavor, stub: stubs.StubServer, glossary
) -> None:
    stub.script(
        flavor.tool_call(FOUND_ARGS),
        flavor.prose("中国内地FY2025营收为96,120.3百万元，and 77,777 next year。"),
    )
    result = ask(flavor.provider(stub), glossary)

    assert "96,120.3" in result.answer
    assert "77,777" not in result.answer and "77777" not in result.answer


def test_a_model_that_never_calls_the_tool_is_looked_up_by_the_agent(
    flavor: Flavor, stub: stubs.StubServer, glossary
) -> None:
    stub.script(flavor.prose("中国内地2025年营收大约是88,888百万元。"))
    result = ask(flavor.provider(stub), glossary)

    assert len(stub.requests) == 1
    assert "96,120.3" in result.answer and "88,888" not in result.answer
    assert [r["status"] for r in result.tool_results] == ["found"]


MALFORMED = [
    pytest.param(OPENAI, "query_metric", "{not json", "arguments", id="openai-invalid-json"),
    pytest.param(OPENAI, "query_metric", '["REVENUE", "ACME_CN"]', "arguments", id="openai-json-not-an-object"),
    pytest.param(ANTHROPIC, "query_metrics", FOUND_ARGS, "tool", id="anthropic-wrong-tool-name"),
    pytest.param(ANTHROPIC, "query_metric", {"metric": "REVENUE"}, "entity", id="anthropic-missing-keys"),
    pytest.param(ANTHROPIC, "query_metric", "REVENUE ACME_CN FY2025", "arguments", id="anthropic-input-not-an-object"),
]


@pytest.mark.parametrize(("flavor", "name", "arguments", "param"), MALFORMED)
def test_a_malformed_tool_call_is_named_and_the_agent_answers_by_its_own_lookup(
    flavor: Flavor, stub: stubs.StubServer, glossary, name: str, arguments: Any, param: str
) -> None:
    stub.script(flavor.tool_call(arguments, name=name), flavor.prose("中国内地营收是55,555百万元。"))
    result = ask(flavor.provider(stub), glossary)

    assert result.answer_kind == "answer"
    assert "96,120.3" in result.answer and "55,555" not in result.answer
    statuses = [r["status"] for r in result.tool_results]
    assert statuses == ["unrecognized_param", "found"]
    assert result.tool_results[0]["param"] == param
    # The unrecognized result went back to the model in a request the real API would accept.
    [(call_id, carried)] = flavor.tool_results(stub.bodies()[1])
    assert call_id == flavor.call_id() and carried["status"] == "unrecognized_param"
    if flavor is OPENAI:
        echoed = stub.bodies()[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
        assert echoed == arguments  # the model's raw text, verbatim
    else:
        tool_use = stub.bodies()[1]["messages"][1]["content"][0]
        assert isinstance(tool_use["input"], dict)


FAILURES = [
    pytest.param(lambda f: f.error(429, "rate limited"), 5.0, id="429"),
    pytest.param(lambda f: f.error(500, "internal error"), 5.0, id="500"),
    pytest.param(lambda f: stubs.Reply(200, f.prose("96,120.3").body, delay=1.5), 0.3, id="timeout"),
]


@pytest.mark.parametrize(("reply", "timeout"), FAILURES)
def test_provider_failures_degrade_with_the_fixed_message_and_no_digits(
    flavor: Flavor, stub: stubs.StubServer, glossary, reply, timeout: float
) -> None:
    stub.script(reply(flavor))
    result = ask(flavor.provider(stub, timeout=timeout), glossary)

    assert result.answer_kind == "degraded"
    assert result.answer == DEGRADED
    assert not re.search(r"\d", result.answer)
    assert result.facts == () and result.tool_results == ()
    assert len(stub.requests) == 1  # max_retries=0: one attempt, no retry


def test_the_system_prompt_tool_schema_and_key_reach_the_server(
    flavor: Flavor, stub: stubs.StubServer, glossary
) -> None:
    stub.script(flavor.tool_call(FOUND_ARGS), flavor.prose("ok"))
    ask(flavor.provider(stub), glossary)

    received = stub.requests[0]
    body = received.body
    assert len(body["tools"]) == 1
    assert body["max_tokens"] == 1024
    if flavor is ANTHROPIC:
        assert body["system"] == SYSTEM_PROMPT
        assert body["model"] == "claude-test"
        assert body["tools"][0] == tool_schema_anthropic(glossary)
        assert body["tools"][0]["input_schema"]["required"] == ["metric", "entity", "period"]
        # Older SDKs send the key as x-api-key; anthropic 2.x sends it as a bearer token.
        assert received.headers.get("x-api-key") == API_KEY or received.headers["authorization"] == f"Bearer {API_KEY}"
        assert "anthropic-version" in received.headers
        assert body["messages"][0]["role"] == "user" and "slots: " in body["messages"][0]["content"]
    else:
        assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
        assert body["model"] == "gpt-test"
        assert body["tools"][0]["type"] == "function"
        assert body["tools"][0] == tool_schema_openai(glossary)
        assert received.headers["authorization"] == f"Bearer {API_KEY}"
        assert body["messages"][1]["role"] == "user" and "slots: " in body["messages"][1]["content"]


def test_token_usage_lands_in_the_result(flavor: Flavor, stub: stubs.StubServer, glossary) -> None:
    stub.script(flavor.tool_call(FOUND_ARGS), flavor.prose("ok"))
    result = ask(flavor.provider(stub), glossary)

    # Scripted: 100 + 150 tokens in, 20 + 30 out, summed over the two calls.
    assert result.usage == {"input_tokens": 250, "output_tokens": 50}
    assert result.provider_seconds > 0
