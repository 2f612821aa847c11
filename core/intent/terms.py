"""Terms the glossary does not know (SPEC §6a: never a shorter alias, never another entity).

Takes the normalised question, the question as written, the glossary hits with their spans in
the normalised text, and every span another reader took (periods, stretches of time no period
type holds, operator cues, route cues). Returns the hits that stand for what the question names,
and the first term it names that no alias covers, as the analyst wrote it:

- a metric alias with unread Chinese words right beside it, on either side, is part of a longer
  term (归母净利润, 资本开支回报率, 归属于母公司所有者的净利润): had the term been an alias, the
  longest match would have taken it. Words are unread when no hit, period, cue, question word,
  filler or dimension word (地区, 渠道 …) holds them; the structural 的/之/于 joins a name's words
  and does not separate them. After an English alias, margin / ratio / rate / yield makes the term;
- a Latin token asking for a number that nothing reads (ROA, EBITDA, `EBITDA margin`): all capitals,
  or any case in a Chinese question, not a currency, standard or English function word;
- an in-scope entity's alias inside a longer name (中国平安 holds 中国), by the same rule as a
  metric's, and a name where the entity goes (腾讯2025年营收, Tencent revenue) when the question
  names no entity but a metric: never answered as a known entity or the home entity.

The clarifier asks back for each (`term_names_entity` tells it which kind). Only the question's
shape is read: no demo word or code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..glossary import GlossarySnapshot
from ..types import Match, ParsedIntent

Span = tuple[int, int]


def _word_set(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


# Words that never make a metric's name longer: what a question asks with, joins with and
# measures in, and the dimension words a list or an entity goes by.
_PLAIN = _word_set(
    "那 那么 那个 这 这个 年 由 将 实现 录得 取得 获得 完成 来自 本地 层面 自身 本身 总 占 约占",
    "请问 请 麻烦 帮我 帮忙 给我 我想 想知道 想 知道 查询 查看 查一下 查 看看 看一下 看 一下",
    "告诉我 告诉 列出 列一下 列 显示 展示 说明 说说 说一下 介绍 提供 计算 算一下 统计 对比 比较",
    "比 较 相比 相较 和 与 及 以及 或 或者 跟 同 还有 并且 并 是 为 的 之 于 了 吗 呢 吧 啊 呀",
    "么 嘛 着 过 在 从 到 至 对 按 按照 就 都 也 又 还 再 只 仅 共 总共 一共 合计 约 大约 大概",
    "左右 将近 接近 超过 达到 达 有 多 少 多大 多高 几 多少 分别 各自 各 每 什么 哪些 哪个 哪家",
    "哪 怎么 怎样 如何 为什么 为何 是否 有没有 情况 数据 数字 数值 数额 金额 总额 总量 总数",
    "规模 水平 表现 结果 口径 部分 方面 指标 额 量 值 公司 本公司 我司 我们 咱们 全公司 企业",
    "整体 总体 全集团 旗下 集团 子公司 分公司 附属公司 事业部 业务单元 业务 地区 区域 市场 板块",
    "分部 渠道 销售渠道 部门 全年 年度 当年 当期 本期 同期 上期 期间 期末 期初 年初 年末 年底",
    "季末 历史 历年 往年 近年 近几年 过去 以来 最近 最新 目前 当前 现在 截至 截止 迄今 至今",
    "累计 元 万元 亿元 百万元 千元 万 亿 百万 千 人民币 美元 港元 港币 个百分点 百分点 百分比",
    "人 万人 家 个 名 位 项 笔 次 倍 成 增长 增加 减少 下降 上升 下滑 提高 降低 变化 变动 变 涨",
    "跌 高 低 大 小 改善 恶化 同比 环比 最高 最低 最大 最小 最多 最少 排名 排行 排序",
    "它 它们 其 他们 她们 该 该公司 此 此公司 它的 其中",  # a follow-up's pronouns: 那它的毛利率呢
)
_PLAIN_LONGEST = max(map(len, _PLAIN))
# Function characters stripped from the far end of a term as written (`请问归母` is the term `归母`); a
# content character there (大 of 大客户) stays part of it.
_PARTICLES = frozenset("的之于了吗呢吧啊呀么嘛是为在和与及或跟同从到至对按就都也又还再只仅请查看列并且那这由将它其该此")
# The structural words that join a name's words (归属于母公司所有者的净利润), as in the matcher.
_JOINING = frozenset("的之于")

_LONGER_EN = re.compile(r"\s?(?:margin|ratio|rate|yield)s?(?![a-z])")
_LATIN = re.compile(r"[a-z][a-z0-9&]*", re.IGNORECASE)
_LATIN_FOLLOWER = re.compile(r"\s?(?:(?:margin|ratio|rate|yield)s?(?![a-z])|率)")
# Latin words that are no metric: English function words and requests, currencies, standards.
_NOT_A_TERM = _word_set(
    "a an the of in on at for by from to and or vs versus with than as per via into over under",
    "up down out what whats what's was is are were be been being how much many which who whom",
    "whose when where why did does do done has have had can could would will should may might",
    "must shall please show me give tell list get find display compare compared calculate",
    "compute summarize summarise explain describe provide report check look see rank sort break",
    "breakdown let lets us i we you it its our my your their this that these those there here s",
    "last previous prior current next year years quarter quarters half month months fiscal fy",
    "total group company companies firm overall whole entire all each every both between about",
    "approximately around roughly value figure figures number numbers amount level latest",
    "recent most data result results reported change growth usd cny rmb hkd eur gbp jpy sgd",
    "ifrs gaap hkfrs cas pct pp bps ttm ltm",
    "myr twd krw aud cad chf inr thb idr php vnd bn mn tn",
)


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def _taken_mask(length: int, taken: Sequence[Span]) -> list[bool]:
    mask = [False] * length
    for start, end in taken:
        for i in range(max(start, 0), min(end, length)):
            mask[i] = True
    return mask


def _plain_at(text: str, *, end: bool) -> str | None:
    """The longest plain word `text` ends (or starts) with."""
    for size in range(min(_PLAIN_LONGEST, len(text)), 0, -1):
        word = text[-size:] if end else text[:size]
        if word in _PLAIN:
            return word
    return None


def _core(segment: str, *, near_end: bool) -> tuple[str, str] | None:
    """The unread core of a segment beside a metric and what joins it to the metric (的), or
    None when a plain word stands between them or nothing is left. `near_end`: the metric
    follows the segment."""
    joint = ""
    rest = segment
    while rest:
        word = _plain_at(rest, end=near_end)
        if word is None:
            break
        if not set(word) <= _JOINING:
            return None  # 香港地区的营收: a plain word separates the segment from the metric
        joint = word + joint if near_end else joint + word
        rest = rest[: -len(word)] if near_end else rest[len(word) :]
    rest = _ends_stripped(rest)  # the far end: 请问归母 is 归母
    return (rest, joint) if rest else None


def _segment(text: str, mask: list[bool], index: int, step: int) -> tuple[int, int]:
    """The run of unread CJK characters from `index` in direction `step`, as a span."""
    i = index
    while 0 <= i < len(text) and _is_cjk(text[i]) and not mask[i]:
        i += step
    return (i + 1, index + 1) if step < 0 else (index, i)


def longer_terms_drop(
    normalized: str, matches: Sequence[Match], spans: Sequence[Span], taken: Sequence[Span]
) -> tuple[list[tuple[Match, Span]], str | None]:
    """The hits that stand, and the first longer term no alias covers: a metric's (归母净利润) or
    an in-scope entity's (中国平安 holds 中国, 腾讯集团 holds 集团). An external entity's hit
    stays: the security gate refuses it whatever surrounds it.

    `taken` holds every span another reader took (cues, periods …); the hits' own spans are added.
    """
    mask = _taken_mask(len(normalized), [*spans, *taken])
    metric_starts = {span[0] for m, span in zip(matches, spans, strict=True) if m.kind == "metric"}
    longer: dict[int, str] = {}
    for i, (m, (start, end)) in enumerate(zip(matches, spans, strict=True)):
        if m.kind == "metric":
            term = _longer_term(normalized, mask, start, end, english=True, before_metric=set())
            if term is not None:
                longer[i] = term
    # An entity's longer name counts in a question for a figure: `东南亚扩张有什么计划` is a topic.
    if any(m.kind == "metric" and i not in longer for i, m in enumerate(matches)):
        for i, (m, (start, end)) in enumerate(zip(matches, spans, strict=True)):
            if m.kind == "entity" and not m.external:
                # words between an entity and its metric belong to the metric (集团总营收)
                term = _longer_term(normalized, mask, start, end, english=False, before_metric=metric_starts)
                if term is not None:
                    longer[i] = term
    kept = [(m, span) for i, (m, span) in enumerate(zip(matches, spans, strict=True)) if i not in longer]
    return kept, longer[min(longer)] if longer else None


def _longer_term(
    normalized: str, mask: list[bool], start: int, end: int, *, english: bool, before_metric: set[int]
) -> str | None:
    alias = normalized[start:end]
    if normalized[end - 1].isascii() and not english:
        return None
    if normalized[end - 1].isascii():
        after = _LONGER_EN.match(normalized, end)
        if after is None:
            return None
        word = (after.end() - len(after.group(0).lstrip()), after.end())
        if any(mask[i] for i in range(*word)):
            return None  # `operating profit to revenue ratio`: the word belongs to a cue
        return normalized[start : after.end()]
    left_start, left_end = _segment(normalized, mask, start - 1, -1)
    right_start, right_end = _segment(normalized, mask, end, 1)
    left = _core(normalized[left_start:left_end], near_end=True) if left_end > left_start else None
    right = None
    if right_end > right_start and right_end not in before_metric:
        right = _core(normalized[right_start:right_end], near_end=False)
    if left is None and right is None:
        return None
    before = "".join(left) if left else ""
    after_text = right[1] + right[0] if right else ""
    return _as_one_word(before + alias + after_text)


def _as_one_word(text: str) -> str:
    """A term as the analyst wrote it: Chinese without spaces, English words single-spaced."""
    return text if text.isascii() else "".join(text.split())


def _tokens(question: str, normalized: str) -> list[tuple[int, int, str]]:
    """The Latin words of the normalised question with their spans, each in the case it was
    written in (lower case when the two cannot be lined up)."""
    found = [(m.start(), m.end(), m.group(0)) for m in _LATIN.finditer(normalized)]
    written = [m.group(0) for m in _LATIN.finditer(unicodedata.normalize("NFKC", question))]
    if len(written) == len(found) and all(w.lower() == t for w, (_, _, t) in zip(written, found, strict=True)):
        return [(s, e, w) for (s, e, _), w in zip(found, written, strict=True)]
    return found


def latin_term_find(
    question: str, normalized: str, taken: Sequence[Span], *, language: str, asks_for_numbers: bool
) -> str | None:
    """A Latin word asking for a number that nothing reads (ROA, `EBITDA margin`): all capitals,
    or any case in a Chinese question. Capitalised words are names (`name_term_find`)."""
    if not asks_for_numbers:
        return None
    mask = _taken_mask(len(normalized), taken)
    for start, end, word in _tokens(question, normalized):
        if any(mask[start:end]) or word.lower() in _NOT_A_TERM or word.isdigit():
            continue
        shouting = word.isupper() and len(word) >= 2
        if not (shouting or (language == "zh" and word.islower())):
            continue
        after = _LATIN_FOLLOWER.match(normalized, end)
        if after is not None and not any(mask[after.start() : after.end()]):
            follower = after.group(0)
            return word + (follower if follower.strip() == "率" else " " + follower.strip())
        return word
    return None


def name_term_find(question: str, normalized: str, taken: Sequence[Span], period_spans: Sequence[Span]) -> str | None:
    """A name where the entity goes, for a question that names a metric and no entity:
    capitalised Latin words nothing reads (`Tencent revenue`, `What was Tencent's revenue`), or
    unread Chinese words that open the question right before its period or metric
    (`腾讯2025年营收`, `请问腾讯在2025年的营收`); right before the metric, the words are a longer
    term (`longer_terms_drop`)."""
    mask = _taken_mask(len(normalized), taken)
    tokens = _tokens(question, normalized)

    def is_name(token: tuple[int, int, str]) -> bool:
        start, end, word = token
        return (
            not any(mask[start:end]) and word[:1].isupper() and not word.isupper() and word.lower() not in _NOT_A_TERM
        )

    for i, token in enumerate(tokens):
        if not is_name(token):
            continue
        words = [token[2]]
        for before, after in zip(tokens[i:], tokens[i + 1 :], strict=False):
            if normalized[before[1] : after[0]] != " " or not is_name(after):
                break
            words.append(after[2])
        return " ".join(words)
    first = next((i for i, ch in enumerate(normalized) if not (ch.isspace() or _is_punctuation(ch))), None)
    if first is None or not _is_cjk(normalized[first]) or mask[first]:
        return None
    seg_start, seg_end = _segment(normalized, mask, first, 1)
    following = next((i for i in range(seg_end, len(normalized)) if not normalized[i].isspace()), None)
    if following not in {s for s, _ in period_spans}:
        return None  # right before the metric, `longer_terms_drop` has read it (主营业务收入)
    segment = normalized[seg_start:seg_end]
    if not _ends_stripped(segment, every=True):
        return None  # 那净利润呢, 公司2025年: only plain words
    return _ends_stripped(segment) or None


def _ends_stripped(text: str, *, every: bool = False) -> str:
    """`text` without plain words at either end: those of two or more characters and the
    function characters, or with `every`, any."""
    for at_end in (False, True):
        while text:
            word = _plain_at(text, end=at_end)
            if word is None or (not every and len(word) == 1 and word not in _PARTICLES):
                break
            text = text[: -len(word)] if at_end else text[len(word) :]
    return text


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def term_names_entity(intent: ParsedIntent, glossary: GlossarySnapshot) -> bool:
    """Whether the intent's unknown term names an entity (`name_term_find`, or an entity alias
    inside a longer name), not a metric: it holds no metric alias and is no acronym, in a
    question that names a metric."""
    return term_is_a_name(intent.unknown_metric, intent.metrics, glossary)


def term_is_a_name(term: str | None, metrics: Sequence[str], glossary: GlossarySnapshot) -> bool:
    """`term_names_entity` for a term and the metrics the question names."""
    if not term or not metrics:
        return False
    if any(m.kind == "metric" for m in glossary.match(term)):
        return False
    return not (term.isascii() and term.split()[0].isupper())
