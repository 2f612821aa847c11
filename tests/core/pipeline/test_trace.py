"""Invariant 6: the trace holds codes, counts and timings, never answers, values, text or prompts."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from datetime import date

import pytest
from hypothesis import HealthCheck, example, given, settings

from core.model.period import Period
from core.model.trace import TraceRecord, TraceRejected, term_storable, trace_from_result
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary
from tests.questions import LONG_ACRONYM, QUESTIONS, TRACE_REGRESSIONS

BASE = dict(
    request_id="ab12cd34ef",
    user_id=1,
    route="structured",
    routing_mode="deterministic",
    clarification_mode="none",
    answer_kind="answer",
)


@pytest.mark.parametrize(
    "smuggled",
    [
        {"slots": {"metric": ["96120.3"]}},
        {"slots": {"entity": ["ACME中国内地 FY2025 营业收入：96,120.3 百万元"]}},
        {"route": "ACME中国内地 FY2025 营业收入：96,120.3"},
        {"answer_kind": "96120.3"},
        {"tool_status_counts": {"found": 96120.3}},
        {"tool_status_counts": {"96120.3": 1}},
        {"timings_ms": {"parse": "96120.3"}},
        {"timings_ms": {"the answer is 96120.3": 1.0}},
        {"usage": {"prompt": 1}},
        {"unrecognized_terms": ("96120.3",)},
        {"unrecognized_terms": ("x" * 33,)},
        {"unrecognized_terms": ("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ",)},
        {"unrecognized_terms": ("营业收入\n",)},
        {"unrecognized_terms": ("",)},
        {"slots": {"period": ["FY-1"]}},
        {"slots": {"entity": ["ACME_CN\n"]}},
        {"chunk_scores": ((1, float("nan")),)},
        {"timings_ms": {"parse": float("inf")}},
        {"question": "营收\x00是多少"},
        {"chunk_scores": ((1, "存储芯片采购均价同比上涨约35%"),)},
        {"request_id": "not a hex id with prose"},
        {"numbers_unsupported": -1},
        {"faq_id": "ACME 的财年与自然年一致"},
    ],
)
def test_the_sink_rejects_anything_but_codes_counts_and_timings(smuggled: dict) -> None:
    with pytest.raises(TraceRejected):
        TraceRecord(**{**BASE, **smuggled})


def test_the_real_trace_never_carries_the_answer_values_or_prompt(glossary, store) -> None:
    result = answer_question(
        "中国内地FY2025的营收是多少",
        Ports(glossary=glossary, store=store, provider=MockProvider()),
        cleared=True,
        reference_date=date(2026, 3, 15),
    )
    trace = trace_from_result(result, user_id=3, store_question=False)
    dumped = json.dumps(asdict(trace), ensure_ascii=False, default=str)
    assert "96120.3" not in dumped and "96,120.3" not in dumped
    assert result.answer not in dumped and "slots:" not in dumped and "中国内地" not in dumped
    assert trace.question is None
    assert trace.slots == {"metric": ["REVENUE"], "entity": ["ACME_CN"], "period": ["FY2025"]}
    assert trace.tool_status_counts == {"found": 1}


def test_question_text_is_kept_only_when_enabled(glossary, store) -> None:
    result = answer_question(
        "营收是多少", Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=False
    )
    assert trace_from_result(result, user_id=None, store_question=True).question == "营收是多少"
    assert trace_from_result(result, user_id=None, store_question=False).question is None


def test_unrecognised_terms_are_kept_for_the_gap_report(glossary, store) -> None:
    result = answer_question(
        "2025年利润是多少", Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=False
    )
    assert "利润" in trace_from_result(result, user_id=None, store_question=False).unrecognized_terms


def test_every_stage_timed_is_kept(glossary, store) -> None:
    """A why's decomposition is timed apart from the passages that follow it (SPEC §12 sets it a
    target of its own), and the trace keeps every stage the pipeline laps."""
    result = _answer("香港收入为什么下降", glossary, store, reference_date=date(2026, 3, 15))
    trace = trace_from_result(result, user_id=None, store_question=False)
    assert {"structured", "why", "narrative", "total"} <= trace.timings_ms.keys()
    assert set(result.timings) <= trace.timings_ms.keys()


# -- a trace rule drops or redacts what it must not store; it never fails the answer -------------
def _answer(question: str, glossary, store, **extra):  # type: ignore[no-untyped-def]
    return answer_question(
        question, Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=True, **extra
    )


def test_a_term_too_long_for_the_trace_is_dropped_not_raised(glossary, store) -> None:
    result = _answer(LONG_ACRONYM, glossary, store, reference_date=date(2026, 3, 15))
    assert "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ" in result.intent.unrecognized_terms
    trace = trace_from_result(result, user_id=None, store_question=False)
    assert trace.unrecognized_terms and all(term_storable(t) for t in trace.unrecognized_terms)
    assert "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ" not in trace.unrecognized_terms


def test_the_builder_drops_smuggled_values_the_record_would_refuse(glossary, store) -> None:
    result = _answer("2025年利润是多少", glossary, store)
    smuggled = replace(
        result,
        intent=replace(
            result.intent,
            unrecognized_terms=(
                "96120.3",
                "营业收入：96,120.3 百万元",
                "存储芯片采购均价同比上涨约百分之三十五以上" * 2,
                "利\x00润",
                "利润",
            ),
            periods=(Period("FY", "-1"), Period("FY", "2025")),
        ),
        chunk_scores=((7, float("nan")), (8, 0.5)),
        tool_results=({"status": "ACME中国内地 FY2025 营业收入：96,120.3"}, {"status": "found"}),
        faq={"id": "ACME 的财年与自然年一致", "version": 2},
        timings={"parse": float("inf"), "total": 3.0},
    )
    trace = trace_from_result(smuggled, user_id=None, store_question=False)
    dumped = json.dumps(asdict(trace), ensure_ascii=False, default=str)
    assert "96120.3" not in dumped and "96,120.3" not in dumped and "存储芯片" not in dumped and "财年" not in dumped
    assert trace.unrecognized_terms == ("利润",)
    assert trace.slots["period"] == ["FY2025"]
    assert trace.chunk_scores == ((8, 0.5),) and trace.tool_status_counts == {"found": 1}
    assert trace.faq_id is None and trace.faq_version == 2 and trace.timings_ms == {"total": 3.0}


def test_periods_no_label_holds_are_dropped_from_the_trace(glossary, store) -> None:
    # Read from year 1, 前年 is year -1: a period, but no label the trace keeps.
    result = _answer("前年营收", glossary, store, reference_date=date(1, 1, 1))
    assert [p.label for p in result.intent.periods] == ["FY-1"]
    assert "period" not in trace_from_result(result, user_id=None, store_question=False).slots


def test_the_stored_question_has_what_no_database_stores_redacted(glossary, store) -> None:
    result = _answer("营收\x00是多少", glossary, store)
    assert trace_from_result(result, user_id=None, store_question=True).question == "营收\ufffd是多少"


@settings(max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(question=QUESTIONS)
@example(question=TRACE_REGRESSIONS[0])
@example(question=TRACE_REGRESSIONS[1])
@example(question=TRACE_REGRESSIONS[2])
def test_every_answer_has_a_trace_the_record_accepts(question: str) -> None:
    result = answer_question(
        question,
        Ports(glossary=GLOSSARY, store=STORE, provider=MockProvider()),
        cleared=True,
        reference_date=date(2026, 3, 15),
    )
    for store_question in (False, True):
        trace = trace_from_result(result, user_id=1, store_question=store_question)
        assert all(term_storable(term) for term in trace.unrecognized_terms)


GLOSSARY = demo_glossary()
STORE = InMemoryFactStore(demo_facts())
