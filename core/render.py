"""Answer text, rendered only from fact rows and fixed templates (SPEC §6).

Takes fact records and tool results; returns text. Nothing here reads model prose, so every
figure in a structured answer is a stored value (or the exact difference of two of them).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .glossary import GlossarySnapshot
from .types import FactRecord, Period, SubTask

DEGRADED_STRUCTURED = {
    "zh": "AI 服务暂时不可用，未能完成本次查询，请稍后再试。",
    "en": "The AI service is temporarily unavailable, so this query could not be completed. Please try again later.",
}
DEGRADED_NARRATIVE = {
    "zh": "AI 服务暂时不可用，未能生成归因，请稍后再试。",
    "en": "The AI service is temporarily unavailable, so no explanation could be generated. Please try again later.",
}
NARRATIVE_NOT_WIRED = {
    "zh": "叙事检索通路尚未接入，暂时无法基于文档回答此类问题。",
    "en": "The document channel is not connected yet, so questions like this cannot be answered from documents.",
}
NARRATIVE_NO_HITS = {
    "zh": "未检索到与该问题相关的资料，无法基于现有知识库作答。",
    "en": "No relevant material was found, so this cannot be answered from the knowledge base.",
}
ATTRIBUTION_HEADING = {"zh": "归因分析：", "en": "Explanation:"}


def value_format(value: Decimal) -> str:
    """Exact decimal with thousands separators, the stored precision, never an exponent."""
    return f"{value:,f}"


def _signed(value: Decimal) -> str:
    text = value_format(value)
    return text if text.startswith("-") else f"+{text}"


def unit_suffix(glossary: GlossarySnapshot, unit: str, language: str) -> str:
    shown = glossary.unit_display(unit, language)
    if not shown:
        return ""
    return shown if shown in ("%", "‰") else f" {shown}"


def fact_line(fact: FactRecord, glossary: GlossarySnapshot, language: str) -> str:
    entity = glossary.display("entity", fact.entity, language)
    metric = glossary.display("metric", fact.metric, language)
    value = value_format(fact.value) + unit_suffix(glossary, fact.unit, language)
    channel = ""
    if fact.channel != "TOTAL":
        name = glossary.display("channel", fact.channel, language)
        channel = f" ({name})" if language == "en" else f"（{name}）"
    if language == "en":
        as_of = f" · as of {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
        source = f"source: {fact.source_doc} · {fact.locator}{as_of}"
        return f"{entity} {fact.period.label} {metric}{channel}: {value} ({source})"
    as_of = f" · 截至 {fact.valid_as_of.isoformat()}" if fact.valid_as_of else ""
    return f"{entity} {fact.period.label} {metric}{channel}：{value}（来源：{fact.source_doc} · {fact.locator}{as_of}）"


def not_found_line(task: SubTask, glossary: GlossarySnapshot, language: str) -> str:
    metric = glossary.display("metric", task.metric, language)
    entity = glossary.display("entity", task.entity, language)
    channel = glossary.display("channel", task.channel, language)
    if language == "en":
        return (
            f"Not found: {metric} / {entity} / {task.period.label} (channel {channel}) is not in the fact table. "
            "To avoid misleading you, no estimated figure is given; try another period or entity."
        )
    return (
        f"查不到：{metric} / {entity} / {task.period.label}（渠道 {channel}）未在事实表中找到。"
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


def difference_line(older: FactRecord, newer: FactRecord, glossary: GlossarySnapshot, language: str) -> str:
    """`对比：FY2025 较 FY2024 +10,110.4 百万元（+8.5%）`; PCT metrics in percentage points."""
    delta = newer.value - older.value
    if newer.unit == "PCT":
        amount = f"{_signed(delta)} pp" if language == "en" else f"{_signed(delta)} 个百分点"
        relative = ""
    else:
        amount = _signed(delta) + unit_suffix(glossary, newer.unit, language)
        relative = ""
        if older.value != 0:
            pct = (delta / abs(older.value) * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
            relative = f" ({_signed(pct)}%)" if language == "en" else f"（{_signed(pct)}%）"
    if language == "en":
        return f"Change: {newer.period.label} vs {older.period.label} {amount}{relative}"
    return f"对比：{newer.period.label} 较 {older.period.label} {amount}{relative}"


def comparable_pair(facts: list[FactRecord]) -> tuple[FactRecord, FactRecord] | None:
    """Exactly two found facts that differ only in period, of one period type, oldest first.

    A half year against its full year (or a quarter against a half) is a part against its whole,
    not a change: FY is compared with FY, HY with HY and quarters with quarters only.
    """
    if len(facts) != 2:
        return None
    a, b = facts
    if (a.metric, a.entity, a.channel, a.unit) != (b.metric, b.entity, b.channel, b.unit) or a.period == b.period:
        return None
    if a.period.period_type != b.period.period_type:
        return None
    older, newer = sorted((a, b), key=lambda f: f.period.sort_key)
    return older, newer


def period_label(period: Period | None) -> str:
    return period.label if period else ""
