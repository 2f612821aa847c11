"""What a caller that named an unknown code is offered, and the names the glossary tool lists.

A suggestion is a correction of spelling, never a guess at meaning: `turnover` is not a
misspelling of anything in the demo glossary, so nothing is offered as "closest" (it used to
get ROE, which shares letters with it), and the caller is told where the whole list is.
"""

from __future__ import annotations

import pytest

from core.glossary import GlossarySnapshot
from facts.selectors import _closest


@pytest.mark.parametrize(
    ("kind", "given", "offered"),
    [
        ("metric", "REVENU", "REVENUE"),
        ("metric", "revenue ", "REVENUE"),
        ("metric", "Net_Proft", "NET_PROFIT"),
        ("entity", "hongkong", "ACME_HK"),
        ("entity", "ACME_HKG", "ACME_HK"),
    ],
)
def test_a_misspelt_code_is_offered_its_neighbour(
    glossary: GlossarySnapshot, kind: str, given: str, offered: str
) -> None:
    said = _closest(glossary, kind, given)
    assert said.startswith(" Closest: ") and offered in said


@pytest.mark.parametrize(
    ("kind", "given"), [("metric", "turnover"), ("metric", "working capital"), ("entity", "Frankfurt")]
)
def test_a_word_with_no_neighbour_is_offered_no_code(glossary: GlossarySnapshot, kind: str, given: str) -> None:
    said = _closest(glossary, kind, given)
    assert "Closest" not in said
    codes = {"metric": glossary.metrics, "entity": glossary.entities}[kind]
    assert not any(code in said for code in codes)
    assert "glossary" in said  # where the whole list is


def test_competitors_are_never_offered(glossary: GlossarySnapshot) -> None:
    external = [code for code in glossary.entities if glossary.is_external(code)]
    assert external
    for code in external:
        for name in (code, glossary.entities[code].name):
            said = _closest(glossary, "entity", name)
            assert not any(other in said for other in external)


def test_each_name_is_listed_once(glossary: GlossarySnapshot) -> None:
    records = {"metric": glossary.metrics, "entity": glossary.entities, "channel": glossary.channels}
    for kind, by_code in records.items():
        for code in by_code:
            names = glossary.aliases_of(kind, code)
            assert len({name.casefold() for name in names}) == len(names), (code, names)
