"""Invariants 1, 3 and 7 on the structured path, with scripted providers that misbehave."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from core.glossary import GlossarySnapshot
from core.model.registry import ROUTES
from core.pipeline import ROUTE_HANDLERS, ScopeError, answer_question
from core.ports import FaqCandidate, Ports
from core.routes.lookup.loop import MAX_TOOL_ITERATIONS
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore
from tests.scripted import AlwaysCallsTool, ExplodingProvider, ScriptedProvider, prose, provider_error, tool_call

REF = date(2026, 3, 15)


def ask(question: str, glossary: GlossarySnapshot, store: InMemoryFactStore, provider: Any = None, **kwargs: Any):
    return answer_question(
        question,
        Ports(glossary=glossary, store=store, provider=provider or MockProvider(), faq=kwargs.pop("faq", None)),
        cleared=kwargs.pop("cleared", False),
        reference_date=REF,
        **kwargs,
    )


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d[\d,]*(?:\.\d+)?", text))


def test_found_path_discards_fabricated_extra_number(glossary, store) -> None:
    provider = ScriptedProvider(
        tool_call(metric="REVENUE", entity="ACME_CN", period="FY2025"),
        prose("中国内地FY2025营收为96,120.3百万元，同比增长99.9%，预计明年达到123,456百万元。"),
    )
    result = ask("中国内地FY2025的营收是多少", glossary, store, provider)
    assert result.answer_kind == "answer"
    assert "96,120.3" in result.answer
    assert "99.9" not in result.answer and "123,456" not in result.answer
    assert [str(f.value) for f in result.facts] == ["96120.3"]
    assert len(provider.requests) == 2


def test_a_model_that_never_calls_the_tool_gets_the_lookup_done_for_it(glossary, store) -> None:
    provider = ScriptedProvider(prose("中国内地2025年营收大约是88,888百万元。"))
    result = ask("中国内地FY2025的营收是多少", glossary, store, provider)
    assert "88,888" not in result.answer
    assert "96,120.3" in result.answer
    assert result.tool_results[-1]["status"] == "found"


def test_a_model_that_never_calls_the_tool_cannot_invent_a_missing_figure(glossary, store) -> None:
    provider = ScriptedProvider(prose("中国内地2025年ROE为18.2%。"))
    result = ask("中国内地2025年ROE是多少", glossary, store, provider)
    assert result.answer_kind == "refusal"
    assert "18.2" not in result.answer and result.answer.startswith("查不到")
    assert result.guard.fabrication_guard_triggered


def test_prose_claiming_found_while_the_tool_says_not_found_is_rewritten(glossary, store) -> None:
    provider = ScriptedProvider(
        tool_call(metric="ROE", entity="ACME_CN", period="FY2025"),
        prose("找到了：中国内地FY2025 ROE为17.5%。"),
    )
    result = ask("中国内地2025年ROE是多少", glossary, store, provider)
    assert result.answer_kind == "refusal"
    assert "17.5" not in result.answer
    assert result.facts == ()
    assert result.guard.fabrication_guard_triggered
    assert "不提供任何推测数字" in result.answer


def test_a_tool_call_for_another_fact_does_not_answer_the_question(glossary, store) -> None:
    provider = ScriptedProvider(tool_call(metric="REVENUE", entity="ACME_HK", period="FY2025"), prose("香港是24,015.8"))
    result = ask("中国内地FY2025的营收是多少", glossary, store, provider)
    assert [(f.entity, str(f.value)) for f in result.facts] == [("ACME_CN", "96120.3")]
    assert "24,015.8" not in result.answer
    assert [(r["entity"], r["value"]) for r in result.tool_results] == [("ACME_CN", "96120.3")]


def test_a_found_tool_call_for_another_fact_cannot_hide_a_missing_figure(glossary, store) -> None:
    provider = ScriptedProvider(
        tool_call(metric="REVENUE", entity="ACME_HK", period="FY2025"),  # exists: 24,015.8
        prose("香港FY2025营收为24,015.8百万元。"),
    )
    result = ask("中国内地2025年ROE是多少", glossary, store, provider)
    assert '"found"' in provider.requests[1]["messages"][-1]["content"]  # the model did get the other figure
    assert result.guard.fabrication_guard_triggered
    assert result.tool_results == (
        {
            "status": "not_found",
            "normalized": {"metric": "ROE", "entity": "ACME_CN", "period": "FY2025", "channel": "TOTAL"},
        },
    )
    assert result.facts == () and result.sources == ()
    assert result.answer_kind == "refusal" and "24,015.8" not in result.answer and "24015.8" not in result.answer


def test_provider_error_degrades_with_no_number(glossary, store) -> None:
    result = ask("中国内地FY2025的营收是多少", glossary, store, ScriptedProvider(provider_error()))
    assert result.answer_kind == "degraded"
    assert result.answer == "AI 服务暂时不可用，未能完成本次查询，请稍后再试。"
    assert result.facts == () and not numbers(result.answer)


def test_programming_errors_propagate(glossary, store) -> None:
    with pytest.raises(ZeroDivisionError):
        ask("中国内地FY2025的营收是多少", glossary, store, ScriptedProvider(ZeroDivisionError()))


def test_the_tool_loop_is_capped(glossary, store) -> None:
    provider = AlwaysCallsTool({"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"})
    result = ask("中国内地FY2025的营收是多少", glossary, store, provider)
    assert provider.calls == MAX_TOOL_ITERATIONS
    assert "96,120.3" in result.answer


def test_malformed_tool_arguments_are_named_not_coerced(glossary, store) -> None:
    provider = ScriptedProvider(tool_call(metric="REVENUE", entity="ACME_CN", period="FY2025", channel="ONLIN"))
    result = ask("中国内地FY2025的营收是多少", glossary, store, provider)
    first = provider.requests[1]["messages"][-1]
    assert '"unrecognized_param"' in first["content"] and '"channel"' in first["content"]
    assert result.tool_results[0] == {"status": "unrecognized_param", "param": "channel", "raw": "ONLIN"}
    assert "96,120.3" in result.answer  # the agent's own lookup of the parsed TOTAL channel


def test_listed_sub_tasks_run_without_the_llm_and_add_the_difference(glossary, store) -> None:
    result = ask("集团2024年和2025年营收对比", glossary, store, ExplodingProvider())
    assert [str(f.value) for f in result.facts] == ["118340.2", "128450.6"]
    assert "对比：FY2025 较 FY2024 +10,110.4 百万元（+8.54%）" in result.answer


def test_difference_of_a_percentage_is_in_points(glossary, store) -> None:
    result = ask("集团2024年和2025年毛利率", glossary, store, ExplodingProvider())
    assert "对比：FY2025 较 FY2024 -2.2 个百分点" in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "集团2025年上半年和2025年营收对比",
        "集团2025年Q4和2025年营收",
        "集团2025年上半年和2025年Q2营收",
        "ACME Group revenue in 2025H1 and FY2025",
    ],
)
def test_no_difference_line_between_periods_of_different_types(glossary, store, question) -> None:
    result = ask(question, glossary, store, ExplodingProvider())
    assert len({f.period.period_type for f in result.facts}) == 2  # both figures are there
    assert not any(line.startswith(("对比", "Change")) for line in result.answer.splitlines())
    assert "%" not in result.answer


def test_quarters_are_compared_with_quarters(glossary, store) -> None:
    result = ask("集团2025年Q3和2025年Q4营收对比", glossary, store, ExplodingProvider())
    assert "对比：2025Q4 较 2025Q3 +3,008.8 百万元（+9.37%）" in result.answer


def test_a_missing_sub_task_says_not_found_and_gives_no_figure(glossary, store) -> None:
    result = ask("东南亚2022年和2025年营收", glossary, store, ExplodingProvider())
    lines = result.answer.splitlines()
    assert lines[0].startswith("查不到：营业收入 / ACME东南亚 / FY2022")
    assert "8,314.5" in lines[1]
    assert not any(line.startswith("对比") for line in lines)


def test_english_questions_get_english_lines(glossary, store) -> None:
    result = ask("What was ACME Group revenue in FY2023?", glossary, store)
    assert result.answer == (
        "ACME Group FY2023 revenue: 106,872.9 CNY m (source: ACME_5yr_Summary.xlsx · facts.csv,row=3)"
    )


def test_restricted_facts_behave_as_absent_for_uncleared_users(glossary, store) -> None:
    hidden = ask("东南亚2025年净利润是多少", glossary, store, cleared=False)
    shown = ask("东南亚2025年净利润是多少", glossary, store, cleared=True)
    assert hidden.answer_kind == "refusal" and "1,402.6" not in hidden.answer and hidden.facts == ()
    assert shown.answer_kind == "answer" and "-1,402.6" in shown.answer
    missing = ask("东南亚2021年净利润是多少", glossary, store, cleared=False)
    assert hidden.answer.replace("FY2025", "") == missing.answer.replace("FY2021", "")


class SpyFaq:
    """The FAQ store's port: the candidates it was asked for, by question."""

    def __init__(self, *candidates: FaqCandidate):
        self.candidates_given = list(candidates)
        self.calls: list[str] = []

    def candidates(self, question: str) -> list[FaqCandidate]:
        self.calls.append(question)
        return self.candidates_given


def _item(id: int, version: int, answer: str, source: str, **rules: Any) -> FaqCandidate:
    return FaqCandidate(id, version, "财年是怎么定义的", answer, source, rules.pop("sensitivity", "PUBLIC"), **rules)


@pytest.mark.parametrize("question", ["竞安2025年营收是多少", "2025年利润是多少"])
def test_refusal_and_ask_first_return_before_faq_store_and_llm(glossary, store, question) -> None:
    faq = SpyFaq(_item(1, 1, "cached", "doc"))
    result = ask(question, glossary, store, ExplodingProvider(), faq=faq)
    assert result.answer_kind in ("refusal", "clarification")
    assert faq.calls == [] and store.calls == 0


def test_a_question_with_slots_is_never_answered_from_the_faq(glossary, store) -> None:
    """Assumed slots are applied before the FAQ, and any filled slot keeps a question from it:
    the guard must see it. The store is asked; the FAQ's port is not."""
    faq = SpyFaq(_item(1, 1, "cached", "doc"))
    result = ask("营收是多少", glossary, store, faq=faq)
    assert faq.calls == []
    assert result.answer.startswith("【假设】")
    assert "128,450.6" in result.answer


def test_a_faq_hit_touches_no_store_and_no_llm(glossary, store) -> None:
    faq = SpyFaq(_item(7, 3, "财年与自然年一致。", "财务制度手册"))
    result = ask("财年是怎么定义的", glossary, store, ExplodingProvider(), faq=faq)
    assert faq.calls == ["财年是怎么定义的"]
    assert result.route == "faq" and result.faq == {"id": 7, "version": 3}
    assert result.answer.startswith("财年与自然年一致。") and store.calls == 0


@pytest.mark.parametrize(
    "rules",
    [
        {"enabled": False},
        {"sensitivity": "RESTRICTED"},
        {"valid_until": date(2026, 3, 14)},
        {"valid_from": date(2026, 3, 16)},
    ],
)
def test_the_gate_decides_which_candidate_may_answer(glossary, store, rules) -> None:
    """The port offers candidates; the core's gate passes over one disabled, RESTRICTED or out of
    its window (on the reference date), and the question goes on to the documents."""
    faq = SpyFaq(_item(7, 3, "财年与自然年一致。", "财务制度手册", **rules))
    result = ask("财年是怎么定义的", glossary, store, faq=faq)
    assert faq.calls and result.route != "faq" and result.faq is None


def test_the_newest_version_that_may_answer_does(glossary, store) -> None:
    faq = SpyFaq(_item(7, 4, "new", "doc", enabled=False), _item(7, 3, "older", "doc"))
    result = ask("财年是怎么定义的", glossary, store, faq=faq)
    assert result.faq == {"id": 7, "version": 3} and result.answer.startswith("older")


def test_scope_narrows_the_slots(glossary, store) -> None:
    result = ask("营收是多少", glossary, store, scope={"entity": "ACME_HK", "period": "FY2024"})
    assert result.clarification.mode == "none"
    assert [str(f.value) for f in result.facts] == ["25730.1"]


def test_scope_cannot_reach_a_competitor(glossary, store) -> None:
    result = ask("营收是多少", glossary, store, ExplodingProvider(), scope={"entity": "EXT_JINGAN"})
    assert result.answer_kind == "refusal" and store.calls == 0


def test_an_unknown_scope_is_an_error(glossary, store) -> None:
    with pytest.raises(ScopeError):
        ask("营收是多少", glossary, store, scope={"entity": "NOPE"})
    with pytest.raises(ScopeError):
        ask("营收是多少", glossary, store, scope={"period": "someday"})


def test_composite_appends_the_narrative_part(glossary, store) -> None:
    result = ask("香港收入为什么下降", glossary, store)
    assert result.route == "composite"
    structured, narrative = result.answer.split("\n\n归因分析：\n")
    assert "24,015.8" in structured
    assert narrative.startswith("叙事检索通路尚未接入")


def test_every_route_the_parser_can_choose_has_a_handler() -> None:
    assert set(ROUTE_HANDLERS) == set(ROUTES)


def test_the_assumption_note_and_the_structured_lines_are_separate_sections(glossary, store) -> None:
    result = ask("营收是多少", glossary, store)
    sections = result.sections
    assert sections.assumption_note == result.clarification.assumption_note
    assert "128,450.6" in sections.structured and "【假设】" not in sections.structured
    assert (sections.narrative_heading, sections.narrative) == ("", "")
    assert result.answer == f"{sections.assumption_note}\n{sections.structured}"


def test_a_composite_keeps_its_narrative_section_apart(glossary, store) -> None:
    result = ask("香港收入为什么下降", glossary, store)
    sections = result.sections
    assert sections.narrative_heading == "归因分析：" and sections.narrative
    assert "24,015.8" in sections.structured and "归因分析" not in sections.structured
    assert sections.assumption_note.startswith("【假设】")  # no period named: FY2025 assumed
    assert result.answer == f"{sections.assumption_note}\n{sections.structured}\n\n归因分析：\n{sections.narrative}"


def test_a_refusal_is_the_section_of_the_route_it_was_asked_on(glossary, store) -> None:
    structured = ask("竞安2025年营收是多少", glossary, store)
    assert structured.sections.structured == structured.answer and structured.sections.narrative == ""
