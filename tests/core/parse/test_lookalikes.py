"""A Latin word typed with a Greek or Cyrillic look-alike letter is read as the Latin word: every
English name the demo glossary knows, with any one of its letters swapped for a look-alike,
names the same company or metric. A word wholly in another script is left alone."""

from __future__ import annotations

from datetime import date

import pytest

from core.evasion.fold import confusables_fold
from core.parse.intent import parse_intent
from core.parse.intent.lookalikes import lookalikes_folded
from tests.fakes import demo_glossary

REF = date(2026, 3, 15)
GLOSSARY = demo_glossary()
# Greek capitals and Cyrillic small letters drawn like a Latin letter.
LOOKALIKES = {
    **dict(zip("ABEHIKMNOPTXYZ", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", strict=True)),
    **dict(zip("aceopxy", "асеорху", strict=True)),
}


def test_each_lookalike_folds_to_its_latin_letter() -> None:
    assert {latin.lower(): confusables_fold(other) for latin, other in LOOKALIKES.items()} == {
        latin.lower(): latin.lower() for latin in LOOKALIKES
    }


def _names(kind: str) -> list[tuple[str, str]]:
    codes = GLOSSARY.metrics if kind == "metric" else GLOSSARY.entities
    return [
        (name, code)
        for code in codes
        if not (kind == "entity" and GLOSSARY.is_external(code))
        for name in GLOSSARY.aliases_of(kind, code)
        if name.isascii() and len(name) > 1
    ]


@pytest.mark.parametrize("kind", ["entity", "metric"])
def test_a_name_with_one_lookalike_letter_names_the_same_code(kind: str) -> None:
    tried = 0
    for name, code in _names(kind):
        question = "{} FY2025" if kind == "metric" else "{} revenue FY2025"
        asked = parse_intent(question.format(name), GLOSSARY, REF)
        for at, letter in enumerate(name):
            swap = LOOKALIKES.get(letter) or LOOKALIKES.get(letter.upper())
            if swap is None:
                continue
            swapped = name[:at] + swap + name[at + 1 :]
            intent = parse_intent(question.format(swapped), GLOSSARY, REF)
            assert getattr(intent, kind) == getattr(asked, kind) == code, (name, swapped)
            tried += 1
    assert tried >= 20


def test_the_question_as_asked_keeps_its_letters_and_positions() -> None:
    question = "ACMΕ香港2025年营收是多少"
    intent = parse_intent(question, GLOSSARY, REF)
    assert (intent.entity, intent.metric, intent.raw_question) == ("ACME_HK", "REVENUE", question)
    assert len(lookalikes_folded(question)) == len(question)


@pytest.mark.parametrize("text", ["Ελληνικά 2025", "Москва", "ΑΒΓ и 2025"])
def test_a_word_wholly_in_another_script_is_left_alone(text: str) -> None:
    assert lookalikes_folded(text) == text


def test_a_letter_with_no_latin_lookalike_stays() -> None:
    assert lookalikes_folded("ΔEBITDA") == "ΔEBITDA"
