from __future__ import annotations

import pytest

from core.glossary import GlossarySnapshot
from core.matcher import AliasConflict, AliasTarget, GlossaryMatcher
from core.normalize import text_normalize


def codes(glossary: GlossarySnapshot, text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.code) for m in glossary.match(text_normalize(text))]


def test_longest_leftmost_takes_the_span_once(glossary: GlossarySnapshot) -> None:
    assert codes(glossary, "集团2025年新开门店数是多少") == [("entity", "ACME_GROUP"), ("metric", "NEW_STORES")]


def test_competitor_span_is_not_reused_for_a_home_entity(glossary: GlossarySnapshot) -> None:
    assert codes(glossary, "中国竞安的毛利率") == [("entity", "EXT_JINGAN"), ("metric", "GROSS_MARGIN")]
    assert codes(glossary, "中国内地线上渠道") == [("entity", "ACME_CN"), ("channel", "ONLINE")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HKEX listing", []),
        ("research notes", []),
        ("HK revenue", [("entity", "ACME_HK"), ("metric", "REVENUE")]),
        ("SEA's revenue", [("entity", "ACME_SEA"), ("metric", "REVENUE")]),
        ("ACME Group revenue", [("entity", "ACME_GROUP"), ("metric", "REVENUE")]),
        ("香港ROE", [("entity", "ACME_HK"), ("metric", "ROE")]),
        ("presales", []),
        ("HK2025 revenue", [("entity", "ACME_HK"), ("metric", "REVENUE")]),
        ("FY2025HK revenue", [("entity", "ACME_HK"), ("metric", "REVENUE")]),
        ("revenue2025", [("metric", "REVENUE")]),
        ("HKEX2025 listing", []),
        ("2025research", []),
    ],
)
def test_ascii_aliases_sit_on_word_boundaries(glossary: GlossarySnapshot, text: str, expected: list) -> None:
    assert codes(glossary, text) == expected


def test_an_alias_pointing_at_two_codes_is_refused() -> None:
    with pytest.raises(AliasConflict):
        GlossaryMatcher([("香港", AliasTarget("entity", "ACME_HK")), ("香 港", AliasTarget("entity", "OTHER"))])


def test_lookup_of_a_single_argument(glossary: GlossarySnapshot) -> None:
    assert glossary.resolve("entity", "Hong Kong") == "ACME_HK"
    assert glossary.resolve("entity", "ACME_HK") == "ACME_HK"
    assert glossary.resolve("channel", "onlin") is None
    assert glossary.resolve("metric", "香港") is None
    assert glossary.resolve("metric", 42) is None
