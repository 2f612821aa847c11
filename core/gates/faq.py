"""The FAQ short-circuit's rules, without storage.

`faq_key` is the form questions and aliases are compared in: normalised (`core.language.normalize`), whitespace-free,
trailing punctuation ignored. `faq_exclusion` says why a question must fall through to the
full agent even if an FAQ item matches it: a structured question or any filled slot (those
need the guard), or a real-time cue (a cached answer cannot be current).
"""

from __future__ import annotations

import re

from core.language.normalize import text_normalize
from core.model.types import ROUTE_STRUCTURED, ParsedIntent

REAL_TIME_CUES = re.compile(
    r"今天|今日|现在|最新|当前|实时|目前|此刻|刚刚|股价|行情|汇率"
    r"|(?<![a-z])(?:latest|current|currently|today|now|real[- ]?time|stock price|share price)(?![a-z])"
)
_TRAILING = re.compile(r"[\s?？!！。.,，;；:：~～…]+$")

EXCLUDED_STRUCTURED = "structured question or a filled slot"
EXCLUDED_REAL_TIME = "real-time cue"


def faq_key(text: str) -> str:
    normalized = _TRAILING.sub("", text_normalize(text))
    return "".join(normalized.split())


def faq_exclusion(intent: ParsedIntent) -> str | None:
    if intent.route == ROUTE_STRUCTURED or intent.metric or intent.entity or intent.period or intent.channel_given:
        return EXCLUDED_STRUCTURED
    if REAL_TIME_CUES.search(text_normalize(intent.raw_question)):
        return EXCLUDED_REAL_TIME
    return None


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
