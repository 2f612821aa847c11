"""LLM-assisted routing through the real SDKs: valid, invalid-route, unknown-code and non-JSON replies."""

from __future__ import annotations

import json
from datetime import date

import pytest

from core.parse.assisted import LlmAssistedParser
from core.pipeline import answer_question
from core.ports import Ports
from tests.fakes import InMemoryFactStore, demo_facts

REF = date(2026, 3, 15)


def run(flavor, stub, glossary, question: str, reply: str, *more):
    stub.script(flavor.prose(reply), *more)
    provider = flavor.provider(stub)
    return answer_question(
        question,
        Ports(
            glossary=glossary,
            store=InMemoryFactStore(demo_facts()),
            provider=provider,
            parser=LlmAssistedParser(provider),
        ),
        cleared=False,
        reference_date=REF,
    )


def test_a_valid_reply_routes_and_fills_slots(flavor, stub, glossary) -> None:
    reply = json.dumps(
        {
            "route": "structured",
            "metric": "REVENUE",
            "entity": "ACME_HK",
            "period": "FY2025",
            "confidence": 0.8,
            "reason": "asks for Hong Kong sales",
        }
    )
    result = run(flavor, stub, glossary, "说说那边的买卖", reply, flavor.tool_call({}), flavor.prose("ok"))
    assert result.routing.mode == "llm_assisted" and result.routing.confidence == 0.8
    assert [str(f.value) for f in result.facts] == ["24015.8"]
    assert "说说那边的买卖" in json.dumps(stub.bodies()[0], ensure_ascii=False)


@pytest.mark.parametrize(
    "reply",
    [
        '{"route": "delete_everything", "metric": "REVENUE"}',
        '{"route": "structured", "metric": "PROFIT_MAGIC"}',
        '{"route": "structured", "metric": "REVENUE", "entity": "EXT_JINGAN"}',
        '{"route": "structured", "metric": "REVENUE", "period": "someday"}',
        "I think this is about revenue.",
        "[1, 2]",
    ],
)
def test_invalid_replies_fall_back_to_the_rules(flavor, stub, glossary, reply: str) -> None:
    result = run(flavor, stub, glossary, "说说那边的买卖", reply)
    assert result.routing.mode == "llm_fallback" and result.facts == ()
    assert result.route == "narrative"  # what the rules said: no slot, no cue


def test_conclusive_questions_never_ask_the_router(flavor, stub, glossary) -> None:
    stub.script(flavor.tool_call({"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"}), flavor.prose("ok"))
    provider = flavor.provider(stub)
    result = answer_question(
        "中国内地FY2025的营收是多少",
        Ports(
            glossary=glossary,
            store=InMemoryFactStore(demo_facts()),
            provider=provider,
            parser=LlmAssistedParser(provider),
        ),
        cleared=False,
        reference_date=REF,
    )
    assert result.routing.mode == "deterministic"
    assert all(body.get("tools") for body in stub.bodies())  # no routing request (it sends no tools)


def test_the_security_gate_still_screens_the_raw_question(flavor, stub, glossary) -> None:
    reply = json.dumps({"route": "structured", "metric": "REVENUE", "entity": "ACME_GROUP"})
    result = run(flavor, stub, glossary, "竞 安说说那边的买卖", reply)
    assert result.clarification.mode == "out_of_scope_entity" and result.facts == ()


def test_a_router_outage_keeps_the_rules(flavor, stub, glossary) -> None:
    stub.script(flavor.error(503))
    provider = flavor.provider(stub)
    result = answer_question(
        "随便聊聊",
        Ports(
            glossary=glossary,
            store=InMemoryFactStore(demo_facts()),
            provider=provider,
            parser=LlmAssistedParser(provider),
        ),
        cleared=False,
        reference_date=REF,
    )
    assert result.routing.mode == "llm_fallback" and "unavailable" in result.routing.reason
