"""Route choice and its reason.

Takes what the parser found (slots, the operator reading, the route cues of the question);
returns the route with a confidence, and the reason in the analyst's words: names and the
question's own cue words (`依据：指标 营业收入 · 同比`, `Basis: metric revenue · YoY`), never a code.

An explicit why-cue keeps a metric question composite; words of movement (下降, 上升, decline)
are the direction of a computation when one is asked for, and narrative otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.glossary import GlossarySnapshot
from core.model.operation import Operation
from core.model.period import Period
from core.model.registry import ROUTE_COMPOSITE, ROUTE_FIND_DOCUMENTS, ROUTE_NARRATIVE, ROUTE_STRUCTURED
from core.parse.cues import OperatorReading
from core.parse.intent.terms import term_is_a_name

# A cue asking for an explanation: with a metric, the question is composite even when it also
# asks for a computation.
WHY_CUES = re.compile(
    r"为什么|为甚么|为啥|为何|点解|原因|归因|怎么看|如何看|怎么样|监管|政策|动态|进展|影响|评价|增长的?驱动|驱动因素"
    r"|(?<![a-z])(?:why|how come|reasons?|drivers?|driven|drove|drive|caus\w*|regulat\w*|impacts?|explain\w*)(?![a-z])"
)
# A why asked of a figure's movement (not of a policy or a trend): answered with the change and
# its parts (`core.routes.computed.why`) before any passage.
CHANGE_WHY_CUES = re.compile(
    r"为什么|为甚么|为啥|为何|点解|什么原因|原因|归因|驱动|导致|造成"
    r"|(?<![a-z])(?:why|how come|reasons?|drivers?|driven|drove|drive|caus\w*|explain\w*)(?![a-z])"
)
# Words of movement: narrative on their own, but the direction of a growth when one is asked for
# (同比下降了多少个百分点 is a number).
MOVEMENT_CUES = re.compile(
    r"(?:变化|发展|增长)?趋势|走势|下降|上升|下滑|下跌|上涨|跌|(?<![a-z])(?:trends?|declin\w*|fall\w*|fell|ris(?:e|es|ing)|rose)(?![a-z])"
)
NARRATIVE_CUES = re.compile(f"{WHY_CUES.pattern}|{MOVEMENT_CUES.pattern}")
NUMERIC_CUES = re.compile(
    r"多少|几|数值|数字|(?<![a-z])(?:what is|what was|what's|what were|what are|how much|how many)(?![a-z])"
)
DOCUMENT_CUES = re.compile(
    r"哪些文件|哪些文档|哪些资料|哪些报告|哪份|哪个文档|哪个文件|哪篇|在哪里提到|哪里提到|哪些材料"
    r"|(?<![a-z])(?:which (?:documents?|files?|reports?)|find (?:the )?(?:documents?|files?)"
    r"|where is .+ mentioned)(?![a-z])"
)


@dataclass(frozen=True)
class RouteCues:
    narrative: re.Match[str] | None
    why: re.Match[str] | None
    numeric: re.Match[str] | None
    document: re.Match[str] | None


# Words that ask for a quantity outright, whatever the noun.
HOW_MUCH_CUES = re.compile(
    r"多少|几|数值|数字|(?<![a-z])(?:how much|how many|how high|how low|what percentage|what share)(?![a-z])"
)


_ASKS_A_LIST = re.compile(r"(?<![a-z])(?:what are|what were|which are|which were)(?![a-z])")


def asks_for_a_list(normalized: str) -> bool:
    """Whether an English question asks for things, not a figure (`What are the main risk factors?`,
    `What were its business segments?`): a plural `what are` with no `how much` in it."""
    return _ASKS_A_LIST.search(normalized) is not None and HOW_MUCH_CUES.search(normalized) is None


def asks_why_change(normalized: str) -> bool:
    """Whether a question asks why a figure moved (`为什么下降`, `what drove`, `点解跌咗`)."""
    return CHANGE_WHY_CUES.search(normalized) is not None


def route_cues_find(normalized: str) -> RouteCues:
    return RouteCues(
        narrative=NARRATIVE_CUES.search(normalized),
        why=WHY_CUES.search(normalized),
        numeric=NUMERIC_CUES.search(normalized),
        document=DOCUMENT_CUES.search(normalized),
    )


def route_choose(
    metrics: list[str],
    entities: list[str],
    periods: list[Period],
    channels: list[str],
    reading: OperatorReading,
    unknown_metric: str | None,
    cues: RouteCues,
) -> tuple[str, float]:
    if cues.document and not cues.numeric:
        return ROUTE_FIND_DOCUMENTS, 1.0
    if metrics:
        movement_only = cues.narrative is not None and cues.why is None
        if cues.why or (movement_only and reading.operation is None):
            return ROUTE_COMPOSITE, 1.0
        return ROUTE_STRUCTURED, 1.0
    # a term like a metric (净利率) or a computation over a list (哪个地区…最高): a numbers question
    # whose metric the clarifier asks for
    asks_for_numbers = unknown_metric or (reading.operation is not None and reading.over)
    if asks_for_numbers and not cues.narrative:
        return ROUTE_STRUCTURED, 0.9
    if cues.numeric:
        return ROUTE_STRUCTURED, 0.9
    if cues.narrative:
        return ROUTE_NARRATIVE, 1.0
    if entities or periods or channels:
        return ROUTE_NARRATIVE, 0.7
    return ROUTE_NARRATIVE, 0.5


def operation_stands(route: str, cues: RouteCues) -> bool:
    """Whether the operation read stands: not on a document search, nor on a question a narrative
    cue made narrative. A narrative route without any cue keeps it (`那同比呢？` is a follow-up
    asking for a growth, for `follow_up_apply` to complete)."""
    if route == ROUTE_FIND_DOCUMENTS:
        return False
    return not (route == ROUTE_NARRATIVE and cues.narrative is not None)


def route_reason_write(
    route: str,
    metrics: list[str],
    operation: Operation | None,
    unknown_metric: str | None,
    cues: RouteCues,
    question: str,
    glossary: GlossarySnapshot,
    language: str,
    *,
    has_slots: bool,
) -> str:
    """Why the route was chosen, in the analyst's words: names, not codes."""
    en = language == "en"
    parts: list[str] = []
    if route == ROUTE_FIND_DOCUMENTS and cues.document:
        parts.append(_cue_text("document cue", "找文件线索", cues.document.group(0), question, en))
    elif metrics:
        names = [glossary.display("metric", code, language) for code in metrics]
        if en:
            parts.append(("metrics " if len(names) > 1 else "metric ") + ", ".join(names))
        else:
            parts.append("指标 " + "、".join(names))
    elif route == ROUTE_STRUCTURED and cues.numeric:
        parts.append(_cue_text("numeric cue", "数值线索", cues.numeric.group(0), question, en))
    elif cues.narrative and route == ROUTE_NARRATIVE:
        parts.append(_cue_text("narrative cue", "叙述线索", cues.narrative.group(0), question, en))
    if route in (ROUTE_STRUCTURED, ROUTE_COMPOSITE):
        if operation is not None and metrics:
            parts.append(_as_written(operation.cue, question))
        elif operation is not None:
            parts.append(_cue_text("operation", "运算", operation.cue, question, en))
        explained_by = cues.why or cues.narrative
        if route == ROUTE_COMPOSITE and explained_by is not None:
            parts.append(_cue_text("narrative cue", "归因线索", explained_by.group(0), question, en))
        if unknown_metric and term_is_a_name(unknown_metric, metrics, glossary):
            parts.append(f'unknown name "{unknown_metric}"' if en else f"未识别的名称「{unknown_metric}」")
        elif unknown_metric:
            parts.append(f'unknown metric "{unknown_metric}"' if en else f"未识别的指标「{unknown_metric}」")
    if not parts:
        if has_slots:
            parts.append("slots without a metric or cue" if en else "有实体或期间，无指标与线索")
        else:
            parts.append("no slot and no cue; narrative by default" if en else "无槽位与线索，默认按文档问答")
    return ("Basis: " if en else "依据：") + " · ".join(parts)


def _cue_text(label_en: str, label_zh: str, cue: str, question: str, en: bool) -> str:
    written = _as_written(cue, question)
    return f'{label_en} "{written}"' if en else f"{label_zh}「{written}」"


def _as_written(cue: str, question: str) -> str:
    """An ASCII cue in the question's own casing (`YoY`, not `yoy`)."""
    if not cue.isascii():
        return cue
    found = re.search(re.escape(cue), question, re.IGNORECASE)
    return found.group(0) if found else cue
