"""Folding one character at a time into what it looks like: the confusables table, styled letters, NFKC.

Each character becomes the characters it adds to the evasion view and whether it breaks a word
(see `core.evasion.view` for the rules); a character's fold never depends on its neighbours and
is computed once per process, then read from a cache. `confusables_fold` folds text the same way
but keeps spaces, punctuation and line breaks as written, for screens that read words.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

import regex

from core.language.normalize import chinese_simplify

_FOLD_ROUNDS = 4  # a prototype may itself casefold or decompose; real characters settle in two
CACHE_LIMIT = 1 << 16  # distinct characters remembered; past that they are folded each time
_DEFAULT_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_DISPLAY_MARKS = "\u200e\u200f"  # the package wraps right-to-left glyphs in these for display
# A letter in some styling, as its Unicode name says: `LATIN LETTER SMALL CAPITAL J`, `NEGATIVE
# SQUARED LATIN CAPITAL LETTER J`, `REGIONAL INDICATOR SYMBOL LETTER J`, `MATHEMATICAL BOLD SMALL J`,
# `LATIN SMALL LETTER J WITH CROSSED-TAIL`. Any wrapper may come first (`CIRCLED`, `PARENTHESIZED`);
# between the script and the letter only words that keep its shape may stand, so `TURNED`,
# `REVERSED`, `OPEN` or `INSULAR` letters (`ǝ`, `ᴎ`, `ɛ`) are left to the confusables table.
_STYLE_WORD = (
    "CAPITAL|SMALL|LETTER|SYMBOL|SUBSCRIPT|SUPERSCRIPT|DOTLESS|SCRIPT|BLACKLETTER|BOLD|ITALIC|FRAKTUR"
    "|DOUBLE-STRUCK|SANS-SERIF|MONOSPACE"
)
_NAMED_LETTER = re.compile(
    rf"(?:[A-Z-]+ )*?(?:LATIN|MATHEMATICAL|REGIONAL INDICATOR|MODIFIER) (?:(?:{_STYLE_WORD}) )*"
    r"([A-Z])(?: WITH (?!.*\bLETTER\b).+)?"
)
# What one character becomes: the characters it adds to the view, and whether it breaks a word.
_Folded = tuple[str, bool]
_KEPT = itemgetter(0)
_VANISH: _Folded = ("", False)
_BREAK: _Folded = ("", True)


@dataclass(frozen=True)
class _Confusables:
    prototypes: dict[str, str]  # each non-ASCII character the table lists → its prototype
    capitals: dict[str, str]  # a prototype → the ASCII capital letter that looks like it
    digits: dict[str, str]  # a casefolded prototype → the ASCII digit that looks like it


@lru_cache(maxsize=1)
def _confusables() -> _Confusables:
    """Unicode's confusables table, read from the data `confusable_homoglyphs` ships.

    The package stores the table as an undirected graph: a source points at its prototype and a
    prototype at all its sources, so each component is a star around its prototype (its only
    node with more than one neighbour). A lone pair has no centre; its NFKC-stable, then ASCII,
    then lower side stands in, so the choice is the same on every run.
    """
    from confusable_homoglyphs.confusables import confusables_data

    neighbours: defaultdict[str, set[str]] = defaultdict(set)
    for glyph, entries in confusables_data.items():
        source = glyph.strip(_DISPLAY_MARKS)
        for entry in entries:
            other = entry["c"].strip(_DISPLAY_MARKS)
            if source and other and source != other:
                neighbours[source].add(other)
                neighbours[other].add(source)

    def rank(glyph: str) -> tuple[bool, bool, str]:
        return unicodedata.normalize("NFKC", glyph) != glyph, not glyph.isascii(), glyph

    def prototype(glyph: str) -> str:
        near = neighbours.get(glyph, set())
        if len(near) != 1:
            return glyph
        (other,) = near
        return other if len(neighbours[other]) > 1 or rank(other) < rank(glyph) else glyph

    prototypes = {
        glyph: prototype(glyph)
        for glyph in neighbours
        if len(glyph) == 1 and not glyph.isascii() and prototype(glyph) != glyph
    }
    capitals = {prototype(letter): letter for letter in string.ascii_uppercase}
    digits = {prototype(digit).casefold(): digit for digit in string.digits}
    return _Confusables(prototypes, capitals, digits)


def named_letter(ch: str) -> str | None:
    """The ASCII letter `ch` is a styled form of by its Unicode name (`🅹` is `j`), else None."""
    named = _NAMED_LETTER.fullmatch(unicodedata.name(ch, ""))
    return named.group(1).lower() if named else None


def _fold_piece(ch: str, table: _Confusables) -> str:
    """One step of folding one (decomposed) character; `_fold_compute` repeats it to a fixed point."""
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    category = unicodedata.category(ch)
    if category[0] == "M" or _DEFAULT_IGNORABLE.match(ch):
        return ""
    prototype = table.prototypes.get(ch)
    if prototype is not None and category[0] in "LN" and _symbol_only(prototype):
        # A letter is never a symbol: the table's prototype of `长` is the radical `⻓`, of `门` `⻔`.
        prototype = None
    # A letter named as a styled Latin letter is that letter, unless the table already reads it
    # as one (`ʋ`, V WITH HOOK, looks like `u`): `ᴋ` is `k` (the table's prototype is `ĸ`), `𝐦`
    # is `m` (not `rn`), and the table's `ʙ` for Cyrillic `в` is read on as `b`.
    named = named_letter(ch)
    if named is not None and not (prototype and len(prototype) == 1 and prototype.isascii() and prototype.isalpha()):
        return named
    if category == "Nd":
        # A digit is read as the ASCII digit it looks like or stands for (`١` is `1`, although
        # the table's prototype is `l`), unless it looks like a letter (Warang Citi nine is `C`).
        look = table.digits.get(prototype.casefold()) if prototype else None
        if look is None and prototype is not None and prototype.isascii() and prototype.isalnum():
            look = prototype.lower()
        return look or str(unicodedata.decimal(ch))
    lower = ch.casefold()
    if prototype is not None:
        if category not in ("Lu", "Lt"):
            return prototype
        # A capital is read as what it looks like, not as its lowercase: Greek `Η` is `H` (its
        # `η` looks like `n`) and `Ƅ` is `b`. The table folds `I` into `l`, but a capital reads
        # as `I`. A capital that looks like nothing in ASCII is casefolded first.
        look = table.capitals.get(prototype) or (prototype if prototype.isascii() else None)
        if look is not None:
            return look.lower()
        return lower if lower != ch else prototype
    # The table comes before compatibility folding: `ϲ` looks like `c`, its NFKC form `ς` does not.
    compatible = unicodedata.normalize("NFKC", ch)
    if compatible != ch:
        return compatible
    if lower != ch:
        return lower
    return ch if category[0] in "LN" else ""


def _symbol_only(text: str) -> bool:
    """Whether `text` holds a symbol and no letter or digit (`⻓`, `∂̵`)."""
    categories = [unicodedata.category(ch)[0] for ch in text]
    return "S" in categories and "L" not in categories and "N" not in categories


def reads_as_letters(ch: str) -> bool:
    """Whether `ch` is a letter or digit, or a symbol whose compatibility form holds one (`ⓙ`)."""
    if unicodedata.category(ch)[0] in "LN":
        return True
    return any(unicodedata.category(c)[0] in "LN" for c in unicodedata.normalize("NFKC", ch))


def _fold_compute(ch: str) -> _Folded:
    if ch.isascii():
        return (ch.lower(), False) if ch.isalnum() else _BREAK
    category = unicodedata.category(ch)
    if category[0] == "M" or _DEFAULT_IGNORABLE.match(ch):
        return _VANISH
    # Classify by what the character is before any look-alike mapping: `∣` (a symbol that
    # looks like `l`) separates, whereas `ⓙ` (a symbol whose compatibility form is `j`) is a letter.
    # A symbol named as a letter (`🅹`, `🇯`) is that letter; `evasion_views` also reads it as a symbol.
    if not reads_as_letters(ch) and named_letter(ch) is None:
        return _BREAK
    table = _confusables()
    folded = ch
    for _ in range(_FOLD_ROUNDS):
        pieces = unicodedata.normalize("NFD", chinese_simplify(folded))
        again = "".join(_fold_piece(piece, table) for piece in pieces)
        if again == folded:
            break
        folded = again
    return (folded, False) if folded else _BREAK


_FOLDED: dict[str, _Folded] = {chr(c): _fold_compute(chr(c)) for c in range(128)}


def fold_char(ch: str) -> _Folded:
    folded = _FOLDED.get(ch)
    if folded is None:
        folded = _fold_compute(ch)
        if len(_FOLDED) < CACHE_LIMIT:
            _FOLDED[ch] = folded
    return folded


def breaking(ch: str) -> bool:
    return fold_char(ch)[1]


def folds(text: str) -> list[str]:
    """What each character of `text` adds to the view (the loop stays in C for cached ones)."""
    if not _FOLDED.keys() >= set(text):
        for ch in set(text).difference(_FOLDED):
            fold_char(ch)
        if not _FOLDED.keys() >= set(text):  # the cache is full: fold this text on its own
            return [fold_char(ch)[0] for ch in text]
    return list(map(_KEPT, map(_FOLDED.__getitem__, text)))


def confusables_fold(text: str) -> str:
    """`text` with each character folded as the gate folds it, keeping where words break.

    Look-alikes become their prototype, letters styled by name their ASCII letter, marks and
    invisible characters vanish, and the rest is casefolded, as in `evasion_view`; but spaces,
    punctuation, symbols and line breaks stay as written, one for one, so other screens (a
    model being given orders) can read words: `Ｉɢɴᴏʀᴇ pr\u0435vious` is `ignore previous`.
    Nothing is decoded, so each character gives at most a few (`ß` gives `ss`).
    """
    folded = map(fold_char, text)
    return "".join(kept if kept or not breaks else ch for ch, (kept, breaks) in zip(text, folded, strict=True))
