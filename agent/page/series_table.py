"""A series answer as the analyst UI shows it: a table and a line chart.

Takes one stored turn and the glossary; returns the table's rows (period, value, source with its
document link, growth per step when the answer computed it) and the line chart, each period of
the range in order and a missing one named in its row and marked in the chart. Labels follow the
question's language. Every figure is a found fact's stored value or a string the engine wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, pgettext

from agent.serialize import Answer, AnswerComputed, AnswerFact
from core.glossary import GlossarySnapshot

from .cards import InputView, input_view
from .charts import chart_line
from .labels import answer_language, unit_words
from .series import DERIVED, FOUND, MISSING, Series, SeriesRow


def series_labels() -> dict[str, str]:
    """The series' words in the active language (the answer's: see `answer_language`)."""
    return {
        "period": gettext("Period"),
        "value": gettext("Value"),
        "unit_note": gettext(" ({unit})"),
        "rate": gettext("Growth"),
        "change": pgettext("series column", "Change"),
        "source": gettext("Source"),
        "missing": gettext("missing"),
        "missing_note": gettext("no figure in the fact table for this period"),
        "missing_count": gettext("{count} missing: {periods}"),
        "derived": gettext("derived"),
        "disagree": gettext("the derivations disagree; both are listed"),
        "base": gettext("base"),
        "open": gettext("Open document"),
        "formula": gettext("Formula"),
        "steps": gettext("Formulas of the growth per step ({count})"),
        "not_computed": gettext("not computed"),
        "list_sep": pgettext("list separator", ", "),
        "range": gettext("{first}–{last}"),
        "chart": gettext("{subject} trend"),
    }


UNIT_PCT, UNIT_PP = "PCT", "PP"


@dataclass(frozen=True)
class Derivation:
    display: str
    formula: str
    inputs: tuple[InputView, ...]


@dataclass(frozen=True)
class SeriesRowView:
    """One period of the table: its value as shown, its source or derivations, and the growth
    and change ending there (signed displays, with their formulas in words)."""

    period: str
    status: str
    base: bool
    value: Decimal | None
    shown: str
    unit_name: str
    fact: AnswerFact | None
    derived: tuple[Derivation, ...]
    disagree: bool
    rate: str
    rate_formula: str
    rate_exact: str
    change: str
    change_formula: str

    @property
    def missing(self) -> bool:
        return self.status == MISSING


@dataclass(frozen=True)
class SeriesTable:
    language: str
    labels: Mapping[str, str]
    subject: str
    range: str
    unit_name: str
    value_unit: str
    change_unit: str
    columns: int
    rows: tuple[SeriesRowView, ...]
    rates: bool
    changes: bool
    missing: str  # the missing periods named, under the chart
    steps: tuple[SeriesRowView, ...]
    steps_label: str
    title: str
    chart: Mapping[str, Any] | None


def series_view(answer: Answer, language: str, series: Series, glossary: GlossarySnapshot) -> SeriesTable:
    """The table, the chart and the labels of `series` in the answer's language."""
    with answer_language(language):
        labels = series_labels()
    unit = series.unit
    unit_name = "" if unit in ("", UNIT_PCT) else unit_words(glossary, unit, language)
    rows = tuple(_row(row, answer, glossary, language) for row in series.rows)
    subject = _subject(series, glossary, language)
    asked = [row for row in series.rows if not row.base]
    missing = [row.period.label for row in series.rows if row.status == MISSING]
    steps = tuple(row for row in rows if row.rate or row.change)
    title = labels["chart"].format(subject=subject)
    points = [{"label": r.period, "value": r.value, "display": r.shown, "derived": r.status == DERIVED} for r in rows]
    return SeriesTable(
        language=language,
        labels=labels,
        subject=subject,
        range=labels["range"].format(first=asked[0].period.label, last=asked[-1].period.label),
        unit_name=unit_name,
        value_unit=labels["unit_note"].format(unit=unit_name) if unit_name else "",
        change_unit=_change_unit(series, glossary, language),
        columns=3 + series.has_rates + series.has_changes,
        rows=rows,
        rates=series.has_rates,
        changes=series.has_changes,
        missing=labels["missing_count"].format(count=len(missing), periods=labels["list_sep"].join(missing))
        if missing
        else "",
        steps=steps,
        steps_label=labels["steps"].format(count=len(steps)),
        title=title,
        chart=chart_line(points, missing_mark=labels["missing"]),
    )


def _change_unit(series: Series, glossary: GlossarySnapshot, language: str) -> str:
    """`（百万元）`: the changes' unit once, for the header (points say theirs in each cell)."""
    units = {row.change.unit for row in series.rows if row.change is not None}
    if len(units) != 1 or units & {UNIT_PCT, UNIT_PP}:
        return ""
    with answer_language(language):
        note = series_labels()["unit_note"]
    return note.format(unit=unit_words(glossary, units.pop(), language))


def _subject(series: Series, glossary: GlossarySnapshot, language: str) -> str:
    entity = glossary.display("entity", series.entity, language)
    metric = glossary.display("metric", series.metric, language)
    if series.channel != "TOTAL":
        channel = glossary.display("channel", series.channel, language)
        metric += f" ({channel})" if language == "en" else f"（{channel}）"
    return f"{entity} {metric}" if language == "en" else f"{entity}{metric}"


def _row(row: SeriesRow, answer: Answer, glossary: GlossarySnapshot, language: str) -> SeriesRowView:
    value = row.value
    if row.status == FOUND and row.fact is not None:
        shown = f"{row.fact.value:,f}"
    elif row.status == DERIVED:
        shown = row.derived[0].display if value is not None else ""
    else:
        shown = ""
    unit = row.unit
    return SeriesRowView(
        period=row.period.label,
        status=row.status,
        base=row.base,
        value=value,
        shown=shown,
        unit_name="" if unit in ("", UNIT_PCT) else unit_words(glossary, unit, language),
        fact=row.fact,
        derived=tuple(
            Derivation(
                item.display, item.formula_words, tuple(input_view(i, answer, glossary, language) for i in item.inputs)
            )
            for item in row.derived
        ),
        disagree=len({item.value for item in row.derived}) > 1,
        rate=_step(row.rate),
        rate_formula=row.rate.formula_words if row.rate else "",
        rate_exact=row.rate.value_text if row.rate else "",
        change=_step(row.change),
        change_formula=row.change.formula_words if row.change else "",
    )


def _step(item: AnswerComputed | None) -> str:
    return item.signed if item is not None else ""
