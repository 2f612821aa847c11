from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import GlossarySnapshot
from core.language.matcher import AliasConflict, AliasTarget, GlossaryMatcher, compact_match_view
from core.language.normalize import compact_view, text_normalize


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


# -- function words: 的/之/于 do not change a metric's name ---------------------------
ATTRIBUTABLE = AliasTarget("metric", "NET_PROFIT_ATTR")
NET = AliasTarget("metric", "NET_PROFIT")
HOLDER = AliasTarget("entity", "YU_HOLDINGS")


def attributable_matcher(*extra: tuple[str, AliasTarget]) -> GlossaryMatcher:
    return GlossaryMatcher([("归属母公司所有者净利润", ATTRIBUTABLE), ("净利润", NET), ("净利", NET), *extra])


def found(matcher: GlossaryMatcher, text: str) -> list[tuple[str, str]]:
    normalized = text_normalize(text)
    compact, _ = compact_view(normalized)
    return [(m.code, compact[m.start : m.end]) for m in matcher.find(normalized)]


@pytest.mark.parametrize(
    "text",
    [
        "归属于母公司所有者的净利润",
        "归属母公司所有者的净利润",
        "归属于母公司所有者之净利润",
        "归属 于 母公司所有者 的 净利润",
    ],
)
def test_function_words_in_the_text_do_not_hide_a_metric(text: str) -> None:
    matcher = attributable_matcher()
    assert [code for code, _ in found(matcher, f"集团2025年{text}是多少")] == ["NET_PROFIT_ATTR"]


def test_function_words_in_the_alias_do_not_hide_a_metric() -> None:
    matcher = GlossaryMatcher([("归属于母公司所有者的净利润", ATTRIBUTABLE), ("净利润", NET)])
    assert found(matcher, "2025年归属母公司所有者净利润") == [("NET_PROFIT_ATTR", "归属母公司所有者净利润")]
    assert found(matcher, "2025年归属于母公司所有者的净利润") == [("NET_PROFIT_ATTR", "归属于母公司所有者的净利润")]


def test_the_span_is_the_text_as_written_and_reads_back() -> None:
    matcher = attributable_matcher()
    ((code, text),) = found(matcher, "请问归属于母公司所有者的净利润")
    assert (code, text) == ("NET_PROFIT_ATTR", "归属于母公司所有者的净利润")
    assert matcher.lookup(text) == ATTRIBUTABLE
    assert matcher.lookup("净之利润") == NET


def test_a_leading_or_trailing_function_word_is_not_part_of_the_match() -> None:
    assert found(attributable_matcher(), "的净利润的") == [("NET_PROFIT", "净利润")]


def test_only_metrics_tolerate_function_words() -> None:
    """`于` is also a surname: `于氏控股` must not be found in `李氏控股`."""
    matcher = attributable_matcher(("于氏控股", HOLDER))
    assert found(matcher, "李氏控股的净利润") == [("NET_PROFIT", "净利润")]
    assert found(matcher, "于氏控股的净利润") == [("YU_HOLDINGS", "于氏控股"), ("NET_PROFIT", "净利润")]


def test_two_metrics_that_differ_only_by_function_words_keep_their_exact_matches() -> None:
    other = AliasTarget("metric", "OTHER")
    matcher = GlossaryMatcher([("甲的乙", ATTRIBUTABLE), ("甲乙", other)])
    assert found(matcher, "甲的乙") == [("NET_PROFIT_ATTR", "甲的乙")]
    assert found(matcher, "甲乙") == [("OTHER", "甲乙")]
    assert found(matcher, "甲之乙") == []


def test_the_gate_view_matching_is_exact() -> None:
    """`find_in` (the security gate's entry) matches only exact keys; tolerance is the parser's."""
    matcher = attributable_matcher()
    assert [m.code for m in matcher.find_in(compact_match_view("归属于母公司所有者的净利润"))] == ["NET_PROFIT"]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_function_words_inserted_into_a_metric_alias_still_match_it(glossary: GlossarySnapshot, data) -> None:
    aliases = sorted(
        {a.text for a in glossary.aliases if a.kind == "metric" and len(a.text) >= 2 and not a.text.isascii()}
    )
    alias = data.draw(st.sampled_from(aliases))
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=len(alias) - 1), min_size=1, max_size=3))
    words = data.draw(st.lists(st.sampled_from("的之于"), min_size=len(cuts), max_size=len(cuts)))
    text = alias
    for cut, word in sorted(zip(cuts, words, strict=True), reverse=True):
        text = text[:cut] + word + text[cut:]
    expected = glossary.resolve("metric", alias)
    matches = glossary.match(text_normalize(text))
    assert [(m.kind, m.code, m.start, m.end) for m in matches] == [("metric", expected, 0, len(text))]
