"""Typos in an operator word: read as the one cue they can only be, and said so.

Takes the normalised question, the spans its readers took and the metric spans; returns the
corrections to make (`增长律` → `增长率`), or none. A Chinese word is a typo of a cue when it
stands where an operator goes (right after a metric, past 的 or 了, or right before 多少 / 几) and
differs from exactly one operator word by one character of the same sound (pinyin without
tones: what an input method mistypes: 增长律, 增涨, 同必). An English word nothing reads is a
typo of an operator word one edit away (growh, increse), when exactly one such word exists.
Anything less certain is left alone, and the longer-term rule asks it back: an operator word is
never dropped. The copula is read the same way where only it can stand, between a metric and its
question word (营收时多少 is 营收是多少).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.model.intent import ParsedIntent
from core.parse.cues import OPERATOR_WORDS_EN, OPERATOR_WORDS_ZH
from core.parse.intent.latin import NOT_A_TERM
from core.parse.intent.tokens import COPULAS, UNKNOWN, words_read

Span = tuple[int, int]
_EN_WORD = re.compile(r"[a-z]+")
_SKIPPED_AFTER_METRIC = "的了"
_BEFORE_NUMBER = ("多少", "几")
_COPULAS = ("是", "为")


@dataclass(frozen=True)
class Correction:
    start: int
    end: int
    written: str
    read_as: str


@lru_cache(maxsize=4096)
def _sounds(ch: str) -> frozenset[str]:
    from pypinyin import Style, pinyin

    return frozenset(pinyin(ch, style=Style.NORMAL, heteronym=True)[0])


def _sound_alike(a: str, b: str) -> bool:
    return a == b or bool(_sounds(a) & _sounds(b))


@lru_cache(maxsize=1)
def _one_blank_index() -> dict[tuple[str, int], tuple[str, ...]]:
    """Each operator word under each of its characters blanked: (`增长?`, 2) → 增长率."""
    index: dict[tuple[str, int], list[str]] = {}
    for word in OPERATOR_WORDS_ZH:
        for i in range(len(word)):
            index.setdefault((word[:i] + "?" + word[i + 1 :], i), []).append(word)
    return {key: tuple(words) for key, words in index.items()}


_LENGTHS = sorted({len(word) for word in OPERATOR_WORDS_ZH})


def _zh_candidates(window: str) -> set[str]:
    """The operator words `window` starts with but for one character of the same sound."""
    index = _one_blank_index()
    found = set()
    for size in _LENGTHS:
        typed = window[:size]
        if len(typed) < size:
            break
        for i in range(size):
            for word in index.get((typed[:i] + "?" + typed[i + 1 :], i), ()):
                if word != typed and _sound_alike(typed[i], word[i]):
                    found.add(word)
    return found


def _one_edit(a: str, b: str) -> bool:
    """Damerau: one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        differing = [i for i in range(len(a)) if a[i] != b[i]]
        if len(differing) == 1:
            return True
        i, j = [*differing, 0, 0][:2]
        return len(differing) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def typos_find(
    normalized: str,
    taken: Sequence[Span],
    metric_spans: Sequence[Span],
    *,
    english: bool,
    names: Sequence[Span] = (),
) -> list[Correction]:
    """The operator words mistyped in `normalized`; `taken` holds every span a reader took, `names`
    those of glossary names, which a correction never reaches into (比中国内地 is no 比重)."""
    mask = [False] * len(normalized)
    for start, end in taken:
        for i in range(max(start, 0), min(end, len(normalized))):
            mask[i] = True
    if english:
        return _english(normalized, mask)
    positions = set()
    for _, end in metric_spans:
        at = end  # past fillers and past what another reader took (每年, 2025年, 线上)
        while at < len(normalized) and (normalized[at] in _SKIPPED_AFTER_METRIC or mask[at]):
            at += 1
        positions.add(at)
    for cue in _BEFORE_NUMBER:
        for m in re.finditer(cue, normalized):
            positions.update(range(max(0, m.start() - 3), m.start()))
    corrections = _copulas(normalized, mask, metric_spans)
    for at in sorted(positions):
        if at >= len(normalized) or mask[at]:
            continue
        window = normalized[at : at + 5]
        exact = max((len(word) for word in OPERATOR_WORDS_ZH if window.startswith(word)), default=0)
        candidates = {word for word in _zh_candidates(window) if len(word) > exact}  # 增长律 is 增长率
        if len(candidates) == 1:
            (word,) = candidates
            if any(s < at + len(word) and at < e for s, e in names):
                continue  # a character of a name (the 中 of 比中国内地) is no typo's
            corrections.append(Correction(at, at + len(word), normalized[at : at + len(word)], word))
    return _disjoint(sorted(corrections, key=lambda c: c.start))


def _copulas(normalized: str, mask: list[bool], metric_spans: Sequence[Span]) -> list[Correction]:
    """Between a metric and its question word only the copula stands (营收是多少): one character
    there that nothing reads and that sounds like a copula is that copula (营收时多少)."""
    corrections = []
    for _, end in metric_spans:
        at = end
        while at < len(normalized) and normalized[at] in _SKIPPED_AFTER_METRIC:
            at += 1
        if at >= len(normalized) or mask[at] or not normalized.startswith(_BEFORE_NUMBER, at + 1):
            continue
        written = normalized[at]
        sounds = [copula for copula in _COPULAS if written != copula and _sound_alike(written, copula)]
        if len(sounds) == 1 and written not in COPULAS and _content_at(normalized, mask, at):
            corrections.append(Correction(at, at + 1, written, sounds[0]))
    return corrections


def _content_at(normalized: str, mask: list[bool], at: int) -> bool:
    """Whether the one-character word at `at` is content, not a frame of its own (有 of 营收有多少)."""
    taken = [(i, i + 1) for i, masked in enumerate(mask) if masked]
    word = next((w for w in words_read(normalized, taken) if w.start == at), None)
    return word is not None and word.end == at + 1 and word.kind == UNKNOWN


def _english(normalized: str, mask: list[bool]) -> list[Correction]:
    corrections = []
    for m in _EN_WORD.finditer(normalized):
        word = m.group(0)
        if len(word) < 5 or any(mask[m.start() : m.end()]) or word in OPERATOR_WORDS_EN or word in NOT_A_TERM:
            continue
        candidates = {known for known in OPERATOR_WORDS_EN if len(known) >= 5 and _one_edit(word, known)}
        if len(candidates) == 1:
            corrections.append(Correction(m.start(), m.end(), word, candidates.pop()))
    return corrections


def _disjoint(corrections: list[Correction]) -> list[Correction]:
    kept: list[Correction] = []
    for c in corrections:
        if not kept or c.start >= kept[-1].end:
            kept.append(c)
    return kept


def corrections_apply(normalized: str, corrections: Sequence[Correction]) -> str:
    out = normalized
    for c in sorted(corrections, key=lambda c: c.start, reverse=True):
        out = out[: c.start] + c.read_as + out[c.end :]
    return out


def reason_with_readings(intent: ParsedIntent, read_as: tuple[tuple[str, str], ...]) -> str:
    """The route reason with how each mistyped operator word was read."""
    if intent.language == "en":
        return intent.routing.reason + "".join(f' · read "{w}" as "{r}"' for w, r in read_as)
    return intent.routing.reason + "".join(f" · 按“{r}”理解“{w}”" for w, r in read_as)


def reading_note(intent: ParsedIntent) -> str | None:
    """The line an answer leads with when a word was read as another (a typo of an operator)."""
    if not intent.corrections:
        return None
    if intent.language == "en":
        return "[Read as] " + "; ".join(f'"{w}" as "{r}"' for w, r in intent.corrections)
    return "【按以下理解】" + "；".join(f"“{w}”按“{r}”理解" for w, r in intent.corrections)
