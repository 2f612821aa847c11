"""Computed answers as the analyst UI shows them.

Takes one stored turn (its question and its `/v1/ask` result dict) and the glossary; returns
what the computed cards and the ranking chart need: each item's name, its display value with
the unit's name, its formula in words (the engine's formula text with the glossary's display
names put in for codes), and every input with its value, unit and source, read from the
result's found facts. A growth's or a difference's rate and absolute change share one card;
rank items become one chart, not a card each.

Nothing is computed here: every figure shown is a string the engine wrote or a found fact's
stored value. Labels follow the question's language.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import pgettext

from core.engine import KIND_DIFFERENCE, KIND_GROWTH, RANK_ORDERS, UNIT_PCT, UNIT_PP, UNIT_RANK
from core.glossary import GlossarySnapshot
from core.language.normalize import question_language

from .answer_labels import answer_language
from .charts import chart_ranking
from .why_view import decompositions_view, is_why

CHANGE_KINDS = (KIND_GROWTH, KIND_DIFFERENCE)

LANGUAGES = ("zh", "en")


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
    }


def turn_language(turn: dict[str, Any]) -> str:
    """The turn's language: as stored when it is, else the question's (CJK → zh, else en)."""
    language = turn.get("language") or turn["result"].get("language")
    return language if language in LANGUAGES else question_language(turn["question"])


def fact_key(item: dict[str, Any]) -> tuple[str, str, str, str]:
    return item["metric"], item["entity"], item["period"], item["channel"]


def computed_cards(turn: dict[str, Any], glossary: GlossarySnapshot) -> dict[str, Any] | None:
    """The computed cards and the ranking chart of one turn; None when it computed nothing."""
    result = turn["result"]
    items = result.get("computed") or []
    if not items:
        return None
    language = turn_language(turn)
    with answer_language(language):
        labels = card_labels()
    facts = {fact_key(f): f for f in result["facts"]}
    ranked = [item for item in items if item["kind"] == "rank"]
    carded = [item for item in items if item["kind"] != "rank" and not is_why(item)]
    cards = [_card(group, facts, glossary, language) for group in _groups(carded)]
    return {
        "language": language,
        "labels": labels,
        "cards": cards,
        "ranking": ranking_view(ranked, result, glossary, language) if ranked else None,
        # a why's parts: a table and a chart per dimension, not a card per number
        "decompositions": decompositions_view(items, glossary, language),
    }


def _groups(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Items one card each, except a rate and its absolute change (same kind, same inputs)."""
    groups: list[list[dict[str, Any]]] = []
    for item in items:
        last = groups[-1] if groups else None
        if (
            last is not None
            and len(last) == 1
            and item["kind"] in CHANGE_KINDS
            and last[0]["kind"] == item["kind"]
            and last[0]["inputs"] == item["inputs"]
        ):
            last.append(item)
        else:
            groups.append([item])
    return groups


def _card(
    group: list[dict[str, Any]], facts: dict[tuple[str, ...], Any], glossary: GlossarySnapshot, language: str
) -> dict[str, Any]:
    with answer_language(language):
        labels = card_labels()
    kind = group[0]["kind"]
    rate = next((i for i in group if kind in CHANGE_KINDS and i["unit"] == UNIT_PCT and len(group) > 1), None)
    change = next((i for i in group if i is not rate), group[0])
    main, alongside = (rate, change) if rate is not None and kind == "growth" else (change, rate)
    figures = [_figure(main, kind, glossary, language)]
    if alongside is not None:
        label = labels["change"] if alongside is change else labels["rate" if kind == "growth" else "difference_rate"]
        figures.append({**_figure(alongside, kind, glossary, language), "label": label})
    inputs = group[0]["inputs"]
    return {
        "kind": kind,
        "kind_label": labels["formula_kind" if kind == "formula" else kind],
        "name": main["name"],
        "subject": _subject(inputs, glossary, language),
        "main": figures[0],
        "alongside": figures[1:],
        "formulas": [{"name": item["name"], "words": formula_words(item)} for item in group],
        "inputs": [input_view(i, facts, glossary, language) for i in inputs],
        "inputs_label": labels["inputs"].format(count=len(inputs)),
    }


def _figure(item: dict[str, Any], kind: str, glossary: GlossarySnapshot, language: str) -> dict[str, Any]:
    """The engine's display, signed for a change, with the unit's name where the display has none."""
    display = item["display"]
    if kind in CHANGE_KINDS and _positive(item["value"]) and not display.startswith("+"):
        display = "+" + display
    unit = item["unit"]
    unit_name = "" if unit in (UNIT_PCT, UNIT_PP, UNIT_RANK) else glossary.unit_display(unit, language)
    return {"display": display, "unit_name": unit_name, "exact": item["value"], "name": item["name"]}


def _positive(value: str) -> bool:
    try:
        return Decimal(value) > 0
    except InvalidOperation:
        return False


def _subject(inputs: list[dict[str, Any]], glossary: GlossarySnapshot, language: str) -> str:
    """The entity (and channel) every input shares, which the formula's words leave out."""
    entities = {i["entity"] for i in inputs}
    channels = {i["channel"] for i in inputs}
    parts = []
    if len(entities) == 1:
        parts.append(glossary.display("entity", next(iter(entities)), language))
    if len(channels) == 1 and channels != {"TOTAL"}:
        parts.append(glossary.display("channel", next(iter(channels)), language))
    return " · ".join(parts)


def formula_words(item: dict[str, Any]) -> str:
    """The formula as the answer says it (`formula_words`, written by the engine); a turn stored
    before items carried their words shows its formula in codes."""
    return item.get("formula_words") or item["formula"]


def input_view(
    item: dict[str, Any], facts: dict[tuple[str, ...], Any], glossary: GlossarySnapshot, language: str
) -> dict[str, Any]:
    """One input as shown: names, and its found fact's value, unit and source (None if absent)."""
    fact = facts.get(fact_key(item))
    metric = glossary.display("metric", item["metric"], language)
    if item["channel"] != "TOTAL":
        channel = glossary.display("channel", item["channel"], language)
        metric += f" ({channel})" if language == "en" else f"（{channel}）"
    return {
        "what": " · ".join((glossary.display("entity", item["entity"], language), metric, item["period"])),
        "fact": fact,
        "shown": f"{Decimal(fact['value']):,f}" if fact else "",
        "unit_name": glossary.unit_display(fact["unit"], language) if fact else "",
    }


# -- ranking ------------------------------------------------------------------------------------


def _rank_subject(item: dict[str, Any]) -> tuple[str, str, str]:
    first = item["inputs"][0]
    return first["entity"], first["period"], first["channel"]


def ranking_view(
    items: list[dict[str, Any]], result: dict[str, Any], glossary: GlossarySnapshot, language: str
) -> dict[str, Any] | None:
    """The rank items as one chart in rank order, ties marked, and the keys left unranked.

    A row's label names what differs between rows (entity, channel or period). Keys without the
    figure reach the UI only as `not_found` tool results of the ranked metric (or of a metric
    its rows were computed from) in the ranked periods; they are listed, never dropped.
    """
    with answer_language(language):
        labels = card_labels()
    items = sorted((i for i in items if i["inputs"]), key=lambda i: int(i["value"]))
    if not items:
        return None
    subjects = [_rank_subject(i) for i in items]
    varying = [axis for axis in range(3) if len({s[axis] for s in subjects}) > 1] or [0]
    counts: dict[str, int] = {}
    for item in items:
        counts[item["value"]] = counts.get(item["value"], 0) + 1
    rows = [
        {
            "rank": int(item["value"]),
            "label": _subject_words(subject, varying, glossary, language),
            "value": _ranked_value(item, result),
            "display": item.get("ranked_display") or _ranked_display(item, result),
            "tied": counts[item["value"]] > 1,
        }
        for item, subject in zip(items, subjects, strict=True)
    ]
    # Without every ranked figure there are no bars to draw; the order is still listed.
    chart = None if any(row["value"] is None for row in rows) else chart_ranking(rows, tie_mark=labels["tied"])
    # A turn stored before rank items carried these fields reads as what it most often was.
    metric = items[0].get("ranked_metric") or items[0]["inputs"][0]["metric"]
    order = items[0].get("order", "desc")
    facts = {fact_key(f): f for f in result["facts"]}
    first = facts.get(fact_key(items[0]["inputs"][0]))
    unit = first["unit"] if first and len(items[0]["inputs"]) == 1 else ""
    inputs = list({fact_key(i): i for item in items for i in item["inputs"]}.values())
    missing = _ranking_missing(result, {metric} | {i["metric"] for i in inputs}, subjects, varying, glossary, language)
    count = items[0].get("count") or len(items)
    # As the answer says it: a partial ranking counts the items with the figure among all asked.
    title = labels["ranking_partial" if missing else "ranking"].format(
        subject=_ranking_subject(metric, subjects[0], varying, glossary, language),
        order=labels[order] if order in RANK_ORDERS else labels["desc"],
        count=f"{count:,}",
        total=f"{count + len(missing):,}",
    )
    return {
        "chart": chart,
        "rows": rows,
        "title": title,
        "unit_name": "" if unit in ("", UNIT_PCT, UNIT_PP) else glossary.unit_display(unit, language),
        "missing": missing,
        "omitted": labels["omitted"].format(count=chart["omitted"]) if chart and chart["omitted"] else "",
        "inputs": [input_view(i, facts, glossary, language) for i in inputs],
        "inputs_label": labels["inputs"].format(count=len(inputs)),
    }


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


def _ranked_value(item: dict[str, Any], result: dict[str, Any]) -> Decimal | None:
    """The figure ranked: `ranked_value`, else the one stored fact the row was ranked by."""
    text = item.get("ranked_value")
    if text is None:
        fact = _only_fact(item, result)
        text = fact["value"] if fact else None
    try:
        return Decimal(text) if text is not None else None
    except InvalidOperation:
        return None


def _ranked_display(item: dict[str, Any], result: dict[str, Any]) -> str:
    fact = _only_fact(item, result)
    return f"{Decimal(fact['value']):,f}" if fact else ""


def _only_fact(item: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    if len(item["inputs"]) != 1:
        return None
    return next((f for f in result["facts"] if fact_key(f) == fact_key(item["inputs"][0])), None)


def _subject_words(subject: tuple[str, str, str], varying: list[int], glossary: GlossarySnapshot, language: str) -> str:
    show: dict[int, Callable[[str], str]] = {
        0: lambda code: glossary.display("entity", code, language),
        1: lambda label: label,
        2: lambda code: glossary.display("channel", code, language),
    }
    return " ".join(show[axis](subject[axis]) for axis in varying)


def _ranking_missing(
    result: dict[str, Any],
    metrics: set[str],
    subjects: list[tuple[str, str, str]],
    varying: list[int],
    glossary: GlossarySnapshot,
    language: str,
) -> list[str]:
    ranked = set(subjects)
    periods = {s[1] for s in subjects}
    missing: dict[tuple[str, str, str], str] = {}
    for tool in result.get("tool_results") or []:
        key = tool.get("normalized") if tool.get("status") == "not_found" else None
        if not key or key.get("metric") not in metrics or key.get("period") not in periods:
            continue
        subject = (key.get("entity", ""), key["period"], key.get("channel", "TOTAL"))
        if subject not in ranked:
            missing.setdefault(subject, _subject_words(subject, varying, glossary, language))
    return list(missing.values())
