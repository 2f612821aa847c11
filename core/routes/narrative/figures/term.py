"""The term a how-much question asks about when no metric holds it (`figure_asked`): what the
question says beside its slots, its asking words and its operator, as words the figure's
sentence must hold, the last one the head the figure stands beside."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view
from core.language.periods import periods_find
from core.model.intent import ParsedIntent
from core.model.period import Period
from core.parse.intent import NUMERIC_CUES, term_names_entity
from core.parse.intent.tokens import DIMENSION_NOUNS, MODAL_VERBS, REQUEST_VERBS, SOURCE_NOUNS, TIME_NOUNS
from core.parse.intent.unread import route_cue_spans
from core.routes.narrative.figures.words import chinese_renderings, english_words

_ANY_DAY = date(2000, 1, 1)


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
CJK = re.compile(r"[\u3400-\u9fff]")


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
    if intent.unknown_metric and CJK.search(intent.unknown_metric):
        blanked = intent.unknown_metric  # a metric-like term the glossary does not know (净利率)
    runs = [_edges_stripped(run) for run in re.split(r"[^\u3400-\u9fffa-z0-9]+", blanked)]
    runs = [run for run in runs if len(CJK.findall(run)) >= 1]
    term = "".join(runs)
    if len(CJK.findall(term)) < 2:
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
