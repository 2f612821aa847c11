"""The lines and words of retrieved passages: which periods a text names, which line is a bare
title, and what wording a sentence shares with the question.

- **Bare title lines** (`title_line`): a line with no closing sentence mark, and no clause and
  no figure outside brackets once a section number is taken off, is a heading wherever it
  stands when it is short (`会员运营成效`, `Risk Factors`), starts with a section number
  (`(一) 主营业务分析`, `三、核心竞争力分析`, `第二节 …`, `1. Business`, `Item 1A. …`) or is a
  caption ending in a unit in brackets (`ACME东南亚 主要财务数据（人民币百万元）`, `(In millions)`);
  and also when it is its section's or document's name, the line that opens its passage (a
  slide's title reads first) when a little longer, or a nameplate (once glossary names,
  periods, figures and bracketed words are taken out, next to nothing is left, as in
  `HK QBR 2025Q4`).
- **Shared wording** (`terms_of`, `terms_overlap`): glossary names as their concepts, so any
  alias in any language the glossary bridges meets any other, plus the words left; never a
  period or a figure.
- **Periods** (`period_spans`, `periods_named`): only absolute periods, those read the same
  whatever the reference date; `periods_overlap` tells a quarter in its half or year, and back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache

from core.glossary import GlossarySnapshot
from core.language.normalize import chinese_simplify, compact_view, text_normalize
from core.language.periods import periods_find
from core.language.quantities import claims_find, prose_normalize
from core.model.period import Period

# Absolute periods do not depend on the reference date, and a document's relative ones (去年)
# cannot be placed without its own date; this reference places them where nothing is asked.
_NO_REFERENCE = date(1900, 1, 1)
_OTHER_REFERENCE = date(1950, 7, 1)
_CLOSED = re.compile(r"[。！？!?；;.]\s*$")
_CLAUSE = re.compile(r"[，,：:；;]")
_BRACKETED = re.compile(r"[（(【\[][^）)】\]]*[）)】\]]")
_ENUMERATION = re.compile(r"^(?:[一二三四五六七八九十]+|\d{1,2})[、.．)）]\s*")
_SEPARATORS = re.compile(r"[\s_\-—–·•|/:：]+")
# A section number opening a heading: (一) （二） 三、 第二节 1. 1.2 Item 1A. Part II Note 3
_SECTION_NUMBER = re.compile(
    r"^(?:[(（]\s*(?:[一二三四五六七八九十]{1,3}|\d{1,2})\s*[)）]\s*"
    r"|[一二三四五六七八九十]{1,3}\s*[、.．]\s*"
    r"|第[一二三四五六七八九十百\d]{1,3}[节章部条篇]\s*"
    r"|\d{1,2}(?:\.\d{1,2})*\s*[、.．)）]?\s+"
    r"|\d{1,2}[、．]\s*"
    r"|(?:item|part|note|section)\s+(?:\d{1,2}[a-z]?|[ivx]{1,4})\s*[.:：]?\s*)"
)
# A caption's closing bracket that names a unit: （人民币百万元） (In millions) (单位：万元)
_CAPTION_UNIT = re.compile(
    r"[(（][^()（）]*(?:元|万|亿|千|百分|%|单位|unit|million|thousand|billion|dollar|usd|rmb|hkd|cny)"
    r"[^()（）]*[)）]$"
)
_CJK_CHARS = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_CJK = re.compile(_CJK_CHARS)
_ASCII_WORD = re.compile(r"[a-z]+")
_TERM_CJK_RUN = re.compile(_CJK_CHARS + "+")
_TERM_ASCII_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_TOPICS = ("metric:", "channel:")
# Words that ask what happened rather than name a topic; a question of only these, its entity and
# its period asks about that entity and period in general.
_EVENT_WORDS = re.compile(
    r"发生|情况|表现|怎样|动态|近况|进展|新闻|消息"
    r"|\b(?:happen(?:ed|ing|s)?|news|updates?|latest|recent(?:ly)?|going|doing|performance|perform(?:ed)?)\b"
)
_QUESTION_FORM = re.compile(
    r"为什么|为何|原因|归因|怎么看|如何看|怎么样|是什么|什么|哪些|哪个|如何|多少|有没有|是否|请问|最近|吗|呢|的|了|是|有"
    r"|\b(?:why|what|which|how|is|are|was|were|the|a|an|of|in|did|does|do"
    r"|to|for|and|or|on|at|by|with|from|its|it|this|that|has|have|had|be|been|as)\b"
)
_HEADING_CHARS = 24  # the longest line read as the heading that opens a passage
_SHORT_HEADING = 10  # the longest unpunctuated line read as a heading anywhere (an ASCII word counts 2)
_NAMEPLATE_LEFT = 4  # what a nameplate leaves once names and periods are out (an ASCII word counts 2)


# Pure, and asked of the same passages' sentences again and again.
@lru_cache(maxsize=8192)
def period_spans(normalized: str) -> tuple[tuple[int, int, Period], ...]:
    """The absolute periods normalised text names, as `(start, end, period)`: those read the same
    whatever the reference date (a relative one moves with it)."""
    moved = set(periods_find(normalized, _OTHER_REFERENCE))
    return tuple(span for span in periods_find(normalized, _NO_REFERENCE) if span in moved)


def periods_named(text: str) -> tuple[Period, ...]:
    return tuple(period for _, _, period in period_spans(text_normalize(text)))


def periods_overlap(first: Period, second: Period) -> bool:
    """Whether one period lies within the other (a quarter in its half or year, and back)."""
    if first.year != second.year:
        return False
    if "FY" in (first.period_type, second.period_type) or first == second:
        return True
    half, quarter = (first, second) if first.period_type == "HY" else (second, first)
    if half.period_type != "HY" or quarter.period_type != "QUARTER":
        return False
    return (int(quarter.period[-1]) <= 2) == half.period.endswith("H1")


def section_of(locator: str) -> str:
    """The section label a locator names (`section=二、香港业务,para=1` → `二、香港业务`)."""
    for part in locator.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "section":
            return value.strip()
    return ""


def _heading_key(text: str) -> str:
    stem = _ENUMERATION.sub("", text_normalize(text).strip())
    return _SEPARATORS.sub("", stem)


def title_line(line: str, *, opens_passage: bool, names: Iterable[str], glossary: GlossarySnapshot) -> bool:
    """Whether `line` is a bare title: see the module's docstring. `names` are the passage's
    section and document names."""
    normalized = text_normalize(line).strip()
    if not normalized or _CLOSED.search(normalized):
        return False
    stem = _SECTION_NUMBER.sub("", normalized, count=1)
    # A bracket holds a caption's unit (`（人民币百万元）`, `(in millions, except per share data)`),
    # which reads as a figure and may hold a comma.
    outside = _BRACKETED.sub(" ", stem)
    if _CLAUSE.search(outside):
        return False
    if _CAPTION_UNIT.search(normalized):
        return True  # a caption may name a span (`五年财务摘要`), which reads as a figure
    if claims_find(prose_normalize(outside)).quantities:
        return False
    if stem != normalized or _weight(outside) <= _SHORT_HEADING:
        return True
    key = _heading_key(normalized)
    if any(key and key == _heading_key(name) for name in names if name):
        return True
    if opens_passage and len(compact_view(normalized)[0]) <= _HEADING_CHARS:
        return True
    return _left_over(normalized, glossary) <= _NAMEPLATE_LEFT


def _weight(text: str) -> int:
    """A line's length as a heading's: a CJK character counts 1, an ASCII word 2."""
    return len(_CJK.findall(text)) + 2 * len(_ASCII_WORD.findall(text))


def _left_over(normalized: str, glossary: GlossarySnapshot) -> int:
    """How much of a line is neither a glossary name, a period, a figure nor in brackets."""
    kept = list(_BRACKETED.sub(" ", normalized))
    for start, end, _ in period_spans("".join(kept)):
        kept[start:end] = " " * (end - start)
    text = "".join(kept)
    _, positions = compact_view(text)
    blank = set()
    for match in glossary.match(text):
        blank.update(positions[match.start : match.end])
    rest = "".join(" " if i in blank else ch for i, ch in enumerate(text))
    return _weight(rest)


# -- what a sentence shares with the question ---------------------------------------------
def _concepts(normalized: str, glossary: GlossarySnapshot) -> tuple[set[str], str]:
    """The glossary concepts `normalized` names (`entity:ACME_HK`, `metric:REVENUE`), and the text
    left with those names and every period blanked out."""
    kept = list(normalized)
    for start, end, _ in period_spans(normalized):
        kept[start:end] = " " * (end - start)
    _, positions = compact_view(normalized)
    concepts = set()
    for match in glossary.match(normalized):
        concepts.add(f"{match.kind}:{match.code}")
        for index in positions[match.start : match.end]:
            kept[index] = " "
    return concepts, "".join(kept)


def _words(text: str) -> set[str]:
    """ASCII words and CJK character bigrams (a lone character as itself); never a figure."""
    words = {w for w in _TERM_ASCII_WORD.findall(text) if not any(ch.isdigit() for ch in w)}
    for run in _TERM_CJK_RUN.findall(text):
        words.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    return words


def terms_of(text: str, glossary: GlossarySnapshot, *, question: bool = False) -> frozenset[str]:
    """What the extractive selector compares: every glossary name as its concept (so any alias,
    in any language the glossary bridges, meets any other), and the words of what is left.

    Periods and figures are no terms: a passage is not an answer because it shares a year or a
    number with the question (the asked period ranks passages instead, see `attribution`).
    A question also loses its question words (为什么, why …).
    """
    concepts, rest = _concepts(text_normalize(text), glossary)
    if question:
        rest = _QUESTION_FORM.sub(" ", _EVENT_WORDS.sub(" ", rest))
    return frozenset(concepts | _words(rest))


def topic_of(wanted: frozenset[str]) -> frozenset[str]:
    """A question's terms beside the entities it names: what a passage must share to answer it."""
    return frozenset(term for term in wanted if not term.startswith("entity:"))


def terms_overlap(wanted: frozenset[str], terms: frozenset[str]) -> int:
    """Shared terms; a metric's or channel's name counts twice, like the two bigrams of a short
    Chinese name it stands for (the entity is what the tiers rank by, so it counts once)."""
    return sum(2 if term.startswith(_TOPICS) else 1 for term in wanted & terms)


# -- whether the passages speak to the question at all ------------------------------------
# Asking, pointing and politeness: how a request is put, not what it is about (Mandarin,
# Cantonese, English), and the generic nouns any question can carry.
_CHATTER = re.compile(
    r"帮我|帮忙|麻烦|谢谢|请|一下|给我|告诉我|我想知道|想知道|能否|能不能|可以|可不可以|你们|您|你|我们|我"
    r"|介绍|说明|讲讲|谈谈|概述|列出"
    r"|点解|点样|几多|咩|乜|嘅|咗|啦|喇|呀|啊|吧|嘛|吗|呢|对|关于|公司|项目"
    r"|\b(?:please|can|could|would|will|you|your|me|my|i|we|us|our|tell|let|s|get|about|company|project"
    r"|describe|explain|summari[sz]e|list|show|give)\b"
)
_SCRIPT_WORDS = 3  # words a passage holds in a script before it counts as written in it (not a stray acronym)
_CONCEPT_WEIGHT = {"metric": 2.0, "channel": 2.0}  # a name standing for a short Chinese word's two bigrams


def coverage_of(question: str, glossary: GlossarySnapshot, passages: Iterable[frozenset[str]]) -> float | None:
    """The share of the question's content that the passages' terms (`terms_of`) hold, from 0 to 1;
    None when the question has no content (only question words, chatter, periods or figures).

    The content is the question's topic (`topic_of`: the entities it names are what the tiers
    rank and label passages by, not what they must hold): its glossary concepts (a metric's or
    channel's counting 2, another's 1), its ASCII words (1 each) and its CJK characters (½ each, so a two-character word
    weighs like an English one). A word counts only when the passages are written in its script
    (they hold a few words of it): an English word cannot be held by a Chinese passage, whose
    bridge to it is the glossary. A character is held when a passage holds a bigram it is part of
    (a lone one, itself): a question's words are not cut into bigrams across their boundaries.
    """
    held = frozenset().union(*passages)
    concepts, rest = _concepts(text_normalize(question), glossary)
    rest = _CHATTER.sub(" ", _QUESTION_FORM.sub(" ", _EVENT_WORDS.sub(" ", rest)))
    total = covered = 0.0
    for concept in concepts - {c for c in concepts if c.startswith("entity:")}:
        weight = _CONCEPT_WEIGHT.get(concept.split(":", 1)[0], 1.0)
        total += weight
        covered += weight if concept in held else 0.0
    # Words are held only in their own script: across scripts the glossary's concepts bridge.
    ascii_held = sum(1 for term in held if _TERM_ASCII_WORD.fullmatch(term)) >= _SCRIPT_WORDS
    cjk_held = sum(1 for term in held if _CJK.search(term)) >= _SCRIPT_WORDS
    for word in _TERM_ASCII_WORD.findall(rest) if ascii_held else ():
        if not any(ch.isdigit() for ch in word):
            total += 1.0
            covered += 1.0 if word in held else 0.0
    for run in _TERM_CJK_RUN.findall(rest) if cjk_held else ():
        for index, char in enumerate(run):
            pairs = [run[i : i + 2] for i in (index - 1, index) if i >= 0 and i + 2 <= len(run)]
            total += 0.5
            covered += 0.5 if any(pair in held for pair in pairs or [char]) else 0.0
    return covered / total if total else None


# -- a greeting ----------------------------------------------------------------------------
# A greeting is greeting words, an optional addressee before or after them, and punctuation:
# nothing else (on normalised text, so Traditional and full-width forms read the same).
_GREETING_WORD = (
    r"(?:你好|您好|你们好|大家好|哈啰|哈喽|哈罗|嗨|喂|早晨|早安|早上好|上午好|中午好|午安|下午好|晚上好|晚安"
    r"|hello|hallo|hi|hey|hiya|howdy|greetings|yo|good\s+(?:morning|afternoon|evening|day)|morning|evening)"
)
_ADDRESSEE = (
    r"(?:大家|各位|你们|您|你|小助手|助手|机器人|老师|there|everyone|everybody|all|team|folks|bot|assistant|friend)"
)
_GREETING_MARKS = r"(?:呀|啊|啦|喔|哦|吖|呢)?[\s,，.。!！~～?？、]*"  # a closing particle, punctuation
_GREETING = re.compile(
    rf"^{_GREETING_MARKS}(?:{_ADDRESSEE}{_GREETING_MARKS})?(?:{_GREETING_WORD}{_GREETING_MARKS})+"
    rf"(?:{_ADDRESSEE}{_GREETING_MARKS})?$"
)


def greeting_is(question: str) -> bool:
    """Whether the question only greets (`你好`, `hello there!`, `哈囉`, `早晨`)."""
    return bool(_GREETING.match(text_normalize(question)))


# -- the voice a fixed message speaks in ---------------------------------------------------
# Characters only Cantonese writes (嘅 咗 唔 係 …): a question holding one is answered in Cantonese.
_CANTONESE = re.compile(r"[嘅咗唔係喺冇咩乜嘢啲哋嚟噉佢嗰搵睇嘞喇]|點解|點樣|幾多")


def voice_of(question: str, language: str) -> str:
    """`en`, `yue` (Cantonese), `zh-Hant` (Traditional) or `zh`: the key of a fixed message that
    says the same in the question's own written form."""
    if language == "en":
        return "en"
    if _CANTONESE.search(question):
        return "yue"
    return "zh-Hant" if chinese_simplify(question) != question else "zh"
