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

The parts live beside this module: `decode` (entities, escapes, markup), `fold` (one character's
fold, the confusables table), `bidi` (display order) and `pinyin` (tone numbers, spelled views);
this module puts them together into the views the gates match in.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress

import regex

from core.evasion.bidi import display_orders
from core.evasion.decode import entities_decode, escapes_decode, markup_blank, reader_decode
from core.evasion.fold import breaking, confusables_fold, folds, named_letter, reads_as_letters
from core.evasion.pinyin import SpelledView, key_spellings, spelled_view, tone_marks, toneless
from core.language.matcher import MatchView

__all__ = [
    "SpelledView",
    "confusables_fold",
    "display_orders",
    "entities_decode",
    "escapes_decode",
    "evasion_key",
    "evasion_view",
    "evasion_views",
    "markup_blank",
    "reader_decode",
    "spelled_keys",
    "spelled_view",
    "tone_marks",
]

_SYMBOL = regex.compile(r"\p{S}")


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
    views += [dropped for dropped in map(toneless, views) if dropped is not None]
    return tuple(views)


def _fold_view(decoded: str) -> MatchView:
    pieces = folds(decoded)
    chars = "".join(pieces)
    sources = tuple(compress(range(len(pieces)), pieces))
    if len(sources) != len(chars):  # a character folded into several (`ß` is `ss`)
        sources = tuple(index for index, piece in enumerate(pieces) for _ in piece)
    return MatchView(decoded, chars, sources, breaking)


@lru_cache(maxsize=4096)
def _symbol_letter(ch: str) -> bool:
    """Whether `ch` is a symbol the view reads as a letter only by its name (`🅹`, `🇯`)."""
    return named_letter(ch) is not None and not reads_as_letters(ch)


def _symbols_as_symbols(text: str) -> str | None:
    """`text` with each symbol named as a letter blanked, or None when it holds none."""
    if text.isascii() or not any(map(_symbol_letter, _SYMBOL.findall(text))):
        return None
    return _SYMBOL.sub(lambda found: " " if _symbol_letter(found.group(0)) else found.group(0), text)


def evasion_key(text: str) -> str:
    """The form an alias takes in the gate's view: every kept character, nothing between."""
    return "".join(folds(markup_blank(reader_decode(text))))


def spelled_keys(alias: str) -> tuple[str, ...]:
    """Every way `alias` reads with its Chinese characters spelled in toneless pinyin (`key_spellings`)."""
    return key_spellings(evasion_key(alias))
