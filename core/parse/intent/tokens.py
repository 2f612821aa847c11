"""Every word of a question accounted for.

The readers (glossary automaton, period grammar, operator and route cues) take their spans
first; what they leave is segmented by jieba's part-of-speech tagger and each word gets a type:

- `frame`: a word that asks, points or joins and carries no content of its own: what the tagger
  calls a preposition, particle, modal, pronoun, adverb, numeral, measure word, localizer, verb
  or adjective; a Cantonese function word; or a generic noun (below);
- `dimension`: a noun that names the kind of thing asked about, not a thing (公司, 地区, 渠道);
- `unknown`: content: a noun, a name, a word the tagger's dictionary does not know.

Generic nouns are the few closed classes a figure is asked *through*: what a figure is called
(数据, 数值, 情况), the document it is read from (年报, 公告), the time it is read at (时候, 期间),
the whole it covers (总, 全年). A class is grammar, like the operator table: the words of a
company's metrics never belong here.

Where a word stands decides what it does (`left_attached`, `right_attached`): beside a metric, a
content word makes a longer term (归母净利润, 净利率 when only 净利 exists), a frame never does.
A verb right before a metric is a request (请问营收) only at the start of its clause; after an
entity or a period it modifies the metric (集团扣非净利润) and is content. A verb right after a
metric and before the copula heads the copula's subject (营收预算是多少: the tagger calls 预算 a
verb), unless it is a modal (营收应该是多少). A verb of attainment or report beside a metric only
says the figure was reached or reported (实现的毛利率, 取得营收, 营收统计是多少); an A-not-A
question (是不是, 係唔係, and the written 是否, 是否为) is a frame, and a verb before it heads the
copula's subject as before the copula itself (营收预算是不是…). The localizers 前 and 后 modify
what follows (税后利润); 中, 里 and 内 close a place (年报中).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

FRAME = "frame"
DIMENSION = "dimension"
UNKNOWN = "unknown"

Span = tuple[int, int]


def _words(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


# The generic nouns a figure is asked through, by class.
FIGURE_NOUNS = _words(
    "数据 数值 数字 数额 数 金额 额 值 量 总额 总量 总数 情况 状况 信息 详细信息 详情 明细 结果",
    "水平 表现 规模 资料 内容 指标 口径",
)
SOURCE_NOUNS = _words("年报 年度报告 报告 财报 财务报告 公告 报表 财务报表 季报 半年报 中报 披露 文件 业绩")
TIME_NOUNS = _words(
    "时候 时期 期间 阶段 时间 年度 全年 当年 当期 本期 同期 上期 期末 期初 年初 年末 年底 季末 目前 当前"
)
WHOLE_WORDS = _words("总 全 整体 总体 全部 所有 层面 方面 部分 本身 自身")
# The dimension nouns that name an organisation: what a company's own name ends with (ACME集团,
# 某某公司), so its head noun when said alone (`core.parse.intent.home`).
ORGANISATION_NOUNS = _words("公司 本公司 我司 企业 集团 全集团 子公司 分公司 附属公司 事业部 业务单元")
DIMENSION_NOUNS = ORGANISATION_NOUNS | _words("业务 地区 区域 市场 板块 分部", "渠道 销售渠道 部门 旗下")
# Cantonese function words the Mandarin dictionary does not know (after Traditional → Simplified):
# 嘅 (的), 咗 (了), 喺 (在), 啲 (些), 睇 (看), 冇 (没), 咩 / 乜嘢 (什么), 嗰 (那), 佢 (他), 唔该 (请),
# 边个 (哪个), 点样 (怎样), and the modal particles.
CANTONESE = _words("嘅 咗 喺 啲 睇 冇 咩 乜 嘢 乜嘢 嗰 佢 唔 唔该 该 边个 点样 呀 啦 吖 喎 嘞 啩 咯 嚟 噉 咁 同埋")
GENERIC_WORDS = FIGURE_NOUNS | SOURCE_NOUNS | TIME_NOUNS | WHOLE_WORDS | CANTONESE
# The verbs a question asks a figure with: the copula (营收 | 是多少; Cantonese 係, 系 once
# simplified) and 有 (营收 | 有多少); the modal verbs (能愿动词) that may stand before them without
# naming anything (营收应该是多少); the verbs that ask for a figure (营收对比, 查询营收).
COPULAS = _words("是 为 系 有")
# The verbs a reported figure is attained or reported with (实现营收, 取得的净利润, 披露的营收,
# 营收统计是多少): beside a metric they only say the figure was reached or reported, never which figure
# (预计的营收, 营收预算 name another).
REPORTING_VERBS = _words("实现 取得 录得 达成 达到 获得 完成 创造 赚取 斩获 披露 公布 发布 报告 统计")
# An A-not-A question (是不是, 有没有, 可不可以; Cantonese 係唔係, 可唔可以) asks yes or no of the
# figure: a frame, never part of a name.
_NOT = "不没唔冇"
_WHETHER = "否"  # 是否, 能否, 可否: the written A-not-A
MODAL_VERBS = _words("能 能够 会 可以 可能 应 应该 应当 该 要 得 须 必须 需 需要 愿意 肯 敢 可 将要")
REQUEST_VERBS = _words("查 查询 查看 查找 看 看看 对比 比较 分析 介绍 说明 展示 列出 核实 确认 了解 告诉 提供 汇报")

# jieba's tags (ICTCLAS): p preposition, c conjunction, u* particle, y modal, e interjection,
# o onomatopoeia, r pronoun, d adverb, m numeral, q measure word, f localizer, x non-word.
_FUNCTION_TAGS = ("p", "c", "u", "y", "e", "o", "r", "d", "m", "q", "x")
_PLACE_CLOSERS = frozenset("中里内上下")
# The suffix that derives a rate from an amount (净利 → 净利率): glued to a metric, it names another.
_RATE_SUFFIX = "率"
_JOINS = frozenset("的之于")


@dataclass(frozen=True)
class Word:
    """One word of the text the readers left, `[start, end)` in the normalised question."""

    start: int
    end: int
    text: str
    tag: str
    kind: str  # FRAME, DIMENSION or UNKNOWN

    @property
    def is_join(self) -> bool:
        return self.text in _JOINS

    @property
    def is_verb(self) -> bool:
        return self.tag.startswith("v") and self.tag != "vn" and self.known

    @property
    def known(self) -> bool:
        return _known(self.text)


_lock = threading.Lock()
_tagger = None


def _posseg():  # type: ignore[no-untyped-def]
    global _tagger
    if _tagger is None:
        with _lock:
            if _tagger is None:
                import jieba
                import jieba.posseg

                jieba.setLogLevel(logging.WARNING)
                jieba.posseg.dt.tokenizer.initialize()
                _tagger = jieba.posseg.dt
    return _tagger


def _known(word: str) -> bool:
    return bool(_posseg().tokenizer.FREQ.get(word))


@lru_cache(maxsize=16384)
def _segment(run: str) -> tuple[tuple[str, str], ...]:
    """jieba's words and tags of a run of text (cached: questions repeat their frames)."""
    words: list[tuple[str, str]] = []
    for pair in _posseg().cut(run):
        words.extend(_peeled(pair.word, pair.flag))
    return tuple(words)


_PEELED_TAGS = ("p", "c", "u", "y")
_SPLIT_TAGS = ("v", "f", "p", "u", "y", "r", "d", "m", "q", "c")


def _peeled(word: str, tag: str) -> list[tuple[str, str]]:
    """A word the tagger guessed (not in its dictionary) never starts or ends with a preposition,
    conjunction or particle (`和归母` is 和 + 归母), and is no word at all when each of its
    dictionary words is a verb or a function word (`查下` is 查 + 下, `恰巧是` is 恰巧 + 是); 归母
    and 扣非 stay words."""
    if len(word) < 2 or _known(word):
        return [(word, tag)]
    tags = _posseg().word_tag_tab
    pieces = [(p.word, p.flag) for p in _posseg().cut(word, HMM=False)]
    if len(pieces) > 1 and all(_known(w) and f.startswith(_SPLIT_TAGS) for w, f in pieces):
        return pieces  # 查下, 恰巧是: dictionary verbs and function words, not a name
    head: list[tuple[str, str]] = []
    tail: list[tuple[str, str]] = []
    while len(word) > 1 and tags.get(word[0], "").startswith(_PEELED_TAGS):
        head.append((word[0], tags[word[0]]))
        word = word[1:]
    while len(word) > 1 and tags.get(word[-1], "").startswith(_PEELED_TAGS):
        tail.insert(0, (word[-1], tags[word[-1]]))
        word = word[:-1]
    return [*head, (word, tag), *tail]


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def _asks_yes_or_no(text: str) -> bool:
    """是不是, 有没有, 係唔係 (A-not-A); 是否, 能否, 可否, 是否是 (A-否, with the copula after it)."""
    if len(text) >= 3 and text[1] in _NOT and text[2] == text[0]:
        return True
    return 2 <= len(text) <= 3 and text[1] == _WHETHER and (len(text) == 2 or text[2] in COPULAS)


def word_kind(text: str, tag: str) -> str:
    """The type of one word the readers left."""
    if text in DIMENSION_NOUNS:
        return DIMENSION
    if text in GENERIC_WORDS or text in CANTONESE or all(ch in CANTONESE for ch in text) or _asks_yes_or_no(text):
        return FRAME
    if not any(_is_cjk(ch) for ch in text):
        return FRAME  # punctuation, spaces, digits: Latin words have their own reader
    if not _known(text) and len(text) > 1:
        # a word the dictionary does not know is a name or jargon (归母, 扣非), unless the tagger
        # reads it as a function word (专是: an adverb and a copula); before a metric, it is
        # content whatever its tag (`_left_content`)
        return FRAME if tag.startswith(_FUNCTION_TAGS) and tag != "x" else UNKNOWN
    if tag.startswith(_FUNCTION_TAGS) or tag in ("f", "t", "a", "ad", "an", "z") or tag.startswith("v"):
        return UNKNOWN if tag == "vn" or (tag == "t" and len(text) > 1 and text not in TIME_NOUNS) else FRAME
    return UNKNOWN


def words_read(normalized: str, taken: Sequence[Span]) -> list[Word]:
    """Every word of `normalized` that no span of `taken` covers, typed, in reading order."""
    mask = [False] * len(normalized)
    for start, end in taken:
        for i in range(max(start, 0), min(end, len(normalized))):
            mask[i] = True
    words: list[Word] = []
    i = 0
    while i < len(normalized):
        if mask[i]:
            i += 1
            continue
        j = i
        while j < len(normalized) and not mask[j]:
            j += 1
        at = i
        for text, tag in _segment(normalized[i:j]):
            if text.strip():
                words.append(Word(at, at + len(text), text, tag, word_kind(text, tag)))
            at += len(text)
        i = j
    return words


def _adjacent_before(words: Sequence[Word], start: int) -> list[Word]:
    """The words that run, without a gap, up to `start` (nearest last)."""
    run: list[Word] = []
    at = start
    for word in reversed(words):
        if word.end == at:
            run.append(word)
            at = word.start
        elif word.end < at:
            break
    return run[::-1]


def _adjacent_after(words: Sequence[Word], end: int) -> list[Word]:
    run: list[Word] = []
    at = end
    for word in words:
        if word.start == at:
            run.append(word)
            at = word.end
        elif word.start > at:
            break
    return run


def _left_content(word: Word, *, clause_start: bool) -> bool:
    """Whether a word right before a metric (or before its 的) modifies it."""
    if word.kind == DIMENSION or word.text in GENERIC_WORDS or word.text in CANTONESE or word.text in REPORTING_VERBS:
        return False
    if not any(_is_cjk(ch) for ch in word.text):
        return False
    if not word.known and len(word.text) > 1:
        return True
    tag = word.tag
    if tag == "f":
        return word.text not in _PLACE_CLOSERS
    if tag.startswith(("p", "u", "y", "e", "o", "r", "d", "m", "q", "x")):
        return False
    if tag.startswith("c"):
        return len(word.text) > 2  # 和, 以及 join; a longer "conjunction" is a mis-tagged noun (所有者)
    if word.is_verb:
        return not clause_start  # 请问营收 asks; 集团扣非净利润 names
    return word.kind == UNKNOWN or tag.startswith(("a", "b", "t"))


def left_attached(words: Sequence[Word], start: int, clause_start: Sequence[Word] = ()) -> list[Word]:
    """The words right before a metric at `start` that make it a longer term (归母 of 归母净利润,
    母公司所有者的 of 母公司所有者的净利润), nearest last; empty when a frame stands between.

    `clause_start` holds the words that open the question's clauses: a verb there asks."""
    run = _adjacent_before(words, start)
    attached: list[Word] = []
    joined = False
    for word in reversed(run):
        if word.is_join and not attached and not joined:
            joined = True
            continue
        if not _left_content(word, clause_start=word in clause_start):
            break
        attached.insert(0, word)
    if not attached:
        return []
    return [w for w in run if w.start >= attached[0].start]


def right_attached(words: Sequence[Word], end: int, text: str = "") -> list[Word]:
    """The words right after a metric ending at `end` that make it a longer term (率 of 净利率,
    回报率, 预测, 的目标), empty when only frames follow (的详细数据, 具体, 是多少).

    A verb that ends the metric's phrase heads it, so it names the figure asked about: one right
    before the copula or 有 (营收预算是多少, 营收估计有多少), before the question word, or at the
    end of the clause (营收预算多少, 营收预算); a modal verb, a verb of attainment or report, or one
    that asks for the figure does not (营收应该是多少, 营收达到多少, 营收对比). `text` is the
    normalised question the words were read from."""
    run = _adjacent_after(words, end)
    for i, word in enumerate(run):
        if i == 0 and (word.text == _RATE_SUFFIX or (word.text.endswith(_RATE_SUFFIX) and word.tag.startswith("n"))):
            return run[:1]
        if word.is_join or (word.kind == FRAME and word.tag.startswith(("a", "d"))):
            continue  # 的, 具体, 详细: the head noun may still follow
        if word.kind == UNKNOWN or _heads_the_phrase(word, run[i + 1 : i + 2], text):
            return run[: i + 1]
        return []
    return []


_PHRASE_END = re.compile(r"\s*(?:$|[,.;:?!。，；：？！]|多少|几)")


def _heads_the_phrase(word: Word, following: Sequence[Word], text: str) -> bool:
    """A verb (not the copula, a modal, a verb of report or of asking) right before the copula
    (or a yes/no word standing for it: 是不是, 是否), the question word or the clause's end."""
    if not word.is_verb or word.text[-1] in COPULAS or word.text in MODAL_VERBS or _asks_yes_or_no(word.text):
        return False  # 是, 便是, 即为, 共有: the copula, or an adverb with it; 是否(为): a yes/no question
    if word.text in REPORTING_VERBS or word.text in REQUEST_VERBS:
        return False
    if following:
        copula = following[0].text in COPULAS or _asks_yes_or_no(following[0].text)  # 营收预算是不是…
        return following[0].start == word.end and copula
    return bool(text) and _PHRASE_END.match(text, word.end) is not None


def clause_openers(normalized: str, words: Sequence[Word]) -> set[Word]:
    """The words at the start of a clause: only frames before them since the last punctuation."""
    openers: set[Word] = set()
    by_start = {w.start: w for w in words}
    covered = {i for w in words for i in range(w.start, w.end)}
    fresh = True
    for i, ch in enumerate(normalized):
        if ch in "，,。；;？?！!：:":
            fresh = True
            continue
        if i in by_start:
            if fresh:
                openers.add(by_start[i])
            fresh = fresh and by_start[i].kind == FRAME
        elif i not in covered and not ch.isspace():
            fresh = False  # a reader's span (entity, period …) ends the opening
    return openers
