"""A series answer as the analyst UI shows it: a table and a line chart.

Takes one stored turn and the glossary; returns the table's rows (period, value, source with its
document link, growth per step when the answer computed it) and the line chart, each period of
the range in order and a missing one named in its row and marked in the chart. Labels follow the
question's language. Every figure is a found fact's stored value or a string the engine wrote.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext

from core.glossary import GlossarySnapshot

from .answer_labels import answer_language
from .charts import chart_line
from .computed_view import fact_key, formula_words, input_view, turn_language
from .series import DERIVED, FOUND, MISSING, Series, SeriesRow


def series_labels() -> dict[str, str]:
    """The series' words in the active language (the answer's: see `answer_language`)."""
    return {
        "period": gettext("Period"),
        "value": gettext("Value"),
        "unit_note": gettext(" ({unit})"),
        "rate": gettext("Growth"),
        "change": gettext("Change"),
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
        "list_sep": gettext(", "),
        "range": gettext("{first}–{last}"),
        "chart": gettext("{subject} trend"),
    }


UNIT_PCT, UNIT_PP = "PCT", "PP"


def series_view(turn: dict[str, Any], series: Series, glossary: GlossarySnapshot) -> dict[str, Any]:
    """The table, the chart and the labels of `series` in the turn's language."""
    language = turn_language(turn)
    with answer_language(language):
        labels = series_labels()
    result = turn["result"]
    facts = {fact_key(f): f for f in result.get("facts") or []}
    unit = series.unit
    unit_name = "" if unit in ("", UNIT_PCT) else glossary.unit_display(unit, language)
    rows = [_row(row, facts, glossary, language) for row in series.rows]
    subject = _subject(series, glossary, language)
    asked = [row for row in series.rows if not row.base]
    missing = [row.period for row in series.rows if row.status == MISSING]
    steps = [row for row in rows if row["rate"] or row["change"]]
    title = labels["chart"].format(subject=subject)
    return {
        "language": language,
        "labels": labels,
        "subject": subject,
        "range": labels["range"].format(first=asked[0].period, last=asked[-1].period),
        "unit_name": unit_name,
        "value_unit": labels["unit_note"].format(unit=unit_name) if unit_name else "",
        "change_unit": _change_unit(series, glossary, language),
        "columns": 3 + series.has_rates + series.has_changes,
        "rows": rows,
        "rates": series.has_rates,
        "changes": series.has_changes,
        "missing": labels["missing_count"].format(count=len(missing), periods=labels["list_sep"].join(missing))
        if missing
        else "",
        "steps": steps,
        "steps_label": labels["steps"].format(count=len(steps)),
        "title": title,
        "chart": chart_line(
            [
                {
                    "label": row["period"],
                    "value": Decimal(row["value"]) if row["value"] is not None else None,
                    "display": row["shown"],
                    "derived": row["status"] == DERIVED,
                }
                for row in rows
            ],
            missing_mark=labels["missing"],
        ),
    }


def _change_unit(series: Series, glossary: GlossarySnapshot, language: str) -> str:
    """`（百万元）`: the changes' unit once, for the header (points say theirs in each cell)."""
    units = {row.change["unit"] for row in series.rows if row.change is not None}
    if len(units) != 1 or units & {UNIT_PCT, UNIT_PP}:
        return ""
    with answer_language(language):
        note = series_labels()["unit_note"]
    return note.format(unit=glossary.unit_display(units.pop(), language))


def _subject(series: Series, glossary: GlossarySnapshot, language: str) -> str:
    entity = glossary.display("entity", series.entity, language)
    metric = glossary.display("metric", series.metric, language)
    if series.channel != "TOTAL":
        channel = glossary.display("channel", series.channel, language)
        metric += f" ({channel})" if language == "en" else f"（{channel}）"
    return f"{entity} {metric}" if language == "en" else f"{entity}{metric}"


def _signed(item: dict[str, Any] | None, language: str) -> str:
    """The engine's display, with `+` on a rise; points read `个百分点` in Chinese already."""
    if item is None:
        return ""
    display = str(item["display"])
    try:
        rise = Decimal(item["value"]) > 0
    except ArithmeticError:
        rise = False
    return "+" + display if rise and not display.startswith("+") else display


def _row(
    row: SeriesRow, facts: dict[tuple[str, ...], Any], glossary: GlossarySnapshot, language: str
) -> dict[str, Any]:
    value = row.value
    if row.status == FOUND and row.fact is not None:
        shown = f"{Decimal(row.fact['value']):,f}"
    elif row.status == DERIVED:
        shown = row.derived[0]["display"] if value is not None else ""
    else:
        shown = ""
    unit = row.unit
    return {
        "period": row.period,
        "status": row.status,
        "base": row.base,
        "value": value,
        "shown": shown,
        "unit_name": "" if unit in ("", UNIT_PCT) else glossary.unit_display(unit, language),
        "fact": row.fact,
        "derived": [
            {
                "display": item["display"],
                "formula": formula_words(item["formula"], glossary, language),
                "inputs": [input_view(i, facts, glossary, language) for i in item["inputs"]],
            }
            for item in row.derived
        ],
        "disagree": len({item["value"] for item in row.derived}) > 1,
        "rate": _signed(row.rate, language),
        "rate_formula": formula_words(row.rate["formula"], glossary, language) if row.rate else "",
        "rate_exact": row.rate["value"] if row.rate else "",
        "change": _signed(row.change, language),
        "change_formula": formula_words(row.change["formula"], glossary, language) if row.change else "",
        "missing": row.status == MISSING,
    }
