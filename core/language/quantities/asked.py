"""The unit or scale a question asks its answer in: `是多少亿元`, `单位亿元`, `多少万元`,
`换算成美元`, `in USD billions`, `in billions of RMB`, `(in USD millions)`, `in thousands`.

Takes normalised text; returns a `UnitAsked` (the scale as a power of ten, the currency when one
is named, the words as written) or None. A bare currency with no scale (`多少元`) asks nothing
but the currency, which the stored figure already has in the usual case.

`money_unit` reads a fact's unit code (`CNY_M`, `USD_M`, `HKD`, `CNY_HUNDRED_MILLION`) as
(currency, power of ten), and `scaled_unit_display` names a currency at a scale in each
language (`亿美元` / `USD 100m`, `百万元` / `CNY m`).
"""

from __future__ import annotations

import re

from core.language.quantities.units import CURRENCIES
from core.model.intent import UnitAsked

_ZH_SCALES = {"万亿": 12, "千亿": 11, "百亿": 10, "十亿": 9, "亿": 8, "千万": 7, "百万": 6, "十万": 5, "万": 4, "千": 3}
_EN_SCALES = {
    "trillions": 12,
    "trillion": 12,
    "billions": 9,
    "billion": 9,
    "bn": 9,
    "millions": 6,
    "million": 6,
    "mn": 6,
    "thousands": 3,
    "thousand": 3,
}
_ZH_CURRENCIES = {
    **{w: c for w, c in CURRENCIES.items() if not w.isascii()},
    "美金": "USD",
    "港纸": "HKD",
    "欧罗": "EUR",
    "人仔": "CNY",
}
_EN_CURRENCIES = {
    **{w: c for w, c in CURRENCIES.items() if w.isascii() and w not in ("$",)},
    "us dollars": "USD",
    "us dollar": "USD",
    "dollar": "USD",
    "renminbi": "CNY",
    "euros": "EUR",
    "euro": "EUR",
    "hong kong dollars": "HKD",
}


def _alternation(words: dict[str, object]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ZH_SCALE = _alternation(_ZH_SCALES)
_ZH_CURRENCY = _alternation(_ZH_CURRENCIES)
_EN_SCALE = _alternation(_EN_SCALES)
_EN_CURRENCY = _alternation(_EN_CURRENCIES)
_CONVERT = "换算成|换算为|换算至|换算做|换成|换做|折合|折算成|折算为|折算做|转换成|转换为|转成|转做"
_ZH = re.compile(
    rf"(?:(?P<lead>(?:(?:{_CONVERT})\s*)?(?:多少|几多|几)|单位(?:为|是)?[:：]?|以|用|按|{_CONVERT})\s*)"
    rf"(?P<scale>{_ZH_SCALE})?(?P<currency>{_ZH_CURRENCY})"
)
_ZH_SCALE_ONLY = re.compile(rf"(?:多少|几多|几)(?P<scale>{_ZH_SCALE})(?=\s*(?:$|[呢吗啊呀?？。!！,，]))")
_EN = re.compile(
    rf"(?<![a-z])(?:in|into|to|as)\s+(?:units of\s+)?(?:the\s+)?"
    rf"(?:(?P<c1>{_EN_CURRENCY})\s*)?(?P<scale>{_EN_SCALE})(?![a-z])(?:\s+of\s+(?P<c2>{_EN_CURRENCY})(?![a-z]))?"
    rf"|(?<![a-z])(?:in|into|convert(?:ed)? to|expressed in)\s+(?P<c3>{_EN_CURRENCY})(?![a-z])(?!\s*(?:{_EN_SCALE}))"
)


def unit_asked(normalized: str) -> UnitAsked | None:
    """The unit the question asks its answer in, or None (see the module's docstring)."""
    for m in _ZH.finditer(normalized):
        scale = m.group("scale")
        currency = _ZH_CURRENCIES[m.group("currency")]
        converting = m.group("lead").strip() not in ("多少", "几多", "几")
        if scale or converting:
            power = _ZH_SCALES[scale] if scale else None
            return UnitAsked(power, currency, m.group(0).strip())
        if currency != "CNY":
            return UnitAsked(None, currency, m.group(0).strip())
    m = _ZH_SCALE_ONLY.search(normalized)
    if m is not None:
        return UnitAsked(_ZH_SCALES[m.group("scale")], "", m.group(0).strip())
    m = _EN.search(normalized)
    if m is None:
        return None
    if m.group("c3"):
        return UnitAsked(None, _EN_CURRENCIES[m.group("c3")], m.group(0).strip())
    code = m.group("c1") or m.group("c2")
    return UnitAsked(_EN_SCALES[m.group("scale")], _EN_CURRENCIES[code] if code else "", m.group(0).strip())


_FACT_POWERS = {"": 0, "K": 3, "M": 6, "B": 9, "BN": 9, "HUNDRED_MILLION": 8, "TEN_THOUSAND": 4}


def money_unit(code: str) -> tuple[str, int] | None:
    """A unit code as (currency, power of ten): `CNY_M` → ("CNY", 6); None for anything not money."""
    currency, _, scale = code.upper().partition("_")
    currency = "CNY" if currency == "RMB" else currency
    if currency not in set(CURRENCIES.values()) or scale not in _FACT_POWERS:
        return None
    return currency, _FACT_POWERS[scale]


# Things counted, by the unit code's name for them: (zh, en).
COUNTED = {"PERSONS": ("人", "persons"), "COUNT": ("", ""), "STORES": ("家", "stores"), "SHARES": ("股", "shares")}
_COUNT_CODES = {0: "", 3: "THOUSAND_", 4: "TEN_THOUSAND_", 6: "MILLION_", 8: "HUNDRED_MILLION_", 9: "BILLION_"}


def count_unit(code: str) -> tuple[str, int] | None:
    """A count's unit code as (thing, power of ten): `TEN_THOUSAND_PERSONS` → ("PERSONS", 4),
    `COUNT` → ("COUNT", 0); None for anything else."""
    upper = code.upper()
    for power, prefix in sorted(_COUNT_CODES.items(), key=lambda item: -len(item[1])):
        if upper.startswith(prefix) and upper[len(prefix) :] in COUNTED:
            return upper[len(prefix) :], power
    return None


def count_unit_code(thing: str, power: int) -> str:
    return _COUNT_CODES.get(power, f"E{power}_") + thing


_EN_COUNT_POWER = {0: "", 3: "thousand", 4: "ten thousand", 6: "million", 8: "hundred million", 9: "billion"}


def count_unit_display(thing: str, power: int, language: str) -> str:
    """`百万人` / `million persons`."""
    zh, en = COUNTED.get(thing, ("", thing.lower()))
    if language == "en":
        return " ".join(x for x in (_EN_COUNT_POWER.get(power, f"e{power}"), en) if x)
    return _ZH_POWER.get(power, f"10^{power}") + zh


_ZH_NAMES = {"CNY": "元", "USD": "美元", "HKD": "港元", "EUR": "欧元", "GBP": "英镑", "JPY": "日元"}
_ZH_POWER = {0: "", 3: "千", 4: "万", 6: "百万", 8: "亿", 9: "十亿", 12: "万亿"}
_EN_POWER = {0: "", 3: " k", 4: " 10k", 6: " m", 8: " 100m", 9: " bn", 12: " tn"}
_CODE_POWER = {0: "", 3: "_K", 4: "_TEN_THOUSAND", 6: "_M", 8: "_HUNDRED_MILLION", 9: "_B", 12: "_T"}


def scaled_unit_code(currency: str, power: int) -> str:
    """`("USD", 8)` → `USD_HUNDRED_MILLION`: the unit code a converted figure carries."""
    return currency + _CODE_POWER.get(power, f"_E{power}")


def scaled_unit_display(currency: str, power: int, language: str) -> str:
    """`亿美元` / `USD 100m`; `百万元` / `CNY m`."""
    if language == "en":
        return currency + _EN_POWER.get(power, f" e{power}")
    return _ZH_POWER.get(power, f"10^{power}") + _ZH_NAMES.get(currency, currency)
