"""An answer as CSV rows: its found facts, its series, then its computed values and their inputs.

Takes a stored answer (`agent.serialize.Answer`); returns the rows to write, header rows included. The
fact rows keep their columns. A series answer (`series.answer_series`) then has, after a blank
row, one row per period of its range in order (`found`, `derived`, `missing` — never left out —
or `base`, the first step's base): its value, unit and source, a derived value's formula, and
the growth and change ending there with their formulas. After a blank row, the computed section
has one row per computed item (kind, name, formula in codes, the exact value, the display, the
unit) followed by one row per input (metric, entity, period, channel, value, unit, source doc
and locator, taken from the found facts), so that an analyst can recompute every value in a
spreadsheet.

Every cell is safe to open in a spreadsheet: text starting with `= + - @`, a tab or a carriage
return is prefixed with `'` so that it is not read as a formula; a plain decimal number (a
negative value) is left as it is, so that the figures stay numbers.
"""

from __future__ import annotations

import re
from typing import Any

from agent.serialize import Answer, AnswerComputed

from .series import Series, answer_series

FACT_HEADER = ["entity", "metric", "period", "channel", "value", "unit", "source_doc", "locator", "valid_as_of"]
COMPUTED_HEADER = [
    "item",
    "row",
    "kind",
    "name",
    "formula",
    "value",
    "display",
    "unit",
    "metric",
    "entity",
    "period",
    "channel",
    "source_doc",
    "locator",
    "ranked_value",
]
SERIES_HEADER = [
    "series_period",
    "status",
    "value",
    "unit",
    "metric",
    "entity",
    "channel",
    "source_doc",
    "locator",
    "formula",
    "growth",
    "growth_display",
    "growth_formula",
    "change",
    "change_display",
    "change_formula",
]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def cell_neutralise(value: object) -> str:
    """A cell a spreadsheet shows as text: never a formula, a number kept as a number."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def answer_export(answer: Answer) -> list[list[str]]:
    """The rows of an answer's CSV: the fact section, then the series and computed sections if any."""
    rows: list[list[Any]] = [FACT_HEADER]
    for fact in answer.facts:
        rows.append(
            [
                fact.entity,
                fact.metric,
                fact.period.label,
                fact.channel,
                f"{fact.value:f}",
                fact.unit,
                fact.doc,
                fact.locator,
                fact.valid_as_of or "",
            ]
        )
    series = answer_series(answer)
    if series is not None:
        rows += [[], SERIES_HEADER, *_series_rows(series)]
    if answer.computed:
        rows += [[], COMPUTED_HEADER]
        for number, item in enumerate(answer.computed, start=1):
            ranked = f"{item.ranked_value:f}" if item.ranked_value is not None else ""
            rows.append(
                [number, "computed", item.kind, item.name, item.formula, item.value_text, item.display, item.unit]
                + [""] * 6
                + [ranked]
            )
            for given in item.inputs:
                fact = answer.fact(given)
                rows.append(
                    [
                        number,
                        "input",
                        "",
                        "",
                        "",
                        f"{fact.value:f}" if fact else "",
                        "",
                        fact.unit if fact else "",
                        given.metric,
                        given.entity,
                        given.period.label,
                        given.channel,
                        fact.doc if fact else "",
                        fact.locator if fact else "",
                        "",
                    ]
                )
    return [[cell_neutralise(cell) for cell in row] for row in rows]


def _step(item: AnswerComputed | None) -> list[Any]:
    return [item.value_text, item.display, item.formula] if item is not None else ["", "", ""]


def _series_rows(series: Series) -> list[list[Any]]:
    """One row per period (one per derivation of a derived one, so that two that disagree both
    show). A base row (the first step's base, before the range asked) has the status `base`."""
    rows: list[list[Any]] = []
    key = [series.metric, series.entity, series.channel]
    for row in series.rows:
        steps = _step(row.rate) + _step(row.change)
        status = "base" if row.base else row.status
        period = row.period.label
        if row.fact is not None:
            fact = row.fact
            rows.append([period, status, f"{fact.value:f}", fact.unit, *key, fact.doc, fact.locator, "", *steps])
        elif row.derived:
            rows += [
                [period, status, item.value_text, item.unit, *key, "", "", item.formula, *steps] for item in row.derived
            ]
        else:
            rows.append([period, status, "", "", *key, "", "", "", *steps])
    return rows
