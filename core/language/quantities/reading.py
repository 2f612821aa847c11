"""Reading figures out of normalised prose; see the package docstring for what is read how."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache

from core.language.periods import periods_find
from core.language.quantities.chinese import BIG, DIGITS, PLACES, RUN, chinese_integer, chinese_year, roman_integer
from core.language.quantities.direction import MINUS, PLUS, Figure, quantities_sign
from core.language.quantities.forms import forms_find
from core.language.quantities.units import (
    AFTER,
    AMOUNT,
    ARGUMENT_PARTS,
    COUNT,
    COUNTERS,
    CURRENCIES,
    GLUED,
    MONEY,
    NUMBER,
    PREFIX_CURRENCIES,
    SCALES,
    UNIT_OF,
    WRITTEN,
    Quantity,
)

_FOLD = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})
_ARABIC = re.compile(
    r"(?<!\d)(?<!\d\.)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:e(?P<exp>[+-]?\d{1,3}))?(?!\d)"
)
_CURRENCY_BEFORE = re.compile(
    r"(?P<cur>"
    + "|".join(
        ("(?<![a-z])" if c[0].isascii() and c[0].isalpha() else "") + re.escape(c)
        for c in sorted(PREFIX_CURRENCIES, key=len, reverse=True)
    )
    + r")\s?$"
)
# Any three letters glued to an amount (myr1.2bn), or written in capitals beside it (MYR 1.2bn,
# 1.2bn THB), are a currency code: a class rule, not a list of currencies.
_CODE_GLUED = re.compile(r"(?<![a-z])(?P<cur>[a-z]{3})$")
_CODE_SPACED = re.compile(r"(?<![a-z])(?P<cur>[a-z]{3}) $")
_CODE_AFTER = re.compile(r"\s?(?P<cur>[a-z]{3})(?![a-z])")
_SIGN_BEFORE = re.compile(r"(?P<sign>[-−+])\s?$")
_RANGE_BEFORE = re.compile(r"[0-9a-z%‰.)\]]$")  # 1-4, 8%-10%: a dash after these joins a range
_PREFIX = re.compile(r"(?<![a-z])(?P<letters>[a-z]+)-?$")
_SUFFIX = re.compile(r"[a-z]+")
_ROMAN_TOKEN = re.compile(r"(?<![a-z0-9.])[ivxlcdm]+(?![a-z0-9])")
_COUNTED_NOUN = re.compile(f"(?:总|[{COUNTERS}])数$")  # 人数, 户数, 总数: 数 ends a noun
_ADVERB_AFTER = re.compile(r"不|别|要|记|注|勿|小心")  # 千万不要: 千万 as "by all means"
_NEIGHBOURS = re.compile(f"[{''.join(DIGITS)}]{{2}}")  # 三四成, 七八十家: a range of two numerals
_LOOKBACK = 32  # how far before a number its sign, currency or glued letters are looked for
_ANY_DAY = date(2000, 1, 1)  # relative periods name no digits; only written years are kept
_WRITTEN_YEAR = re.compile(r"\d{2,4}")

Spans = list[tuple[int, int]]


@dataclass(frozen=True)
class Claims:
    quantities: tuple[Quantity, ...]
    years: tuple[int, ...]


def _taken(spans: Spans, start: int, end: int) -> bool:
    return any(start < e and s < end for s, e in spans)


def _currency_before(text: str, cased: str, end: int) -> tuple[str, int] | None:
    """A currency written right before `text[end]`: (code, where it starts)."""
    start = max(0, end - _LOOKBACK)
    written = _CURRENCY_BEFORE.search(text, start, end)
    if written:
        return CURRENCIES[written.group("cur")], written.start()
    glued = _CODE_GLUED.search(text, start, end)
    if glued:
        return glued.group("cur").upper(), glued.start()
    spaced = _CODE_SPACED.search(text, start, end)
    if spaced and cased[spaced.start() : spaced.start() + 3].isupper():
        return spaced.group("cur").upper(), spaced.start()
    return None


def _left(text: str, cased: str, end: int) -> tuple[int, str, str | None]:
    """A written sign and currency before `text[end]`: (where they start, sign, currency)."""
    sign = ""
    currency = None
    for _ in range(2):  # -rmb5 and rmb-5 alike
        written = _SIGN_BEFORE.search(text, max(0, end - _LOOKBACK), end)
        if written and not sign:
            head = written.start()
            if _currency_before(text, cased, head) or not _RANGE_BEFORE.search(text, max(0, head - 1), head):
                sign, end = (PLUS if written.group("sign") == "+" else MINUS), head
                continue
        code = _currency_before(text, cased, end) if currency is None else None
        if code:
            currency, end = code
            continue
        break
    return end, sign, currency


def _unit_class(value: Decimal, after: re.Match[str] | None, currency: str | None, glued: str) -> tuple[Decimal, str]:
    scale = after.group("scale") if after else None
    unit = after.group("unit") if after else None
    if scale:
        value *= SCALES[scale]
    if unit:
        unit_class, multiplier = UNIT_OF[unit]
        if currency and unit in ("元", "块"):
            unit_class = MONEY + currency  # 港币5亿元: the written currency, not 元's default
        return value * multiplier, unit_class
    if currency:
        return value, MONEY + currency
    if scale:
        return value, AMOUNT
    return value, (GLUED + glued) if glued else NUMBER


def _stated_end(after: re.Match[str]) -> int:
    return after.end("unit") if after.group("unit") else after.end("scale")


def _arabic(text: str, cased: str, spans: Spans) -> list[Figure]:
    found = []
    for m in _ARABIC.finditer(text):
        if _taken(spans, m.start(), m.end()) or ARGUMENT_PARTS.match(text, m.end()):
            continue  # read as a form already; 3个方面 is the answer's own structure
        head, sign, currency = _left(text, cased, m.start())
        after = AFTER.match(text, m.end())
        assert after is not None  # every part of it is optional
        stated = after.group("scale") or after.group("unit")
        end = _stated_end(after) if stated else m.end()
        if not after.group("unit") and currency is None:
            code = _CODE_AFTER.match(text, end)
            if code and cased[code.start("cur") : code.end("cur")].isupper():
                currency, end = code.group("cur").upper(), code.end()
        prefix = _PREFIX.search(text, max(0, head - _LOOKBACK), head) if currency is None else None
        suffix = _SUFFIX.match(text, end) if not stated else None
        if suffix:
            end = suffix.end()
        elif prefix and stated and stated.isascii() and stated.isalpha():
            stated, suffix = None, _SUFFIX.match(text, m.end())  # b2b, v2m: a name, not 2 billion
            end = suffix.end() if suffix else m.end()
        glued = f"{prefix.group('letters') if prefix else ''}#{suffix.group() if suffix else ''}"
        value = Decimal(m.group("num").replace(",", ""))
        if m.group("exp"):
            value = value.scaleb(int(m.group("exp")))
        value, unit = _unit_class(value, after if stated else None, currency, glued if prefix or suffix else "")
        spans.append((m.start(), end))
        found.append(Figure(head, end, value, unit, text[m.start() : end], sign))
    return found


def _roman(text: str, cased: str, spans: Spans) -> list[Figure]:
    """`Ⅻ家` (NFKC: `xii家`), or a capitalised `XII` standing alone, is the number twelve."""
    found = []
    for m in _ROMAN_TOKEN.finditer(text):
        integer = roman_integer(m.group())
        if integer is None or _taken(spans, m.start(), m.end()):
            continue
        after = AFTER.match(text, m.end())
        assert after is not None
        unit = after.group("unit") or ""
        beside_a_unit = unit == "%" or (bool(unit) and not unit.isascii())
        in_capitals = len(m.group()) >= 2 and cased[m.start() : m.end()].isupper()
        if not (beside_a_unit or in_capitals):
            continue  # mix, I, cd: English words, not numerals
        stated = after.group("scale") or after.group("unit")
        end = _stated_end(after) if stated else m.end()
        _, sign, currency = _left(text, cased, m.start())
        value, unit_class = _unit_class(Decimal(integer), after if stated else None, currency, "")
        spans.append((m.start(), end))
        found.append(Figure(m.start(), end, value, unit_class, text[m.start() : end], sign))
    return found


def _approximate(text: str, before: str, m: re.Match[str]) -> bool:
    """几十亿, 十几亿, 数百家: 几 or 数 as a quantity prefix; the 数 of 人数六千万 is a noun's."""
    if before.endswith("几") or text.startswith("几", m.end()):
        return True
    return before.endswith("数") and m.group("run")[0] in PLACES and not _COUNTED_NOUN.search(before)


def _chinese(text: str, cased: str, spans: Spans) -> tuple[list[Figure], list[int]]:
    found: list[Figure] = []
    years: list[int] = []
    for m in RUN.finditer(text):
        if _taken(spans, m.start(), m.end()):
            continue
        run, frac, fscale = m.group("run"), m.group("frac"), m.group("fscale")
        head, sign, currency = _left(text, cased, m.start())
        year = chinese_year(run, text[m.end() :])
        if year is not None:
            years.append(year)
            continue
        if _approximate(text, text[max(0, head - _LOOKBACK) : head], m) or ARGUMENT_PARTS.match(text, m.end()):
            continue  # 几十亿 states no figure; 两个原因 is the answer's own structure
        after = AFTER.match(text, m.end())
        assert after is not None
        unit = after.group("unit")
        scaled = any(ch in BIG for ch in run) or bool(fscale) or bool(after.group("scale"))
        leading = run[0] not in DIGITS and run[0] not in "十拾"  # 百亿, 千元: an unwritten 一
        if leading:  # 百亿, 千元, 千万 with an unwritten 一; not 万一, 百货 or 千万不要
            scale_alone = len(run) >= 2 and scaled and not _ADVERB_AFTER.match(text, m.end())
            if any(ch in DIGITS for ch in run) or not (unit or scale_alone):
                continue
        integer = chinese_integer(("一" + run) if leading else run)
        if integer is None:
            if _NEIGHBOURS.search(run) and (unit or scaled):
                end = _stated_end(after) if after.group("unit") or after.group("scale") else m.end()
                # 三四成, 五六家: a claim read as written, not as a value
                spans.append((m.start(), end))
                found.append(Figure(m.start(), end, Decimal(0), WRITTEN + text[m.start() : end], text[m.start() : end]))
            continue
        if not (scaled or unit) and len(run) < 2 and not frac:
            continue  # 十分, 一些, 统一: one numeral character alone is part of a word
        if unit and not scaled and run == "一" and not frac and UNIT_OF[unit][0] in {COUNT, "time", "date"}:
            continue  # 一家门店, 一年: an article, not a figure
        value = Decimal(integer)
        if frac:
            value += Decimal("0." + "".join(str(DIGITS[ch]) for ch in frac))
            value *= BIG.get(fscale or "", 1)
        stated = bool(after.group("scale") or unit)
        end = _stated_end(after) if stated else m.end()
        value, unit_class = _unit_class(value, after if stated else None, currency, "")
        if unit_class == NUMBER and scaled:
            unit_class = AMOUNT  # 二十亿: a scale written inside the numeral
        spans.append((m.start(), end))
        found.append(Figure(m.start(), end, value, unit_class, text[m.start() : end], sign))
    return found, years


def _ascii_digits(text: str) -> str:
    """Other scripts' digits (`٢٥`) as ASCII ones, so that every digit is read alike."""
    return "".join(
        str(unicodedata.decimal(ch)) if not ch.isascii() and unicodedata.decimal(ch, None) is not None else ch
        for ch in text
    )


# Pure, and asked again for the same snippets on every narrative answer that cites them.
@lru_cache(maxsize=4096)
def claims_find(normalized: str) -> Claims:
    """Every figure and every written year in `normalized`, in reading order.

    `normalized` is `text_normalize`d, or `prose_normalize`d so that capitals still show
    (a currency code written `MYR 1.2bn`); both read alike otherwise.
    """
    cased = _ascii_digits(normalized)
    folded = cased.translate(_FOLD)
    years: list[int] = []
    parts: list[str] = []
    cased_parts: list[str] = []
    cursor = 0
    for start, end, period in periods_find(folded, _ANY_DAY):
        if _WRITTEN_YEAR.search(folded[start:end]):
            years.append(period.year)
        parts += [folded[cursor:start], " "]
        cased_parts += [cased[cursor:start], " "]
        cursor = end
    parts.append(folded[cursor:])
    cased_parts.append(cased[cursor:])
    rest, rest_cased = "".join(parts), "".join(cased_parts)
    figures, spans = forms_find(rest)
    figures += _arabic(rest, rest_cased, spans)
    figures += _roman(rest, rest_cased, spans)
    chinese, chinese_years = _chinese(rest, rest_cased, spans)
    return Claims(tuple(quantities_sign(rest, figures + chinese)), tuple(years + chinese_years))
