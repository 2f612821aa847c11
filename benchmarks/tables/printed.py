"""What a printed cell or text says, read by the oracle on its own: numbers, years,
period headers, scale statements, and where the table sits among its paragraphs.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

SCORED = "scored"
NON_PERIOD = "non_period_column"
SUB_YEAR = "sub_year_column"
UNLABELLED = "unlabelled_row"
COLLIDING = "colliding_row"
COLUMN_GROUP = "column_group"
DUE = "due_schedule"
EXPECTED_PENDING = (COLLIDING, COLUMN_GROUP)

PERCENT, UNKNOWN, ONE = "percent", "unknown", "one"
SCALES = ("thousand", "million", "billion")

_NO_VALUE = frozenset({"", "-", "—", "–", "―"})
_CURRENCY_MARKS = str.maketrans("", "", "$€£¥ ")
_PLAIN_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+")

_SPACED_YEAR = re.compile(r"(?<![0-9])([12]) ([09]) ([0-9]) ([0-9])(?![0-9])")
_SPLIT_YEAR = re.compile(r"(?<![0-9])((?:19|20)[0-9]{2})\s?/\s?([0-9]{4}|[0-9]{2})(?![0-9])")
_EARLY_JANUARY = re.compile(
    r"\bjan(?:uary)?\.?\s+0?([1-7])(?![0-9])\s*,?\s*((?:19|20)[0-9]{2})(?![0-9])"
    r"|(?<![0-9])0?([1-7])\s+jan(?:uary)?\.?,?\s+((?:19|20)[0-9]{2})(?![0-9])",
    re.IGNORECASE,
)
_FY_SHORT = re.compile(r"(?<![a-z0-9])fy?\s?'?([0-9]{2})(?![0-9])", re.IGNORECASE)
_YEAR = re.compile(r"(?<![0-9])(199[0-9]|20[0-9]{2}|2100)(?![0-9])")
_NOT_A_PERIOD = re.compile(
    r"%|\b(?:change|variance|increase|decrease|vs|estimated?|budget|forecast)\b"
    r"|(?<!except )\bpercent\w*|(?<!see )\bnotes?\b(?!\s*[0-9])",
    re.IGNORECASE,
)
_PERCENT_UNIT = re.compile(r"\(?\s*%\s*\)?")
_SUB_YEAR = re.compile(
    r"\b(?:q[1-4]|[1-4]q|h[12]|quarters?|half|three months|six months|nine months)\b|\b([0-9]+)\s*-?\s*weeks?\b",
    re.IGNORECASE,
)
_FULL_YEAR_WEEKS = {"52", "53"}
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATED = re.compile(rf"\b{_MONTH}\s+[0-9]{{1,2}}\b|\b[0-9]{{1,2}}\s+{_MONTH}(?![a-z])", re.IGNORECASE)

_IN_SCALE = re.compile(r"(?<![a-z])in\s*(thousand|million|billion)s?\b", re.IGNORECASE)
_BRACKET_SCALE = re.compile(r"\(\s*(thousand|million|billion)s?\s*\)", re.IGNORECASE)
_THOUSANDS_MARK = re.compile(r"[\'’‘`]\s?000\b")
_CURRENCY = r"(?:[$€£¥]|\b(?:us|s|a|c|nt|hk|r)\$|\b(?:usd|eur|gbp|rmb|cny|hkd|sgd|aud|cad|jpy|chf|sek|nok|dkk))"
_CURRENCY_SCALE = re.compile(
    _CURRENCY + r"\s?[\'’]?\s?(thousands?|millions?|billions?|mn|m|bn|b|k)(?![a-z0-9])", re.IGNORECASE
)
_SHORT_SCALE = {"m": "million", "mn": "million", "b": "billion", "bn": "billion", "k": "thousand"}


def entity_code(index: int) -> str:
    return f"TQ{index:03d}"


def company_name(index: int) -> str:
    return f"Company {index:03d}"


def number_read(text: str) -> tuple[Decimal, bool] | None:
    """`(value, is_percent)` of a printed number cell, or None for no value or a non-number."""
    compact = unicodedata.normalize("NFKC", text).translate(_CURRENCY_MARKS).replace("\u2212", "-")
    if compact in _NO_VALUE:
        return None
    percent = compact.endswith("%")
    if percent:
        compact = compact[:-1]
    negative = compact.startswith("(") and compact.endswith(")")
    if negative:
        compact = compact[1:-1]
        if not percent and compact.endswith("%"):
            percent, compact = True, compact[:-1]
    if compact.startswith("-"):
        negative, compact = not negative, compact[1:]
    if not _PLAIN_NUMBER.fullmatch(compact):
        return None
    try:
        value = Decimal(compact.replace(",", ""))
    except InvalidOperation:
        return None
    return (-value if negative else value), percent


def is_year(text: str) -> bool:
    """A cell that is a year and nothing else (`2019`, `2 0 1 9`)."""
    return bool(_YEAR.fullmatch("".join(text.split())))


def years_named(text: str) -> set[int]:
    """Every fiscal year a header text names (see the module docstring for the forms)."""
    text = _SPACED_YEAR.sub(lambda m: "".join(m.groups()), text)
    found: set[int] = set()

    def split(m: re.Match[str]) -> str:
        end = m.group(2)
        found.add(int(end) if len(end) == 4 else int(m.group(1)[:2] + end))
        return " "

    def january(m: re.Match[str]) -> str:
        found.add(int(m.group(2) or m.group(4)) - 1)
        return " "

    def short(m: re.Match[str]) -> str:
        found.add(2000 + int(m.group(1)))
        return " "

    text = _SPLIT_YEAR.sub(split, text)
    text = _EARLY_JANUARY.sub(january, text)
    text = _FY_SHORT.sub(short, text)
    found.update(int(y) for y in _YEAR.findall(text))
    return found


def is_sub_year(text: str) -> bool:
    return any(m.group(1) is None or m.group(1) not in _FULL_YEAR_WEEKS for m in _SUB_YEAR.finditer(text))


def header_period(text: str) -> tuple[int | None, str]:
    """(the fiscal year, "") of a period header, or (None, the class of a column that is none)."""
    if _NOT_A_PERIOD.search(text):
        return None, NON_PERIOD
    if is_sub_year(text):
        return None, SUB_YEAR
    years = years_named(text)
    return (years.pop(), "") if len(years) == 1 else (None, NON_PERIOD)


def scales_stated(text: str) -> frozenset[str]:
    """The scales a text states as a unit: `in thousands`, `(millions)`, `$'000`, `€m`, `$ million` …

    A scale word right after a figure (`$6.2 million`) is part of that figure, not a unit.
    """
    found = {m.group(1).lower() for m in _IN_SCALE.finditer(text)}
    found |= {m.group(1).lower() for m in _BRACKET_SCALE.finditer(text)}
    if _THOUSANDS_MARK.search(text):
        found.add("thousand")
    for m in _CURRENCY_SCALE.finditer(text):
        word = m.group(1).lower()
        found.add(_SHORT_SCALE.get(word) or word.rstrip("s"))
    return frozenset(found)


def scale_stated(text: str) -> bool:
    return bool(scales_stated(text))


def gold_scale(questions: list[dict[str, Any]]) -> str:
    """The one scale among the table's questions answered from the table, else `unknown`."""
    scales = {
        q.get("scale", "")
        for q in questions
        if q.get("answer_from") in ("table", "table-text") and q.get("scale") in SCALES
    }
    return scales.pop() if len(scales) == 1 else UNKNOWN


def lead_index(paragraphs: list[dict[str, Any]]) -> int | None:
    """Where the table goes, as an index into the paragraphs sorted by `order` (it follows that one).

    The first paragraph that states a scale, else the first ending with ":", else the last; None
    when there is no paragraph.
    """
    texts = [p["text"] for p in paragraphs_sorted(paragraphs)]
    if not texts:
        return None
    for index, text in enumerate(texts):
        if scale_stated(text):
            return index
    for index, text in enumerate(texts):
        if text.rstrip().endswith(":"):
            return index
    return len(texts) - 1


def paragraphs_sorted(paragraphs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(paragraphs, key=lambda p: p["order"])
