"""The privacy-aware trace.

`TraceRecord` holds codes, counts and timings only, and refuses anything else at construction:
a free-text field, a fact value, a chunk text or a prompt cannot be put in it. The question
text is carried only when the deployment opted in (`RAGSPINE_LOG_QUESTIONS=1`). The one free
text allowed is an unrecognised slot term (≤ 32 printable characters, no digits) for the
glossary-gap report.

`trace_from_result` builds the record from an answer and holds the other rule: a trace may drop
or redact what it must not store, it never fails the answer. Everything it takes from the answer
passes the record's own checks first (the same predicates): a term too long, holding a digit or
an unprintable character is dropped, so are a slot value that is no code or period label and a
score that is not a finite number; characters no database stores are redacted from the question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from core.model.clarification import CLARIFY_MODES
from core.model.facts import CODE_RE
from core.model.intent import ROUTING_MODES
from core.model.registry import ANSWER_KINDS, ANSWER_ROUTES
from core.model.result import AgentResult

PERIOD_LABEL_RE = re.compile(r"^(FY[0-9]{4}|[0-9]{4}H[12]|[0-9]{4}Q[1-4])$")
STAGES = frozenset({"parse", "clarify", "faq", "structured", "why", "narrative", "retrieval", "synthesis", "total"})
USAGE_KEYS = frozenset({"input_tokens", "output_tokens"})
TOOL_STATUSES = frozenset({"found", "not_found", "unrecognized_param"})
MAX_TERM = 32


class TraceRejected(ValueError):
    """Something that is not a code, a count or a timing was offered to the trace."""


# The record's rules as predicates: `TraceRecord` raises on what fails them, `trace_from_result`
# drops or redacts it, so the two can never disagree.
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")  # NUL and lone surrogates: no database stores them


def code_storable(value: object) -> bool:
    """A glossary code (`ACME_HK`) or a period label (`FY2025`, `2025H1`, `2025Q4`)."""
    return isinstance(value, str) and bool(CODE_RE.fullmatch(value) or PERIOD_LABEL_RE.fullmatch(value))


def term_storable(value: object) -> bool:
    """An unrecognised term the gap report may keep: short printable text with no digit in it."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_TERM
        and value.isprintable()
        and not any(ch.isdigit() for ch in value)
    )


def text_storable(value: str) -> bool:
    return UNSTORABLE.search(value) is None


def _finite(value: object) -> bool:
    return type(value) is float and math.isfinite(value)


def _natural(value: object) -> bool:
    return type(value) is int and value >= 0


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
        if not (isinstance(self.request_id, str) and re.fullmatch(r"[0-9a-f]{8,64}", self.request_id)):
            raise TraceRejected("request_id must be a hex id")
        _member(self.route, ANSWER_ROUTES, "route")
        _member(self.routing_mode, ROUTING_MODES, "routing_mode")
        _member(self.clarification_mode, CLARIFY_MODES, "clarification_mode")
        _member(self.answer_kind, ANSWER_KINDS, "answer_kind")
        for slot, codes in self.slots.items():
            _member(slot, {"metric", "entity", "period", "channel"}, "slot")
            for code in codes:
                if not code_storable(code):
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
            if not term_storable(term):
                raise TraceRejected("an unrecognised term must be short printable text with no digits")
        if self.question is not None and not (isinstance(self.question, str) and text_storable(self.question)):
            raise TraceRejected("question must be text a database stores")


def _member(value: object, allowed: Collection[str], what: str) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise TraceRejected(f"{what} is not one of the known codes")


def _count(value: object, what: str) -> None:
    if not _natural(value):
        raise TraceRejected(f"{what} must be a non-negative int")


def _seconds(value: object, what: str) -> None:
    if not _finite(value):
        raise TraceRejected(f"{what} must be a finite float")


SLOT_CODES_MAX = 50  # a slot's codes kept in the trace: 各地区 may list thousands of entities


def trace_from_result(result: AgentResult, *, user_id: int | None, store_question: bool) -> TraceRecord:
    """The trace of one answer, with whatever the record would refuse dropped or redacted first."""
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
        if status in TOOL_STATUSES:
            counts[status] = counts.get(status, 0) + 1
    faq = result.faq or {}
    terms = intent.unrecognized_terms if not intent.metric else ()
    question = intent.raw_question[:2000] if store_question else None
    return TraceRecord(
        request_id=result.request_id,
        user_id=user_id,
        route=result.route,
        routing_mode=result.routing.mode,
        clarification_mode=result.clarification.mode,
        answer_kind=result.answer_kind,
        slots={k: kept for k, v in slots.items() if (kept := [c for c in v if code_storable(c)])},
        tool_status_counts=counts,
        fabrication_guard_triggered=result.guard.fabrication_guard_triggered,
        numbers_unsupported=result.guard.numbers_unsupported,
        faq_id=_natural_or_none(faq.get("id")),
        faq_version=_natural_or_none(faq.get("version")),
        chunk_scores=tuple((c, float(s)) for c, s in result.chunk_scores if _natural(c) and _finite(float(s))),
        timings_ms={k: float(v) for k, v in result.timings.items() if k in STAGES and _finite(float(v))},
        provider_seconds=float(result.provider_seconds) if _finite(float(result.provider_seconds)) else 0.0,
        usage={k: v for k, v in result.usage.items() if k in USAGE_KEYS and _natural(v)},
        unrecognized_terms=tuple(t for t in terms if term_storable(t))[:3],
        question=UNSTORABLE.sub("\ufffd", question) if question is not None else None,
    )


def _natural_or_none(value: object) -> int | None:
    return value if _natural(value) else None
