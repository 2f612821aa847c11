from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.language.normalize import compact_view, question_language, text_normalize


def test_full_width_zero_width_traditional_case_and_spaces_are_folded() -> None:
    assert text_normalize("ＡＣＭＥ　Ｇｒｏｕｐ") == "acme group"
    assert text_normalize("竞\u200b安") == "竞安"
    assert text_normalize("競安  營業收入") == "竞安 营业收入"
    assert text_normalize("  HK\tRevenue\n2025 ") == "hk revenue 2025"
    assert text_normalize("\ufeff中国\u2060内地") == "中国内地"


def test_compact_view_drops_spaces_and_keeps_positions() -> None:
    compact, positions = compact_view("竞 安 a b")
    assert compact == "竞安ab"
    assert positions == [0, 2, 4, 6]


def test_question_language_follows_cjk() -> None:
    assert question_language("What was ACME revenue?") == "en"
    assert question_language("HK 营收") == "zh"


@given(st.text())
def test_normalisation_is_idempotent(text: str) -> None:
    once = text_normalize(text)
    assert text_normalize(once) == once


@given(st.text(alphabet=st.characters(categories=["Lo", "Zs", "Cf", "Nd", "Lu", "Ll"])))
def test_normalised_text_has_no_format_characters_or_double_spaces(text: str) -> None:
    out = text_normalize(text)
    assert "  " not in out
    assert out == out.strip()
    assert not any(ch in out for ch in "\u200b\u200c\u200d\u2060\ufeff")
