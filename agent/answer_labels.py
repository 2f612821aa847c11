"""The words around an answer in the analyst UI, in the answer's language (SPEC §13).

The page itself is Chinese; an answer to an English question carries English labels: its table
headers, its source list, its badges, its export link and its feedback form.
"""

from __future__ import annotations

from core.model.types import (
    KIND_DEGRADED,
    KIND_REFUSAL,
    ROUTE_COMPOSITE,
    ROUTE_FAQ,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    Badge,
)

PANEL_LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "entity": "实体",
        "period": "期间",
        "metric": "指标",
        "channel": "渠道",
        "value": "数值",
        "unit": "单位",
        "sources": "来源",
        "source": "来源",
        "inputs": "数据与来源（{count} 项）",
        "cell_row": "行（指标）",
        "cell_column": "列（期间）",
        "cell": "单元格",
        "location": "位置",
        "nearest": "最相关位置：",
        "at": "位置：",
        "open": "打开文档",
        "export": "导出 CSV",
        "thanks": "已记录反馈，谢谢。",
        "reason": "原因（可选）",
        "reason_label": "反馈原因",
        "up": "有用",
        "down": "没用",
        "up_title": "这个回答有用",
        "down_title": "这个回答没用",
        "narrow": "收窄选项",
        "choose": "请选择",
        "dispute": "这个数字不对",
        "dispute_note": "哪里不对？（会送到数据管理员的审核队列）",
        "dispute_send": "提交",
    },
    "en": {
        "entity": "Entity",
        "period": "Period",
        "metric": "Metric",
        "channel": "Channel",
        "value": "Value",
        "unit": "Unit",
        "sources": "Sources",
        "source": "Source",
        "inputs": "Figures and sources ({count})",
        "cell_row": "Row (metric)",
        "cell_column": "Column (period)",
        "cell": "Cell",
        "location": "Location",
        "nearest": "Closest location: ",
        "at": "Location: ",
        "open": "Open document",
        "export": "Export CSV",
        "thanks": "Feedback recorded, thank you.",
        "reason": "Reason (optional)",
        "reason_label": "Feedback reason",
        "up": "Useful",
        "down": "Not useful",
        "up_title": "This answer was useful",
        "down_title": "This answer was not useful",
        "narrow": "Narrow the question",
        "choose": "Choose one",
        "dispute": "This figure is wrong",
        "dispute_note": "What is wrong? (goes to the curators' review queue)",
        "dispute_send": "Send",
    },
}

# The registry's badges (core/model/types.py) name themselves in Chinese; their English names by key.
BADGE_NAMES_EN = {
    ROUTE_STRUCTURED: "Data",
    ROUTE_NARRATIVE: "Documents",
    ROUTE_COMPOSITE: "Data + reasons",
    ROUTE_FIND_DOCUMENTS: "Find documents",
    ROUTE_FAQ: "FAQ",
    KIND_REFUSAL: "Not answered",
    KIND_DEGRADED: "Degraded",
}


def badge_in(badge: Badge | None, key: str, language: str) -> Badge | None:
    """`badge` named in `language`: its tone kept, its name English for an English answer."""
    if badge is None or language != "en" or key not in BADGE_NAMES_EN:
        return badge
    return Badge(BADGE_NAMES_EN[key], badge.tone)
