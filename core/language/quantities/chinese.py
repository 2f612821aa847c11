"""Chinese numerals for `quantities`: `一百二十亿`, `三点五`, `贰拾`, and years written `二〇二五`."""

from __future__ import annotations

import re
from decimal import Decimal

DIGITS = {
    **dict(zip("〇零一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)),
    **dict(zip("壹贰叁肆伍陆柒捌玖", range(1, 10), strict=True)),
}
SMALL = {"十": 10, "百": 100, "千": 1000, "拾": 10, "佰": 100, "仟": 1000}
BIG = {"万": 10**4, "亿": 10**8, "万亿": 10**12}
_CHARS = "".join(DIGITS) + "".join(SMALL) + "万亿"
RUN = re.compile(f"(?P<run>[{_CHARS}]+)(?:点(?P<frac>[{''.join(DIGITS)}]+)(?P<fscale>万亿|亿|万)?)?")


def chinese_integer(run: str) -> int | None:
    """`一百二十亿` → 12,000,000,000; None for a run that is no number (`一二`, `三四`, `万一`)."""
    if len(run) >= 2 and all(ch in DIGITS for ch in run):
        return None  # a digit string (二〇二五) is only ever a year; see `chinese_year`
    closed_yi = closed_wan = section = 0
    digit: int | None = None
    last_unit = 0
    after_zero = False
    for ch in run:
        if ch in DIGITS:
            if digit is not None:
                return None
            if DIGITS[ch] == 0:
                after_zero = True
                continue
            digit = DIGITS[ch]
        elif ch in SMALL:
            if digit is None and SMALL[ch] != 10:
                return None
            section += (digit or 1) * SMALL[ch]
            digit, last_unit, after_zero = None, SMALL[ch], False
        else:
            section += digit or 0
            if section == 0 and closed_wan == 0 and closed_yi == 0:
                return None
            if ch == "万":
                closed_wan = (closed_wan + section) * 10**4
            else:
                closed_yi, closed_wan = (closed_yi + closed_wan + section) * 10**8, 0
            section, digit, last_unit, after_zero = 0, None, BIG[ch], False
    if digit is not None:
        # 一万二 is 12,000 and 三百五 is 350: a trailing digit fills the next lower place.
        section += digit * (last_unit // 10 if last_unit >= 10 and not after_zero else 1)
    return closed_yi + closed_wan + section


def chinese_year(run: str, after: str) -> int | None:
    if len(run) == 4 and all(ch in DIGITS for ch in run) and after.startswith("年"):
        year = int("".join(str(DIGITS[ch]) for ch in run))
        return year if 1990 <= year <= 2100 else None
    return None


PLACES = "十百千万亿拾佰仟"
FRACTION_RUN = re.compile(f"[{''.join(DIGITS)}]+")


def numeral_value(written: str) -> Decimal | None:
    """An Arabic (`12.5`) or Chinese (`三十`, `三点五`) numeral's value; None if it is no number."""
    if re.fullmatch(r"\d+(?:\.\d+)?", written):
        return Decimal(written)
    whole, _, frac = written.partition("点")
    integer = chinese_integer(whole) if whole else None
    if integer is None or (frac and not FRACTION_RUN.fullmatch(frac)):
        return None
    return Decimal(integer) + (Decimal("0." + "".join(str(DIGITS[ch]) for ch in frac)) if frac else 0)


_ROMAN = re.compile(r"m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def roman_integer(written: str) -> int | None:
    """`xii` → 12 for a well-formed Roman numeral (NFKC turns `Ⅻ` into `XII`); None otherwise."""
    if not written or not _ROMAN.fullmatch(written):
        return None
    values = [_ROMAN_VALUES[ch] for ch in written]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
