"""The grammar of a figure stated for a term (`figure_sentences`): in one clause of one
sentence, the term's head, only linking words, then a figure with a unit (or the figure, `的`,
the head), the term's other words before the head; and the entity and period asked, when named."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.model.period import Period
from core.ports import RetrievedChunk
from core.routes.narrative.figures.term import CJK, FigureAsk

_NUMBER = r"[-+−]?\d[\d,]*(?:\.\d+)?"
_CN_NUMBER = r"[零〇一二两三四五六七八九十百千万亿]+(?:点[零〇一二三四五六七八九]+)?"
_UNIT = (
    r"(?:%|‰|个百分点|百分点|个基点|基点|pct|pp|bps|倍|成"
    r"|(?:万亿|千亿|百亿|十亿|亿|千万|百万|十万|万|千)?(?:元|美元|港元|港币|人民币|欧元|日元|英镑)"
    r"|(?:万亿|亿|千万|百万|十万|万|千)?(?:家|人次|人|个|次|件|单|台|笔|户|名|间|座|项|平方米|吨|小时|天)"
    r"|万亿|亿|万|\s?(?:percent|per cent|percentage points?|points?|times|basis points|million|billion|"
    r"thousand|bn|mn|[mk])\b)"
)
_CURRENCY = r"(?:us\$|hk\$|rmb\s?|\$|¥|人民币|港币)?"
FIGURE = re.compile(
    rf"{_CURRENCY}{_NUMBER}\s?{_UNIT}|百分之{_CN_NUMBER}|{_CN_NUMBER}(?:成|倍|个百分点)|一半|过半|{_CN_NUMBER}分之{_CN_NUMBER}"
)
_LINK_ZH = (
    "同比|环比|按年|按季|较上年|较去年|较上季|全年|当季|单季|整体|平均|大约|约为|约|近|逾|超过|超|仅为|仅|已|亦|仍|进一步|继续"
    "|小幅|大幅|明显|显著|分别为|达到|达成|达|为|是|录得|维持在|保持在|升至|上升至|上升|降至|下降至|下降|下滑至|下滑|回落至"
    "|回落|提升至|提升|提高至|提高|增至|增长至|增长|增加至|增加|减少至|减少|降低至|降低|上涨至|上涨|下跌至|下跌|涨|跌|升|降|增|减"
    "|至|到|了|在|的|之"
)
_LINK_EN = (
    r"was|is|were|are|stood|came in|reached|rose|fell|grew|increased|decreased|declined|dropped|climbed|improved"
    r"|to|by|of|at|about|around|approximately|roughly|nearly|almost|over|up|down|an?|the|estimated|some|,"
)
_AFTER_ZH = re.compile(rf"(?:{_LINK_ZH}){{0,6}}(?:{FIGURE.pattern})")
_AFTER_EN = re.compile(rf"(?:\s?(?:{_LINK_EN})(?![a-z]))*\s?(?:{FIGURE.pattern})")
_BEFORE = re.compile(rf"(?:{FIGURE.pattern})\s?(?:的|of\s(?:the\s)?)?$")
_CLAUSE = re.compile(r"[，；;：:、]|,(?!\d{3})|\n")
# A sentence ends at its closing marks, a full stop before a space (`6.7` stays whole) or a line end.
_SENTENCE = re.compile(r"[^。！？!?；;\n]+?(?:[。！？!?；;]+|\.(?=\s|$)|(?=\n)|$)")


@dataclass(frozen=True)
class FigureSentence:
    text: str
    chunk: RetrievedChunk
    score: float


def figure_sentences(ask: FigureAsk, chunks: list[RetrievedChunk], glossary: GlossarySnapshot) -> list[FigureSentence]:
    """The sentences of `chunks` that state a figure for the term (and the entity and period
    asked), best first: the passage's rank, the period and the entity said in the sentence."""
    found: list[FigureSentence] = []
    seen: set[str] = set()
    for rank, chunk in enumerate(chunks):
        doc_marks = _period_marks(text_normalize(chunk.doc))
        for raw in _SENTENCE.findall(chunk.text):
            sentence = text_normalize(raw.strip())
            key = compact_view(sentence)[0]
            if key in seen or len(sentence) < 4:
                continue
            stated_at = _stated(ask, sentence)
            if stated_at is None:
                continue
            period = _period_fit(ask.period, _period_marks(sentence[:stated_at], comparisons=True), doc_marks)
            about = _entity_fit(ask.entities, sentence, chunk, glossary)
            if period is None or about is None:
                continue
            seen.add(key)
            found.append(FigureSentence(raw.strip(), chunk, 10.0 - rank + 2 * period + about))
    return sorted(found, key=lambda f: -f.score)


def _stated(ask: FigureAsk, sentence: str) -> int | None:
    """Where the figure stated for the term ends in `sentence`, or None."""
    cjk = CJK.search(sentence) is not None
    if cjk and ask.words:
        return _stated_in(sentence, ask.words, _AFTER_ZH, joiner="", ordered=ask.ordered)
    if not cjk and ask.english:
        return _stated_in(sentence, tuple((w,) for w in ask.english), _AFTER_EN, joiner=" ", ordered=True)
    return None


def _stated_in(
    sentence: str, words: tuple[tuple[str, ...], ...], after: re.Pattern[str], joiner: str, *, ordered: bool
) -> int | None:
    *modifiers, head = words
    offset = 0
    for clause in _CLAUSE.split(sentence):
        for form in head:
            for m in re.finditer(_bounded(form, joiner), clause):
                start = _in_order(clause[: m.start()], modifiers, joiner, ordered=ordered)
                if start is None:
                    continue
                following = after.match(clause, m.end())
                if following is not None:
                    return offset + following.end()
                if _BEFORE.search(clause[: min(start, m.start())].rstrip()):  # `12.5%的员工流失率`
                    return offset + m.end()
        offset += len(clause) + 1
    return None


def _bounded(form: str, joiner: str) -> str:
    return rf"(?<![a-z]){re.escape(form)}(?![a-z])" if joiner else re.escape(form)


def _in_order(text: str, modifiers: list[tuple[str, ...]], joiner: str, *, ordered: bool = True) -> int | None:
    """Where the first of the term's other words starts when all stand in `text` (in order, when
    `ordered`), its end when there are none, else None."""
    at, first = 0, len(text)
    for word in modifiers:
        hits = [m for form in word if (m := re.compile(_bounded(form, joiner)).search(text, at))]
        if not hits:
            return None
        nearest = min(hits, key=lambda h: h.start())
        first = min(first, nearest.start())
        at = nearest.end() if ordered else 0
    return first


# -- the entity and the period asked ----------------------------------------------------------

Mark = tuple[int | None, str, int]  # (year or None, "Y" | "Q" | "H", index)
_QUARTER = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_MARKS = re.compile(
    r"(?P<cmp>较|比|相比|对比|vs\.?\s?|than\s|from\s)?"
    r"(?:(?:fy\s?)?(?<!\d)(?P<year>(?:19|20)\d{2})(?!\d)\s?(?:年度?|财年)?\s?)?"
    r"(?:第?(?P<q>[一二三四1-4])季度|q(?P<q2>[1-4])(?!\d)|(?P<h>上半年|下半年|h1|h2)(?![0-9]))?"
)


def _period_marks(text: str, *, comparisons: bool = False) -> list[Mark]:
    """Periods a text names: `(year or None, "Y" | "Q" | "H", index)`; a base of comparison
    (`较第三季度`) names none."""
    marks: list[Mark] = []
    for m in _MARKS.finditer(text):
        year = int(m.group("year")) if m.group("year") else None
        quarter = m.group("q") or m.group("q2")
        half = m.group("h")
        if (year is None and not quarter and not half) or (comparisons and m.group("cmp")):
            continue
        if quarter:
            marks.append((year, "Q", _QUARTER[quarter]))
        elif half:
            marks.append((year, "H", 1 if half in ("上半年", "h1") else 2))
        else:
            marks.append((year, "Y", 0))
    return marks


def _period_fit(asked: Period | None, said: list[Mark], doc: list[Mark]) -> int | None:
    """1 when the sentence or its document names the period asked, 0 when neither names a period,
    None when one names another."""
    if asked is None:
        return 0
    kind = {"QUARTER": "Q", "HY": "H"}.get(asked.period_type, "Y")
    index = int(asked.period[-1]) if kind != "Y" else 0
    fits = 0
    for year, mark, number in [*said, *doc]:
        if (year is not None and year != asked.year) or (mark != "Y" and (mark, number) != (kind, index)):
            return None
        fits = 1
    return fits


def _entity_fit(asked: tuple[str, ...], sentence: str, chunk: RetrievedChunk, glossary: GlossarySnapshot) -> int | None:
    """1 when the sentence names an entity asked, 0 when it names none and its passage is not about
    another, None when it is about another entity only."""
    if not asked:
        return 0
    named = _entities_named(sentence, glossary)
    if named & set(asked):
        return 1
    if named:
        return None
    around = _entities_named(text_normalize(f"{chunk.doc} {chunk.text}"), glossary) | (
        {chunk.issuer} if chunk.issuer else set()
    )
    return 0 if not around or around & set(asked) else None


def _entities_named(text: str, glossary: GlossarySnapshot) -> set[str]:
    return {m.code for m in glossary.match(text) if m.kind == "entity" and not m.external}
