"""Currency and scale as tables print them, and the unit codes that carry them.

`scale_read` finds a scale statement in a header, a title, a caption or the sentence before a
table: `in thousands`, `(in millions, except per share data)`, `$ in millions`, `(Dollars in
Millions)`, `in thousand NT dollars`, `(inthousands)`, `$'000`, `RMB'000`, `€m`, `£m`, `US$m`,
`USDm`, `$ million`, `千元`, `万元`, `百万元`, `人民币亿元`. A scale word right after a number is a
figure (`$6.2 million`), never a statement. The currency is read beside it (`US$`, `NT$`, `€`,
`£`, `RMB`, `dollars`, `euros` …); a bare `$` is `"$"`, which only the company's reporting currency
can name (`dollar_currency`).

Unit codes (`unit_code`, `unit_parse`): `<ISO currency>[_<scale>]` with scale `K`, `10K`, `M`,
`100M` or `B` (USD_K, EUR_M, CNY_10K); `AMT[_<scale>]` when the currency is not stated.
`AS_PRINTED` is a metric unit meaning "store what the table prints".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from core.language.normalize import text_normalize

AS_PRINTED = "AS_PRINTED"
UNSTATED = "AMT"
DOLLAR = "$"
_SCALES = {"": Decimal(1), "K": Decimal(10) ** 3, "10K": Decimal(10) ** 4, "M": Decimal(10) ** 6}
_SCALES |= {"100M": Decimal(10) ** 8, "B": Decimal(10) ** 9}
_SUFFIX = {factor: suffix for suffix, factor in _SCALES.items()}
_ISO = (
    "AED ARS AUD BDT BGN BHD BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW KWD "
    "KZT LKR MAD MOP MXN MYR NGN NOK NZD OMR PEN PHP PKR PLN QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR"
)
_CURRENCY_CODES = frozenset(_ISO.split()) | {UNSTATED}
_CODE = re.compile(r"(?P<currency>[A-Z]{3})(?:_(?P<scale>K|10K|M|100M|B))?")
_DOLLARS = frozenset({"USD", "AUD", "CAD", "HKD", "TWD", "SGD", "NZD"})


@dataclass(frozen=True)
class Printed:
    """What a text says about the figures it heads: a currency ("" unknown, "$" a bare dollar),
    a scale factor (None when it names no scale), and what figures it excepts."""

    currency: str = ""
    factor: Decimal | None = None
    excepted: str = ""  # what the statement excepts (`per share data`, `share and per share data`, `percentages`)


def unit_code(currency: str, factor: Decimal) -> str | None:
    """`USD_K` for (USD, 1000); `AMT_M` for an unknown currency; None for a factor with no code."""
    suffix = _SUFFIX.get(factor)
    if suffix is None:
        return None
    base = currency if currency in _CURRENCY_CODES else UNSTATED
    return f"{base}_{suffix}" if suffix else base


def unit_parse(code: str) -> tuple[str, Decimal] | None:
    """(currency, factor) of a money unit code (`""` for AMT), or None for any other unit."""
    m = _CODE.fullmatch(code)
    if m is None or m.group("currency") not in _CURRENCY_CODES:
        return None
    currency = "" if m.group("currency") == UNSTATED else m.group("currency")
    return currency, _SCALES[m.group("scale") or ""]


def dollar_currency(currency: str) -> str:
    """The currency a bare `$` means for a company reporting in `currency` ("" if it says none)."""
    return currency if currency in _DOLLARS else ""


# Currency words, longest first, as they read after `text_normalize` (lower case, NFKC).
_CURRENCIES: tuple[tuple[str, str], ...] = (
    (r"us\s?\$|usd|u\.s\.\s?\$|u\.s\.\s?dollars?|us\s?dollars?", "USD"),
    (r"nt\s?\$|ntd|twd|nt\s?dollars?|new taiwan dollars?", "TWD"),
    (r"hk\s?\$|hkd|hong kong dollars?|港元|港币", "HKD"),
    (r"a\s?\$|aud|australian dollars?", "AUD"),
    (r"c\s?\$|cad|canadian dollars?", "CAD"),
    (r"s\s?\$|sgd|singapore dollars?", "SGD"),
    (r"新台币|台币", "TWD"),
    (r"rmb|cny|renminbi|人民币", "CNY"),
    (r"eur|euros?|€", "EUR"),
    (r"gbp|pounds?(?: sterling)?|£", "GBP"),
    (r"jpy|yen|円|日元", "JPY"),
    (r"美元", "USD"),
    (r"chf|swiss francs?", "CHF"),
    (r"inr|rupees?", "INR"),
    (r"\$|dollars?", DOLLAR),
)


def _bounded(alternative: str) -> str:
    """A currency word may not sit inside a longer word; a symbol (`€`, `$`) may touch `m`."""
    before = "(?<![a-z])" if alternative[:1].isalpha() else ""
    after = "(?:(?=[mkb](?![a-z]))|(?![a-z]))" if alternative[-1:].isalpha() or alternative.endswith("?") else ""
    return f"{before}(?:{alternative}){after}"


_CURRENCY = re.compile(
    "|".join(
        f"(?P<c{i}>{'|'.join(_bounded(a) for a in pattern.split('|'))})" for i, (pattern, _) in enumerate(_CURRENCIES)
    )
)
_WORDS = {"thousand": "K", "thousands": "K", "million": "M", "millions": "M", "billion": "B", "billions": "B"}
_WORDS |= {"mn": "M", "mio": "M", "bn": "B", "000s": "K"}
_NUMBER_BEFORE = re.compile(r"[0-9][0-9,.]*\s?$")
# `in thousands`, `(thousands)`, `in thousand nt dollars`, `$ in millions`, `(inthousands)`.
_WORD_SCALE = re.compile(r"(?<![a-z])(?:in\s?)?(?P<word>thousands?|millions?|billions?|mn|mio|bn|000s)(?![a-z])")
# `$'000`, `'000`, `rmb'000`, `$000`, `€000`.
_THOUSANDS_MARK = re.compile(r"(?:(?<=[$€£¥])['’‘`]?|['’‘`])\s?000(?![0-9])")
# `€m`, `£m`, `$m`, `us$m`, `usdm`, `rmbm`, `$bn`, `€k`.
_LETTER_SCALE = re.compile(
    r"(?:(?<=[$€£¥])|(?<=usd)|(?<=eur)|(?<=gbp)|(?<=rmb)|(?<=aud)|(?<=rmb )|(?<=cny )|(?<=usd )|(?<=eur ))"
    r"(?P<letter>m|bn|b|k)(?![a-z])"
)
_CHINESE = ((r"亿元|亿", "100M"), (r"百万元|百万", "M"), (r"千万元", None), (r"万元", "10K"), (r"千元", "K"))
_CHINESE_SCALE = re.compile("|".join(f"(?P<z{i}>{pattern})" for i, (pattern, _) in enumerate(_CHINESE)))
_EXCEPT = re.compile(r"except(?: for)?\s+([^);:]+)")


def currency_strip(raw: str) -> str:
    """A text without its currency words and signs (`HK$`, `US dollars`, `人民币`)."""
    return " ".join(_CURRENCY.sub(" ", text_normalize(raw)).split())


def currency_read(normalized: str) -> str:
    """The currency a text names (`"$"` for a bare dollar), "" for none."""
    for m in _CURRENCY.finditer(normalized):
        for i, (_, code) in enumerate(_CURRENCIES):
            if m.group(f"c{i}"):
                return code
    return ""


# What may follow a scale word in a sentence: its end, a bracket or a clause break, or the money it counts.
_PROSE_AFTER = re.compile(
    r"\s*(?:$|[).:;,]|except|unless|of (?:u\.?s\.? |canadian |australian |hong kong |new taiwan |nt |singapore )?"
    r"(?:dollars|euros?|pounds|yen|rmb|renminbi|yuan|francs|kronor|usd|eur|gbp|cad|aud))"
)


_CHINESE_PROSE_BEFORE = re.compile(r"(?:单位|金额单位)\s?[:：]?\s?(?:人民币|美元|港币|港元)?$|[(（]\s?(?:人民币)?$")


def _scale_spans(normalized: str, *, prose: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, scale suffix) of every scale statement; figures (`6.2 million`) are skipped.

    In `prose` (the sentence before a table) a scale word counts only as `in millions` or
    `(millions)`, so `millions of customers` states nothing.
    """
    found: list[tuple[int, int, str]] = []
    for m in _WORD_SCALE.finditer(normalized):
        before = normalized[: m.start("word")]
        if _NUMBER_BEFORE.search(before):
            continue  # `$6.2 million` is a figure
        if prose and not (
            re.search(r"(?:\bin\s?|\(\s?)(?:[$€£¥]\s?|[a-z]{2,3}\s?\$\s?)?$", before)
            and _PROSE_AFTER.match(normalized, m.end())
        ):
            continue  # `in thousands of communities` states no scale
        found.append((m.start(), m.end(), _WORDS[m.group("word")]))
    for m in _THOUSANDS_MARK.finditer(normalized):
        found.append((m.start(), m.end(), "K"))
    for m in _LETTER_SCALE.finditer(normalized):
        found.append((m.start(), m.end(), {"m": "M", "bn": "B", "b": "B", "k": "K"}[m.group("letter")]))
    for m in _CHINESE_SCALE.finditer(normalized):
        if _NUMBER_BEFORE.search(normalized[: m.start()]):
            continue
        if prose and not re.search(
            r"(?:单位|金额单位)\s?[:：]?\s?(?:人民币|美元|港币|港元)?$|[(（]\s?(?:人民币)?$", normalized[: m.start()]
        ):
            continue  # `百万元以上合同` in a sentence is a figure's words, not the table's unit
        suffix = next(s for i, (_, s) in enumerate(_CHINESE) if m.group(f"z{i}"))
        if suffix is not None:
            found.append((m.start(), m.end(), suffix))
    return sorted(found)


def scale_read(normalized: str, *, prose: bool = False) -> Printed | None:
    """The currency and scale a normalised text states, or None when it states neither a scale
    nor (on its own, as in a header cell `US$`) a currency. `prose`: see `_scale_spans`."""
    spans = _scale_spans(normalized, prose=prose)
    suffixes = {suffix for _, _, suffix in spans}
    currency = currency_read(normalized)
    if len(suffixes) > 1:
        return Printed(currency, None)  # two scales in one text: none can be trusted
    if not suffixes:
        return Printed(currency, None) if currency and _currency_only(normalized) else None
    chinese_money = any(normalized[start:end].endswith("元") for start, end, _ in spans)
    if chinese_money and not currency:
        currency = "CNY"
    excepted = _EXCEPT.search(normalized)
    return Printed(currency, _SCALES[suffixes.pop()], excepted.group(1).strip() if excepted else "")


def _currency_only(normalized: str) -> bool:
    rest = _CURRENCY.sub(" ", normalized)
    return not re.sub(r"[\s()（）:：,]|in|单位", "", rest)


_SCALE_WORDS = re.compile(r"(?<![a-z])(?:dollars|amounts|tabular amounts|expressed|all figures|figures|of|in)(?![a-z])")


def scale_strip(normalized: str) -> str:
    """The text without its scale statements and currency words (what is left names the rest)."""
    normalized = re.sub(r"(?:,\s*)?except (?:for )?[a-z -]+", " ", normalized)
    spans = _scale_spans(normalized)
    chars = list(normalized)
    for start, end, _ in spans:
        chars[start:end] = " " * (end - start)
    text = _CURRENCY.sub(" ", "".join(chars))
    text = re.sub(r"[(（]\s*[,;]?\s*[)）]", " ", text)
    text = re.sub(
        r"(?<![a-z])(?:dollars|amounts|tabular amounts|expressed|all figures|figures|of|in)(?![a-z])", " ", text
    )
    return " ".join(text.split())
