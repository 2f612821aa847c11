"""The routes' shared wording: the fixed labels and the value display every route uses.

Answer text is rendered only from fact rows, the engine's results and fixed templates. This
module holds what more than one route says: the degraded and no-hit messages, the headings
and joiners the narrative route uses, and how a stored value and its unit are shown. A lookup
answer's lines are in `core.routes.lookup.render`, a computed answer's in
`core.routes.computed.render` and a ranking's in `core.routes.computed.ranking_text`.
"""

from __future__ import annotations

from decimal import Decimal

from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord
from core.model.sign import printed_differs, printed_display

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
# Before a quoted sentence about another entity than the one asked, shown only when the sources
# hold nothing about the asked one. It names an entity and never states a figure.
ABOUT_ENTITY = {"zh": "（关于{name}：）", "en": "(About {name}:) "}
NAMES_JOINED = {"zh": "、", "en": ", "}
WHICH_METRIC = {
    "zh": "请问要计算哪个指标？请在问题中写明指标（例如营业收入）。",
    "en": "Which metric should be computed? Please name it in the question (e.g. revenue).",
}


def printed_note(fact: FactRecord, language: str) -> str:
    """` · printed (1,577)` in a fact's source: the figure as the report printed it, when the
    metric's sign convention stored another value (the amount of an outflow); "" otherwise."""
    if fact.printed_value is None or not printed_differs(fact.value, fact.printed_value):
        return ""
    shown = printed_display(fact.printed_value)
    return f" · printed {shown}" if language == "en" else f" · 原表列示 {shown}"


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


def is_en(language: str) -> bool:
    return language == "en"


# Keyed by the question's voice (`core.routes.narrative.wording.voice_of`): Simplified, Traditional,
# Cantonese or English. None states a figure.
NARRATIVE_NOT_COVERED = {
    "zh": "现有文档没有涉及这个问题，无法据此作答。",
    "zh-Hant": "現有文件沒有涉及這個問題，無法據此作答。",
    "yue": "現有文件冇講到呢個問題，所以答唔到。",
    "en": "The documents on file do not cover this question, so it cannot be answered from them.",
}
DESK_GREETING = {
    "zh": "你好！我可以查询已收录的财务指标，也可以依据已收录的文档回答经营方面的问题，并注明出处。",
    "zh-Hant": "你好！我可以查詢已收錄的財務指標，也可以依據已收錄的文件回答經營方面的問題，並註明出處。",
    "yue": "你好！我可以幫你查已收錄嘅財務指標，亦可以根據已收錄嘅文件答經營方面嘅問題，仲會註明出處。",
    "en": "Hello! I can look up the financial figures on file and answer questions about the business from "
    "the documents on file, citing them.",
}
# The line before Chinese quotes answering an English question.
QUOTES_IN_CHINESE = {"en": "The documents (in Chinese) say:"}
