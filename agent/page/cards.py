"""Computed answers as the analyst UI shows them.

Takes one stored answer (`agent.serialize.Answer`), its language and the glossary; returns what
the computed cards and the ranking chart need: each item's name, its display value with the
unit's name, its formula in words (as the engine wrote it) and every input with its value, unit
and source, read from the answer's found facts. A growth's or a difference's rate and absolute
change share one card; derivations of one value that agree are one card that says so; rank
items become one chart, not a card each.

Nothing is computed or parsed here: every figure shown is a string the engine wrote or a found
fact's value, typed once by `answer_from_json`. Labels follow the answer's language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import pgettext

from agent.serialize import Answer, AnswerComputed, AnswerFact, AnswerKey
from core.engine import KIND_DIFFERENCE, KIND_GROWTH, RANK_ORDERS, UNIT_PCT, UNIT_PP, UNIT_RANK
from core.glossary import GlossarySnapshot
from core.language.normalize import question_language
from core.model.outcome import KIND_DERIVED

from .charts import chart_ranking
from .decomposition import Decomposition, decompositions_view
from .labels import answer_language, unit_words

CHANGE_KINDS = (KIND_GROWTH, KIND_DIFFERENCE)

LANGUAGES = ("zh", "en")


@dataclass(frozen=True)
class Figure:
    """A computed value as shown: the engine's display (signed for a change), its unit's name,
    the exact value for the tooltip, and the label it is shown under beside the main one."""

    display: str
    unit_name: str
    exact: str
    name: str
    label: str = ""


@dataclass(frozen=True)
class InputView:
    """One input of a computed value: what it is in words and its found fact (None if absent)."""

    what: str
    fact: AnswerFact | None
    shown: str
    unit_name: str


@dataclass(frozen=True)
class FormulaLine:
    name: str
    words: str


@dataclass(frozen=True)
class Card:
    kind: str
    kind_label: str
    name: str
    subject: str  # the entity (and channel) the inputs share, and the period the value stands for
    main: Figure
    alongside: tuple[Figure, ...]
    formulas: tuple[FormulaLine, ...]
    agree: str  # derivations that agree: said once, under their formulas
    inputs: tuple[InputView, ...]
    inputs_label: str

    @property
    def inputs_elsewhere(self) -> bool:
        """Every input is a row of the panel's inputs table: the card need not list them."""
        return all(i.fact is not None for i in self.inputs)


@dataclass(frozen=True)
class RankRow:
    rank: int
    label: str
    value: Decimal | None
    display: str
    tied: bool


@dataclass(frozen=True)
class Ranking:
    chart: Mapping[str, Any] | None
    rows: tuple[RankRow, ...]
    title: str
    unit_name: str
    missing: tuple[str, ...]
    omitted: str
    inputs: tuple[InputView, ...]
    inputs_label: str

    @property
    def inputs_elsewhere(self) -> bool:
        return all(i.fact is not None for i in self.inputs)


@dataclass(frozen=True)
class ComputedViews:
    """A turn's computed values as the panel shows them: cards, one ranking, a why's parts."""

    language: str
    labels: Mapping[str, str]
    cards: tuple[Card, ...]
    ranking: Ranking | None
    decompositions: tuple[Decomposition, ...]


def card_labels() -> dict[str, str]:
    """The cards' words in the active language (the answer's: see `answer_language`)."""
    return {
        "heading": pgettext("card heading", "Computed"),
        "formula": pgettext("card formula", "Formula"),
        "inputs": pgettext("card inputs", "Inputs ({count})"),
        "exact": pgettext("card exact", "Exact value"),
        "change": pgettext("card change", "Change"),
        "rate": pgettext("card rate", "Growth"),
        "difference_rate": pgettext("card difference_rate", "Relative difference"),
        "source": pgettext("card source", "Source: "),
        "list_sep": pgettext("card list_sep", ", "),
        "open": pgettext("card open", "Open document"),
        "not_in_facts": pgettext("card not_in_facts", "not returned with the answer"),
        "tied": pgettext("card tied", "tied"),
        "missing": pgettext("card missing", "Without the figure, not ranked: "),
        "omitted": pgettext("card omitted", "{count} more not drawn; see the CSV export."),
        "ranking": pgettext("card ranking", "{subject} ranking ({order}, {count} ranked)"),
        "ranking_partial": pgettext(
            "card ranking_partial", "{subject} ranking ({order}; {count} of {total} items have the figure)"
        ),
        "desc": pgettext("card desc", "highest first"),
        "asc": pgettext("card asc", "lowest first"),
        "growth": pgettext("card growth", "Growth"),
        "difference": pgettext("card difference", "Difference"),
        "ratio": pgettext("card ratio", "Ratio"),
        "share": pgettext("card share", "Share"),
        "sum": pgettext("card sum", "Sum"),
        "cagr": pgettext("card cagr", "CAGR"),
        "derived": pgettext("card derived", "Derived"),
        "average": pgettext("card average", "Average"),
        "formula_kind": pgettext("card formula_kind", "Formula metric"),
        "agree": pgettext("card agree", "The {count} derivations give the same value."),
    }


def answer_language_of(answer: Answer, question: str) -> str:
    """The answer's language: as stored when it is, else its question's (CJK → zh, else en)."""
    return answer.language if answer.language in LANGUAGES else question_language(question)


def computed_cards(
    answer: Answer, language: str, glossary: GlossarySnapshot, items: Sequence[AnswerComputed] | None = None
) -> ComputedViews | None:
    """The computed cards and the ranking chart of `items` (the answer's computed values by
    default); None when there are none."""
    items = answer.computed if items is None else items
    if not items:
        return None
    with answer_language(language):
        labels = card_labels()
    ranked = [item for item in items if item.kind == "rank"]
    carded = [item for item in items if item.kind != "rank" and item.why is None]
    return ComputedViews(
        language=language,
        labels=labels,
        cards=tuple(_card(group, answer, glossary, language, labels) for group in _groups(carded)),
        ranking=ranking_view(ranked, answer, glossary, language) if ranked else None,
        # a why's parts: a table and a chart per dimension, not a card per number
        decompositions=tuple(decompositions_view(items, glossary, language)),
    )


def _groups(items: list[AnswerComputed]) -> list[list[AnswerComputed]]:
    """Items one card each, except a rate and its absolute change (same kind, same inputs), and
    derivations of one period's value that agree (one value, several formulas)."""
    groups: list[list[AnswerComputed]] = []
    for item in items:
        last = groups[-1] if groups else None
        if (
            last is not None
            and len(last) == 1
            and item.kind in CHANGE_KINDS
            and last[0].kind == item.kind
            and last[0].inputs == item.inputs
        ) or (
            last is not None
            and item.kind == KIND_DERIVED
            and all(
                i.kind == KIND_DERIVED and (i.period, i.value, i.unit) == (item.period, item.value, item.unit)
                for i in last
            )
        ):
            last.append(item)
        else:
            groups.append([item])
    return groups


def _card(
    group: list[AnswerComputed], answer: Answer, glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> Card:
    kind = group[0].kind
    rate = next((i for i in group if kind in CHANGE_KINDS and i.unit == UNIT_PCT and len(group) > 1), None)
    change = next((i for i in group if i is not rate), group[0])
    main, alongside = (rate, change) if rate is not None and kind == "growth" else (change, rate)
    figures = [_figure(main, kind, glossary, language)]
    if alongside is not None:
        label = labels["change"] if alongside is change else labels["rate" if kind == "growth" else "difference_rate"]
        figures.append(_figure(alongside, kind, glossary, language, label))
    agree = kind == KIND_DERIVED and len(group) > 1
    inputs = list({i.key: i for item in group for i in item.inputs}.values()) if agree else list(group[0].inputs)
    return Card(
        kind=kind,
        kind_label=labels["formula_kind" if kind == "formula" else kind],
        name=main.name,
        subject=_subject(main, inputs, glossary, language),
        main=figures[0],
        alongside=tuple(figures[1:]),
        formulas=tuple(FormulaLine(item.name, item.formula_words) for item in group),
        agree=labels["agree"].format(count=len(group)) if agree else "",
        inputs=tuple(input_view(i, answer, glossary, language) for i in inputs),
        inputs_label=labels["inputs"].format(count=len(inputs)),
    )


def _figure(item: AnswerComputed, kind: str, glossary: GlossarySnapshot, language: str, label: str = "") -> Figure:
    """The engine's display, signed for a change, with the unit's name where the display has none."""
    display = item.signed if kind in CHANGE_KINDS else item.display
    unit = item.unit
    unit_name = "" if unit in (UNIT_PCT, UNIT_PP, UNIT_RANK) else unit_words(glossary, unit, language)
    return Figure(display, unit_name, item.value_text, item.name, label)


def _subject(item: AnswerComputed, inputs: list[AnswerKey], glossary: GlossarySnapshot, language: str) -> str:
    """The entity (and channel) every input shares, which the formula's words leave out, and the
    period the value stands for: a derived value's, or the latest of its inputs'."""
    entities = {i.entity for i in inputs}
    channels = {i.channel for i in inputs}
    parts = []
    if len(entities) == 1:
        parts.append(glossary.display("entity", next(iter(entities)), language))
    if len(channels) == 1 and channels != {"TOTAL"}:
        parts.append(glossary.display("channel", next(iter(channels)), language))
    period = item.period or (max((i.period for i in inputs), key=lambda p: p.sort_key) if inputs else None)
    if period is not None and item.kind != "rank":
        parts.append(period.label)
    return " · ".join(parts)


def input_view(key: AnswerKey, answer: Answer, glossary: GlossarySnapshot, language: str) -> InputView:
    """One input as shown: names, and its found fact's value, unit and source (None if absent)."""
    fact = answer.fact(key)
    metric = glossary.display("metric", key.metric, language)
    if key.channel != "TOTAL":
        channel = glossary.display("channel", key.channel, language)
        metric += f" ({channel})" if language == "en" else f"（{channel}）"
    return InputView(
        what=" · ".join((glossary.display("entity", key.entity, language), metric, key.period.label)),
        fact=fact,
        shown=f"{fact.value:,f}" if fact else "",
        unit_name=unit_words(glossary, fact.unit, language) if fact else "",
    )


# -- ranking ------------------------------------------------------------------------------------


def _rank_subject(item: AnswerComputed) -> tuple[str, str, str]:
    first = item.inputs[0]
    return first.entity, first.period.label, first.channel


def ranking_view(
    items: list[AnswerComputed], answer: Answer, glossary: GlossarySnapshot, language: str
) -> Ranking | None:
    """The rank items as one chart in rank order, ties marked, and the keys left unranked.

    A row's label names what differs between rows (entity, channel or period). Keys without the
    figure reach the UI only as `not_found` tool results of the ranked metric (or of a metric
    its rows were computed from) in the ranked periods; they are listed, never dropped.
    """
    with answer_language(language):
        labels = card_labels()
    items = sorted((i for i in items if i.inputs and i.value is not None), key=lambda i: i.value or 0)
    if not items:
        return None
    subjects = [_rank_subject(i) for i in items]
    varying = [axis for axis in range(3) if len({s[axis] for s in subjects}) > 1] or [0]
    counts: dict[str, int] = {}
    for item in items:
        counts[item.value_text] = counts.get(item.value_text, 0) + 1
    rows = tuple(
        RankRow(
            rank=int(item.value or 0),
            label=_subject_words(subject, varying, glossary, language),
            value=_ranked_value(item, answer),
            display=item.ranked_display or _ranked_display(item, answer),
            tied=counts[item.value_text] > 1,
        )
        for item, subject in zip(items, subjects, strict=True)
    )
    # Without every ranked figure there are no bars to draw; the order is still listed.
    drawable = all(row.value is not None for row in rows)
    chart = chart_ranking([asdict(row) for row in rows], tie_mark=labels["tied"]) if drawable else None
    # A turn stored before rank items carried these fields reads as what it most often was.
    metric = items[0].ranked_metric or items[0].inputs[0].metric
    order = items[0].order or "desc"
    first = answer.fact(items[0].inputs[0])
    unit = first.unit if first and len(items[0].inputs) == 1 else ""
    inputs = list({i.key: i for item in items for i in item.inputs}.values())
    missing = _ranking_missing(answer, {metric} | {i.metric for i in inputs}, subjects, varying, glossary, language)
    count = items[0].count or len(items)
    # As the answer says it: a partial ranking counts the items with the figure among all asked.
    title = labels["ranking_partial" if missing else "ranking"].format(
        subject=_ranking_subject(metric, subjects[0], varying, glossary, language),
        order=labels[order] if order in RANK_ORDERS else labels["desc"],
        count=f"{count:,}",
        total=f"{count + len(missing):,}",
    )
    return Ranking(
        chart=chart,
        rows=rows,
        title=title,
        unit_name="" if unit in ("", UNIT_PCT, UNIT_PP) else unit_words(glossary, unit, language),
        missing=tuple(missing),
        omitted=labels["omitted"].format(count=chart["omitted"]) if chart and chart["omitted"] else "",
        inputs=tuple(input_view(i, answer, glossary, language) for i in inputs),
        inputs_label=labels["inputs"].format(count=len(inputs)),
    )


def _ranking_subject(
    metric: str, subject: tuple[str, str, str], varying: list[int], glossary: GlossarySnapshot, language: str
) -> str:
    """What was ranked, naming the entity, period and channel every row shares."""
    entity, period, channel = subject
    owner = "" if 0 in varying else glossary.display("entity", entity, language)
    when = "" if 1 in varying else period
    where = "" if 2 in varying or channel == "TOTAL" else glossary.display("channel", channel, language)
    name = glossary.display("metric", metric, language)
    if language == "en":
        what = " ".join(x for x in (owner, name) if x) + (f" ({where})" if where else "")
        return f"{what} {when}".strip()
    return f"{when} {owner}{name}".strip() + (f"（{where}）" if where else "")


def _ranked_value(item: AnswerComputed, answer: Answer) -> Decimal | None:
    """The figure ranked: `ranked_value`, else the one stored fact the row was ranked by."""
    if item.ranked_value is not None:
        return item.ranked_value
    fact = _only_fact(item, answer)
    return fact.value if fact else None


def _ranked_display(item: AnswerComputed, answer: Answer) -> str:
    fact = _only_fact(item, answer)
    return f"{fact.value:,f}" if fact else ""


def _only_fact(item: AnswerComputed, answer: Answer) -> AnswerFact | None:
    return answer.fact(item.inputs[0]) if len(item.inputs) == 1 else None


def _subject_words(subject: tuple[str, str, str], varying: list[int], glossary: GlossarySnapshot, language: str) -> str:
    show: dict[int, Callable[[str], str]] = {
        0: lambda code: glossary.display("entity", code, language),
        1: lambda label: label,
        2: lambda code: glossary.display("channel", code, language),
    }
    return " ".join(show[axis](subject[axis]) for axis in varying)


def _ranking_missing(
    answer: Answer,
    metrics: set[str],
    subjects: list[tuple[str, str, str]],
    varying: list[int],
    glossary: GlossarySnapshot,
    language: str,
) -> list[str]:
    ranked = set(subjects)
    periods = {s[1] for s in subjects}
    missing: dict[tuple[str, str, str], str] = {}
    for tool in answer.tool_results:
        key = tool.get("normalized") if tool.get("status") == "not_found" else None
        if not key or key.get("metric") not in metrics or key.get("period") not in periods:
            continue
        subject = (key.get("entity", ""), key["period"], key.get("channel", "TOTAL"))
        if subject not in ranked:
            missing.setdefault(subject, _subject_words(subject, varying, glossary, language))
    return list(missing.values())
