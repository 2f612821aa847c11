"""One answer as the page shows it: the `Panel`, built once from a stored turn (`panel_build`).

The turn's `/v1/ask` object is read once (`agent.serialize.answer_from_json`) into typed values;
every part of the panel reads those, never the JSON again: the text lines that no card, chart
or table says (`text_parts`), the computed cards and the ranking (`cards`), the series' table
and line chart (`series_table`), a why's decompositions (`decomposition`), the bar chart of the
found facts, the inputs table with each source's place in words (`locator_human`), the sources,
the banners and the sensitivity of the figures shown. The template, the CSV export and the
event stream read the panel (or the same typed answer), so what they show agrees.

A figure the analyst said is wrong carries their latest dispute's outcome (`DisputeMark`); the
same words list their disputes under "my reports" (`dispute_rows`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils.translation import get_language, pgettext

from agent.models import ConversationTurn
from agent.serialize import Answer, AnswerFact, AnswerSource, answer_from_json
from core.glossary import GlossarySnapshot
from core.model.facts import RESTRICTED
from core.model.registry import KIND_BADGES, ROUTE_BADGES, Badge
from core.model.result import AnswerSections
from core.model.sign import printed_differs, printed_display
from documents.locators import locator_human, locators_in_words
from facts.models import FactDispute

from .cards import ComputedViews, answer_language_of, computed_cards
from .charts import chart_bars
from .decomposition import figures_of
from .labels import answer_language, badge_in, panel_labels, unit_words
from .say_once import shown_figures, text_once
from .series import answer_series
from .series_table import SeriesTable, series_view

# Where a figure was read, as a stored answer and a fact both say it: its document and locator.
FigurePlace = tuple[int, str]


@dataclass(frozen=True)
class DisputeMark:
    """The analyst's latest dispute on a figure: its status (`open`, `corrected`, `confirmed`,
    `rejected`; `resolved` for one settled without an outcome), said in words, the curator's
    note and the figure a correction gave (every digit, as the inputs table shows figures)."""

    status: str
    label: str
    resolution: str
    corrected: str


@dataclass(frozen=True)
class InputRow:
    """One found fact in the inputs table: names in the answer's language, its value as stored
    (every digit: it is the source's figure) and its place in words."""

    fact: AnswerFact
    entity_name: str
    metric_name: str
    channel_name: str
    unit_name: str
    shown: str
    printed: str  # as the report printed it, when the sign convention stored the amount
    place: str  # `locator_human`
    dispute: DisputeMark | None = None  # the analyst said this figure is wrong

    @property
    def what(self) -> str:
        return f"{self.metric_name}, {self.fact.period.label}"


@dataclass(frozen=True)
class SourceRow:
    source: AnswerSource
    place: str  # `locator_human`


@dataclass(frozen=True)
class Panel:
    """Everything the page shows of one answer, in the answer's language."""

    index: int
    question: str
    answer: Answer
    language: str
    note: str  # what a follow-up inherited: said once, as a banner
    reason: str  # the routing's reason, unless it only repeats the note
    sections: AnswerSections  # the text, without what the panel's views say
    inputs: tuple[InputRow, ...]
    sources: tuple[SourceRow, ...]  # the sources that are not a row of the inputs table
    computed: ComputedViews | None
    series: SeriesTable | None
    chart: Mapping[str, Any] | None  # the found facts' bars (drawing instructions)
    route_badge: Badge
    kind_badge: Badge | None
    sensitivity: str | None  # RESTRICTED when a figure shown is: the cleared analyst is told
    labels: Mapping[str, str]
    feedback: int | None

    @property
    def facts(self) -> tuple[InputRow, ...]:
        """The inputs table's rows, under the template's name for them."""
        return self.inputs

    @property
    def inputs_label(self) -> str:
        return self.labels["inputs"].format(count=len(self.inputs))


def panel_build(
    turn: ConversationTurn, glossary: GlossarySnapshot, disputes: Mapping[FigurePlace, FactDispute] | None = None
) -> Panel:
    """The panel of one stored turn; `disputes`, the analyst's latest dispute on each figure by
    where it was read (`disputes_latest`), marks the figures they said are wrong."""
    answer = answer_from_json(turn.result)
    language = answer_language_of(answer, turn.question)
    with answer_language(language):
        labels = panel_labels()
    inputs = tuple(_input_row(f, glossary, language, disputes or {}) for f in answer.facts)
    listed = {row.fact.locator for row in inputs}
    sources = tuple(
        SourceRow(s, locator_human(s.locator, language=language))
        for s in answer.sources
        if not (s.kind == "fact" and s.locator in listed)
    )
    places = {row.fact.locator: row.place for row in inputs} | {s.source.locator: s.place for s in sources}
    series = answer_series(answer)
    if series is not None:
        # the growth per step sits in the series' table; the other computed values keep their cards
        rest = [item for i, item in enumerate(answer.computed) if i not in series.steps]
        computed = computed_cards(answer, language, glossary, rest)
        series_shown = series_view(answer, language, series, glossary)
    else:
        computed = computed_cards(answer, language, glossary)
        series_shown = None
    # the facts of a why's parts are drawn by its decomposition, not as one bar per fact
    parted = bool(computed and computed.decompositions)
    chart = chart_bars(answer.facts, glossary, language) if series is None and not parted else None
    figures = _figures_shown(inputs, computed, series_shown, chart)
    # a formula line is said by the card or the series' table that holds its value
    formula_labels = [view.labels["formula"] for view in (computed, series_shown) if view]
    # a series leads with its found values; what is missing is named in its table, then said
    rows = series_shown.rows if series_shown else ()
    later = [r.period for r in rows if r.missing or not (r.base or r.rate or r.change)]
    note = turn.note or ""
    sections = AnswerSections(**turn.sections)
    sections = replace(
        sections,
        structured=locators_in_words(
            text_once(_without_note(sections.structured, note), figures, formula_labels, later), places
        ),
        narrative=locators_in_words(sections.narrative, places),
    )
    with answer_language(language):
        route = badge_in(ROUTE_BADGES.get(answer.route), answer.route) or Badge(answer.route, "data")
        kind = badge_in(KIND_BADGES.get(answer.answer_kind), answer.answer_kind)
    return Panel(
        index=turn.position,
        question=turn.question,
        answer=answer,
        language=language,
        note=note,
        reason="" if note and _bare(answer.routing_reason) == _bare(note) else answer.routing_reason,
        sections=sections,
        inputs=inputs,
        sources=sources,
        computed=computed,
        series=series_shown,
        chart=chart,
        route_badge=route,
        kind_badge=kind,
        sensitivity=_strictest(answer),
        labels=labels,
        feedback=turn.feedback,
    )


def _input_row(
    fact: AnswerFact, glossary: GlossarySnapshot, language: str, disputes: Mapping[FigurePlace, FactDispute]
) -> InputRow:
    metric = glossary.display("metric", fact.metric, language)
    dispute = disputes.get((fact.document_id, fact.locator)) if fact.document_id is not None else None
    printed = ""
    if fact.printed_value is not None and printed_differs(fact.value, fact.printed_value):
        printed = printed_display(fact.printed_value)
    return InputRow(
        fact=fact,
        entity_name=glossary.display("entity", fact.entity, language),
        metric_name=metric,
        channel_name=glossary.display("channel", fact.channel, language),
        unit_name=unit_words(glossary, fact.unit, language),
        shown=f"{fact.value:,f}",
        printed=printed,
        place=locator_human(fact.locator, language=language, what=f"{metric}, {fact.period.label}"),
        dispute=_mark_in(dispute, language) if dispute is not None else None,
    )


def _mark_in(dispute: FactDispute, language: str) -> DisputeMark:
    with answer_language(language):
        return dispute_mark(dispute)


def disputes_latest(disputes: Iterable[FactDispute]) -> dict[FigurePlace, FactDispute]:
    """The first of `disputes` (newest first) on each figure read from a document, by its place."""
    latest: dict[FigurePlace, FactDispute] = {}
    for dispute in disputes:
        if dispute.fact.document_id is not None:
            latest.setdefault((dispute.fact.document_id, dispute.fact.locator), dispute)
    return latest


def dispute_mark(dispute: FactDispute) -> DisputeMark:
    """A dispute's outcome in the active language."""
    corrected = _figure(dispute.value_corrected)
    said = {
        FactDispute.Status.OPEN: pgettext("dispute status", "Your report: open, with the curators"),
        FactDispute.Status.CORRECTED: pgettext("dispute status", "Your report: corrected to %(figure)s")
        % {"figure": corrected},
        FactDispute.Status.CONFIRMED: pgettext("dispute status", "Your report: confirmed, the figure stands"),
        FactDispute.Status.REJECTED: pgettext("dispute status", "Your report: rejected, the figure is withdrawn"),
        FactDispute.Status.RESOLVED: pgettext("dispute status", "Your report: resolved"),
    }
    return DisputeMark(
        status=dispute.status, label=said.get(dispute.status, dispute.status), resolution=dispute.resolution,
        corrected=corrected,
    )  # fmt: skip


@dataclass(frozen=True)
class DisputeRow:
    """One of the analyst's disputes under "my reports": the figure as they disputed it, in words
    of the page's language, their note and the outcome."""

    filed_at: datetime
    what: str  # company, metric, period (and channel)
    figure: str  # the figure disputed, every digit
    unit: str
    source: str
    place: str  # `locator_human`
    document_id: int | None
    locator: str
    note: str
    mark: DisputeMark
    resolved_at: datetime | None


def dispute_rows(disputes: Iterable[FactDispute], glossary: GlossarySnapshot) -> list[DisputeRow]:
    """The analyst's disputes as "my reports" lists them, in the page's language."""
    language = "en" if (get_language() or "").startswith("en") else "zh"
    rows = []
    for dispute in disputes:
        fact = dispute.fact
        metric = glossary.display("metric", fact.metric_id or "", language)
        parts = [glossary.display("entity", fact.entity_id or "", language), metric, fact.period_label]
        if fact.channel_id != "TOTAL":
            parts.append(glossary.display("channel", fact.channel_id, language))
        rows.append(
            DisputeRow(
                filed_at=dispute.created_at,
                what=" · ".join(parts),
                figure=_figure(fact.value if dispute.value_disputed is None else dispute.value_disputed),
                unit=unit_words(glossary, fact.unit_id, language) if fact.unit_id else "",
                source=fact.source_doc,
                place=locator_human(fact.locator, language=language, what=f"{metric}, {fact.period_label}"),
                document_id=fact.document_id,
                locator=fact.locator,
                note=dispute.note,
                mark=dispute_mark(dispute),
                resolved_at=dispute.resolved_at,
            )
        )
    return rows


def _figure(value: Decimal | None) -> str:
    return "" if value is None else f"{value:,f}"


def _strictest(answer: Answer) -> str | None:
    """RESTRICTED when some fact, passage or document the answer shows is; None otherwise (the
    page labels only what is restricted)."""
    levels = {f.sensitivity for f in answer.facts} | {s.sensitivity for s in answer.sources}
    return RESTRICTED if RESTRICTED in levels else None


_MARKS = re.compile(r"[【】\[\]:：\s]")


def _bare(text: str) -> str:
    """A note as words alone (`【沿用上一问】…`, `沿用上一问：…`, `[From the previous question] …`)."""
    return _MARKS.sub("", text).casefold()


def _without_note(text: str, note: str) -> str:
    """The text without its line saying what a follow-up inherited: the banner says it."""
    if not note:
        return text
    return "\n".join(line for line in text.split("\n") if _bare(line) != _bare(note))


def _figures_shown(
    inputs: tuple[InputRow, ...],
    computed: ComputedViews | None,
    series: SeriesTable | None,
    chart: Mapping[str, Any] | None,
) -> set[str]:
    """The figures the panel's cards, charts and tables show, which its text need not repeat."""
    texts = [row.shown for row in inputs]
    if computed:
        for card in computed.cards:
            texts += [figure.display for figure in (card.main, *card.alongside)]
        if computed.ranking:
            texts += [row.display for row in computed.ranking.rows]
        texts += figures_of(computed.decompositions)
    if series:
        texts += [v for row in series.rows for v in (row.shown, row.rate, row.change)]
    if chart:
        texts += [bar["value"] for bar in chart["bars"]]
    return shown_figures(texts)
