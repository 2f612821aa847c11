"""A lookup answer's lines: a stored fact with its source, or why none is shown.

Takes a fact record, a sub-task or a tool result; returns text. Nothing here reads model prose
or does arithmetic: a figure shown is a stored value (rounded only when the question asked,
saying so beside the stored value). A missing figure is `not_found`, with how many candidates
await review and never their values.
"""

from __future__ import annotations

from typing import Any

from core.engine import number_display
from core.engine.display import decimal_round
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.routes.render import printed_note, unit_suffix, value_format


def fact_line(fact: FactRecord, glossary: GlossarySnapshot, language: str, decimals: int | None = None) -> str:
    """A stored fact's line; with `decimals`, its value shown rounded half-up to that many places
    as the question asked, saying so and giving the stored value beside it (the fact is unchanged)."""
    entity = glossary.display("entity", fact.entity, language)
    metric = glossary.display("metric", fact.metric, language)
    unit = unit_suffix(glossary, fact.unit, language)
    value = value_format(fact.value) + unit
    if decimals is not None and decimal_round(fact.value, decimals) != fact.value:
        value = number_display(fact.value, decimals) + unit + _rounded_note(value, decimals, language)
    elif decimals is not None:
        value = number_display(fact.value, decimals) + unit
    channel = ""
    if fact.channel != "TOTAL":
        name = glossary.display("channel", fact.channel, language)
        channel = f" ({name})" if language == "en" else f"（{name}）"
    printed = printed_note(fact, language)
    if language == "en":
        as_of = f" · as of {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
        source = f"source: {fact.source_doc} · {fact.locator}{printed}{as_of}"
        return f"{entity} {fact.period.label} {metric}{channel}: {value} ({source})"
    as_of = f" · 截至 {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
    source = f"{fact.source_doc} · {fact.locator}{printed}{as_of}"
    return f"{entity} {fact.period.label} {metric}{channel}：{value}（来源：{source}）"


def _rounded_note(exact: str, decimals: int, language: str) -> str:
    if language == "en":
        to = "a whole number" if decimals == 0 else f"{decimals} decimal place{'s' if decimals > 1 else ''}"
        return f" (rounded to {to}; stored value {exact})"
    to = "整数" if decimals == 0 else f" {decimals} 位小数"
    return f"（已四舍五入至{to}；原值 {exact}）"


def pending_sentence(count: int, language: str) -> str:
    """That `count` candidate figures wait for curator review, none of them shown ("" for none)."""
    if count <= 0:
        return ""
    if language == "en":
        if count == 1:
            return "Another 1 candidate figure is waiting for curator review."
        return f"Another {count:,} candidate figures are waiting for curator review."
    return f"另有 {count:,} 个候选数字正在等待审核。"


def not_found_line(task: SubTask, glossary: GlossarySnapshot, language: str, pending: int = 0) -> str:
    """`查不到：…`; with `pending`, how many candidates for the key await review (never their values)."""
    metric = glossary.display("metric", task.metric, language)
    entity = glossary.display("entity", task.entity, language)
    channel = glossary.display("channel", task.channel, language)
    waiting = pending_sentence(pending, language)
    if language == "en":
        return (
            f"Not found: {metric} / {entity} / {task.period.label} (channel {channel}) is not in the fact table. "
            + (f"{waiting} " if waiting else "")
            + "To avoid misleading you, no estimated figure is given; try another period or entity."
        )
    return (
        f"查不到：{metric} / {entity} / {task.period.label}（渠道 {channel}）未在事实表中找到。{waiting}"
        "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"
    )


def unrecognized_line(result: dict[str, Any], language: str) -> str:
    raw = str(result.get("raw", ""))[:32]
    param = result.get("param", "")
    if language == "en":
        return (
            f"Unrecognised parameter {param}: '{raw}'. "
            "Please check how the metric, entity or period is named and try again."
        )
    return f"无法识别参数 {param}：'{raw}'。请确认指标/实体/期间的说法后重试。"
