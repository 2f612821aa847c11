"""Figures stated in documents: a how-much question about a term no metric holds.

Takes the parsed intent of a question the clarifier would ask back for its metric (`退货率是多少`:
no metric holds 退货率), the screened retriever and the user's clearance; returns the sentence(s)
that state a figure for the term, cited and labelled as a document's figure, or says no passage
states it (the metric ask-back's options still offered). None when the question names no term.

- **The term** is what the question says beside its slots (entity, channel, period), its asking
  words (`多少`, `what was`) and its operator (`涨了多少`); an English term is rendered into
  Chinese word by word (`figure_words`) so it meets Chinese passages.
- **A figure stated for it** is a small grammar over one clause of one sentence: the term's head
  word, then only linking words (`为`, `达`, `同比上涨约`, `rose to`, `of`), then a figure with a
  unit (a percent, an amount, a count); or the figure, then `的`, then the head. The term's other
  words stand before the head in the same clause. A sentence holding the term and a figure apart,
  about other things, states nothing.
- **The entity and the period asked**, when the question names them: a sentence about another
  entity, or in a passage of another period, is never chosen.
- Invariant 1: the sentence is quoted as the document wrote it, passes the numeric grounding
  check against its cited passage, and its figure never enters `facts` or `computed`.
  Invariant 5 and the competitor screen are the retriever's: nothing here sees a passage the
  screened, clearance-filtered retriever did not return, and a term whose only passage is hidden
  gets the very answer a term no passage mentions gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.periods import periods_find
from core.model.types import (
    CLARIFY_NONE,
    KIND_ANSWER,
    KIND_CLARIFICATION,
    ClarificationResult,
    ParsedIntent,
    Period,
    Source,
)
from core.parse.intent import NUMERIC_CUES, term_names_entity
from core.parse.intent.tokens import DIMENSION_NOUNS, MODAL_VERBS, REQUEST_VERBS, SOURCE_NOUNS, TIME_NOUNS
from core.parse.intent.unread import route_cue_spans
from core.ports import NarrativeRetriever, RetrievedChunk
from core.routes.narrative.figure_words import chinese_renderings, english_words
from core.routes.narrative.grounding import numbers_ground

FIGURE_LABEL = {
    "zh": "文件所载数字（非经审核的事实库数据，未参与任何计算）：",
    "en": "A figure stated in a document (not a curated fact, and not computed with):",
}
NOT_STATED = {
    "zh": "未找到载明“{term}”数字的文件段落，无法给出该数字。",
    "en": "No passage in the documents states a figure for '{term}', so none is given.",
}
MAX_QUOTED = 3
_K = 10
_ANY_DAY = date(2000, 1, 1)

# -- the term asked -------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureAsk:
    """A term no metric holds, as words (each with its renderings, in order; the last is the head
    the figure stands beside), and the slots the question names with it."""

    term: str
    words: tuple[tuple[str, ...], ...]
    english: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    period: Period | None = None
    language: str = "zh"
    ordered: bool = True  # the other words stand in the term's order before the head


# Words that only ask, point or join at the edge of a term (`请问…的…大概`); a noun a figure is
# counted in (金额, 总额, 规模) stays: it is part of what the passage names.
_PARTICLES = frozenset(
    " ".join(
        (
            "的 之 是 为 有 在 了 呢 吗 啊 呀 吧 么 嘛 大概 大约 具体 详细 一下",
            "请问 麻烦 帮我 帮忙 告诉我 我想知道 想知道",
            "数据 数值 数字 情况 状况 信息 详情 明细 结果 资料 内容 指标 口径 水平 表现",
        )
    ).split()
)
_EDGE_WORDS = sorted(
    {w for w in (SOURCE_NOUNS | TIME_NOUNS | DIMENSION_NOUNS | REQUEST_VERBS | MODAL_VERBS) if len(w) > 1} | _PARTICLES,
    key=len,
    reverse=True,
)
_CJK = re.compile(r"[\u3400-\u9fff]")


def figure_asked(intent: ParsedIntent, glossary: GlossarySnapshot) -> FigureAsk | None:
    """The term a how-much question asks about when no metric holds it, or None: a metric named,
    a formula defined, a name where the entity goes, no asking word, or no term at all."""
    if intent.metrics or intent.definition is not None or intent.external_entity or intent.parts:
        return None
    if intent.unknown_metric and term_names_entity(intent, glossary):
        return None
    text = intent.normalized
    if not text or (NUMERIC_CUES.search(text) is None and intent.operation is None):
        return None
    blanked = _slots_blanked(text, intent, glossary)
    if intent.language == "en":
        written, english = english_words(blanked)
        if not english:
            return None
        # English word order is not Chinese order (average purchase price → 采购均价): the head
        # word is the last, the others stand anywhere before it in the clause
        rendered = tuple(chinese_renderings(english) or ())
        return FigureAsk(" ".join(written), rendered, tuple(english), intent.entities, intent.period, "en", False)
    if intent.unknown_metric and _CJK.search(intent.unknown_metric):
        blanked = intent.unknown_metric  # a metric-like term the glossary does not know (净利率)
    runs = [_edges_stripped(run) for run in re.split(r"[^\u3400-\u9fffa-z0-9]+", blanked)]
    runs = [run for run in runs if len(_CJK.findall(run)) >= 1]
    term = "".join(runs)
    if len(_CJK.findall(term)) < 2:
        return None
    words = _words_merged([(w,) for run in runs for w in _segmented(run)])
    return FigureAsk(term, tuple(words), (), intent.entities, intent.period, intent.language)


def _slots_blanked(text: str, intent: ParsedIntent, glossary: GlossarySnapshot) -> str:
    """The question with every span a reader took (names, periods, asking and operator words) blanked."""
    _, positions = compact_view(text)
    spans = [(positions[m.start], positions[m.end - 1] + 1) for m in glossary.match(text)]
    spans += [(s, e) for s, e, _ in periods_find(text, _ANY_DAY)]  # where periods are said, not which
    spans += route_cue_spans(text)
    if intent.operation is not None and intent.operation.cue:
        at = text.find(intent.operation.cue)
        spans += [(at, at + len(intent.operation.cue))] if at >= 0 else []
    chars = list(text)
    for start, end in spans:
        if text[max(start - 1, 0) : start] == "-" or text[end : end + 1] == "-":
            continue  # a name inside a compound (same-store) is part of the term
        for i in range(max(start, 0), min(end, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _edges_stripped(run: str) -> str:
    changed = True
    while changed and run:
        changed = False
        for word in _EDGE_WORDS:
            if run.startswith(word) and len(run) > len(word):
                run, changed = run[len(word) :], True
            elif run.endswith(word) and len(run) > len(word):
                run, changed = run[: -len(word)], True
            elif run == word:
                return ""
    return run


@lru_cache(maxsize=4096)
def _segmented(run: str) -> tuple[str, ...]:
    import jieba

    return tuple(w for w in jieba.lcut(run, HMM=False) if w.strip())


def _words_merged(words: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Runs of one-character words are one word (复/购/率 → 复购率, 同/店 → 同店), and a lone
    one-character word (率, 价) ends the word before it (退货 + 率 → 退货率)."""
    merged: list[tuple[str, ...]] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and all(len(form) == 1 for form in words[j]):
            j += 1
        if j == i:
            merged.append(words[i])
            i += 1
            continue
        run = _joined(words[i:j])
        if j - i == 1 and merged:
            merged[-1] = _joined([merged[-1], run])
        else:
            merged.append(run)
        i = j
    return merged


def _joined(words: list[tuple[str, ...]]) -> tuple[str, ...]:
    """Every way of writing the words one after another (their renderings combined)."""
    forms = [""]
    for word in words:
        forms = [a + b for a in forms for b in word]
    return tuple(dict.fromkeys(forms))


# -- the grammar of a stated figure -----------------------------------------------------------

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
    cjk = _CJK.search(sentence) is not None
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


# -- the answer -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureAnswer:
    text: str
    kind: str
    clarification: ClarificationResult
    sources: tuple[Source, ...] = ()


def figure_answer(
    intent: ParsedIntent,
    *,
    retriever: NarrativeRetriever,
    glossary: GlossarySnapshot,
    cleared: bool,
    asked_back: ClarificationResult,
) -> FigureAnswer | None:
    """The sentences stating a figure for the term asked, or the ask-back led by a line saying no
    passage states it; None when the question asks about no term (the ask-back stands as it is)."""
    ask = figure_asked(intent, glossary)
    if ask is None:
        return None
    chunks = _chunks_found(ask, intent, retriever, glossary, cleared)
    # The numeric grounding check: a sentence is quoted only when its cited passage supports
    # every figure in it (quoted verbatim it always does; the check keeps it so).
    chosen = [f for f in figure_sentences(ask, chunks, glossary) if _grounded(f, intent)][:MAX_QUOTED]
    language = intent.language if intent.language in FIGURE_LABEL else "zh"
    if not chosen:
        said = NOT_STATED[language].format(term=ask.term)
        question = f"{said}\n{asked_back.question}" if asked_back.question else said
        return FigureAnswer(question, KIND_CLARIFICATION, replace(asked_back, question=question))
    lines = [f"{c.text}{_citation(c.chunk)}" for c in chosen]
    cited = list(dict.fromkeys(c.chunk for c in chosen))
    sources = tuple(Source("chunk", c.doc, c.locator, c.document_id, c.text) for c in cited)
    text = "\n".join([FIGURE_LABEL[language], *lines])
    return FigureAnswer(text, KIND_ANSWER, ClarificationResult(mode=CLARIFY_NONE), sources)


def _citation(chunk: RetrievedChunk) -> str:
    return f"（{chunk.doc} · {chunk.locator}）"


def _grounded(found: FigureSentence, intent: ParsedIntent) -> bool:
    _, removed = numbers_ground(
        found.text + _citation(found.chunk),
        snippets=[found.chunk.text],
        question=intent.raw_question,
        references=[_citation(found.chunk), found.chunk.doc, found.chunk.locator],
    )
    return removed == 0


def _chunks_found(
    ask: FigureAsk, intent: ParsedIntent, retriever: NarrativeRetriever, glossary: GlossarySnapshot, cleared: bool
) -> list[RetrievedChunk]:
    """The passages for the question as asked and for the term alone (in Chinese too, for an
    English term), with the entity's name beside it when one is asked; in order of first rank."""
    names = " ".join(glossary.display("entity", e, "zh") for e in ask.entities)
    queries = [intent.raw_question, f"{names} {ask.term}".strip()]
    if ask.english and ask.words:
        queries.append(f"{names} " + " ".join(word[0] for word in ask.words))
    by_id: dict[int, RetrievedChunk] = {}
    for query in dict.fromkeys(q for q in queries if q):
        for chunk in retriever.retrieve(query, cleared=cleared, k=_K):
            by_id.setdefault(chunk.chunk_id, chunk)
    return list(by_id.values())
