"""Zero-LLM intent parsing.

Takes the raw question, a glossary snapshot and a reference date; returns a `ParsedIntent`
with the four slots (metric, entity, period, channel), their multi-value forms, the operation
asked for (`core.parse.cues`), the route and a `routing` record (mode, confidence, and a reason
in the analyst's words: `依据：指标 营业收入 · 同比`). Deterministic and offline.

Competitor mentions are matched jointly with every other alias, so the span of `中国竞安`
is taken by the external entity and can never be read as ACME_CN.

Never a shorter alias, never another entity (`core.parse.intent.terms`): a metric alias with unread
words beside it names a longer term (净利 is not 净利率, 净利润 is not 归母净利润); the metric is
dropped and the term reported as `unknown_metric`. So is an acronym nothing reads (ROA), and a
name where the entity goes (腾讯2025年营收), which is never answered as the home entity. A parent
named right before its own child is the child (`ACME HK`). The bare head noun of the home
entity's name (`Group`, `the group's`, `本集团`) is the home entity when no other in-scope
entity's names share it (`core.parse.intent.home`). A ranking or a sum over 各地区 / 各渠道
lists the subsidiaries or channels it runs over, never an external entity.

The slots are read by `core.parse.intent.slots`; `parse_intent` first blanks the unit asked and
a statement named, then applies a formula the question brings (`core.parse.defined`), and reads
a metric said in other words once more as the glossary's own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.quantities.asked import unit_asked
from core.model.intent import ParsedIntent
from core.model.operation import OP_RATIO, OP_SHARE
from core.parse.defined import ASKING_TAIL, definition_apply, definition_read, spans_blanked, statement_spans
from core.parse.intent.checked import EQUALS, REACHES, FigureChecked, figure_checked
from core.parse.intent.lookalikes import lookalikes_folded
from core.parse.intent.reordered import formula_paraphrase_find, reordered_alias_find
from core.parse.intent.route import (
    DOCUMENT_CUES,
    MOVEMENT_CUES,
    NARRATIVE_CUES,
    NUMERIC_CUES,
    WHY_CUES,
    asks_for_a_list,
    asks_why_change,
)
from core.parse.intent.slots import slots_read
from core.parse.intent.terms import term_names_entity
from core.parse.intent.typos import reading_note, reason_with_readings

__all__ = [
    "DOCUMENT_CUES",
    "EQUALS",
    "MOVEMENT_CUES",
    "NARRATIVE_CUES",
    "NUMERIC_CUES",
    "REACHES",
    "WHY_CUES",
    "FigureChecked",
    "asks_for_a_list",
    "asks_why_change",
    "figure_checked",
    "is_inconclusive",
    "parse_intent",
    "reading_note",
    "term_names_entity",
]


def parse_intent(question: str, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
    normalized = lookalikes_folded(text_normalize(question))
    unit = unit_asked(normalized)
    if unit is not None:
        # the unit asked is a format instruction: read, so never part of a term (`营收折合`)
        normalized = _unit_blanked(normalized, unit.written)
    # a statement named (`the cash flow statement`, `利润表`) is where to read, never a metric's words
    normalized = _spans_blanked(normalized, statement_spans(normalized))
    defined = definition_read(normalized, glossary, reference_date)
    if defined is None:
        intent = slots_read(question, normalized, glossary, reference_date, typos=True)
        return replace(_reordered(intent, glossary, reference_date), unit_asked=unit)
    rest = slots_read(question, " ".join(defined.masked.split()), glossary, reference_date, typos=True)
    if rest.metrics and not defined.named:
        # the question asks for a metric of its own; a definition it never uses answers nothing,
        # and its words are never read as the question's (its metrics, its operators)
        return replace(rest, unit_asked=unit)
    return replace(definition_apply(rest, defined.definition, normalized), unit_asked=unit)


_HOW_MANY = re.compile(r"多少|几多|几")


def _metric_words(normalized: str, glossary: GlossarySnapshot) -> str:
    """The words from the first metric named to the end of its sentence, its asking words off
    (`研发经费与利润的比值是多少` → `研发经费与利润的比值`)."""
    _, positions = compact_view(normalized)
    starts = [positions[m.start] for m in glossary.match(normalized) if m.kind == "metric"]
    if not starts:
        return ""
    rest = normalized[min(starts) :]
    end = re.search(r"[?？。!！;；]", rest)
    rest = rest[: end.start()] if end else rest
    return ASKING_TAIL.sub("", rest).strip()


def _spans_blanked(normalized: str, spans: list[tuple[int, int]]) -> str:
    return " ".join(spans_blanked(normalized, spans).split()) if spans else normalized


def _unit_blanked(normalized: str, written: str) -> str:
    """The question with the unit's words blanked, a how-many word kept (it still asks)."""
    at = normalized.find(written)
    if at < 0:
        return normalized
    asks = _HOW_MANY.search(written)
    kept = f"{asks.group(0)} " if asks else " "
    return " ".join((normalized[:at] + kept + normalized[at + len(written) :]).split())


def _reordered(intent: ParsedIntent, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
    """A metric said otherwise, read as the glossary's own words and the answer says so: an
    English one in other order or inflection (`pay out in cash dividends`), a formula metric by
    a paraphrase of its name (`研发经费与利润的比值` for `企业研发经费与利润比值`)."""
    if intent.external_entity:
        return intent
    found = None
    asks_ratio = intent.operation is not None and intent.operation.kind in (OP_RATIO, OP_SHARE)
    if (intent.unknown_metric or asks_ratio) and glossary.formula_metrics:
        said = _metric_words(intent.normalized, glossary)
        code = formula_paraphrase_find(said, glossary) if said else None
        if code is not None and code not in intent.metrics:
            found = (said, glossary.metrics[code].name)
    elif intent.metric is None and intent.language == "en":
        found = reordered_alias_find(intent.normalized, glossary)
    if found is None or found[0] not in intent.normalized:
        return intent
    written, alias = found
    moved = intent.normalized.replace(written, text_normalize(alias), 1)
    again = slots_read(intent.raw_question, moved, glossary, reference_date, typos=False)
    if again.metric is None:
        return intent
    read_as = (*again.corrections, (written, alias))
    routing = replace(again.routing, reason=reason_with_readings(again, read_as))
    return replace(again, corrections=read_as, routing=routing)


def is_inconclusive(intent: ParsedIntent) -> bool:
    """No slot and no cue: the only case where LLM-assisted routing may be consulted."""
    return intent.routing.confidence <= 0.5
