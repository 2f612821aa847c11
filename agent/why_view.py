"""A why's decomposition as the analyst UI shows it: one table and one bar chart per dimension.

Takes the `computed` items of one stored turn that carry `why` (`core.engine.why.WhyComputed`:
dimension, role, part) and the glossary; returns per dimension its title, its rows (a part's
change and share, or a ratio's rate, mix and total effects; the rest of a long list; what no
part holds), the formula in words and a horizontal bar chart of the rows' changes (or effects),
largest mover first as the engine ordered them. Nothing is computed here: every figure is a
display the engine wrote. Labels follow the answer's language.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import pgettext

from core.engine import UNIT_PCT, UNIT_PP, UNIT_RANK
from core.glossary import GlossarySnapshot

from .answer_labels import answer_language
from .charts import chart_ranking

_AMOUNT_ROWS = ("part", "rest", "rest_left", "unallocated")
_RATIO_ROWS = ("rate", "mix", "effect")


def why_labels() -> dict[str, str]:
    return {
        "channel": pgettext("why channel", "By channel"),
        "entity": pgettext("why entity", "By subsidiary or region"),
        "quarter": pgettext("why quarter", "By quarter"),
        "part": pgettext("why part", "Part"),
        "change": pgettext("why change", "Change"),
        "share": pgettext("why share", "Share of the change"),
        "rate": pgettext("why rate", "Rate effect"),
        "mix": pgettext("why mix", "Mix effect"),
        "effect": pgettext("why effect", "Together"),
        "weighted": pgettext("why weighted", " (weights: each part's share of {metric})"),
        "rest": pgettext("why rest", "{count} other parts"),
        "rest_and_left": pgettext("why rest_and_left", "{count} other parts and change in no part"),
        "unallocated": pgettext("why unallocated", "Not in the parts above"),
        "adds_up": pgettext("why adds_up", "The rows add up to the change exactly."),
        "amount_formula": pgettext(
            "why amount_formula",
            "A part's change = its figure now − its figure before; share = the part's change ÷ the total change",
        ),
        "ratio_formula": pgettext(
            "why ratio_formula",
            "Rate effect = prior weight × (ratio now − ratio before); "
            "mix effect = ratio now × (weight now − weight before)",
        ),
    }


def is_why(item: dict[str, Any]) -> bool:
    return bool(item.get("why"))


def decompositions_view(items: list[dict[str, Any]], glossary: GlossarySnapshot, language: str) -> list[dict[str, Any]]:
    """One view per dimension, in the order the engine listed them (the one that adds up first)."""
    with answer_language(language):
        labels = why_labels()
    dimensions: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        if is_why(item):
            dimensions.setdefault(item["why"]["dimension"], []).append(item)
    return [_view(dimension, group, glossary, language, labels) for dimension, group in dimensions.items()]


def _view(
    dimension: str, items: list[dict[str, Any]], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> dict[str, Any]:
    ratio = any(i["why"]["role"] in _RATIO_ROWS for i in items)
    rows = _ratio_rows(items, glossary, language, labels) if ratio else _amount_rows(items, glossary, language, labels)
    unit = next((i["unit"] for i in items if i["why"]["role"] in ("part", "effect")), "")
    bars = [
        {"rank": "", "label": row["label"], "value": row["value"], "display": row["figure"], "tied": False}
        for row in rows
        if row["value"] is not None
    ]
    weight = next((i["why"].get("weight") for i in items if i["why"].get("weight")), "")
    title = labels.get(dimension, dimension)
    if weight:
        title += labels["weighted"].format(metric=glossary.display("metric", weight, language))
    return {
        "dimension": dimension,
        "title": title,
        "ratio": ratio,
        "unit_name": "" if unit in ("", UNIT_PCT, UNIT_PP, UNIT_RANK) else glossary.unit_display(unit, language),
        "rows": rows,
        "chart": chart_ranking(bars, tie_mark="") if bars else None,
        "note": "" if ratio else labels["adds_up"],
        "formula": labels["ratio_formula" if ratio else "amount_formula"],
        "labels": labels,
    }


def _part_name(item: dict[str, Any], dimension: str, glossary: GlossarySnapshot, language: str) -> str:
    part = item["why"]["part"] or {}
    if dimension == "channel":
        return glossary.display("channel", part.get("channel", ""), language)
    if dimension == "entity":
        return glossary.display("entity", part.get("entity", ""), language)
    return part.get("period", "")


def _signed(item: dict[str, Any] | None) -> str:
    """The engine's display (points read `个百分点` in Chinese), a rise marked `+`."""
    if item is None:
        return ""
    display = item["display"]
    try:
        positive = Decimal(item["value"]) > 0
    except InvalidOperation:
        positive = False
    return f"+{display}" if positive and not display.startswith("+") else display


def _value(item: dict[str, Any] | None) -> Decimal | None:
    try:
        return Decimal(item["value"]) if item is not None else None
    except InvalidOperation:
        return None


def _amount_rows(
    items: list[dict[str, Any]], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> list[dict[str, Any]]:
    shares = {_key(i, share=True): i for i in items if i["why"]["role"].endswith("_share")}
    rows = []
    for item in items:
        role = item["why"]["role"]
        if role not in _AMOUNT_ROWS:
            continue
        if role == "part":
            label = _part_name(item, item["why"]["dimension"], glossary, language)
        elif role in ("rest", "rest_left"):
            label = labels["rest_and_left" if role == "rest_left" else "rest"].format(count=f"{item['why']['parts']:,}")
        else:
            label = labels["unallocated"]
        share = shares.get(_key(item))
        rows.append(
            {
                "label": label,
                "role": role,
                "figure": _signed(item),
                "share": share["display"] if share else "",
                "value": _value(item),
                "exact": item["value"],
                "formula": item.get("formula_words") or item["formula"],
            }
        )
    return rows


def _ratio_rows(
    items: list[dict[str, Any]], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> list[dict[str, Any]]:
    by_part: dict[tuple[str, ...], dict[str, dict[str, Any]]] = {}
    for item in items:
        role = item["why"]["role"]
        if role in _RATIO_ROWS:
            by_part.setdefault(_key(item)[1:], {})[role] = item
    rows = []
    for effects in by_part.values():
        total = effects.get("effect")
        first = total or next(iter(effects.values()))
        rows.append(
            {
                "label": _part_name(first, first["why"]["dimension"], glossary, language),
                "role": "part",
                "rate": _signed(effects.get("rate")),
                "mix": _signed(effects.get("mix")),
                "figure": _signed(total),
                "value": _value(total),
                "exact": total["value"] if total else "",
            }
        )
    rows.sort(key=lambda r: -abs(r["value"]) if r["value"] is not None else 0)
    for item in items:
        if item["why"]["role"] == "unallocated":
            row = {"label": labels["unallocated"], "role": "unallocated", "rate": "", "mix": ""}
            rows.append({**row, "figure": _signed(item), "value": _value(item), "exact": item["value"]})
    return rows


def _key(item: dict[str, Any], *, share: bool = False) -> tuple[str, ...]:
    """What pairs a part's change with its share: the part, or the role it is the share of."""
    why = item["why"]
    role = why["role"].removesuffix("_share") if share else why["role"]
    part = why["part"] or {}
    return (role, part.get("entity", ""), part.get("channel", ""), part.get("period", ""))


def figures_of(views: list[dict[str, Any]]) -> list[str]:
    """Every figure the decomposition views show, which the answer's text need not repeat."""
    shown = []
    for view in views:
        for row in view["rows"]:
            shown += [x for x in (row.get("figure"), row.get("share"), row.get("rate"), row.get("mix")) if x]
    return shown
