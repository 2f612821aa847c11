"""The evasion-proof matching view the security gate and the screens compare names in.

Takes any text; returns a `MatchView` from which whatever a writer can change without changing
what a reader sees is gone:

- what a reader or a model decodes at sight is decoded, each inside the others, a bounded number
  of rounds: HTML entities (`&amp;#31454;` is `竞`), percent-encoded UTF-8 (`%E7%AB%9E`) and
  `\\u7ade`, `\\U00007ade`, `\\u{7ade}`, `\\xe7\\xab\\x9e` escapes, only where they are valid
  (base64 and the like need a tool, and are left alone); markup tags and comments become blanks
  (`竞<b>安</b>` is `竞安`; `收入<100亿` is no tag);
- each character is mapped to its prototype in Unicode's confusables table (TR39, as shipped
  by `confusable_homoglyphs`), else to its NFKC form (the table comes first: `ϲ` looks like
  `c`, its NFKC form `ς` does not), made Simplified Chinese, casefolded and stripped of its
  marks (NFD, then no M* code point), until nothing changes: Cyrillic `Ј` is `j`, `Ｊ` is `j`.
  A letter or digit never becomes a mere symbol: the table's prototype of `长` is the radical
  `⻓`, and is ignored;
- a letter whose Unicode name says it is a Latin letter in some styling is that ASCII letter:
  small capitals (`ᴊ`), negative squared or circled letters (`🅹`, `🅙`), regional indicators
  (`🇯`), parenthesized, squared and mathematical letters, and letters "WITH" a hook or stroke
  (`ʝ`); words that change the shape (`TURNED`, `REVERSED`, `OPEN`) keep it out (`ǝ` is not `e`).
  Where the table already reads it as an ASCII letter, the table wins (`ʋ` looks like `u`);
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

Some text reads two ways, and `evasion_views` adds a view for each other way, built only when the
text holds what makes it (aliases are refused if they hit in any view):

- the display order, by the Unicode bidirectional algorithm (UAX #9, `python-bidi`) in a
  left-to-right and in a right-to-left paragraph, when bidi controls or right-to-left letters
  can reorder the text: `\\u202e安竞\\u202c` shows `竞安`, as do an isolate or an embedding split
  by an invisible right-to-left mark;
- symbols named as letters read as symbols: `北🇨🇳辰` is 北, a flag, 辰;
- pinyin tone numbers dropped, each leaving a break (`Jing4an1` is `Jing an`): a digit 1–5 right
  after ASCII letters that spell whole pinyin syllables (per `pypinyin`'s dictionary), followed
  by the end of the run or by more whole syllables; `Q4`, `HK1`, `H1N1`, `A1B`, `FY2025` keep
  theirs. Only this view drops them, so an alias holding a digit is still found in the others.

A name may also be written half in pinyin (`Jing安`, `竞an`, `Hua鼎`). `spelled_view` reads a view
with each Chinese character spelled by its most common toneless pinyin reading (`pypinyin`),
each as a word of its own, and `spelled_keys` spells an alias in every reading of its
polyphones (`景程` is `jingcheng` and `yingcheng`). A hit there counts only when its span mixes
spelled characters and ASCII letters as written: `静安` (a homophone of 竞安) or `京城` in
characters alone is another name, and letters alone are for the other views.

ASCII characters are only casefolded: the table's prototype of `0` is `O` and of `I` is `l`,
which would glue digits to letters and turn `Jingan` into `jlngan`.

Invariants: a character's view never depends on its neighbours, and viewing a view changes
nothing, so an alias keyed through `evasion_key` and a text seen through `evasion_view` meet in one
space. Each character is folded once per process, then read from a cache.

`confusables_fold` folds text character by character the same way but keeps spaces,
punctuation and line breaks as written, for screens that read words (instructions to a model).
"""

from __future__ import annotations

import html
import re
import string
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, product
from math import prod
from operator import itemgetter

import regex

from core.language.matcher import MatchView
from core.language.normalize import chinese_simplify

# A markup tag or comment between an alias's characters hides nothing: `竞<b>安</b>` is `竞安`. A tag
# starts with a letter, `/` or `!`, so a comparison (`收入<100亿 且 >50亿`) is not one.
_MARKUP = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]{0,80}>", re.DOTALL)
_ENTITY_ROUNDS = 4  # `&amp;amp;#31454;` takes three; a bound keeps a crafted input cheap
_DECODE_ROUNDS = 4  # entities, percent-encoding and escapes inside one another (`%25E7`, `&#92;u7ade`)
_FOLD_ROUNDS = 4  # a prototype may itself casefold or decompose; real characters settle in two
_CACHE_LIMIT = 1 << 16  # distinct characters remembered; past that they are folded each time
_DEFAULT_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_SYMBOL = regex.compile(r"\p{S}")
# What can make the display order differ from the logical one: right-to-left letters and the
# explicit embeddings, overrides and isolates (UAX #9). A paragraph ends at a paragraph separator.
_REORDERING = regex.compile(
    r"[\p{Bidi_Class=R}\p{Bidi_Class=AL}\p{Bidi_Class=RLE}\p{Bidi_Class=RLO}"
    r"\p{Bidi_Class=RLI}\p{Bidi_Class=LRE}\p{Bidi_Class=LRO}\p{Bidi_Class=LRI}\p{Bidi_Class=FSI}"
    r"\p{Bidi_Class=PDF}\p{Bidi_Class=PDI}]"
)
_BIDI_CONTROL = regex.compile(r"\p{Bidi_Control}")
_PARAGRAPHS = regex.compile(r"(\p{Bidi_Class=B})")
_TONE_HINT = re.compile(r"[a-z][1-5]")
_ASCII_LETTER = re.compile(r"[a-z]")
_LONGEST_SYLLABLE = 6  # `zhuang`
_LONGEST_RUN = 4 * _LONGEST_SYLLABLE  # letters read around a tone number, at most
_SPELLINGS_LIMIT = 64  # readings of an alias's polyphones, all combined up to this many
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_BYTE_RUN = re.compile(r"(?:\\x[0-9A-Fa-f]{2})+")
_CODE_POINT = re.compile(
    r"\\u([dD][89abAB][0-9A-Fa-f]{2})\\u([dD][c-fC-F][0-9A-Fa-f]{2})"  # a UTF-16 surrogate pair
    r"|\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})"
)
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


def _named_letter(ch: str) -> str | None:
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
    named = _named_letter(ch)
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


def _reads_as_letters(ch: str) -> bool:
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
    if not _reads_as_letters(ch) and _named_letter(ch) is None:
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


def escapes_decode(text: str) -> str:
    """`text` with one level of percent-encoding and backslash escapes decoded.

    Percent-encoded UTF-8 (`%E7%AB%9E` is `竞`) and `\\uXXXX`, `\\u{X…}` and `\\UXXXXXXXX` code
    points decode; a run of `\\xXX` is read as UTF-8 bytes where they make characters and as
    code points otherwise (`J\\xedngan`). Anything that is no valid sequence stays as written:
    a truncated or invalid UTF-8 sequence, a lone surrogate, a code point past U+10FFFF.
    """
    if "%" in text:
        text = _PERCENT_RUN.sub(lambda run: _utf8_decode(run.group(0), 3, keep_invalid=True), text)
    if "\\" in text:
        text = _BYTE_RUN.sub(lambda run: _utf8_decode(run.group(0), 4, keep_invalid=False), text)
        text = _CODE_POINT.sub(_code_point, text)
    return text


def _utf8_decode(run: str, width: int, *, keep_invalid: bool) -> str:
    """A run of `width`-character byte escapes (`%E7`, `\\xe7`), read as UTF-8 where it is valid."""
    data = bytes.fromhex("".join(run[index + width - 2 : index + width] for index in range(0, len(run), width)))
    out: list[str] = []
    at = 0
    for ch in data.decode("utf-8", "surrogateescape"):
        if "\udc80" <= ch <= "\udcff":  # a byte that starts or continues no valid sequence
            out.append(run[at : at + width] if keep_invalid else chr(ord(ch) - 0xDC00))
            at += width
        else:
            out.append(ch)
            at += width * len(ch.encode("utf-8"))
    return "".join(out)


def _code_point(escape: re.Match[str]) -> str:
    high, low, braced, short, long = escape.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    value = int(braced or short or long, 16)
    if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return escape.group(0)
    return chr(value)


def reader_decode(text: str) -> str:
    """`text` as a reader or a model decodes it at sight: entities, percent-encoding, escapes.

    Each is decoded inside the others, a bounded number of rounds (`%25E7%25AB%259E` is `竞`
    after two). Base64 and other encodings that need a tool are left alone.
    """
    for _ in range(_DECODE_ROUNDS):
        decoded = escapes_decode(entities_decode(text))
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


def markup_blank(text: str) -> str:
    """`text` with each markup tag or comment turned into as many spaces (indices stay put)."""
    if "<" not in text:
        return text
    return _MARKUP.sub(lambda tag: " " * len(tag.group(0)), text)


def evasion_view(text: str) -> MatchView:
    """The evasion-proof view of `text`; `sources` index the decoded text, `view.text`."""
    return _fold_view(markup_blank(reader_decode(text)))


def evasion_views(text: str) -> tuple[MatchView, ...]:
    """Every view of `text` the gate matches `evasion_key` aliases in, `evasion_view(text)` first.

    A reader may see some text two ways; each other way is one more view, built only when the
    text holds what makes it: the text in display order when bidi controls or right-to-left
    letters may reorder it (`\\u202e安竞\\u202c` shows `竞安`), and, in each order, with the
    symbols named as letters read as symbols (`北🇨🇳辰` is 北, a flag, 辰); and each of those with
    pinyin tone numbers dropped (`Jing4an1` is `Jing an`).
    """
    decoded = markup_blank(reader_decode(text))
    texts = [decoded, *display_orders(decoded)]
    texts += [other for other in map(_symbols_as_symbols, texts) if other is not None]
    views = [_fold_view(each) for each in dict.fromkeys(texts)]
    views += [toneless for toneless in map(_toneless, views) if toneless is not None]
    return tuple(views)


def display_orders(text: str) -> list[str]:
    """`text` as a reader sees it, left to right, in a left-to-right and in a right-to-left
    paragraph (the Unicode bidirectional algorithm, UAX #9), each that differs from `text`.

    Empty unless `text` holds an explicit embedding, override or isolate, or a right-to-left
    letter. The bidi controls are dropped from the result: they have done their work.
    """
    if text.isascii() or not _REORDERING.search(text):
        return []
    from bidi import get_display  # the algorithm, in the Rust `unicode-bidi` crate

    paragraphs = _PARAGRAPHS.split(text)
    orders = []
    for direction in ("L", "R"):
        shown = "".join(
            get_display(paragraph, base_dir=direction) if _REORDERING.search(paragraph) else paragraph
            for paragraph in paragraphs
        )
        orders.append(_BIDI_CONTROL.sub("", shown))
    return [order for order in dict.fromkeys(orders) if order != text]


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


def _toneless(view: MatchView) -> MatchView | None:
    """`view` with its pinyin tone numbers dropped, each leaving a break; None when it has none."""
    marks = set(tone_marks(view))
    if not marks:
        return None
    kept = [index for index in range(len(view.chars)) if index not in marks]
    chars = "".join(view.chars[index] for index in kept)
    return MatchView(view.text, chars, tuple(view.sources[index] for index in kept), _breaking_or_digit)


def _breaking_or_digit(ch: str) -> bool:
    """A dropped tone number breaks the word: `Jingan2Beichen` still holds two names."""
    folded, breaking = _fold(ch)
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
            if len(_SPELLINGS_SEEN) < _CACHE_LIMIT:
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


def spelled_keys(alias: str) -> tuple[str, ...]:
    """Every way `alias` reads with its Chinese characters spelled in toneless pinyin.

    Each reading of a polyphone counts (`景程` is `jingcheng` and `yingcheng`); past
    `_SPELLINGS_LIMIT` combinations, the most common reading of each character with each other
    reading of one character at a time. An alias with no Chinese character has its `evasion_key`.
    """
    options = [(_readings(ch) if not ch.isascii() else ()) or (ch,) for ch in evasion_key(alias)]
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


@lru_cache(maxsize=_CACHE_LIMIT)
def _readings(ch: str) -> tuple[str, ...]:
    """The toneless pinyin readings of a Chinese character, most common first (`行` is `xing`,
    `hang`, `heng`; `绿` is `lv`, `lu`, and `lu` again for `ü`); none for any other character."""
    from pypinyin import Style, pinyin

    found = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
    readings = ["".join(_folds(reading)) for reading in (found[0] if found else [])]
    readings += [reading.replace("v", "u") for reading in readings if "v" in reading]
    return tuple(dict.fromkeys(reading for reading in readings if reading.isascii() and reading.isalpha()))


def _fold_view(decoded: str) -> MatchView:
    folds = _folds(decoded)
    chars = "".join(folds)
    sources = tuple(compress(range(len(folds)), folds))
    if len(sources) != len(chars):  # a character folded into several (`ß` is `ss`)
        sources = tuple(index for index, piece in enumerate(folds) for _ in piece)
    return MatchView(decoded, chars, sources, _breaking)


@lru_cache(maxsize=4096)
def _symbol_letter(ch: str) -> bool:
    """Whether `ch` is a symbol the view reads as a letter only by its name (`🅹`, `🇯`)."""
    return _named_letter(ch) is not None and not _reads_as_letters(ch)


def _symbols_as_symbols(text: str) -> str | None:
    """`text` with each symbol named as a letter blanked, or None when it holds none."""
    if text.isascii() or not any(map(_symbol_letter, _SYMBOL.findall(text))):
        return None
    return _SYMBOL.sub(lambda found: " " if _symbol_letter(found.group(0)) else found.group(0), text)


def confusables_fold(text: str) -> str:
    """`text` with each character folded as the gate folds it, keeping where words break.

    Look-alikes become their prototype, letters styled by name their ASCII letter, marks and
    invisible characters vanish, and the rest is casefolded, as in `evasion_view`; but spaces,
    punctuation, symbols and line breaks stay as written, one for one, so other screens (a
    model being given orders) can read words: `Ｉɢɴᴏʀᴇ pr\u0435vious` is `ignore previous`.
    Nothing is decoded, so each character gives at most a few (`ß` gives `ss`).
    """
    folded = map(_fold, text)
    return "".join(kept if kept or not breaking else ch for ch, (kept, breaking) in zip(text, folded, strict=True))


def evasion_key(text: str) -> str:
    """The form an alias takes in the gate's view: every kept character, nothing between."""
    return "".join(_folds(markup_blank(reader_decode(text))))
