"""Unit classes, scales and currencies for `quantities`, and how a fact row's unit code maps to them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from core.model.facts import FactRecord

PERCENT = "percent"
POINTS = "points"
PERMILLE = "permille"
RATIO = "ratio"
TIMES = "times"
COUNT = "count"
AMOUNT = "amount"
NUMBER = "number"
MONEY = "money:"
RANK = "rank"  # an exact position: 第2, No.2, 2nd, 排名第二
TOP = "rank:top"  # within the first N: top3, 前三名
GLUED = "glued:"  # digits glued to letters the reader does not know: glued:iphone#, glued:#g
WRITTEN = "written:"  # a form read as a claim but not as a value (三四成): only itself supports it
# Classes a rise or fall word says nothing about: a position or a calendar date has no sign.
UNSIGNED = frozenset({RANK, TOP, "date"})

SCALES = {
    "万亿": 10**12,
    "千亿": 10**11,
    "百亿": 10**10,
    "十亿": 10**9,
    "亿": 10**8,
    "千万": 10**7,
    "百万": 10**6,
    "十万": 10**5,
    "万": 10**4,
    "千": 10**3,
    "trillion": 10**12,
    "tn": 10**12,
    "billion": 10**9,
    "bn": 10**9,
    "b": 10**9,
    "million": 10**6,
    "mn": 10**6,
    "m": 10**6,
    "thousand": 10**3,
    "k": 10**3,
}
CURRENCIES = {
    "人民币": "CNY",
    "rmb": "CNY",
    "cny": "CNY",
    "yuan": "CNY",
    "元": "CNY",
    "块": "CNY",
    "¥": "CNY",
    "港元": "HKD",
    "港币": "HKD",
    "hkd": "HKD",
    "hk$": "HKD",
    "美元": "USD",
    "usd": "USD",
    "us$": "USD",
    "$": "USD",
    "dollars": "USD",
    "欧元": "EUR",
    "eur": "EUR",
    "€": "EUR",
    "英镑": "GBP",
    "gbp": "GBP",
    "£": "GBP",
    "日元": "JPY",
    "jpy": "JPY",
}
COUNTERS = "家人名位间店座所台辆户个款件项次笔单张套部条只份批处场"
PREFIX_CURRENCIES = ("人民币", "rmb", "cny", "¥", "港币", "hkd", "hk$", "usd", "us$", "$", "eur", "€", "gbp")
# (written unit, unit class, multiplier); longest first where one is a prefix of another.
UNITS: list[tuple[str, str, Decimal]] = [
    ("个百分点", POINTS, Decimal(1)),
    ("百分点", POINTS, Decimal(1)),
    ("个基点", POINTS, Decimal("0.01")),
    ("基点", POINTS, Decimal("0.01")),
    ("percentage points", POINTS, Decimal(1)),
    ("percentage point", POINTS, Decimal(1)),
    ("basis points", POINTS, Decimal("0.01")),
    ("basis point", POINTS, Decimal("0.01")),
    ("points", POINTS, Decimal(1)),
    ("ppts", POINTS, Decimal(1)),
    ("pts", POINTS, Decimal(1)),
    ("ppt", POINTS, Decimal(1)),
    ("pp", POINTS, Decimal(1)),
    # `pct` is percent in English and percentage points in Chinese broker prose: its own class.
    ("pct", "pct", Decimal(1)),
    ("bps", POINTS, Decimal("0.01")),
    ("bp", POINTS, Decimal("0.01")),
    ("%", PERCENT, Decimal(1)),
    ("percent", PERCENT, Decimal(1)),
    ("成", PERCENT, Decimal(10)),
    ("‰", PERMILLE, Decimal(1)),
    ("倍", TIMES, Decimal(1)),
    ("times", TIMES, Decimal(1)),
    ("x", TIMES, Decimal(1)),
    ("个月", "time", Decimal(1)),
    ("个季度", "time", Decimal(1)),
    ("季度", "time", Decimal(1)),
    ("个小时", "time", Decimal(1)),
    ("小时", "time", Decimal(1)),
    ("年", "time", Decimal(1)),
    ("天", "time", Decimal(1)),
    ("周", "time", Decimal(1)),
    ("月", "date", Decimal(1)),
    ("日", "date", Decimal(1)),
    ("号", "date", Decimal(1)),
    *((word, MONEY + code, Decimal(1)) for word, code in CURRENCIES.items()),
    *((word, COUNT, Decimal(1)) for word in COUNTERS),
    *((word, COUNT, Decimal(1)) for word in ("stores", "shops", "people", "persons", "members", "employees")),
]
_ASCII_WORD = re.compile(r"[a-z$]")
AFTER = re.compile(
    r"\s?(?P<scale>"
    + "|".join(re.escape(s) + ("(?![a-z])" if s.isascii() else "") for s in sorted(SCALES, key=len, reverse=True))
    + r")?\s?(?P<approx>余|多)?\s?(?P<unit>"
    + "|".join(
        ("(?<!\\s)" if u == "x" else "")  # 3x is three times; in 3 x 4 the x is an operator
        + re.escape(u)
        + ("(?![a-z])" if _ASCII_WORD.match(u[-1]) else "")
        + ("(?!本|为|交|功|长|员|果|熟|立|效|绩|都|型|品|就|全|份|分|人)" if u == "成" else "")
        for u in sorted({u for u, _, _ in UNITS}, key=len, reverse=True)
    )
    + ")?"
)
UNIT_OF = {written: (unit_class, multiplier) for written, unit_class, multiplier in UNITS}
# A count of the argument's own parts (两个原因, 三项措施, 3个方面) is no figure; 三个门店 is one.
ARGUMENT_PARTS = re.compile(
    r"(?:个|项|条|点|大)(?:主要|重要|关键|核心)?"
    r"(?:原因|方面|因素|问题|部分|阶段|层面|角度|维度|要点|特点|措施|举措|步骤|建议|理由|变化|驱动)"
)


@dataclass(frozen=True)
class Quantity:
    """A stated figure: `value` is signed and scaled to the base unit of `unit` (a unit class).

    `signed_by` says what states its sign: "" (nothing: a level), "minus"/"plus" (a written
    sign), "loss"/"profit" (a word that makes the value itself negative or positive), "fall"/
    "rise" (a change's direction) or "fact" (a fact row's signed value).
    """

    value: Decimal
    unit: str
    text: str = ""
    signed_by: str = ""

    @property
    def key(self) -> tuple[Decimal, str]:
        return (self.value.normalize(), self.unit)


FACT = "fact"
_FACT_SCALES = {"K": 10**3, "M": 10**6, "B": 10**9, "BN": 10**9, "HUNDRED_MILLION": 10**8}


def fact_quantity(fact: FactRecord) -> Quantity:
    """A fact row as a quantity: `-1085.2 CNY_M` → -1,085,200,000 in `money:CNY`.

    Unit codes: `PCT` (percent), `PP` (points), `COUNT`, `TEN_THOUSAND_<THINGS>`, and
    `<CURRENCY>` with an optional `_K`/`_M`/`_B` scale. An unknown code is a bare number.
    """
    code = fact.unit.upper()
    if code == "PCT":
        return Quantity(fact.value, PERCENT, fact.unit, FACT)
    if code in ("PP", "PPT"):
        return Quantity(fact.value, POINTS, fact.unit, FACT)
    if code == "COUNT":
        return Quantity(fact.value, COUNT, fact.unit, FACT)
    if code.startswith("TEN_THOUSAND_"):
        return Quantity(fact.value * 10**4, COUNT, fact.unit, FACT)
    currency, _, scale = code.partition("_")
    currency = "CNY" if currency == "RMB" else currency
    if currency in set(CURRENCIES.values()) and (not scale or scale in _FACT_SCALES):
        return Quantity(fact.value * _FACT_SCALES.get(scale, 1), MONEY + currency, fact.unit, FACT)
    return Quantity(fact.value, NUMBER, fact.unit, FACT)
