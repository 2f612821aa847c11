"""Whether a follow-up brings a topic of its own, and so inherits nothing.

Takes the question's parsed intent and the glossary; blanks its glossary terms, its periods (and
a stretch before the previous ones), the bare head noun of the home entity, and its own words:
a bare "why" and which way a figure moved, particles and question words, and the words of the
decimals, the list or the operation the parser read from it. What is left, or a term the parser
left unread that stands outside those words, is a topic; so is a document cue, a metric-like
term the glossary does not know and a competitor.
"""

from __future__ import annotations

import re
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.periods import period_shifts, periods_find
from core.model.intent import ParsedIntent
from core.parse.intent import DOCUMENT_CUES, NUMERIC_CUES
from core.parse.intent.home import home_head_spans

# Words that ask about the previous answer without naming a subject of their own: a why, what
# caused it, and which way it moved (`Why did it fall?`, `它为什么跌了`).
BARE_ASK = re.compile(
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
_LEFTOVER = re.compile(r"[^\s\d?？!！。.,，、:：;；()（）\"'“”‘’\-/~～…]")


def has_own_topic(intent: ParsedIntent, glossary: GlossarySnapshot) -> bool:
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
    return _FILLER.sub(_blank, BARE_ASK.sub(_blank, text))
