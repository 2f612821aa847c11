"""The FAQ short-circuit's rules, without storage: which candidate may answer, or why none does.

`faq_key` is the form questions and aliases are compared in: normalised (`core.language.normalize`), whitespace-free,
trailing punctuation ignored. `faq_exclusion` says why a question must fall through to the
full agent even if an FAQ item matches it: a structured question or any filled slot (those
need the guard), or a real-time cue (a cached answer cannot be current).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from core.language.normalize import text_normalize
from core.model.facts import RESTRICTED
from core.model.intent import ParsedIntent
from core.model.registry import ROUTE_STRUCTURED
from core.ports import FaqCandidate, FaqHit, FaqLookup

REAL_TIME_CUES = re.compile(
    r"今天|今日|现在|最新|当前|实时|目前|此刻|刚刚|股价|行情|汇率"
    r"|(?<![a-z])(?:latest|current|currently|today|now|real[- ]?time|stock price|share price)(?![a-z])"
)
_TRAILING = re.compile(r"[\s?？!！。.,，;；:：~～…]+$")

EXCLUDED_STRUCTURED = "structured question or a filled slot"
EXCLUDED_REAL_TIME = "real-time cue"
NO_MATCH = "no FAQ item matches this wording"
DISABLED = "the matching item is disabled"
OUTSIDE_WINDOW = "the matching item is outside its validity window"
RESTRICTED_ITEM = "the matching item is RESTRICTED (never served as a cached answer)"
HIT = "hit"


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


@dataclass(frozen=True)
class FaqVerdict:
    """The candidate that answers, or none and why (one of the reasons above)."""

    candidate: FaqCandidate | None
    reason: str

    @property
    def hit(self) -> FaqHit | None:
        return self.candidate.hit() if self.candidate is not None else None


def faq_decide(intent: ParsedIntent, faq: FaqLookup, *, reference_date: date) -> FaqVerdict:
    """Which FAQ item answers the question, or why none does. A question the guard must see
    (`faq_exclusion`) never reaches the store; of the candidates, newest version first, the first
    that is not RESTRICTED, is enabled and is valid on `reference_date` answers. The reason kept
    is the last candidate's, so the admin's tester says why the newest near-miss was passed over."""
    excluded = faq_exclusion(intent)
    if excluded:
        return FaqVerdict(None, excluded)
    reason = NO_MATCH
    for candidate in faq.candidates(intent.raw_question):
        if candidate.sensitivity == RESTRICTED:
            reason = RESTRICTED_ITEM
        elif not candidate.enabled:
            reason = DISABLED
        elif (candidate.valid_from and reference_date < candidate.valid_from) or (
            candidate.valid_until and reference_date > candidate.valid_until
        ):
            reason = OUTSIDE_WINDOW
        else:
            return FaqVerdict(candidate, HIT)
    return FaqVerdict(None, reason)
