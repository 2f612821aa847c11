from __future__ import annotations

from datetime import date

from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import GlossarySnapshot
from core.parse.intent import parse_intent
from tests.fakes import demo_glossary

REF = date(2026, 3, 15)


def clarify(question: str, glossary: GlossarySnapshot):
    intent = parse_intent(question, glossary, REF)
    verdict = security_screen(raw_question=question, glossary=glossary, language=intent.language)
    return clarify_scope(intent, glossary=glossary, reference_date=REF, verdict=verdict)


def test_refusal_comes_before_ask_first(glossary: GlossarySnapshot) -> None:
    assert clarify("竞安是多少", glossary).mode == "out_of_scope_entity"


def test_narrative_routes_need_no_slots(glossary: GlossarySnapshot) -> None:
    assert clarify("最近有哪些监管政策变化", glossary).mode == "none"


def test_a_missing_metric_asks_first_closest_wording_first(glossary: GlossarySnapshot) -> None:
    result = clarify("2025年利润是多少", glossary)
    assert result.mode == "ask_first"
    assert 0 < len(result.narrowing_options) <= 8
    first_three = {o.scope["metric"] for o in result.narrowing_options[:3]}
    assert first_three == {"NET_PROFIT", "OPERATING_PROFIT", "GROSS_PROFIT"}
    assert all(o.question == "2025年利润是多少" for o in result.narrowing_options)
    assert not any(ch.isdigit() for ch in result.question or "")


def test_missing_entity_and_period_are_assumed_with_a_banner(glossary: GlossarySnapshot) -> None:
    result = clarify("营收是多少", glossary)
    assert result.mode == "answer_with_assumptions"
    assert result.assumed_entity == "ACME_GROUP" and result.assumed_period.label == "FY2025"
    assert result.assumption_note.startswith("【假设】") and "（如需收窄：" in result.assumption_note
    scopes = [o.scope for o in result.narrowing_options]
    assert {"entity": "ACME_HK"} in scopes and {"period": "FY2024"} in scopes
    assert all(o.label in result.assumption_note for o in result.narrowing_options)


def test_only_the_missing_slot_is_assumed(glossary: GlossarySnapshot) -> None:
    result = clarify("香港的毛利率", glossary)
    assert result.assumed_entity is None and result.assumed_period.label == "FY2025"
    assert all("period" in o.scope for o in result.narrowing_options)


def test_with_no_home_entity_the_entity_is_asked_for() -> None:
    glossary = demo_glossary(with_home=False)
    result = clarify("营收是多少", glossary)
    assert result.mode == "ask_first"
    assert {o.scope["entity"] for o in result.narrowing_options} >= {"ACME_CN", "ACME_HK"}
    assert not any(glossary.is_external(o.scope["entity"]) for o in result.narrowing_options)
