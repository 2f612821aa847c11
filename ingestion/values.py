"""Cell values and units: exact decimals from table cells, and the units that headers name.

`value_parse` follows `decimal_parse` (thousands separators, `(1,234)` as a
negative, never NaN or infinity) and also reads a trailing `%` and the usual "no value" marks
(`—`, `-`, `n/a`). `unit_hint` finds a unit named in a title, header or label: inside brackets
(`营业收入（百万元）`, `(RMB m)`), after `单位：`, as a whole cell, or a bare `%`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from core.language.normalize import text_normalize

NO_VALUE = frozenset({"", "-", "—", "–", "--", "——", "/", "n/a", "na", "n.a.", "nm", "n.m.", "不适用", "无", "*"})

_UNIT_WORDS = re.compile(r"(?<![a-z])(?:in|unit|units)(?![a-z])|单位|人民币")
_BARE_PERCENT = re.compile(r"(?<![0-9])(?<![0-9] )%")
_BRACKETS = re.compile(r"[(\[【〔]([^)\]】〕]*)[)\]】〕]")
_UNIT_CLAUSE = re.compile(r"(?:单位|units?)\s*[:：]\s*")
# Digits as tables group them: `1,234,567`, Indian `12,34,567`, `1 234 567`, or none; `12,34` or
# `987,6` (a decimal comma) is no number here, never a guess.
_DIGITS = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,2}(?:,[0-9]{2})+,[0-9]{3}|[0-9]{1,3}(?: [0-9]{3})+|[0-9]+)"
_NUMBER = re.compile(rf"[-+]?\(?[-+]?(?:{_DIGITS})?(?:\.[0-9]+)?\)?")
_SUPERSCRIPT = str.maketrans({ch: " " for ch in "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾ᵃᵇᶜᵈᵉ"})
_MARKS = re.compile(r"\s*[*†‡§#]+$")
_DASH_MINUS = re.compile(r"^[\u2010-\u2015△▲▼]\s?(?=[0-9(])")
_TRAILING_MINUS = re.compile(r"^([0-9][0-9,. ]*)-$")


@dataclass(frozen=True)
class UnitHint:
    """A unit code and the factor that converts a written value into that unit (亿元 → CNY_M × 100)."""

    code: str
    factor: Decimal = Decimal(1)


# (marker as written after text_normalize, unit code, factor). Single characters count only as a
# whole bracket or cell (`新开门店数（家）`), never inside a longer phrase.
_BUILTIN: tuple[tuple[str, str, str], ...] = (
    ("人民币百万元", "CNY_M", "1"),
    ("百万人民币", "CNY_M", "1"),
    ("百万元", "CNY_M", "1"),
    ("rmb million", "CNY_M", "1"),
    ("rmb mn", "CNY_M", "1"),
    ("rmb m", "CNY_M", "1"),
    ("cny million", "CNY_M", "1"),
    ("cny mn", "CNY_M", "1"),
    ("cny m", "CNY_M", "1"),
    ("人民币亿元", "CNY_M", "100"),
    ("亿元", "CNY_M", "100"),
    ("人民币万元", "CNY_M", "0.01"),
    ("万元", "CNY_M", "0.01"),
    ("人民币千元", "CNY_M", "0.001"),
    ("千元", "CNY_M", "0.001"),
    ("%", "PCT", "1"),
    ("百分比", "PCT", "1"),
    ("万人", "TEN_THOUSAND_PERSONS", "1"),
    ("家", "COUNT", "1"),
    ("个", "COUNT", "1"),
    ("间", "COUNT", "1"),
    ("户", "COUNT", "1"),
)


class UnitMarkers:
    """The unit words a glossary makes meaningful: built-in Chinese/English forms plus unit names."""

    def __init__(self, units: Iterable[tuple[str, str, str]]):
        """`units`: (code, zh name, en name) of every unit the glossary knows."""
        known: dict[str, UnitHint] = {}
        codes = set()
        for code, name_zh, name_en in units:
            codes.add(code)
            for text in (code, name_zh, name_en):
                key = text_normalize(text)
                if key:
                    known.setdefault(key, UnitHint(code))
        for text, code, factor in _BUILTIN:
            if code in codes:
                known.setdefault(text, UnitHint(code, Decimal(factor)))
        self.exact = known
        self.inner = sorted((k for k in known if len(k) > 1 or k == "%"), key=len, reverse=True)

    def whole(self, text: str) -> UnitHint | None:
        """The unit a whole cell or bracket names (`百万元`, `家`), if it is nothing but a unit."""
        key = text_normalize(text).strip()
        key = key[3:].strip() if key.startswith(("单位:", "单位：")) else key
        return self.exact.get(key)

    def _within(self, segment: str) -> UnitHint | None:
        hint = self.whole(segment)
        if hint is not None:
            return hint
        for marker in self.inner:
            if _contains(segment, marker):
                rest = _UNIT_WORDS.sub(" ", segment.replace(marker, " "))
                # `(%)`, `(in %)`, `(单位：百万元)`; `(% of total)` says what the figure is a share of
                return self.exact[marker] if not any(ch.isalpha() for ch in rest) else None
        return None

    def _clause(self, normalized: str) -> tuple[int, int, UnitHint] | None:
        """A `单位：百万元` clause: its span and unit."""
        m = _UNIT_CLAUSE.search(normalized)
        if m is None:
            return None
        rest = normalized[m.end() :]
        for marker in sorted(self.exact, key=len, reverse=True):
            if rest.startswith(marker):
                return m.start(), m.end() + len(marker), self.exact[marker]
        return None

    def hint(self, normalized: str) -> UnitHint | None:
        """The unit that a title, header or label names, or None."""
        for m in _BRACKETS.finditer(normalized):
            found = self._within(m.group(1))
            if found is not None:
                return found
        clause = self._clause(normalized)
        if clause is not None:
            return clause[2]
        if "%" in self.exact and _BARE_PERCENT.search(normalized):
            return self.exact["%"]  # `毛利率 %`; a figure's own sign (`a rate of 19.0%`) names no unit
        return None

    def strip(self, normalized: str) -> str:
        """The text without the bracketed or `单位：` parts that name a unit, and without `%`."""
        text = _BRACKETS.sub(lambda m: " " if self._within(m.group(1)) else m.group(0), normalized)
        clause = self._clause(text)
        if clause is not None:
            text = text[: clause[0]] + " " + text[clause[1] :]
        return " ".join(text.replace("%", " ").split())


def _contains(text: str, marker: str) -> bool:
    """`marker` inside `text`; an ASCII marker must sit on word boundaries (`rmb m` not in `rmb mn`)."""
    if marker == "%":
        return _BARE_PERCENT.search(text) is not None
    if not marker.isascii():
        return marker in text
    return re.search(r"(?<![a-z0-9])" + re.escape(marker) + r"(?![a-z0-9])", text) is not None


def decimal_parse(raw: str) -> Decimal:
    """Exact decimal from a cell: `1,234.5`, `(1,234)` as negative; never NaN or infinity.

    Shared by office extraction and `import_facts`, so both read values the same way.
    """
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = None
    if value is not None:
        if not value.is_finite():
            raise InvalidOperation
        return value
    text = raw.replace(",", "").replace("，", "").replace(" ", "")
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1]
    value = Decimal(text)
    if not value.is_finite():
        raise InvalidOperation
    return -value if negative else value


_CELL_CURRENCY = re.compile(r"^(?:(?:us|hk|nt|nz|a|c|s|u\.s\.)\s?\$|[$€£¥]|rmb|usd|eur|gbp|cny|hkd)\s*", re.IGNORECASE)
_PARENTHESISED_PERCENT = re.compile(r"^\((.*)%\s*\)$")


def cell_currency(raw: str) -> str:
    """The currency mark a value cell starts with (`$`, `€`, `US$`), as written; "" for none."""
    text = unicodedata.normalize("NFKC", raw).strip().lstrip("(")
    m = _CELL_CURRENCY.match(text)
    return m.group(0).strip() if m else ""


def value_parse(raw: str) -> tuple[Decimal, bool] | None:
    """`(value, is_percent)` for a numeric cell, or None for an empty, dash or non-numeric one.

    A leading currency mark (`$`, `€`, `US$`, `RMB`) is no part of the value; `(248%)` is -248%.
    """
    text = unicodedata.normalize("NFKC", raw.translate(_SUPERSCRIPT)).strip().replace("\u2212", "-")
    if text.lower() in NO_VALUE:
        return None
    text = _MARKS.sub("", text)  # a footnote mark on a figure (`1,234*`)
    text = _TRAILING_MINUS.sub(r"-\1", _DASH_MINUS.sub("-", text))  # `–120`, `△120`, `120-`
    text = _PARENTHESISED_PERCENT.sub(r"(\1)%", text)
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1].strip()
    text = _CELL_CURRENCY.sub("", text).strip()
    if negative:
        text = f"({text})"
    if not any(ch.isdigit() for ch in text) or not _NUMBER.fullmatch(text) or text.endswith((",", "，")):
        return None
    try:
        return decimal_parse(text), percent
    except (InvalidOperation, ValueError):
        return None


def is_numeric(raw: str) -> bool:
    return value_parse(raw) is not None


def spreads_over_merge(text: str) -> bool:
    """Whether a merged cell's text reads in every cell it covers: text and years, not values."""
    return bool(text) and (
        not is_numeric(text) or re.fullmatch(r"(?:FY)?(?:19[9][0-9]|20[0-9]{2}|2100)", text) is not None
    )
