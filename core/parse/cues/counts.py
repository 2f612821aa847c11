"""Counts and places as a question writes them: `三`, `十二`, `3`, `three`, `third`, `3rd`.

The patterns (`ZH_N`, `EN_N`, `EN_ORDINAL`) are pieces of the cue table's rules; `count_read`
turns the text one of them matched into its number. A count is read whole, so an out-of-range
one reaches the clarifier as asked and is refused there.
"""

from __future__ import annotations

_NUMBERS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
# A count is read whole (`保留100位小数` is 100, never the `00` inside it), so a count out of range
# reaches the clarifier as asked and is refused there.
ZH_N = r"(?<![0-9])[0-9]+|十[一二三四五六七八九]?|[一二两三四五六七八九]十?"
EN_N = r"[0-9]+|zero|one|two|three|four|five|six|seven|eight|nine|ten"
EN_ORDINAL = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|[0-9]+(?:st|nd|rd|th))"
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_COUNT_DIGITS = 18  # a longer digit string is as out of range as any: read as 10**18


def count_read(text: str | None) -> int | None:
    """The number a count or a place pattern matched; None for no text."""
    if not text:
        return None
    if text.isdigit():
        digits = text.lstrip("0") or "0"
        return int(digits) if len(digits) <= _COUNT_DIGITS else 10**_COUNT_DIGITS
    if text in _ORDINALS:
        return _ORDINALS[text]
    if text[-2:] in ("st", "nd", "rd", "th") and text[:-2].isdigit():
        return count_read(text[:-2])
    if text in _NUMBERS:
        return _NUMBERS[text]
    if text.startswith("十"):  # 十一 … 十九
        return 10 + _NUMBERS[text[1]]
    if text.endswith("十"):  # 二十 … 九十
        return _NUMBERS[text[0]] * 10
    return None
