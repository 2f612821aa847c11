"""Why a candidate waits for review, read from its note: the kind of each reason (unknown label,
conflict, parent-company statement, scale, other) as a filter, and its words in the curator's
language. A note is the ingestion's reasons joined by `; `; a reason of no known form is shown
as written."""

from __future__ import annotations

import re

from django.db.models import Q
from django.utils.translation import get_language

PARENT_STATEMENT = "a parent-company statement"

# The phrases ingestion (`ingestion.tables`) and `facts_replace` write, per kind.
REASON_MARKERS: dict[str, tuple[str, ...]] = {
    "label": (
        "unknown row label",
        "empty row label",
        "the row label names no metric",
        "several metrics in one label",
        "which the glossary does not name with",
        "rows of this table: name each under its heading",
        "the glossary does not say which metric",
    ),
    "conflict": ("conflicts with", "conflicting values", "differs from the consolidated statement"),
    "parent": (PARENT_STATEMENT,),
    "scale": ("scale", "unit ", "printed in "),
}
REASON_KINDS = {
    "label": "未知行标签 · unknown label",
    "conflict": "数值冲突 · conflict",
    "parent": "母公司报表 · parent statement",
    "scale": "单位或数量级 · scale",
    "other": "其他 · other",
}

_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"^unknown row label '(.*)'$", r"术语表不认识行标签「\1」"),
        (r"^empty row label$", "行标签为空"),
        (r"^the row label names no metric$", "行标签未指明指标"),
        (r"^several metrics in one label$", "一个行标签含多个指标"),
        (
            r"^under the heading '(.*)', which the glossary does not name with '(.*)'$",
            r"标题「\1」下的「\2」：术语表未给出对应指标",
        ),
        (
            r"^'(.*)' heads (\d+) rows of this table: name each under its heading$",
            r"「\1」在本表中出现 \2 次：请按各自的标题命名",
        ),
        (
            r"^a total row: the glossary does not say which metric '(.*)' totals$",
            r"合计行：术语表未说明「\1」是哪个指标的合计",
        ),
        (
            r"^columns (.+) all hold (\S+): add their groups as channels or split the table$",
            r"列 \1 都是 \2 的数：请把各列组设为渠道，或拆分表格",
        ),
        (r"^conflicts with the approved value (.+?) from (.+)$", r"与已批准的数值 \1 不一致（来源：\2）"),
        (r"^conflicts with the approved value (.+)$", r"与已批准的数值 \1 不一致"),
        (r"^conflicts with an approved value from (.+)$", r"与已批准的数值不一致（来源：\1）"),
        (r"^conflicting values in document \((.+)\)$", r"同一文档中数值不一致（\1）"),
        (r"^conflicting values in document$", "同一文档中数值不一致"),
        (r"^differs from the consolidated statement's (.+) at (.+)$", r"与合并报表的 \1（\2）不一致"),
        (
            r"^a parent-company statement \((.+) of the parent alone\): never the group's figure$",
            r"母公司报表（\1，仅母公司）：不是合并数",
        ),
        (r"^no scale stated.*$", "未注明数量单位（行、列、表题及前一句均未注明）"),
        (r"^a scale of (.+) has no unit$", r"数量级 \1 没有对应单位"),
        (
            r"^the table states a scale of (.+) for every figure: is (.+) counted in it\?$",
            r"全表注明数量级 \1：\2 是否按此计量？",
        ),
        (r"^the row states a scale of (.+) for (.+), which is in (.+)$", r"该行注明数量级 \1，但 \2 以 \3 计"),
        (r"^unit (\S+) but (\S+) is in (\S+)$", r"单位为 \1，但 \2 以 \3 计"),
        (r"^printed in (\S+) but (\S+) is in (\S+)$", r"以 \1 列示，但 \2 以 \3 计"),
        (r"^the table excepts percentages: is '(.+)' one\?$", r"表中百分比除外：「\1」是百分比吗？"),
        (r"^an external entity$", "外部实体"),
        (r"^several entities in one label$", "一个标签含多个实体"),
        (r"^no entity in the title, sheet name or first cell$", "标题、工作表名和首格均未指明实体"),
        (r"^the same figure waits for review$", "同一数字待审核"),
    )
)


def reason_kind_q(kind: str) -> Q:
    """The notes of one reason kind, as a filter; `other`: a note of none of the known kinds."""
    if kind == "other":
        known = Q()
        for markers in REASON_MARKERS.values():
            for marker in markers:
                known |= Q(review_note__icontains=marker)
        return ~known
    condition = Q(pk__in=[])
    for marker in REASON_MARKERS.get(kind, ()):
        condition |= Q(review_note__icontains=marker)
    return condition


def reason_kinds(note: str) -> list[str]:
    """The kinds of the reasons in a note, in `REASON_KINDS` order."""
    lowered = note.lower()
    kinds = [kind for kind, markers in REASON_MARKERS.items() if any(m in lowered for m in markers)]
    return kinds or (["other"] if note else [])


def reason_shown(note: str, language: str | None = None) -> str:
    """The note in the curator's language: in Chinese (the default), each reason of a known form
    translated and the others as written; in English, the note as written."""
    if (language or get_language() or "zh").startswith("en"):
        return note
    return "；".join(_reason_zh(part.strip()) for part in note.split("; ") if part.strip())


def _reason_zh(reason: str) -> str:
    for pattern, words in _ZH:
        if pattern.match(reason):
            return pattern.sub(words, reason)
    return reason
