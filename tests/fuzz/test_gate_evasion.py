"""Fuzzing the security gate with evasions of every alias of the demo glossary.

Every external alias, however it is disguised (look-alike letters drawn from Unicode's
confusables table, letters styled by name (small capitals, negative squared and circled letters,
regional indicators), marks, invisible characters, separators between its characters, full
width, Traditional characters, case, HTML entities, percent-encoding and backslash escapes,
pinyin with tone numbers, half pinyin and half characters, a bidi override or embedding that
shows it in reverse, digits glued on), is refused; every alias of the home company's own
entities, disguised the same ways, is not; and an ASCII alias glued to more letters (`HKEX`,
`research`) is not found. Each property runs over the checked-in corpus (`corpus/gate_*.jsonl`)
and over inputs Hypothesis generates with a fixed seed.
"""

from __future__ import annotations

import html.entities
import json
import string
import unicodedata
from collections.abc import Callable
from pathlib import Path

import opencc
import pytest
import regex
from confusable_homoglyphs.confusables import confusables_data
from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import Style, lazy_pinyin, pinyin

from core.gates.security import external_mentions, security_screen
from core.language.normalize import text_normalize
from tests.fakes import demo_glossary

CORPUS = Path(__file__).parent / "corpus"
FUZZ = settings(max_examples=400, derandomize=True, deadline=None, database=None)
GLOSSARY = demo_glossary()


def corpus(name: str) -> list[str]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def aliases_where(keep: Callable[[str, str], bool]) -> list[str]:
    records = {"entity": GLOSSARY.entities, "metric": GLOSSARY.metrics, "channel": GLOSSARY.channels}
    return sorted(
        {
            text
            for kind, codes in records.items()
            for code in codes
            if keep(kind, code)
            for text in [code, *GLOSSARY.aliases_of(kind, code)]
        }
    )


EXTERNAL = aliases_where(lambda kind, code: kind == "entity" and GLOSSARY.is_external(code))
OWN = aliases_where(lambda kind, code: not (kind == "entity" and GLOSSARY.is_external(code)))
ASCII_WORDS = sorted(a for a in EXTERNAL + OWN if a.isascii() and a.isalpha())
REFUSED = corpus("gate_refused.jsonl")
ALLOWED = corpus("gate_allowed.jsonl")


def reads_as_letters(glyph: str) -> bool:
    return any(unicodedata.category(c)[0] in "LN" for c in unicodedata.normalize("NFKC", glyph))


def homoglyphs_of(ch: str) -> list[str]:
    """The non-ASCII glyphs the confusables table lists beside `ch`, as they stand."""
    found = set()
    for entry in confusables_data.get(ch, []):
        glyph = entry["c"].strip("\u200e\u200f")
        if len(glyph) == 1 and not glyph.isascii() and reads_as_letters(glyph):
            found.add(glyph)
    return sorted(found)


HOMOGLYPHS = {
    form: homoglyphs_of(form)
    for alias in EXTERNAL + OWN
    for ch in alias
    for form in {ch, ch.upper(), ch.lower()}
    if homoglyphs_of(form)
}
# Letters styled by name, found by name here (not by the gate's own rule): `ᴊ`, `🅹`, `🅙`, `🇯`, `🄹`.
STYLED_NAME = regex.compile(
    r"(?:LATIN LETTER SMALL CAPITAL|(?:NEGATIVE )?(?:SQUARED|CIRCLED) LATIN CAPITAL LETTER"
    r"|REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])"
)
STYLED: dict[str, list[str]] = {}
for _code in range(0x80, 0x20000):
    if _styled := STYLED_NAME.fullmatch(unicodedata.name(chr(_code), "")):
        STYLED.setdefault(_styled.group(1), []).append(chr(_code))
TO_TRADITIONAL = opencc.OpenCC("s2t")
IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
BIDI_CONTROL = regex.compile(r"\p{Bidi_Control}")
INVISIBLES = IGNORABLE.findall("".join(map(chr, range(0x10000))) + "".join(map(chr, range(0xE0000, 0xE1000))))
# Inside a reversed segment, no control that would change the order a reader sees.
STEADY_INVISIBLES = [ch for ch in INVISIBLES if not BIDI_CONTROL.match(ch)]
MARKS = st.characters(categories=["Mn", "Me", "Mc"])
SEPARATORS = st.characters(categories=["Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs"]).filter(
    # Neither a symbol that reads as a letter (`ⓙ`) nor anything that starts an entity or an escape.
    lambda ch: not reads_as_letters(ch) and not {"&", "%", "\\"} & set(unicodedata.normalize("NFKC", ch))
)
BETWEEN = st.one_of(st.just(""), st.just(" "), SEPARATORS, st.sampled_from(INVISIBLES))
STEADY_BETWEEN = st.one_of(st.just(""), st.just(" "), SEPARATORS, st.sampled_from(STEADY_INVISIBLES))
TONES = st.sampled_from("12345").flatmap(
    lambda d: st.sampled_from([d, chr(ord(d) + 0xFEE0), "¹²³⁴⁵"[int(d) - 1]])  # plain, full width, superscript
)
PREFIXES = st.sampled_from(["", "请问", "Revenue of ", "2025年", "(", "What is ", "2025"])
SUFFIXES = st.sampled_from(["", "的营收是多少", " revenue", "2025年营收", "?", "2025", "»"])


def entity_encode(ch: str, form: int) -> str:
    name = html.entities.codepoint2name.get(ord(ch))
    return [f"&#{ord(ch)};", f"&#x{ord(ch):x};", f"&{name};" if name else ch, f"&amp;#{ord(ch)};"][form]


def escape_encode(ch: str, form: int) -> str:
    """`ch` as a reader or a model decodes it at sight: percent-encoded, `\\u`, `\\U`, `\\u{}`, `\\x` bytes."""
    data = ch.encode("utf-8")
    if form == 0:
        return "".join(f"%{byte:02X}" for byte in data)
    if form == 1:
        return "".join(f"%25{byte:02x}" for byte in data)  # percent-encoded twice
    if form == 2:
        units = ch.encode("utf-16-be")
        return "".join(f"\\u{int.from_bytes(units[i : i + 2]):04x}" for i in range(0, len(units), 2))
    if form == 3:
        return f"\\U{ord(ch):08X}"
    if form == 4:
        return f"\\u{{{ord(ch):x}}}"
    return "".join(f"\\x{byte:02x}" for byte in data)


@st.composite
def disguised_character(draw: st.DrawFn, ch: str, *, steady: bool = False) -> str:
    ch = draw(st.sampled_from([ch, ch.upper(), ch.lower()]))
    if ch in HOMOGLYPHS and draw(st.booleans()):
        ch = draw(st.sampled_from(HOMOGLYPHS[ch]))  # after the case: `Ν` looks like `N`, `ν` like `v`
    elif ch.isascii() and ch.isalpha() and draw(st.integers(0, 3)) == 0:
        ch = draw(st.sampled_from(STYLED[ch.upper()]))
    if "!" <= ch <= "~" and draw(st.booleans()):
        ch = chr(ord(ch) + 0xFEE0)  # the full-width form
    encoding = draw(st.integers(0, 7))
    if encoding == 0:
        ch = entity_encode(ch, draw(st.integers(0, 3)))
    elif encoding == 1:
        ch = escape_encode(ch, draw(st.integers(0, 5)))
    invisibles = STEADY_INVISIBLES if steady else INVISIBLES
    return ch + "".join(draw(st.lists(st.one_of(MARKS, st.sampled_from(invisibles)), max_size=2)))


SYLLABLES = {  # an ASCII alias that is the pinyin of a Chinese one → its syllables
    alias: syllables
    for alias in EXTERNAL + OWN
    for other in EXTERNAL + OWN
    if alias.isascii()
    and not other.isascii()
    and "".join(syllables := lazy_pinyin(other, style=Style.NORMAL)) == alias.lower()
}


@st.composite
def spelled(draw: st.DrawFn, alias: str) -> list[str]:
    """`alias` as a reader would still read it, one piece per character written: as it is, in
    pinyin syllables with tone numbers (`Jing4an1`), or half in pinyin (`Jing安`, `竞an`)."""
    way = draw(st.integers(0, 3))
    if way == 1 and alias in SYLLABLES:
        pieces = []
        for syllable in SYLLABLES[alias]:
            pieces += list(syllable)
            if draw(st.booleans()):
                pieces[-1] += draw(TONES)
        return pieces
    if way == 2 and len(alias) > 1 and any(pinyin(ch, errors="ignore") for ch in alias):
        keep = draw(
            st.lists(st.booleans(), min_size=len(alias), max_size=len(alias)).filter(lambda k: 0 < sum(k) < len(k))
        )
        pieces = []
        for ch, kept in zip(alias, keep, strict=True):
            readings = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
            if kept or not readings:
                pieces.append(ch)
                continue
            style = draw(st.sampled_from([Style.NORMAL, Style.TONE, Style.TONE3]))
            # The reading a reader would give it (the gate reads no rarer one): `華` is `hua`, not `kua`.
            reading = pinyin(ch, style=style)[0][0]
            letters = [c for c in reading if not c.isdigit()]
            letters[-1] += "".join(c for c in reading if c.isdigit())
            pieces += [draw(st.sampled_from([c, c.upper()])) for c in letters]
        return pieces
    return list(alias)


@st.composite
def disguised(draw: st.DrawFn, alias: str, *, glue_digits: bool = True) -> str:
    if draw(st.booleans()):
        alias = TO_TRADITIONAL.convert(alias)
    pieces = draw(spelled(alias))
    order = draw(st.integers(0, 5))  # 0: as written; 1: reversed in an override; 2: in an embedding
    steady = order in (1, 2)
    out = []  # what a reader sees as one character each, in the order written
    for index, piece in enumerate(pieces):
        if index:
            out.append(draw(STEADY_BETWEEN if steady else BETWEEN))
        out += [draw(disguised_character(piece[0], steady=steady)), *piece[1:]]
    if order == 1:
        core = "\u202e" + "".join(reversed(out)) + "\u202c"  # RLO … PDF: shown in reverse
    elif order == 2:
        core = "\u202b" + "\u200f".join(reversed(out)) + "\u202c"  # RLE, split by RLMs: shown in reverse
    else:
        core = "".join(out)
    if glue_digits and draw(st.booleans()):
        return draw(st.sampled_from(["2025", "25", "0"])) + core + draw(st.sampled_from(["", "2025", "1"]))
    return draw(PREFIXES) + core + draw(SUFFIXES)


def refused(question: str) -> bool:
    return security_screen(raw_question=question, glossary=GLOSSARY, language="zh").refused


def test_the_corpus_is_present_and_bounded() -> None:
    assert 30 <= len(REFUSED) <= 500 and 10 <= len(ALLOWED) <= 500


@pytest.mark.parametrize("question", REFUSED)
def test_the_gate_refuses_the_corpus_evasions(question: str) -> None:
    assert refused(question), question


@pytest.mark.parametrize("question", ALLOWED)
def test_the_gate_allows_the_corpus_home_questions(question: str) -> None:
    assert not refused(question), question


@FUZZ
@given(st.sampled_from(EXTERNAL).flatmap(lambda alias: st.tuples(st.just(alias), disguised(alias))))
def test_every_disguise_of_an_external_alias_is_refused(case: tuple[str, str]) -> None:
    alias, question = case
    code = GLOSSARY.matcher.lookup(alias)
    assert code is not None and code.external
    assert code.code in external_mentions(question, GLOSSARY), question
    assert refused(question), question


@FUZZ
@given(st.sampled_from(OWN).flatmap(lambda alias: disguised(alias, glue_digits=False)))
def test_no_disguise_of_the_home_companys_own_aliases_is_refused(question: str) -> None:
    assert external_mentions(question, GLOSSARY) == (), question


@FUZZ
@given(
    st.sampled_from(ASCII_WORDS),
    st.text(string.ascii_letters, max_size=3),
    st.text(string.ascii_letters, max_size=3),
    st.data(),
)
def test_an_ascii_alias_glued_to_more_letters_is_not_found(
    alias: str, before: str, after: str, data: st.DataObject
) -> None:
    if not (before or after):
        before = "x"
    key = alias.lower()
    plain = f"{before}{data.draw(st.sampled_from([alias, alias.upper(), alias.lower()]))}{after} 2025年营收"
    assert all(m.text != key for m in GLOSSARY.match(text_normalize(plain))), plain
    # The evasion-proof view also sees through look-alikes, marks and invisibles inside the word.
    word = before + "".join(data.draw(disguised_character(ch)) for ch in alias) + after
    view, matches = GLOSSARY.gate_match(f"{word} 2025年营收")
    assert all(view.chars[m.start : m.end] != key for m in matches), word


@FUZZ
@given(st.text(max_size=40))
def test_the_view_of_a_view_is_itself(text: str) -> None:
    once = GLOSSARY.gate_match(text)[0].chars
    assert GLOSSARY.gate_match(once)[0].chars == once
