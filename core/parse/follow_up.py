"""Follow-ups in a conversation.

`follow_up_apply(intent, previous, glossary)` takes the question's own parsed intent and the
conversation's previous answered intent; it returns the intent to answer and a note in the
analyst's words saying what was inherited (None when nothing was).

The invariant: a follow-up inherits only when it brings no topic of its own. A topic is a
document cue, a metric-like term the glossary does not know, a competitor, or any word that is
not a glossary term, a period or one of the follow-up's own filler words (`那`, `呢`,
`what about`, …); a narrative cue that names a subject (`监管`, `政策`) is such a word. So a
narrative, FAQ or document question is never turned into a structured one. Otherwise:

- with no metric of its own (`那香港呢？`, `去年呢`, `线上呢`, `what about Hong Kong?`) it takes
  the previous metric(s) and operation, keeps every slot it names, takes the previous value of
  each slot it leaves out, and routes `structured`; after a question in parts (`毛利率是多少？营收
  同比增速呢？`) each part is asked again with the slots the follow-up names;
- with a metric of its own (`那净利润呢`) it keeps that metric and takes the left-out entity,
  period and channel; the previous operation too when it applied to one metric (growth, rank…);
- a stretch just before the previous periods (`那前三年呢`, `那之前三年呢`, `what about the three
  years before?`) replaces them with that many years (or quarters) just before the earliest of
  them, listed as they were (`periods_before`): after FY2022–FY2025, FY2019–FY2021;
- a bare "why" (`那为什么呢？`, `why?`, and with only a pronoun, an auxiliary or a word of
  movement besides: `Why did it fall?`, `它为什么跌了`, `为什么会这样`) asks about the previous
  answer: it keeps its narrative (or composite) route, with no operation, and carries the
  previous slots so that retrieval has a topic (`follow_up_topic`); it never repeats the number
  as a structured answer.

Django-free and deterministic.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.periods import period_shifts, periods_before, periods_find
from core.model.types import (
    OP_AVERAGE,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    ROUTE_COMPOSITE,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    Operation,
    ParsedIntent,
    Part,
    Period,
    Routing,
)
from core.parse.intent import DOCUMENT_CUES, NUMERIC_CUES, asks_why_change
from core.parse.intent.home import home_head_spans

# Words that ask about the previous answer without naming a subject of their own: a why, what
# caused it, and which way it moved (`Why did it fall?`, `它为什么跌了`).
_BARE_ASK = re.compile(
    r"为什么|为何|点解|什么原因|原因|归因|怎么看|如何看|怎么样|怎样|咋样|怎么回事|如何|导致|造成"
    r"|下降|上升|下滑|回落|增长|增加|减少|提升|跌|涨|升|趋势|驱动因素|驱动"
    r"|(?<![a-z])(?:why|how come|reasons?|drivers?|driven|drove|caus\w*|explain\w*"
    r"|declin\w*|fall\w*|fell|drop(?:s|ped)?|decreas\w*|go(?:es|ne|ing)? down|went down|ris(?:e|es|ing)|rose"
    r"|trends?)(?![a-z])"
)
# What a follow-up says besides its slots: particles, question words and connectives.
_FILLER = re.compile(
    r"咁|噉|又点|嘅|系|几多|睇下|睇睇|啦|喎|咧|咗|"  # Cantonese: 咁第四季呢 (so, Q4?), 香港又点 (and Hong Kong?)
    r"那么|那|还有|再看看|再看|看看|看一下|看下|换成|换到|如果是|如果|同样|同期|对应|相应|分别|请问|请|帮我|查询|查一下|查|一下|"
    r"告诉我|是多少|多少|是什么|什么|是|的|了|吗|呢|呀|啊|吧|也|又|和|与|及|以及|跟|情况|数据|数字|数值|几"
    r"|它们|它|其|按照|按|相比|比较|对比|比"  # the previous subject (它的毛利率), by (按营业利润), compare (和X比)
    r"|会|这样|这么|如此"  # 为什么会这样
    r"|(?<![a-z])(?:what about|how about|what is|what was|what's|what were|how much|how many|and|then|for|in|of|the"
    r"|about|what|so|same|also|too|please|show me|tell me|it|its|that|this|instead|as well|they|them|their|by"
    r"|compared (?:with|to)|vs|versus"
    r"|did|does|do|is|are|was|were|be|been|has|have|had|go|goes|went)(?![a-z])"  # Why did it fall? Why is that?
)
# How a question asks for decimals (`保留1位小数`, `用两位小数`, `2 decimal places`); they count as
# its own words only when the parser read the decimals from it.
_N = r"\d+|[一二两三四五六七八九十零]+|zero|one|two|three|four|five|six|seven|eight|nine|ten"
_DECIMALS_WORDS = re.compile(
    rf"(?:保留|精确到|取|用)?(?:到)?(?:小数点后)?\s*(?:{_N})\s*位(?:小数)?|保留整数|取整"
    rf"|(?<![a-z])(?:(?:to|with|in|use|at)\s+)?(?:{_N})\s*(?:decimal places?|decimals?|dp)(?![a-z])"
    r"|(?<![a-z])(?:rounded |round )?to (?:the nearest )?(?:integer|whole number)(?![a-z])"
)
# How a question asks for every channel or region (`分渠道看呢`, `by region`); they count as its
# own words only when the parser read a list of channels or entities from it.
_LIST_WORDS = re.compile(
    r"(?:各个?|每一?个|分|按)(?:销售)?(?:渠道|子公司|分公司|地区|区域|市场|板块|分部)|看"
    r"|(?<![a-z])(?:each|every|by|per|across(?: all)?(?: the)?)\s+(?:channels?|regions?|markets?|segments?)(?![a-z])"
)
# Words that ask for a computation; they count as the operation's, not a topic, only when the
# parser read an operation from the question.
_OPERATION_WORDS = re.compile(
    r"同比|环比|复合增长率|增长率|增速|增幅|增长了?|增加了?|减少了?|变化了?|变动|较上年|较去年|较上期|个百分点|百分点|占比|比重|比例"
    r"|之比|占|合计|总和|一共|总共|总计|最高|最低|排名|排行|前\s*\d+\s*名?|前[一二三四五六七八九十]+名?|哪个|各|保留\s*\d+\s*位小数"
    r"|(?<![a-z])(?:yoy|qoq|cagr|growth|grew|grow|change|share|ratio|total|sum|ranking|rank|highest|lowest|top\s*\d*"
    r"|percentage points?|pp|which|\d+\s*decimal places?)(?![a-z])"
)
# Words saying the figure moved (`它为什么跌了`, `Why did it go down?`): a bare why with one is
# asked of the figure's change, which is answered with its parts first.
_MOVED = re.compile(
    r"下降|上升|下滑|下跌|上涨|跌|涨|增长|减少|增加|提升|回落"
    r"|(?<![a-z])(?:declin\w*|fall\w*|fell|drop\w*|decreas\w*|increas\w*|grow\w*|grew|ris(?:e|es|ing)|rose"
    r"|(?:go|goes|went|gone) (?:down|up))(?![a-z])"
)
_LEFTOVER = re.compile(r"[^\s\d?？!！。.,，、:：;；()（）\"'“”‘’\-/~～…]")

# The operations that apply to one metric: a follow-up naming another metric keeps them.
_PER_METRIC = (OP_GROWTH, OP_CAGR, OP_DIFFERENCE, OP_RANK, OP_SUM, OP_AVERAGE, OP_SHARE)

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
_REASON_PREFIX = {"zh": "沿用上一问：", "en": "from the previous question: "}
# How a question says it continues the previous one; a question with a metric of its own
# inherits the other slots only with such a marker (`那净利润呢`, not `净利润是多少`).
_FOLLOW_UP_MARKER = re.compile(
    r"(?:呢|怎么样|如何)[\s?？。!！]*$|^(?:那么|那|咁|噉|还有|再看看?|换成|如果是)"
    r"|^(?:what about|how about|and|then|same for)(?![a-z])|\bthen[\s?!.]*$"
)


def follow_up_apply(
    intent: ParsedIntent, previous: ParsedIntent, glossary: GlossarySnapshot
) -> tuple[ParsedIntent, str | None]:
    previous_metrics = _metrics_of(previous)
    if not previous_metrics or _has_own_topic(intent, glossary):
        return intent, None
    normalized = intent.normalized or text_normalize(intent.raw_question)
    # `为什么增长？` reads a growth from its word of movement: still a bare why of the figure
    why_moved = intent.operation is not None and intent.operation.kind == OP_GROWTH and asks_why_change(normalized)
    bare_ask = (intent.operation is None or why_moved) and bool(_BARE_ASK.search(normalized))
    own_metrics = _metrics_of(intent)
    if own_metrics and not _FOLLOW_UP_MARKER.search(normalized.strip()):
        return intent, None  # a question of its own (`营收是多少`): its own assumptions apply
    decimals = intent.decimals
    own_periods = intent.periods or ((intent.period,) if intent.period else ())
    shift = next(iter(period_shifts(normalized, date.today())), None) if not own_periods else None
    continued = own_metrics or bare_ask or intent.has_slot or intent.operation is not None or decimals is not None
    if not continued and shift is None:
        return intent, None  # says nothing that could be continued (`呢？`, `好的`)

    changes: dict[str, Any] = {}
    inherited: dict[str, tuple[str, ...]] = {}
    if not own_metrics:
        changes.update(metric=previous_metrics[0], metrics=previous_metrics)
        inherited["metric"] = previous_metrics
    if not (intent.entity or intent.entities):
        entities = previous.entities or ((previous.entity,) if previous.entity else ())
        if entities:
            changes.update(entity=entities[0], entities=entities)
            inherited["entity"] = entities
    if not own_periods:
        periods = previous.periods or ((previous.period,) if previous.period else ())
        if periods and shift is not None:
            start, end, count, unit = shift
            before = periods_before(periods, count, unit)
            changes.update(period=before[0], periods=before, periods_read=(*intent.periods_read, (start, end)))
            earliest = min(periods, key=lambda p: p.sort_key).label
            inherited["period"] = _shifted_labels(before, earliest, count, unit, intent.language)
            own_periods = before
        elif periods:
            changes.update(period=periods[0], periods=periods)
            inherited["period"] = tuple(p.label for p in periods)
    if not intent.channel_given and previous.channel_given:
        channels = previous.channels or (previous.channel,)
        changes.update(channel=channels[0], channels=channels, channel_given=True)
        inherited["channel"] = channels
    operation = previous.operation
    if (
        operation is not None
        and intent.operation is None
        and not bare_ask
        and (not own_metrics or (len(previous_metrics) == 1 and operation.kind in _PER_METRIC))
    ):
        changes["operation"] = operation if decimals is None else replace(operation, decimals=decimals)
        inherited["operation"] = (_operation_name(operation, intent.language),)
    if previous.parts and not own_metrics and intent.operation is None and not bare_ask:
        changes["parts"] = _parts_again(previous.parts, replace(intent, periods=own_periods), decimals)
        changes["operation"] = next((p.operation for p in changes["parts"] if p.operation is not None), None)
    if not inherited:
        return intent, None

    language = "en" if intent.language == "en" else "zh"
    what = _inherited_text(inherited, glossary, language)
    if not own_metrics:
        # a bare why of one figure is answered with its change and parts first (`why_answer`)
        # (`为什么下降了？`, or a why after a growth); a bare `那为什么呢？` after a level stays narrative
        moved = _MOVED.search(normalized) is not None or (
            previous.operation is not None and previous.operation.kind in (OP_GROWTH, OP_DIFFERENCE)
        )
        why_of_figure = bare_ask and len(previous_metrics) == 1 and moved and asks_why_change(normalized)
        changes["route"] = ROUTE_COMPOSITE if why_of_figure else ROUTE_NARRATIVE if bare_ask else ROUTE_STRUCTURED
    reason = f"{_REASON_PREFIX[language]}{what}"
    if own_metrics and intent.routing.reason:
        reason = f"{intent.routing.reason} · {reason}"
    changes["routing"] = Routing(intent.routing.mode, intent.routing.confidence, reason)
    changes["unrecognized_terms"] = ()
    return replace(intent, **changes), f"{NOTE_PREFIX[language]}{what}"


def _shifted_labels(
    periods: tuple[Period, ...], earliest: str, count: int, unit: str, language: str
) -> tuple[str, ...]:
    """The periods a stretch before the previous ones reads as, the last saying what it is before:
    `FY2019、FY2020、FY2021（FY2022 之前 3 年）` / `… (the 3 years before FY2022)`."""
    labels = [p.label for p in periods]
    if language == "en":
        labels[-1] += f" (the {count} {unit}{'s' if count > 1 else ''} before {earliest})"
    else:
        labels[-1] += f"（{earliest} 之前 {count} {'年' if unit == 'year' else '个季度'}）"
    return tuple(labels)


def _parts_again(parts: tuple[Part, ...], intent: ParsedIntent, decimals: int | None) -> tuple[Part, ...]:
    """The previous question's parts, each asked again with the slots the follow-up names (a
    part that ran across the subsidiaries keeps running across them)."""
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    channels = intent.channels if intent.channel_given else ()
    again = []
    for part in parts:
        across = part.operation is not None and part.operation.over == "entities"
        operation = part.operation
        if operation is not None and decimals is not None:
            operation = replace(operation, decimals=decimals)
        again.append(
            replace(
                part,
                operation=operation,
                entities=part.entities if across or not entities else entities,
                periods=periods or part.periods,
                channels=channels or part.channels,
                decimals=decimals if decimals is not None else part.decimals,
            )
        )
    return tuple(again)


def follow_up_topic(intent: ParsedIntent, glossary: GlossarySnapshot) -> str:
    """The question with the slots it carries spelled out, for retrieval: `那为什么呢？` after a
    revenue figure searches for `ACME集团 FY2025 营业收入 那为什么呢？`.

    The slots are spelled by their glossary names, the catalogue's own wording, in whatever
    language the question is: the documents share it, and an English follow-up (`Why did it
    fall?`) has no word of its own that would meet them."""
    words = [_catalogue_name(glossary, "entity", code) for code in intent.entities or (intent.entity or "",) if code]
    words += [p.label for p in intent.periods or ((intent.period,) if intent.period else ())]
    words += [_catalogue_name(glossary, "metric", code) for code in _metrics_of(intent)]
    if intent.channel_given:
        words += [_catalogue_name(glossary, "channel", code) for code in intent.channels or (intent.channel,)]
    return " ".join([*words, intent.raw_question])


def _catalogue_name(glossary: GlossarySnapshot, kind: str, code: str) -> str:
    records = {"entity": glossary.entities, "metric": glossary.metrics, "channel": glossary.channels}[kind]
    info = records.get(code)
    return info.name if info is not None else code


def _metrics_of(intent: ParsedIntent) -> tuple[str, ...]:
    return intent.metrics or ((intent.metric,) if intent.metric else ())


def _has_own_topic(intent: ParsedIntent, glossary: GlossarySnapshot) -> bool:
    """Whether the question names something besides slots, an operation and a bare "why"."""
    if intent.unknown_metric or intent.external_entity:
        return True
    normalized = intent.normalized or text_normalize(intent.raw_question)
    if DOCUMENT_CUES.search(normalized):
        return True
    chars = list(normalized)
    _, positions = compact_view(normalized)
    spans = [(positions[m.start], positions[m.end - 1] + 1) for m in glossary.match(normalized)]
    spans += [(start, end) for start, end, _ in periods_find(normalized, date.today())]
    shifted = [(start, end) for start, end, _, _ in period_shifts(normalized, date.today())]
    spans += shifted
    spans += home_head_spans(intent.raw_question, normalized, glossary, spans)  # `What about the group?`
    shifts = [normalized[start:end] for start, end in shifted]
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    rest = _words_removed("".join(chars), intent)
    if _LEFTOVER.search(rest):
        return True
    # the parser lists a stretch before the previous periods as unread words (`之前两个季度` → 季度)
    terms = [t for t in map(text_normalize, intent.unrecognized_terms) if not any(t in words for words in shifts)]
    said = _words_removed(normalized, intent)
    return any(_term_stands(term, normalized, said, intent) for term in terms)


def _term_stands(term: str, normalized: str, said: str, intent: ParsedIntent) -> bool:
    """Whether a word the parser left unread is a topic: not when it is only ever part of the
    follow-up's own words where it stands (the `how` of `How about Q2?`, the `and` of `and for`)."""
    at = [m.start() for m in re.finditer(re.escape(term), normalized)] if term else []
    if at and all(not said[i : i + len(term)].strip() for i in at):
        return False
    return _LEFTOVER.search(_words_removed(term, intent)) is not None


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _words_removed(text: str, intent: ParsedIntent) -> str:
    """`text` with the follow-up's own words blanked, each character where it stood."""
    operation = intent.operation
    if intent.decimals is not None:
        text = _DECIMALS_WORDS.sub(_blank, text)
    if len(intent.channels) > 1 or len(intent.entities) > 1:
        text = _LIST_WORDS.sub(_blank, text)
    text = NUMERIC_CUES.sub(_blank, text)
    if operation is not None:
        if operation.cue:
            cue = text_normalize(operation.cue)
            text = text.replace(cue, " " * len(cue))
        text = _OPERATION_WORDS.sub(_blank, text)
    return _FILLER.sub(_blank, _BARE_ASK.sub(_blank, text))


def _operation_name(operation: Operation, language: str) -> str:
    names = _OPERATION_NAMES["en" if language == "en" else "zh"]
    if operation.kind == OP_GROWTH and operation.comparison == "qoq":
        return names["qoq"]
    return names.get(operation.kind, operation.kind)


def _inherited_text(inherited: dict[str, tuple[str, ...]], glossary: GlossarySnapshot, language: str) -> str:
    """`指标 营业收入，期间 FY2025` / `metric Revenue; period FY2025`."""
    names = _SLOT_NAMES[language]
    parts = []
    for slot, values in inherited.items():
        shown = [glossary.display(slot, v, language) if slot in ("metric", "entity", "channel") else v for v in values]
        parts.append(f"{names[slot]} {('、' if language == 'zh' else ', ').join(shown)}")
    return ("，" if language == "zh" else "; ").join(parts)
