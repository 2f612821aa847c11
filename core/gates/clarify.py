"""The clarification gate.

Takes the parsed intent (with any `scope` already applied) and the glossary; returns a
`ClarificationResult`. The branches are checked in exactly this order, and the caller returns
early on the first two modes before any FAQ, tool, retrieval or LLM call:

1. the security gate on the raw question → `out_of_scope_entity`;
2. a narrative or find_documents route → `none`;
3. an operation the engine cannot run as asked (前0名, 排名第0, or a field no parser writes), or a
   rounding out of range on a level (保留100位小数 with no operation) → `ask_first` stating the
   allowed range. An operation's own rounding out of range is refused by the engine, which
   states the range;
4. a term the glossary does not know (`unknown_metric`) → `ask_first` naming it: a metric-like
   term with the closest known metrics, never a shorter alias's figure; a name where the entity
   goes (腾讯2025年营收) with the entities in scope, never the home entity's figure; no metric →
   `ask_first` naming the unknown words, listing metrics closest to the question's wording first;
5. a stretch of time no period type holds (前三季度, 1-9月, 3月, Q5) → `ask_first` with the periods
   there are (FY, H1/H2, Q1–Q4), never the full year's figure; given `answerable`, only those
   whose answer holds a figure for the entity and metric asked (stored, or derived by the
   derived-period rules), so that every option leads to a figure. This is the one ask-first that
   reads the fact store, with the user's clearance, and it shows period labels only;
6. a missing entity or period → `answer_with_assumptions` (home entity, latest complete
   fiscal year) with a banner and narrowing options; with no home entity, `ask_first` for it.
   The entity options are the assumed entity's own scope (its subsidiaries, `_own_scope`), never
   a peer or an external entity, each labelled with a name, never a code (`GlossarySnapshot.label`). A
   period named without a year (`第四季度`, `上半年`, `前三季度`, `H1`, `Q3`), which the grammar reads
   as the latest complete such period, is an assumption too: the banner names the period
   assumed and offers the same period a year earlier (and the latest complete quarter or half
   when that is another), each as the question with its year written in (`ask_back.year_assumed`);
7. otherwise `none`.
"""

from __future__ import annotations

import re
from datetime import date
from difflib import SequenceMatcher

from core.engine.display import MAX_DECIMALS
from core.gates.ask_back import (
    Answerable,
    YearAssumed,
    ask_for_period,
    ask_for_range,
    series_unbounded_kind,
    year_assumed,
)
from core.gates.security import SecurityVerdict
from core.glossary import EntityInfo, GlossarySnapshot
from core.language.periods import latest_complete_fiscal_year, periods_cumulative, periods_unread
from core.model.clarification import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_NONE,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    ClarificationResult,
    NarrowingOption,
)
from core.model.facts import ENTITY_HOME, ENTITY_SUBSIDIARY
from core.model.intent import ParsedIntent
from core.model.operation import OP_SUM, OPERATION_KINDS
from core.model.period import Period
from core.model.registry import ROUTE_FIND_DOCUMENTS, ROUTE_NARRATIVE
from core.parse.intent import term_names_entity

MAX_OPTIONS = 8
MAX_ENTITY_OPTIONS = 5  # of the options an assumed entity's answer offers, those narrowing the entity
_CJK_WORD = re.compile(r"[\u3400-\u9fff]{2,}")


def clarify_scope(
    intent: ParsedIntent,
    *,
    glossary: GlossarySnapshot,
    reference_date: date,
    verdict: SecurityVerdict,
    answerable: Answerable | None = None,
) -> ClarificationResult:
    """The gate's outcome for `intent`. `answerable` (the orchestrator's, over the fact store with
    the user's clearance) keeps, of the periods a period ask-back could offer, those whose answer
    holds a figure; without it every period type of the year is offered."""
    language = intent.language
    if verdict.refused:
        return ClarificationResult(
            mode=CLARIFY_OUT_OF_SCOPE_ENTITY, question=verdict.message, narrowing_options=verdict.narrowing_options
        )
    if intent.route in (ROUTE_NARRATIVE, ROUTE_FIND_DOCUMENTS):
        return ClarificationResult(mode=CLARIFY_NONE)
    problem = _operation_problem(intent, language)
    if problem is not None:
        return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=problem)
    if intent.unknown_metric and term_names_entity(intent, glossary):
        return _ask_for_known_entity(intent, intent.unknown_metric, glossary, language)
    if intent.unknown_metric:
        return _ask_for_known_metric(intent, intent.unknown_metric, glossary, language)
    if intent.metric is None:
        return _ask_for_metric(intent, glossary, language)
    unread = periods_unread(intent.normalized, reference_date) if intent.normalized else []
    if intent.operation is not None and intent.operation.kind == OP_SUM:
        # a sum of quarters from the start of the year (`前三季度合计`) is read, not asked back
        derived = {(s, e) for s, e, quarters in periods_cumulative(intent.normalized, reference_date)}
        unread = [u for u in unread if u[:2] not in derived]
    unread = [u for u in unread if u[:2] not in intent.periods_read]
    if unread:
        return ask_for_period(intent, unread[0], reference_date, language, answerable)

    unbounded = series_unbounded_kind(intent)
    if unbounded is not None:
        return ask_for_range(intent, unbounded, reference_date, language)

    home = glossary.home_entity
    if intent.entity is None and home is None:
        return _ask_for_entity(intent, glossary, language)
    assumed_entity = home if intent.entity is None else None
    assumed_period = latest_complete_fiscal_year(reference_date) if intent.period is None else None
    year = year_assumed(intent, reference_date) if assumed_period is None else None
    if assumed_entity is None and assumed_period is None and year is None:
        return ClarificationResult(mode=CLARIFY_NONE)
    options = _narrowing_options(intent, glossary, reference_date, assumed_entity, assumed_period, language)
    if year is not None:
        options = (*options, *year.options)[:MAX_OPTIONS]
    return ClarificationResult(
        mode=CLARIFY_ANSWER_WITH_ASSUMPTIONS,
        assumption_note=_assumption_note(glossary, assumed_entity, assumed_period, options, language, year),
        assumed_entity=assumed_entity,
        assumed_period=year.periods[0] if year is not None and len(year.periods) == 1 else assumed_period,
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
        unknown = [t for t in intent.unrecognized_terms if _CJK_WORD.fullmatch(t)]
        named = "未找到指标" + "、".join(f"“{t}”" for t in unknown) + "。" if unknown else ""
        question = named + "请问您想查询哪个指标？可选：" + "、".join(names) + "。"
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def _operation_problem(intent: ParsedIntent, language: str) -> str | None:
    """What in the operation asked for cannot be done as asked, in the analyst's words: a top N
    or a place in a ranking below 1, a field no parser writes (an intent from elsewhere), or a
    level's rounding outside 0 to `MAX_DECIMALS` places (a level's figure would otherwise show
    a different rounding without a word; an operation's is refused by the engine). Each part of
    the question is checked as well as the whole."""
    en = language == "en"
    levels = [intent.decimals] if intent.operation is None else []
    levels += [p.decimals for p in intent.parts if p.operation is None]
    if any(n is not None and not 0 <= n <= MAX_DECIMALS for n in levels):
        if en:
            return f"Decimal places must be between 0 and {MAX_DECIMALS}; please ask again within that range."
        return f"小数位数须在 0 到 {MAX_DECIMALS} 之间，请在此范围内重新指定（例如“保留两位小数”）。"
    for op in dict.fromkeys([intent.operation, *(p.operation for p in intent.parts)]):
        if op is None:
            continue
        if op.top is not None and op.top < 1:
            return "A top N must be at least 1 (e.g. top 3)." if en else "前 N 名的 N 须至少为 1（例如“前三名”）。"
        if op.position is not None and op.position < 1:
            return (
                "A place in a ranking starts at 1 (e.g. second highest)." if en else "名次从 1 开始（例如“排名第二”）。"
            )
        known = (
            op.kind in OPERATION_KINDS
            and op.comparison in ("yoy", "qoq")
            and op.order in ("asc", "desc")
            and op.over in (None, "entities", "channels", "periods")
        )
        if not known:
            return "The computation asked for is not understood." if en else "无法识别要做的计算，请换一种问法。"
    return None


def _ask_for_known_entity(
    intent: ParsedIntent, term: str, glossary: GlossarySnapshot, language: str
) -> ClarificationResult:
    """`腾讯2025年营收`: the name is no entity the desk covers; offer the entities in scope (never
    an external one) for the metric asked, and give no figure of any of them."""
    term = term[:32]
    entities = [e for e in glossary.in_scope_entities() if not glossary.is_external(e.code)][:MAX_OPTIONS]
    names = [glossary.label("entity", e.code, language) for e in entities]
    scope = {"metric": intent.metric} if intent.metric else {}
    options = tuple(
        NarrowingOption(name, intent.raw_question, {"entity": e.code, **scope})
        for e, name in zip(entities, names, strict=True)
    )
    if language == "en":
        question = (
            f"'{term}' is not a company or region covered here, so no other entity's figure is given in its "
            "place. Which entity do you mean? Options: " + ", ".join(names) + "."
        )
    else:
        question = (
            f"未识别“{term}”：它不是本系统覆盖的公司或地区，为避免答非所问，不以其他实体的数字代替。请问您想查询："
            + "、".join(names)
            + "？"
        )
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
    names = [glossary.label("entity", e.code, language) for e in entities]
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
        for entity in _own_scope(glossary, assumed_entity)[:MAX_ENTITY_OPTIONS]:
            label = glossary.label("entity", entity.code, language)
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


def _own_scope(glossary: GlossarySnapshot, assumed: str) -> list[EntityInfo]:
    """What an answer about `assumed` (the home entity) narrows to: the entities under it, depth
    first in scope order, and the subsidiaries filed with no parent (a subsidiary is the home's).
    Only home and subsidiary entities are walked, so never a peer, a peer's own subsidiary or an
    external entity, whatever the fact store holds for them."""
    group = (ENTITY_HOME, ENTITY_SUBSIDIARY)
    found: list[EntityInfo] = []
    seen = {assumed}
    pending = list(glossary.children(assumed))
    info = glossary.entities.get(assumed)
    if info is not None and info.kind == ENTITY_HOME:
        pending += [e for e in glossary.in_scope_entities() if e.kind == ENTITY_SUBSIDIARY and e.parent is None]
    while pending:
        entity = pending.pop(0)
        if entity.code in seen or entity.kind not in group:
            continue
        seen.add(entity.code)
        found.append(entity)
        pending[:0] = glossary.children(entity.code)
    return found


def _assumption_note(
    glossary: GlossarySnapshot,
    assumed_entity: str | None,
    assumed_period: Period | None,
    options: tuple[NarrowingOption, ...],
    language: str,
    year: YearAssumed | None = None,
) -> str:
    parts: list[str] = []
    labels = " / ".join(o.label for o in options)
    if language == "en":
        if assumed_entity:
            parts.append(f"no entity given, using {glossary.display('entity', assumed_entity, language)}")
        if assumed_period:
            parts.append(f"no period given, using the latest complete fiscal year {assumed_period.label}")
        if year:
            parts.append(year.said(language))
        return "[Assumption] " + "; ".join(parts) + f". (To narrow: {labels})"
    if assumed_entity:
        parts.append(f"未指定实体，按 {glossary.display('entity', assumed_entity, language)} 计算")
    if assumed_period:
        parts.append(f"未指定期间，按最近完整财年 {assumed_period.label} 计算")
    if year:
        parts.append(year.said(language))
    return "【假设】" + "；".join(parts) + f"。（如需收窄：{labels}）"
