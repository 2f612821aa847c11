"""The note a follow-up's answer carries, saying what it inherited from the previous question, in
the analyst's words: `【沿用上一问】指标 营业收入，期间 FY2025` / `[From the previous question]
metric Revenue; period FY2025`, each slot by its glossary name and an operation by its name;
the route reason starts with the same words.
"""

from __future__ import annotations

from core.glossary import GlossarySnapshot
from core.model.operation import (
    OP_AVERAGE,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    Operation,
)

_SLOT_NAMES = {
    "zh": {"metric": "指标", "entity": "实体", "period": "期间", "channel": "渠道", "operation": "运算"},
    "en": {
        "metric": "metric",
        "entity": "entity",
        "period": "period",
        "channel": "channel",
        "operation": "calculation",
    },
}
_OPERATION_NAMES = {
    "zh": {
        OP_GROWTH: "同比增长",
        "qoq": "环比增长",
        OP_CAGR: "复合增长率",
        OP_DIFFERENCE: "变化额",
        OP_RATIO: "比率",
        OP_SHARE: "占比",
        OP_SUM: "合计",
        OP_AVERAGE: "平均",
        OP_RANK: "排名",
    },
    "en": {
        OP_GROWTH: "year-on-year growth",
        "qoq": "quarter-on-quarter growth",
        OP_CAGR: "CAGR",
        OP_DIFFERENCE: "change",
        OP_RATIO: "ratio",
        OP_SHARE: "share",
        OP_SUM: "total",
        OP_AVERAGE: "average",
        OP_RANK: "ranking",
    },
}
NOTE_PREFIX = {"zh": "【沿用上一问】", "en": "[From the previous question] "}
# What a follow-up asked with no question before it is told (`continues_nothing`).
NOTHING_TO_CONTINUE = {
    "zh": "这句话接着上一问，但本次对话中没有可以接着的上一问。请把问题问完整：要查的指标、公司和期间。",
    "zh-Hant": "這句話接著上一問，但本次對話中沒有可以接著的上一問。請把問題問完整：要查的指標、公司和期間。",
    "yue": "呢句係接住上一條問題問嘅，但呢個對話入面冇上一條問題。請將問題問完整：要查嘅指標、公司同期間。",
    "en": "This continues an earlier question, but this conversation has none to continue. Please ask the "
    "whole question: the metric, the company and the period.",
}
REASON_PREFIX = {"zh": "沿用上一问：", "en": "from the previous question: "}


def operation_name(operation: Operation, language: str) -> str:
    names = _OPERATION_NAMES["en" if language == "en" else "zh"]
    if operation.kind == OP_GROWTH and operation.comparison == "qoq":
        return names["qoq"]
    return names.get(operation.kind, operation.kind)


def inherited_text(inherited: dict[str, tuple[str, ...]], glossary: GlossarySnapshot, language: str) -> str:
    """`指标 营业收入，期间 FY2025` / `metric Revenue; period FY2025`."""
    names = _SLOT_NAMES[language]
    parts = []
    for slot, values in inherited.items():
        shown = [glossary.display(slot, v, language) if slot in ("metric", "entity", "channel") else v for v in values]
        parts.append(f"{names[slot]} {('、' if language == 'zh' else ', ').join(shown)}")
    return ("，" if language == "zh" else "; ").join(parts)
