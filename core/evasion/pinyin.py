"""Pinyin in names: tone numbers dropped (`Jing4an1`) and Chinese characters spelled (`Jing安`).

`tone_marks` finds the digits 1–5 that are tone numbers after whole pinyin syllables (per
`pypinyin`'s dictionary) so a view can drop them; `Q4`, `HK1`, `H1N1`, `A1B`, `FY2025` keep theirs.
`spelled_view` reads a view with each Chinese character spelled by its most common toneless
reading, each as a word of its own, and `key_spellings` spells a folded alias in every reading of
its polyphones (`景程` is `jingcheng` and `yingcheng`). A hit in a spelled view counts only when
its span mixes spelled characters and ASCII letters as written.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import prod

from core.evasion.fold import CACHE_LIMIT, fold_char, folds
from core.language.matcher import MatchView

_TONE_HINT = re.compile(r"[a-z][1-5]")
_ASCII_LETTER = re.compile(r"[a-z]")
_LONGEST_SYLLABLE = 6  # `zhuang`
_LONGEST_RUN = 4 * _LONGEST_SYLLABLE  # letters read around a tone number, at most
_SPELLINGS_LIMIT = 64  # readings of an alias's polyphones, all combined up to this many


def tone_marks(view: MatchView) -> list[int]:
    """The indices in `view.chars` of the digits that are pinyin tone numbers (`Jing4an1`).

    A digit 1–5 is one when it directly follows ASCII letters that end in whole pinyin
    syllables, from a word break on (`Jing4`, `Ji·ng4`), and is followed by a break, a
    non-letter, or more letters that start with whole syllables up to a word break (`4an`). So
    `Q4`, `HK1`, `H1N1`, `A1B` and `FY2025` hold none.
    """
    chars = view.chars
    found = []
    for hint in _TONE_HINT.finditer(chars):
        digit = hint.end() - 1
        after = digit + 1
        glued = after < len(chars) and not view.broken_before(after)
        if (glued and chars[after] in string.digits) or view.broken_before(digit):
            continue
        if not _syllables_end(view, digit):
            continue
        if glued and chars[after] in string.ascii_lowercase and not _syllables_start(view, after):
            continue
        found.append(digit)
    return found


def _syllables_end(view: MatchView, end: int) -> bool:
    """Whether the ASCII letters before `end` spell whole syllables from some word start on."""
    chars = view.chars
    start = end
    while start > max(0, end - _LONGEST_RUN) and chars[start - 1] in string.ascii_lowercase:
        start -= 1
        word_start = start == 0 or chars[start - 1] not in string.ascii_lowercase or view.broken_before(start)
        if word_start and _pinyin_spelled(chars[start:end]):
            return True
    return False


def _syllables_start(view: MatchView, start: int) -> bool:
    """Whether the ASCII letters from `start` spell whole syllables up to some word end."""
    chars = view.chars
    end = start
    while end < min(len(chars), start + _LONGEST_RUN) and chars[end] in string.ascii_lowercase:
        end += 1
        word_end = end == len(chars) or chars[end] not in string.ascii_lowercase or view.broken_before(end)
        if word_end and _pinyin_spelled(chars[start:end]):
            return True
    return False


def toneless(view: MatchView) -> MatchView | None:
    """`view` with its pinyin tone numbers dropped, each leaving a break; None when it has none."""
    marks = set(tone_marks(view))
    if not marks:
        return None
    kept = [index for index in range(len(view.chars)) if index not in marks]
    chars = "".join(view.chars[index] for index in kept)
    return MatchView(view.text, chars, tuple(view.sources[index] for index in kept), _breaking_or_digit)


def _breaking_or_digit(ch: str) -> bool:
    """A dropped tone number breaks the word: `Jingan2Beichen` still holds two names."""
    folded, breaking = fold_char(ch)
    return breaking or folded.isdigit()


@lru_cache(maxsize=1)
def _syllables() -> frozenset[str]:
    """Every toneless pinyin syllable with a vowel in `pypinyin`'s dictionary (ü as `v` and as `u`)."""
    from pypinyin.constants import PINYIN_DICT
    from pypinyin.contrib.tone_convert import to_normal

    toned = {reading for readings in PINYIN_DICT.values() for reading in readings.split(",")}
    plain = set(map(to_normal, toned))
    plain |= {syllable.replace("v", "u") for syllable in plain}
    return frozenset(s for s in plain if s.isascii() and s.isalpha() and any(v in s for v in "aeiouv"))


@lru_cache(maxsize=4096)
def _pinyin_spelled(letters: str) -> bool:
    """Whether `letters` is one or more whole pinyin syllables (`jingan`, not `hk`)."""
    syllables = _syllables()
    ends = {0}
    for end in range(1, len(letters) + 1):
        if any(
            letters[start:end] in syllables for start in range(max(0, end - _LONGEST_SYLLABLE), end) if start in ends
        ):
            ends.add(end)
    return len(letters) in ends


@dataclass(frozen=True)
class SpelledView(MatchView):
    """A view with each Chinese character spelled in toneless pinyin, as a word of its own.

    `origins[i]` is the index in `base.chars` that `chars[i]` spells or is; `spelled` holds the
    indices in `base.chars` of the characters spelled.
    """

    base: MatchView | None = None
    origins: tuple[int, ...] = ()
    spelled: frozenset[int] = frozenset()

    def broken_before(self, index: int) -> bool:
        if index <= 0 or index >= len(self.chars):
            return True
        left, right = self.origins[index - 1], self.origins[index]
        if left == right:
            return False
        if left in self.spelled or right in self.spelled or self.base is None:
            return True
        return self.base.broken_before(right)

    def mixes(self, start: int, end: int) -> bool:
        """Whether `chars[start:end]` holds both a spelled character and an ASCII letter as written."""
        spans = range(start, end)
        if not any(self.origins[index] in self.spelled for index in spans):
            return False
        return any(
            self.origins[index] not in self.spelled and self.chars[index] in string.ascii_lowercase for index in spans
        )


def spelled_view(view: MatchView, *, wanted: Callable[[str], bool] | None = None) -> SpelledView | None:
    """`view` with each Chinese character spelled by its most common toneless pinyin reading.

    None unless `view` holds both an ASCII letter and a Chinese character: only a span that
    mixes the two counts in this view (`Jing安`, `竞an`); the others see the rest. None too when
    `wanted` turns the spelled characters down (no alias could match them: skip the rest).
    """
    chars = view.chars
    if chars.isascii() or not _ASCII_LETTER.search(chars):
        return None
    if not _SPELLINGS_SEEN.issuperset(chars):
        for ch in set(chars).difference(_SPELLINGS_SEEN):
            if len(_SPELLINGS_SEEN) < CACHE_LIMIT:
                _SPELLINGS_SEEN.add(ch)
                reading = _reading(ch)
                if reading:
                    _SPELLINGS[ord(ch)] = reading
        if not _SPELLINGS_SEEN.issuperset(chars):  # the cache is full: spell this text on its own
            return _spelled(view, [_reading(ch) or ch for ch in chars], wanted)
    spelled_chars = chars.translate(_SPELLINGS)
    if spelled_chars == chars or (wanted is not None and not wanted(spelled_chars)):
        return None
    return _spelled(view, [_SPELLINGS.get(ord(ch), ch) for ch in chars], None)


def _spelled(view: MatchView, pieces: list[str], wanted: Callable[[str], bool] | None) -> SpelledView | None:
    chars = view.chars
    spelled_chars = "".join(pieces)
    if spelled_chars == chars or (wanted is not None and not wanted(spelled_chars)):
        return None
    spelled = frozenset(index for index, (ch, piece) in enumerate(zip(chars, pieces, strict=True)) if piece != ch)
    origins = tuple(index for index, piece in enumerate(pieces) for _ in piece)
    sources = tuple(map(view.sources.__getitem__, origins))
    return SpelledView(view.text, spelled_chars, sources, view.breaking, view, origins, spelled)


def key_spellings(key: str) -> tuple[str, ...]:
    """Every way `alias` reads with its Chinese characters spelled in toneless pinyin.

    Each reading of a polyphone counts (`景程` is `jingcheng` and `yingcheng`); past
    `_SPELLINGS_LIMIT` combinations, the most common reading of each character with each other
    reading of one character at a time. An alias with no Chinese character has its `evasion_key`.
    """
    options = [(_readings(ch) if not ch.isascii() else ()) or (ch,) for ch in key]
    if prod(map(len, options)) <= _SPELLINGS_LIMIT:
        combined = ["".join(choice) for choice in product(*options)]
    else:
        common = [option[0] for option in options]
        combined = ["".join(common)] + [
            "".join(common[:index]) + other + "".join(common[index + 1 :])
            for index, option in enumerate(options)
            for other in option[1:]
        ]
    return tuple(dict.fromkeys(combined))


# Each Chinese character seen (by code point) → its most common toneless pinyin reading, for
# `str.translate`; and every character looked up so far.
_SPELLINGS: dict[int, str] = {}
_SPELLINGS_SEEN: set[str] = set()


def _reading(ch: str) -> str:
    """The most common toneless pinyin reading of a Chinese character, else ""."""
    readings = _readings(ch) if not ch.isascii() else ()
    return readings[0] if readings else ""


@lru_cache(maxsize=CACHE_LIMIT)
def _readings(ch: str) -> tuple[str, ...]:
    """The toneless pinyin readings of a Chinese character, most common first (`行` is `xing`,
    `hang`, `heng`; `绿` is `lv`, `lu`, and `lu` again for `ü`); none for any other character."""
    from pypinyin import Style, pinyin

    found = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
    readings = ["".join(folds(reading)) for reading in (found[0] if found else [])]
    readings += [reading.replace("v", "u") for reading in readings if "v" in reading]
    return tuple(dict.fromkeys(reading for reading in readings if reading.isascii() and reading.isalpha()))
