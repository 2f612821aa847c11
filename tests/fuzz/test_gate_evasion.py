"""Fuzzing the security gate with evasions of every alias of the demo glossary.

Every external alias, however it is disguised (look-alike letters drawn from Unicode's
confusables table, marks, invisible characters, separators between its characters, full width,
Traditional characters, case, HTML entities, digits glued on), is refused; every alias of the
home company's own entities, disguised the same ways, is not; and an ASCII alias glued to more
letters (`HKEX`, `research`) is not found. Each property runs over the checked-in corpus
(`corpus/gate_*.jsonl`) and over inputs Hypothesis generates with a fixed seed.
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

from core.normalize import text_normalize
from core.security import external_mentions, security_screen
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
TO_TRADITIONAL = opencc.OpenCC("s2t")
IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
INVISIBLES = IGNORABLE.findall("".join(map(chr, range(0x10000))) + "".join(map(chr, range(0xE0000, 0xE1000))))
MARKS = st.characters(categories=["Mn", "Me", "Mc"])
SEPARATORS = st.characters(categories=["Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs"]).filter(
    # Neither a symbol that reads as a letter (`ⓙ`) nor anything that starts an entity.
    lambda ch: not reads_as_letters(ch) and "&" not in unicodedata.normalize("NFKC", ch)
)
BETWEEN = st.one_of(st.just(""), st.just(" "), SEPARATORS, st.sampled_from(INVISIBLES))
PREFIXES = st.sampled_from(["", "请问", "Revenue of ", "2025年", "(", "What is ", "2025"])
SUFFIXES = st.sampled_from(["", "的营收是多少", " revenue", "2025年营收", "?", "2025", "»"])


def entity_encode(ch: str, form: int) -> str:
    name = html.entities.codepoint2name.get(ord(ch))
    return [f"&#{ord(ch)};", f"&#x{ord(ch):x};", f"&{name};" if name else ch, f"&amp;#{ord(ch)};"][form]


@st.composite
def disguised_character(draw: st.DrawFn, ch: str) -> str:
    ch = draw(st.sampled_from([ch, ch.upper(), ch.lower()]))
    if ch in HOMOGLYPHS and draw(st.booleans()):
        ch = draw(st.sampled_from(HOMOGLYPHS[ch]))  # after the case: `Ν` looks like `N`, `ν` like `v`
    if "!" <= ch <= "~" and draw(st.booleans()):
        ch = chr(ord(ch) + 0xFEE0)  # the full-width form
    if draw(st.integers(0, 3)) == 0:
        ch = entity_encode(ch, draw(st.integers(0, 3)))
    return ch + "".join(draw(st.lists(st.one_of(MARKS, st.sampled_from(INVISIBLES)), max_size=2)))


@st.composite
def disguised(draw: st.DrawFn, alias: str, *, glue_digits: bool = True) -> str:
    if draw(st.booleans()):
        alias = TO_TRADITIONAL.convert(alias)
    out = []
    for index, ch in enumerate(alias):
        if index:
            out.append(draw(BETWEEN))
        out.append(draw(disguised_character(ch)))
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
