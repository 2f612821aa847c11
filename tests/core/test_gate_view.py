"""The gate's evasion-proof view: what it keeps, what it drops, and where words break."""

from __future__ import annotations

import pytest
from confusable_homoglyphs.confusables import confusables_data

from core.gate_view import entities_decode, gate_key, gate_view

TABLE_GLYPHS = sorted({g.strip("\u200e\u200f") for g in confusables_data} - {""})


def test_ascii_is_only_casefolded() -> None:
    # The table's prototype of `0` is `O` and of `I` is `l`: neither may leak into the view.
    assert gate_key("Jingan 2025 O0 Il1 x|y") == "jingan2025o0il1xy"


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("\u0408ingan", "jingan"),  # Cyrillic capital Je
        ("J\u0399ngan", "jingan"),  # Greek capital Iota: read as `I`, not as the table's `l`
        ("J\u03b9ngan", "jingan"),  # Greek small iota
        ("\u0397uading", "huading"),  # Greek capital Eta: `H`, although its lowercase looks like `n`
        ("\u0392\u0415\u0406\u0421\u041d\u0395\u039d", "beichen"),  # Greek and Cyrillic capitals
        ("Jìngān", "jingan"),
        ("Ｊｉｎｇａｎ", "jingan"),
        ("𝐉𝐢𝐧𝐠𝐚𝐧", "jingan"),
        ("競安", "竞安"),
        ("\u0661\u0662\u0663", "123"),  # Arabic-Indic digits are digits, not the table's `l`
        ("Straße", "strasse"),
    ],
)
def test_look_alikes_meet_their_prototype(written: str, expected: str) -> None:
    assert gate_key(written) == expected


def test_invisibles_and_marks_vanish_and_separators_break() -> None:
    view = gate_view("x\u200bJ\u0301\ufe0fing·an\u3164 HK2025")
    assert view.chars == "xjinganhk2025"
    # A break before `a` (the middle dot) and `h` (the space); none where invisibles stood.
    assert [i for i in range(len(view.chars) + 1) if view.broken_before(i)] == [0, 5, 7, len(view.chars)]
    assert view.text[view.sources[1]] == "J" and view.text[view.sources[7]] == "H"


def test_a_symbol_that_looks_like_a_letter_is_a_separator() -> None:
    view = gate_view("竞\u2223安")  # DIVIDES looks like `l`, but it is a symbol
    assert view.chars == "竞安" and view.broken_before(1)
    assert gate_key("\u24d9ingan") == "jingan"  # CIRCLED LATIN SMALL LETTER J is a letter


def test_entities_are_decoded_a_bounded_number_of_times() -> None:
    assert entities_decode("&#31454;&#x5b89; &amp;#31454; J&iacute;ngan") == "竞安 竞 Jíngan"
    assert entities_decode("＆＃３１４５４；") == "竞"
    assert entities_decode("&" + "amp;" * 3 + "#31454;") == "竞"
    assert entities_decode("&" + "amp;" * 9 + "#31454;") == "&" + "amp;" * 5 + "#31454;"  # a crafted input stays cheap


def test_the_view_of_a_view_is_itself_for_every_glyph_in_the_table() -> None:
    for glyph in TABLE_GLYPHS:
        key = gate_key(glyph)
        assert gate_key(key) == key, (glyph, key)
