"""The security gate's evasion-proof matching view (SPEC §1.4, §5).

Takes any text; returns a `MatchView` from which whatever a writer can change without changing
what a reader sees is gone:

- HTML entities are decoded, a bounded number of rounds (`&amp;#31454;` is `竞`);
- each character is mapped to its prototype in Unicode's confusables table (TR39, as shipped
  by `confusable_homoglyphs`), else to its NFKC form (the table comes first: `ϲ` looks like
  `c`, its NFKC form `ς` does not), made Simplified Chinese, casefolded and stripped of its
  marks (NFD, then no M* code point), until nothing changes: Cyrillic `Ј` is `j`, `Ｊ` is `j`;
- a capital letter is read as the ASCII capital it looks like and only then casefolded, so
  Greek `Ι` is `i` (the table folds `I` into `l`) and Greek `Η` is `h` (casefolding first would
  give `η`, which looks like `n`); other capitals are casefolded first;
- a decimal digit is the ASCII digit it looks like or stands for (`١` is `1`), unless it looks
  like a letter;
- default-ignorable code points (zero-width characters, variation selectors, Hangul fillers)
  vanish;
- separators, punctuation, symbols and emoji vanish too, but each leaves a break, so an ASCII
  alias still has to sit on a word boundary of the text as written (`Revenue of Jingan`, not
  `xjingan`).

ASCII characters are only casefolded: the table's prototype of `0` is `O` and of `I` is `l`,
which would glue digits to letters and turn `Jingan` into `jlngan`.

Invariants: a character's view never depends on its neighbours, and viewing a view changes
nothing, so an alias keyed through `gate_key` and a text seen through `gate_view` meet in one
space. Each character is folded once per process, then read from a cache.
"""

from __future__ import annotations

import html
import string
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress
from operator import itemgetter

import regex

from .matcher import MatchView
from .normalize import chinese_simplify

_ENTITY_ROUNDS = 4  # `&amp;amp;#31454;` takes three; a bound keeps a crafted input cheap
_FOLD_ROUNDS = 4  # a prototype may itself casefold or decompose; real characters settle in two
_CACHE_LIMIT = 1 << 16  # distinct characters remembered; past that they are folded each time
_DEFAULT_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_DISPLAY_MARKS = "\u200e\u200f"  # the package wraps right-to-left glyphs in these for display

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


def _fold_piece(ch: str, table: _Confusables) -> str:
    """One step of folding one (decomposed) character; `_fold_compute` repeats it to a fixed point."""
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    category = unicodedata.category(ch)
    if category[0] == "M" or _DEFAULT_IGNORABLE.match(ch):
        return ""
    prototype = table.prototypes.get(ch)
    if category == "Nd":
        # A digit is read as the ASCII digit it looks like or stands for (`١` is `1`, although
        # the table's prototype is `l`), unless it looks like a letter (Warang Citi nine is `C`).
        look = table.digits.get(prototype.casefold()) if prototype else None
        if look is None and prototype is not None and prototype.isascii():
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


def _fold_compute(ch: str) -> _Folded:
    if ch.isascii():
        return (ch.lower(), False) if ch.isalnum() else _BREAK
    category = unicodedata.category(ch)
    if category[0] == "M" or _DEFAULT_IGNORABLE.match(ch):
        return _VANISH
    # Classify by what the character is before any look-alike mapping: `∣` (a symbol that
    # looks like `l`) separates, whereas `ⓙ` (a symbol whose compatibility form is `j`) is a letter.
    if category[0] not in "LN" and not any(
        unicodedata.category(c)[0] in "LN" for c in unicodedata.normalize("NFKC", ch)
    ):
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


def _fold(ch: str) -> _Folded:
    folded = _FOLDED.get(ch)
    if folded is None:
        folded = _fold_compute(ch)
        if len(_FOLDED) < _CACHE_LIMIT:
            _FOLDED[ch] = folded
    return folded


def entities_decode(text: str) -> str:
    """`text` with its HTML entities decoded, also when escaped again or written full-width."""
    for _ in range(_ENTITY_ROUNDS):
        if not any(ampersand in text for ampersand in _ampersands()):
            break
        if not text.isascii():
            text = "".join(_ascii_form(ch) for ch in text)
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


@lru_cache(maxsize=1)
def _ampersands() -> tuple[str, ...]:
    """`&` and every character whose compatibility form holds one (`＆`)."""
    found = (chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    return tuple(ch for ch in found if "&" in unicodedata.normalize("NFKC", ch))


@lru_cache(maxsize=4096)
def _ascii_form(ch: str) -> str:
    """`ch`, or the ASCII character it is a compatibility form of (`＆` is `&`)."""
    compatible = unicodedata.normalize("NFKC", ch)
    return compatible if len(compatible) == 1 and compatible.isascii() else ch


def _breaking(ch: str) -> bool:
    return _fold(ch)[1]


def _folds(text: str) -> list[str]:
    """What each character of `text` adds to the view (the loop stays in C for cached ones)."""
    if not _FOLDED.keys() >= set(text):
        for ch in set(text).difference(_FOLDED):
            _fold(ch)
        if not _FOLDED.keys() >= set(text):  # the cache is full: fold this text on its own
            return [_fold(ch)[0] for ch in text]
    return list(map(_KEPT, map(_FOLDED.__getitem__, text)))


def gate_view(text: str) -> MatchView:
    """The evasion-proof view of `text`; `sources` index the entity-decoded text, `view.text`."""
    decoded = entities_decode(text)
    folds = _folds(decoded)
    chars = "".join(folds)
    sources = tuple(compress(range(len(folds)), folds))
    if len(sources) != len(chars):  # a character folded into several (`ß` is `ss`)
        sources = tuple(index for index, piece in enumerate(folds) for _ in piece)
    return MatchView(decoded, chars, sources, _breaking)


def gate_key(text: str) -> str:
    """The form an alias takes in the gate's view: every kept character, nothing between."""
    return "".join(_folds(entities_decode(text)))
