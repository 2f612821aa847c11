"""A why's decomposition as the analyst UI shows it: one table and one bar chart per dimension.

Takes the computed values of one stored answer that carry a why tag (`agent.serialize.WhyTag`:
dimension, role, part) and the glossary; returns per dimension its title, its rows (a part's
change and share, or a ratio's rate, mix and total effects; the rest of a long list; what no
part holds), the formula in words and a horizontal bar chart of the rows' changes (or effects),
largest mover first as the engine ordered them. Nothing is computed here: every figure is a
display the engine wrote. Labels follow the answer's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import pgettext

from agent.serialize import AnswerComputed, WhyTag
from core.engine import UNIT_PCT, UNIT_PP, UNIT_RANK
from core.glossary import GlossarySnapshot

from .charts import chart_ranking
from .labels import answer_language, unit_words

_AMOUNT_ROWS = ("part", "rest", "rest_left", "unallocated")


@dataclass(frozen=True)
class PartRow:
    """One row of a decomposition: a part's change and share, or a ratio's rate, mix and total
    effects (`rate`, `mix` empty for an amount), the rest of a long list, or what no part holds."""

    label: str
    role: str
    figure: str
    value: Decimal | None
    exact: str
    share: str = ""
    rate: str = ""
    mix: str = ""


@dataclass(frozen=True)
class Decomposition:
    dimension: str
    title: str
    ratio: bool
    unit_name: str
    rows: tuple[PartRow, ...]
    chart: Mapping[str, Any] | None
    note: str
    formula: str
    labels: Mapping[str, str]


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


def decompositions_view(
    items: Sequence[AnswerComputed], glossary: GlossarySnapshot, language: str
) -> list[Decomposition]:
    """One view per dimension, in the order the engine listed them (the one that adds up first)."""
    with answer_language(language):
        labels = why_labels()
    dimensions: dict[str, list[AnswerComputed]] = {}
    for item in items:
        if item.why is not None:
            dimensions.setdefault(item.why.dimension, []).append(item)
    return [_view(dimension, group, glossary, language, labels) for dimension, group in dimensions.items()]


def _tag(item: AnswerComputed) -> WhyTag:
    assert item.why is not None  # only tagged items reach here
    return item.why


def _view(
    dimension: str, items: list[AnswerComputed], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> Decomposition:
    ratio = any(_tag(i).role in _RATIO_ROWS for i in items)
    rows = _ratio_rows(items, glossary, language, labels) if ratio else _amount_rows(items, glossary, language, labels)
    unit = next((i.unit for i in items if _tag(i).role in ("part", "effect")), "")
    bars = [
        {"rank": "", "label": row.label, "value": row.value, "display": row.figure, "tied": False}
        for row in rows
        if row.value is not None
    ]
    weight = next((_tag(i).weight for i in items if _tag(i).weight), "")
    title = labels.get(dimension, dimension)
    if weight:
        title += labels["weighted"].format(metric=glossary.display("metric", weight, language))
    return Decomposition(
        dimension=dimension,
        title=title,
        ratio=ratio,
        unit_name="" if unit in ("", UNIT_PCT, UNIT_PP, UNIT_RANK) else unit_words(glossary, unit, language),
        rows=tuple(rows),
        chart=chart_ranking(bars, tie_mark="") if bars else None,
        note="" if ratio else labels["adds_up"],
        formula=labels["ratio_formula" if ratio else "amount_formula"],
        labels=labels,
    )


def _part_name(item: AnswerComputed, glossary: GlossarySnapshot, language: str) -> str:
    tag = _tag(item)
    if tag.part is None:
        return ""
    if tag.dimension == "channel":
        return glossary.display("channel", tag.part.channel, language)
    if tag.dimension == "entity":
        return glossary.display("entity", tag.part.entity, language)
    return tag.part.period.label


def _signed(item: AnswerComputed | None) -> str:
    return item.signed if item is not None else ""


def _amount_rows(
    items: list[AnswerComputed], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> list[PartRow]:
    shares = {_key(i, share=True): i for i in items if _tag(i).role.endswith("_share")}
    rows = []
    for item in items:
        tag = _tag(item)
        if tag.role not in _AMOUNT_ROWS:
            continue
        if tag.role == "part":
            label = _part_name(item, glossary, language)
        elif tag.role in ("rest", "rest_left"):
            label = labels["rest_and_left" if tag.role == "rest_left" else "rest"].format(count=f"{tag.parts:,}")
        else:
            label = labels["unallocated"]
        share = shares.get(_key(item))
        rows.append(
            PartRow(
                label=label,
                role=tag.role,
                figure=_signed(item),
                value=item.value,
                exact=item.value_text,
                share=share.display if share else "",
            )
        )
    return rows


def _ratio_rows(
    items: list[AnswerComputed], glossary: GlossarySnapshot, language: str, labels: dict[str, str]
) -> list[PartRow]:
    by_part: dict[tuple[str, ...], dict[str, AnswerComputed]] = {}
    for item in items:
        role = _tag(item).role
        if role in _RATIO_ROWS:
            by_part.setdefault(_key(item)[1:], {})[role] = item
    rows = []
    for effects in by_part.values():
        total = effects.get("effect")
        first = total or next(iter(effects.values()))
        rows.append(
            PartRow(
                label=_part_name(first, glossary, language),
                role="part",
                figure=_signed(total),
                value=total.value if total else None,
                exact=total.value_text if total else "",
                rate=_signed(effects.get("rate")),
                mix=_signed(effects.get("mix")),
            )
        )
    rows.sort(key=lambda r: -abs(r.value) if r.value is not None else 0)
    for item in items:
        if _tag(item).role == "unallocated":
            rows.append(PartRow(labels["unallocated"], "unallocated", _signed(item), item.value, item.value_text))
    return rows


def _key(item: AnswerComputed, *, share: bool = False) -> tuple[str, ...]:
    """What pairs a part's change with its share: the part, or the role it is the share of."""
    tag = _tag(item)
    role = tag.role.removesuffix("_share") if share else tag.role
    part = tag.part
    return (role, part.entity, part.channel, part.period.label) if part else (role, "", "", "")


def figures_of(views: Sequence[Decomposition]) -> list[str]:
    """Every figure the decomposition views show, which the answer's text need not repeat."""
    return [x for view in views for row in view.rows for x in (row.figure, row.share, row.rate, row.mix) if x]
