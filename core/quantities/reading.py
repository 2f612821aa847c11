"""Reading figures out of normalised prose; see the package docstring for what is read how."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ..periods import periods_find
from .chinese import BIG, DIGITS, RUN, SMALL, chinese_integer, chinese_year
from .units import (
    AFTER,
    AMOUNT,
    ARGUMENT_PARTS,
    COUNT,
    CURRENCIES,
    MONEY,
    NUMBER,
    PERCENT,
    PREFIX_CURRENCIES,
    SCALES,
    UNIT_OF,
    Quantity,
)

_ARABIC = re.compile(r"(?<!\d)(?<!\d\.)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\d)")
_CURRENCY_BEFORE = re.compile(
    r"(?P<cur>" + "|".join(re.escape(c) for c in sorted(PREFIX_CURRENCIES, key=len, reverse=True)) + r")\s?$"
)
_MINUS_BEFORE = re.compile(r"[-−]\s?$")
_RANGE_BEFORE = re.compile(r"[0-9a-z%‰.)\]]$")  # 1-4, 8%-10%: a dash after these joins a range
# A loss or a fall stated right before the figure. A fall *to* a level (至/到/为) is a level.
_NEGATING_BEFORE = re.compile(
    r"(?:负增长(?:了|为|达|约)?|负|(?:净?亏损|(?<![扭减盈])亏|降幅|跌幅|减幅)(?:了|为|达|约|近|逾|超过|高达)?"
    r"|(?:下降|下滑|下跌|减少|降低|回落|萎缩|缩减|下调|跌|降|减)(?:了|约|近|逾|超过|达)?"
    r"|(?<![a-z])(?:down|fell|dropped|declined|decreased|shrank|lost|loss of|decline of|decrease of)(?: by)?"
    r")\s?(?:约|近)?\s?$"
)
_ORDINAL_BEFORE = re.compile(r"第\s?$")
_APPROXIMATE_BEFORE = re.compile(r"[几数]$")
_PERCENT_BEFORE = re.compile(r"百分之$")
_IDENTIFIER_BEFORE = re.compile(r"[a-z_]$")
_FIGURE_UNITS = {"%", "成", "个百分点", "百分点", "pp", *CURRENCIES}  # an ordinal never takes these
_ANY_DAY = date(2000, 1, 1)  # relative periods name no digits; only written years are kept
_WRITTEN_YEAR = re.compile(r"\d{2,4}")


@dataclass(frozen=True)
class Claims:
    quantities: tuple[Quantity, ...]
    years: tuple[int, ...]


def _left(before: str) -> tuple[str, bool, str | None]:
    """Strip an explicit minus and a currency written before a number: (rest, negative, currency)."""
    negative = False
    currency = None
    for _ in range(2):  # -rmb5 and rmb-5 alike
        minus = _MINUS_BEFORE.search(before)
        if minus and not negative:
            head = before[: minus.start()]
            if _CURRENCY_BEFORE.search(head) or not _RANGE_BEFORE.search(head):
                negative, before = True, head
                continue
        written = _CURRENCY_BEFORE.search(before)
        if written and currency is None:
            currency, before = CURRENCIES[written.group("cur")], before[: written.start()]
            continue
        break
    return before, negative, currency


def _quantity(
    value: Decimal,
    *,
    after: re.Match[str],
    negative: bool,
    currency: str | None,
    percent: bool,
    scaled: bool,
    text: str,
) -> Quantity:
    scale = after.group("scale")
    unit = after.group("unit")
    if scale:
        value *= SCALES[scale]
        scaled = True
    if percent:
        unit_class = PERCENT
    elif unit:
        unit_class, multiplier = UNIT_OF[unit]
        value *= multiplier
        if currency and unit in ("元", "块"):
            unit_class = MONEY + currency  # 港币5亿元: the written currency, not 元's default
    elif currency:
        unit_class = MONEY + currency
    else:
        unit_class = AMOUNT if scaled else NUMBER
    return Quantity(-value if negative else value, unit_class, text.strip())


def _states_a_cjk_unit(after: re.Match[str]) -> bool:
    written = (after.group("scale") or "") + (after.group("unit") or "")
    return bool(written) and (not written.isascii() or written == "%")


def _arabic(text: str) -> list[Quantity]:
    found = []
    for m in _ARABIC.finditer(text):
        after = AFTER.match(text, m.end())
        assert after is not None  # every part of it is optional
        before, negative, currency = _left(text[: m.start()])
        if currency is None and _IDENTIFIER_BEFORE.search(before) and not _states_a_cjk_unit(after):
            continue  # q4, iphone15, b2b: part of a name, not a figure
        if not after.group("scale") and not after.group("unit") and re.match(r"[a-z]", text[m.end() : m.end() + 1]):
            continue  # 5g, 3d, 1st
        if _ORDINAL_BEFORE.search(before) and not (after.group("scale") or after.group("unit") in _FIGURE_UNITS):
            continue  # 第3名: numbers the text, states no figure
        if ARGUMENT_PARTS.match(text, m.end()):
            continue  # 3个方面: the answer's own structure
        found.append(
            _quantity(
                Decimal(m.group("num").replace(",", "")),
                after=after,
                negative=negative or bool(_NEGATING_BEFORE.search(before)),
                currency=currency,
                percent=bool(_PERCENT_BEFORE.search(before)),
                scaled=False,
                text=text[m.start() : after.end()],
            )
        )
    return found


def _chinese(text: str) -> tuple[list[Quantity], list[int]]:
    found: list[Quantity] = []
    years: list[int] = []
    for m in RUN.finditer(text):
        run, frac, fscale = m.group("run"), m.group("frac"), m.group("fscale")
        before, negative, currency = _left(text[: m.start()])
        year = chinese_year(run, text[m.end() :])
        if year is not None:
            years.append(year)
            continue
        if run[0] not in DIGITS and SMALL.get(run[0]) != 10:
            continue  # 千万不要, 万一, 百货: no leading digit
        if _ORDINAL_BEFORE.search(before) or _APPROXIMATE_BEFORE.search(before) or text.startswith("几", m.end()):
            continue  # 第一, 几十亿, 数十亿, 十几亿
        if ARGUMENT_PARTS.match(text, m.end()):
            continue  # 两个原因, 三项措施: the answer's own structure
        integer = chinese_integer(run)
        if integer is None:
            continue
        value = Decimal(integer)
        if frac:
            value += Decimal("0." + "".join(str(DIGITS[ch]) for ch in frac))
            value *= BIG.get(fscale or "", 1)
        after = AFTER.match(text, m.end())
        assert after is not None
        unit = after.group("unit")
        percent = bool(_PERCENT_BEFORE.search(before))
        scaled = any(ch in "万亿" for ch in run) or bool(fscale) or bool(after.group("scale"))
        if not (percent or scaled or unit):
            continue  # 十分, 一二线: no unit and no scale, so no figure
        if (
            unit
            and not (percent or scaled)
            and run == "一"
            and not frac
            and UNIT_OF[unit][0] in {COUNT, "time", "date"}
        ):
            continue  # 一家门店, 一年: an article, not a figure
        found.append(
            _quantity(
                value,
                after=after,
                negative=negative or bool(_NEGATING_BEFORE.search(before)),
                currency=currency,
                percent=percent,
                scaled=scaled,
                text=text[m.start() : after.end()],
            )
        )
    return found, years


def claims_find(normalized: str) -> Claims:
    """Every figure and every written year in normalised `normalized`, in no particular order."""
    years: list[int] = []
    parts: list[str] = []
    cursor = 0
    for start, end, period in periods_find(normalized, _ANY_DAY):
        if _WRITTEN_YEAR.search(normalized[start:end]):
            years.append(period.year)
        parts.append(normalized[cursor:start])
        parts.append(" ")
        cursor = end
    parts.append(normalized[cursor:])
    rest = "".join(parts)
    chinese, chinese_years = _chinese(rest)
    return Claims(tuple(_arabic(rest) + chinese), tuple(years + chinese_years))
