"""Invariant 6: the trace holds codes, counts and timings, never answers, values, text or prompts."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date

import pytest

from core.model.trace import TraceRecord, TraceRejected, trace_from_result
from core.pipeline import answer_question
from core.routes.lookup.provider import MockProvider

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
        glossary=glossary,
        store=store,
        provider=MockProvider(),
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
    result = answer_question("营收是多少", glossary=glossary, store=store, provider=MockProvider(), cleared=False)
    assert trace_from_result(result, user_id=None, store_question=True).question == "营收是多少"
    assert trace_from_result(result, user_id=None, store_question=False).question is None


def test_unrecognised_terms_are_kept_for_the_gap_report(glossary, store) -> None:
    result = answer_question("2025年利润是多少", glossary=glossary, store=store, provider=MockProvider(), cleared=False)
    assert "利润" in trace_from_result(result, user_id=None, store_question=False).unrecognized_terms
