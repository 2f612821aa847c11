"""Fuzzing the parsers a question or a data file goes through first: normalisation, the period
grammar, the glossary matcher, intent parsing and cell values.

Each property runs twice: over the checked-in corpus (`corpus/*.jsonl`: inputs that once broke
something, or look as if they might), and over inputs Hypothesis generates, with a fixed seed
and a bounded number of examples so the run is the same in CI every time.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.formula import formula_parse, node_refs
from core.language.matcher import AliasConflict, AliasTarget, GlossaryMatcher
from core.language.normalize import ascii_word_continues, compact_view, is_ascii_word_char, text_normalize
from core.language.periods import period_parse, periods_find
from core.parse.defined import DEFINED
from core.parse.intent import parse_intent
from ingestion.values import decimal_parse, value_parse
from tests.fakes import demo_glossary

CORPUS = Path(__file__).parent / "corpus"
REFERENCE = date(2026, 3, 15)
FUZZ = settings(max_examples=300, derandomize=True, deadline=None, database=None)
GLOSSARY = demo_glossary()


def corpus(name: str) -> list[str]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


QUESTIONS = corpus("questions.jsonl")
PERIODS = corpus("periods.jsonl")
VALUES = corpus("values.jsonl")
ALIASES = sorted({alias.text for alias in GLOSSARY.aliases})

# Questions built from the pieces the grammar and the glossary know, with noise between them:
# far more likely to reach the interesting branches than uniformly random text.
PIECES = st.sampled_from(
    ALIASES
    + PERIODS
    + [
        "的",
        "和",
        "与",
        "是多少",
        "为什么",
        " ",
        "\u200b",
        "\u3000",
        "ＡＢ",
        "HKEX",
        "research",
        "2025",
        "年",
        "Q",
        "第",
    ]
)
BUILT = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=8).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=80), BUILT)


def check_normalisation(text: str) -> None:
    once = text_normalize(text)
    assert text_normalize(once) == once
    assert once == once.strip() and "  " not in once
    assert not any(unicodedata.category(ch) in {"Cf", "Cs", "Co", "Cn"} for ch in once)
    compact, positions = compact_view(once)
    assert len(compact) == len(positions) and " " not in compact
    assert all(once[p] == ch for p, ch in zip(positions, compact, strict=True))


def check_periods(text: str) -> None:
    normalized = text_normalize(text)
    found = periods_find(normalized, REFERENCE)
    previous = (0, 0)
    for start, end, period in found:
        assert 0 <= start < end <= len(normalized)
        # spans never overlap; a range (`2022到2025年`) lists each of its periods on its own span
        assert (start, end) == previous or previous[1] <= start
        assert 1990 <= period.year <= 2100
        assert period_parse(period.label) == period  # every period found has a label that reads back
        previous = (start, end)
    single = period_parse(text, REFERENCE)
    assert single is None or single == found[0][2]


def check_matches(matcher: GlossaryMatcher, text: str) -> None:
    normalized = text_normalize(text)
    compact, positions = compact_view(normalized)
    previous_end = 0
    for match in matcher.find(normalized):
        assert previous_end <= match.start < match.end <= len(compact)  # in order, never overlapping
        assert compact[match.start : match.end] == match.text
        target = matcher.lookup(match.text)
        assert target is not None and (target.kind, target.code) == (match.kind, match.code)
        if is_ascii_word_char(match.text[0]) and positions[match.start] > 0:  # `HK` is not in `HKEX`
            assert not ascii_word_continues(normalized[positions[match.start] - 1], match.text[0])
        if is_ascii_word_char(match.text[-1]) and positions[match.end - 1] + 1 < len(normalized):
            assert not ascii_word_continues(match.text[-1], normalized[positions[match.end - 1] + 1])
        previous_end = match.end


def check_intent(text: str) -> None:
    intent = parse_intent(text, GLOSSARY, REFERENCE)
    assert intent.raw_question == text
    for code in intent.entities:
        assert code in GLOSSARY.entities
    for code in intent.metrics:
        # a formula the question defines stands in the metric slot, over glossary metrics only
        assert code in GLOSSARY.metrics or (code == DEFINED and intent.definition is not None)
    if intent.definition is not None and intent.definition.formula:
        refs = node_refs(formula_parse(intent.definition.formula, references=True).root)
        assert {ref.code for ref in refs} <= set(GLOSSARY.metrics)


def check_value(raw: str) -> None:
    try:
        value = decimal_parse(raw)
    except (InvalidOperation, ValueError):
        value = None
    if value is not None:
        assert value.is_finite()
        assert decimal_parse(str(value)) == value  # what is stored reads back exactly
    parsed = value_parse(raw)
    if parsed is not None:
        assert parsed[0].is_finite()


@pytest.mark.parametrize("text", QUESTIONS + PERIODS + VALUES)
def test_normalisation_corpus(text: str) -> None:
    check_normalisation(text)


@FUZZ
@given(ANY_TEXT)
def test_normalisation_fuzzed(text: str) -> None:
    check_normalisation(text)


@pytest.mark.parametrize("text", PERIODS + QUESTIONS)
def test_period_grammar_corpus(text: str) -> None:
    check_periods(text)


@FUZZ
@given(ANY_TEXT)
def test_period_grammar_fuzzed(text: str) -> None:
    check_periods(text)


@pytest.mark.parametrize("text", QUESTIONS)
def test_glossary_matcher_corpus(text: str) -> None:
    check_matches(GLOSSARY.matcher, text)


@FUZZ
@given(ANY_TEXT)
def test_glossary_matcher_fuzzed(text: str) -> None:
    check_matches(GLOSSARY.matcher, text)


@FUZZ
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=6), st.sampled_from(["entity", "metric", "channel"])), max_size=12),
    ANY_TEXT,
)
def test_glossary_matcher_with_generated_aliases(aliases: list[tuple[str, str]], text: str) -> None:
    """Any alias set either builds (and then matches consistently) or is refused as a conflict."""
    pairs = [(alias, AliasTarget(kind, f"{kind.upper()}_{i}")) for i, (alias, kind) in enumerate(aliases)]
    try:
        matcher = GlossaryMatcher(pairs)
    except AliasConflict:
        return
    check_matches(matcher, text)
    for alias, _ in aliases:  # each alias, alone, is found as itself (or as the alias it collides with)
        key, _ = compact_view(text_normalize(alias))
        if key:
            assert matcher.lookup(alias) is not None


@pytest.mark.parametrize("text", QUESTIONS)
def test_intent_parsing_corpus(text: str) -> None:
    check_intent(text)


@FUZZ
@given(ANY_TEXT)
def test_intent_parsing_fuzzed(text: str) -> None:
    check_intent(text)


@pytest.mark.parametrize("raw", VALUES)
def test_cell_values_corpus(raw: str) -> None:
    check_value(raw)


@FUZZ
@given(
    st.one_of(
        st.text(max_size=30), st.decimals(allow_nan=False, allow_infinity=False).map(str), st.sampled_from(VALUES)
    )
)
def test_cell_values_fuzzed(raw: str) -> None:
    check_value(raw)


def test_the_corpus_is_bounded_and_present() -> None:
    assert 40 <= len(QUESTIONS) <= 500 and 20 <= len(PERIODS) <= 500 and 20 <= len(VALUES) <= 500
    assert Decimal("24015.8") == decimal_parse("24015.8")
