"""The privacy-aware trace.

`TraceRecord` holds codes, counts and timings only, and refuses anything else at construction:
a free-text field, a fact value, a chunk text or a prompt cannot be put in it. The question
text is carried only when the deployment opted in (`RAGSPINE_LOG_QUESTIONS=1`). The one free
text allowed is an unrecognised slot term (≤ 32 characters, no digits) for the glossary-gap
report.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from core.model.types import ANSWER_KINDS, ANSWER_ROUTES, CLARIFY_MODES, CODE_RE, ROUTING_MODES, AgentResult

PERIOD_LABEL_RE = re.compile(r"^(FY[0-9]{4}|[0-9]{4}H[12]|[0-9]{4}Q[1-4])$")
STAGES = frozenset({"parse", "clarify", "faq", "structured", "narrative", "retrieval", "synthesis", "total"})
USAGE_KEYS = frozenset({"input_tokens", "output_tokens"})
TOOL_STATUSES = frozenset({"found", "not_found", "unrecognized_param"})
MAX_TERM = 32


class TraceRejected(ValueError):
    """Something that is not a code, a count or a timing was offered to the trace."""


@dataclass(frozen=True)
class TraceRecord:
    request_id: str
    user_id: int | None
    route: str
    routing_mode: str
    clarification_mode: str
    answer_kind: str
    slots: dict[str, list[str]] = field(default_factory=dict)
    tool_status_counts: dict[str, int] = field(default_factory=dict)
    fabrication_guard_triggered: bool = False
    numbers_unsupported: int = 0
    faq_id: int | None = None
    faq_version: int | None = None
    chunk_scores: tuple[tuple[int, float], ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    provider_seconds: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    unrecognized_terms: tuple[str, ...] = ()
    question: str | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[0-9a-f]{8,64}", self.request_id):
            raise TraceRejected("request_id must be a hex id")
        _member(self.route, ANSWER_ROUTES, "route")
        _member(self.routing_mode, ROUTING_MODES, "routing_mode")
        _member(self.clarification_mode, CLARIFY_MODES, "clarification_mode")
        _member(self.answer_kind, ANSWER_KINDS, "answer_kind")
        for slot, codes in self.slots.items():
            _member(slot, {"metric", "entity", "period", "channel"}, "slot")
            for code in codes:
                if not isinstance(code, str) or not (CODE_RE.match(code) or PERIOD_LABEL_RE.match(code)):
                    raise TraceRejected(f"slot {slot} holds something that is not a code")
        for status, count in self.tool_status_counts.items():
            _member(status, TOOL_STATUSES, "tool status")
            _count(count, "tool status count")
        _count(self.numbers_unsupported, "numbers_unsupported")
        if not isinstance(self.fabrication_guard_triggered, bool):
            raise TraceRejected("fabrication_guard_triggered must be a bool")
        for value in (self.faq_id, self.faq_version):
            if value is not None:
                _count(value, "faq id/version")
        for chunk_id, score in self.chunk_scores:
            _count(chunk_id, "chunk id")
            _seconds(score, "chunk score")
        for stage, ms in self.timings_ms.items():
            _member(stage, STAGES, "timing stage")
            _seconds(ms, "timing")
        _seconds(self.provider_seconds, "provider_seconds")
        for key, tokens in self.usage.items():
            _member(key, USAGE_KEYS, "usage key")
            _count(tokens, "token count")
        for term in self.unrecognized_terms:
            if not isinstance(term, str) or len(term) > MAX_TERM or any(ch.isdigit() for ch in term):
                raise TraceRejected("an unrecognised term must be short text with no digits")
        if self.question is not None and not isinstance(self.question, str):
            raise TraceRejected("question must be text")


def _member(value: object, allowed: Collection[str], what: str) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise TraceRejected(f"{what} is not one of the known codes")


def _count(value: object, what: str) -> None:
    if type(value) is not int or value < 0:
        raise TraceRejected(f"{what} must be a non-negative int")


def _seconds(value: object, what: str) -> None:
    if type(value) is not float:
        raise TraceRejected(f"{what} must be a float")


SLOT_CODES_MAX = 50  # a slot's codes kept in the trace: 各地区 may list thousands of entities


def trace_from_result(result: AgentResult, *, user_id: int | None, store_question: bool) -> TraceRecord:
    intent = result.intent
    slots: dict[str, list[str]] = {
        "metric": list(intent.metrics) or ([intent.metric] if intent.metric else []),
        "entity": list(intent.entities[:SLOT_CODES_MAX]) or ([intent.entity] if intent.entity else []),
        "period": [p.label for p in intent.periods] or ([intent.period.label] if intent.period else []),
        "channel": [intent.channel] if intent.channel_given else [],
    }
    counts: dict[str, int] = {}
    for tool_result in result.tool_results:
        status = str(tool_result.get("status"))
        counts[status] = counts.get(status, 0) + 1
    faq = result.faq or {}
    terms = intent.unrecognized_terms if not intent.metric else ()
    return TraceRecord(
        request_id=result.request_id,
        user_id=user_id,
        route=result.route,
        routing_mode=result.routing.mode,
        clarification_mode=result.clarification.mode,
        answer_kind=result.answer_kind,
        slots={k: v for k, v in slots.items() if v},
        tool_status_counts=counts,
        fabrication_guard_triggered=result.guard.fabrication_guard_triggered,
        numbers_unsupported=result.guard.numbers_unsupported,
        faq_id=faq.get("id"),
        faq_version=faq.get("version"),
        chunk_scores=tuple((int(c), float(s)) for c, s in result.chunk_scores),
        timings_ms={k: float(v) for k, v in result.timings.items() if k in STAGES},
        provider_seconds=float(result.provider_seconds),
        usage={k: int(v) for k, v in result.usage.items() if k in USAGE_KEYS},
        unrecognized_terms=tuple(t for t in terms if not any(ch.isdigit() for ch in t))[:3],
        question=intent.raw_question[:2000] if store_question else None,
    )
