"""Text normalisation, shared by the parser, the security gate, the FAQ and retrieval.

Takes any string and returns a canonical form: NFKC (full-width → half-width), no zero-width
or other format/control characters, ASCII case folded, Traditional → Simplified Chinese, and
whitespace collapsed to single spaces. `compact_view` adds the whitespace-free view that the
glossary matcher and the security gate use, so `竞 安` cannot slip past them (the gate also
matches on the stricter view of `evasion_view`).

Invariant: `text_normalize` is idempotent.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_ASCII_FOLD = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})
_DROP_CATEGORIES = {"Cf", "Cs", "Co", "Cn"}


@lru_cache(maxsize=1)
def _converter() -> object:
    import opencc

    return opencc.OpenCC("t2s")


def chinese_simplify(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC `t2s`); anything else is left alone."""
    if text.isascii():
        return text
    converted: str = _converter().convert(text)  # type: ignore[attr-defined]
    return converted


def _strip_invisible(text: str) -> str:
    out = []
    for ch in text:
        if ch.isascii():
            out.append(" " if ch < " " or ch == "\x7f" else ch)
            continue
        cat = unicodedata.category(ch)
        if cat in _DROP_CATEGORIES:
            continue
        out.append(" " if cat == "Cc" else ch)
    return "".join(out)


def _pass(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _strip_invisible(text).translate(_ASCII_FOLD)
    text = chinese_simplify(text)
    text = unicodedata.normalize("NFKC", text)
    return " ".join(_strip_invisible(text).translate(_ASCII_FOLD).split())


# Pure, and asked again and again for the same text: every query variant, every retrieved
# passage and each of its sentences passes through it on every screened request.
@lru_cache(maxsize=8192)
def text_normalize(text: str) -> str:
    """Return the canonical form of `text` (idempotent)."""
    result = _pass(text)
    # Conversions can feed each other (a character that NFKC exposes may itself be
    # Traditional); iterate to the fixed point, which every real input reaches at once.
    for _ in range(3):
        again = _pass(result)
        if again == result:
            break
        result = again
    return result


def compact_view(normalized: str) -> tuple[str, list[int]]:
    """The whitespace-free view of a normalised string, with each character's index in it."""
    chars: list[str] = []
    positions: list[int] = []
    for index, ch in enumerate(normalized):
        if ch != " ":
            chars.append(ch)
            positions.append(index)
    return "".join(chars), positions


def is_ascii_word_char(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def ascii_word_continues(left: str, right: str) -> bool:
    """Whether `right` carries on the ASCII word `left` ends: two letters, or two digits.

    A letter next to a digit is a word boundary, so `HK` is found in `HK2025` but not in `HKEX`.
    """
    if not (left.isascii() and right.isascii()):
        return False
    return (left.isalpha() and right.isalpha()) or (left.isdigit() and right.isdigit())


def question_language(text: str) -> str:
    """`zh` when the question holds any CJK character, otherwise `en`."""
    for ch in text:
        if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff":
            return "zh"
    return "en"
