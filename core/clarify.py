"""The clarification gate (SPEC §4 step 2).

Takes the parsed intent (with any `scope` already applied) and the glossary; returns a
`ClarificationResult`. The branches are checked in exactly this order, and the caller returns
early on the first two modes before any FAQ, tool, retrieval or LLM call:

1. the security gate on the raw question → `out_of_scope_entity`;
2. a narrative or find_documents route → `none`;
3. a metric-like term the glossary does not know (`unknown_metric`) → `ask_first` with the
   closest known metrics, never a shorter alias's figure; no metric → `ask_first`, listing
   metrics closest to the question's wording first;
4. a missing entity or period → `answer_with_assumptions` (home entity, latest complete
   fiscal year) with a banner and narrowing options; with no home entity, `ask_first` for it;
5. otherwise `none`.
"""

from __future__ import annotations

from datetime import date
from difflib import SequenceMatcher

from .glossary import GlossarySnapshot
from .periods import latest_complete_fiscal_year
from .security import SecurityVerdict
from .types import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_NONE,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ClarificationResult,
    NarrowingOption,
    ParsedIntent,
    Period,
)

MAX_OPTIONS = 8


def clarify_scope(
    intent: ParsedIntent, *, glossary: GlossarySnapshot, reference_date: date, verdict: SecurityVerdict
) -> ClarificationResult:
    language = intent.language
    if verdict.refused:
        return ClarificationResult(
            mode=CLARIFY_OUT_OF_SCOPE_ENTITY, question=verdict.message, narrowing_options=verdict.narrowing_options
        )
    if intent.route in (ROUTE_NARRATIVE, ROUTE_FIND_DOCUMENTS):
        return ClarificationResult(mode=CLARIFY_NONE)
    if intent.unknown_metric:
        return _ask_for_known_metric(intent, intent.unknown_metric, glossary, language)
    if intent.metric is None:
        return _ask_for_metric(intent, glossary, language)

    home = glossary.home_entity
    if intent.entity is None and home is None:
        return _ask_for_entity(intent, glossary, language)
    assumed_entity = home if intent.entity is None else None
    assumed_period = latest_complete_fiscal_year(reference_date) if intent.period is None else None
    if assumed_entity is None and assumed_period is None:
        return ClarificationResult(mode=CLARIFY_NONE)
    options = _narrowing_options(intent, glossary, reference_date, assumed_entity, assumed_period, language)
    return ClarificationResult(
        mode=CLARIFY_ANSWER_WITH_ASSUMPTIONS,
        assumption_note=_assumption_note(glossary, assumed_entity, assumed_period, options, language),
        assumed_entity=assumed_entity,
        assumed_period=assumed_period,
        narrowing_options=options,
    )


def _ask_for_metric(intent: ParsedIntent, glossary: GlossarySnapshot, language: str) -> ClarificationResult:
    wording = " ".join(intent.unrecognized_terms) or intent.normalized
    ranked = sorted(
        glossary.metrics,
        key=lambda code: -_closeness(wording, glossary.aliases_of("metric", code)),
    )[:MAX_OPTIONS]
    names = [glossary.display("metric", code, language) for code in ranked]
    options = tuple(
        NarrowingOption(name, intent.raw_question, {"metric": code}) for code, name in zip(ranked, names, strict=True)
    )
    if language == "en":
        question = "Which metric do you mean? Options: " + ", ".join(names) + "."
    else:
        question = "请问您想查询哪个指标？可选：" + "、".join(names) + "。"
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def _ask_for_known_metric(
    intent: ParsedIntent, term: str, glossary: GlossarySnapshot, language: str
) -> ClarificationResult:
    """`净利率` with only 净利 defined: say the term is not known and offer the metrics that share
    characters or words with it (names, never codes); no figure of any of them."""
    term = term[:32]
    scores = {code: _closeness(term.lower(), glossary.aliases_of("metric", code)) for code in glossary.metrics}
    ranked = sorted((code for code, score in scores.items() if score > 0), key=lambda code: -scores[code])
    ranked = ranked[:MAX_OPTIONS] or list(glossary.metrics)[:MAX_OPTIONS]
    names = [glossary.display("metric", code, language) for code in ranked]
    options = tuple(
        NarrowingOption(name, intent.raw_question, {"metric": code}) for code, name in zip(ranked, names, strict=True)
    )
    if language == "en":
        question = (
            f"The metric '{term}' is not defined, so no other metric's figure is given in its place. "
            "Did you mean: " + ", ".join(names) + "?"
        )
    else:
        question = f"未找到指标“{term}”，为避免答非所问，不以其他指标的数字代替。您是否想问：" + "、".join(names) + "？"
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def _ask_for_entity(intent: ParsedIntent, glossary: GlossarySnapshot, language: str) -> ClarificationResult:
    entities = glossary.in_scope_entities()[:MAX_OPTIONS]
    names = [glossary.display("entity", e.code, language) for e in entities]
    options = tuple(
        NarrowingOption(n, intent.raw_question, {"entity": e.code}) for e, n in zip(entities, names, strict=True)
    )
    if language == "en":
        question = "Which entity do you mean? Options: " + ", ".join(names) + "."
    else:
        question = "请问您想查询哪个实体？可选：" + "、".join(names) + "。"
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def _closeness(wording: str, aliases: list[str]) -> float:
    """How close the question's words are to a metric's aliases (a did-you-mean score)."""
    best = 0.0
    for alias in aliases:
        alias = alias.lower()
        score = SequenceMatcher(None, wording, alias).ratio()
        if alias in wording or (wording and wording in alias):
            score += 1.0
        best = max(best, score)
    return best


def _narrowing_options(
    intent: ParsedIntent,
    glossary: GlossarySnapshot,
    reference_date: date,
    assumed_entity: str | None,
    assumed_period: Period | None,
    language: str,
) -> tuple[NarrowingOption, ...]:
    options: list[NarrowingOption] = []
    if assumed_entity is not None:
        for entity in glossary.in_scope_entities():
            if entity.code != assumed_entity and len(options) < 5:
                label = glossary.display("entity", entity.code, language)
                options.append(NarrowingOption(label, intent.raw_question, {"entity": entity.code}))
    if assumed_period is not None:
        year = reference_date.year
        for period in (
            Period("FY", str(year - 2)),
            Period("HY", f"{year - 1}H1"),
            Period("QUARTER", f"{year - 1}Q4"),
        ):
            options.append(NarrowingOption(period.label, intent.raw_question, {"period": period.label}))
    return tuple(options[:MAX_OPTIONS])


def _assumption_note(
    glossary: GlossarySnapshot,
    assumed_entity: str | None,
    assumed_period: Period | None,
    options: tuple[NarrowingOption, ...],
    language: str,
) -> str:
    parts: list[str] = []
    labels = " / ".join(o.label for o in options)
    if language == "en":
        if assumed_entity:
            parts.append(f"no entity given, using {glossary.display('entity', assumed_entity, language)}")
        if assumed_period:
            parts.append(f"no period given, using the latest complete fiscal year {assumed_period.label}")
        return "[Assumption] " + "; ".join(parts) + f". (To narrow: {labels})"
    if assumed_entity:
        parts.append(f"未指定实体，按 {glossary.display('entity', assumed_entity, language)} 计算")
    if assumed_period:
        parts.append(f"未指定期间，按最近完整财年 {assumed_period.label} 计算")
    return "【假设】" + "；".join(parts) + f"。（如需收窄：{labels}）"
