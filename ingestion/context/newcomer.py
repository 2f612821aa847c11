"""A company the glossary does not hold yet, as its own report introduces it: what a curator needs
to add it in one step (`IssuerProposal`), read where reports print it.

- **Names** in labelled fields (`公司的中文名称 | …`, `公司简称：…`, `Company name`), above the
  registrant line of a US filing, and in a title line or a name alone on the cover when it ends
  in a company-form word (`股份有限公司`, `Inc.`). A label with `简称` (short name) gives the short
  name; the others the full name. Without a short name, it is the full name less its
  company-form words.
- **The stock code** in a labelled field (`股票代码`, `公司代码`, `Stock code`, `Trading symbol`).
- **The year-end month**, from the cover's `For the fiscal year ended <date>`.
- **The reporting currency**: the currency the document names most (`人民币`, `US$`, `港币` …).
- **A code** for the glossary: a mainland A-share code with its exchange (`SH`, `SZ`, `BJ`, by
  the code's first digit), else the stock code, else the short name's letters.

Each value is the one read at the most places, the earliest on a tie (`places.choose`). Nothing
here is applied: a curator confirms or corrects it on the form that creates the company.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from core.language.normalize import text_normalize

from ..ir import ExtractedDocument
from .issuer import FORMS, LABEL_CELL, LABELLED, REGISTRANT, UNDER_HEADER
from .places import Place, Seen, cells_read, choose
from .report import EN_TITLE, ZH_TITLE, cover_year_end, periods_strip

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
_FORM_END = re.compile(
    r"(?:股份有限公司|有限责任公司|有限公司|集团公司)$"
    r"|\b(?:inc|incorporated|corp|corporation|co\.?,? ?ltd|limited|plc|llc|n\.v|s\.a|ag|se)\.?$"
)
_CURRENCIES = {
    "CNY": re.compile(r"人民币|\brmb\b|\bcny\b"),
    "HKD": re.compile(r"港币|港元|\bhk\$|\bhkd\b"),
    "USD": re.compile(r"美元|\bus\$|\busd\b|u\.s\. dollars?|(?<![a-z])\$(?= ?[0-9(])"),
    "EUR": re.compile(r"欧元|€|\beur\b"),
    "JPY": re.compile(r"日元|\bjpy\b"),
    "GBP": re.compile(r"英镑|£|\bgbp\b"),
}
_A_SHARE = {"6": "SH", "9": "SH", "0": "SZ", "2": "SZ", "3": "SZ", "4": "BJ", "8": "BJ"}
NAME_LIMIT = 80


@dataclass(frozen=True)
class IssuerProposal:
    """What a report says of its issuer, for a curator to confirm: blank where it says nothing."""

    full_name: str = ""
    short_name: str = ""
    stock_code: str = ""
    code: str = ""
    year_end_month: int | None = None
    currency: str = ""
    evidence: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value not in ("", None)}

    @classmethod
    def from_dict(cls, stored: dict[str, Any]) -> IssuerProposal:
        month = stored.get("year_end_month")
        fields = ("full_name", "short_name", "stock_code", "code", "currency", "evidence")
        return cls(
            **{key: str(stored.get(key) or "") for key in fields},
            year_end_month=int(month) if isinstance(month, int) and 1 <= month <= 12 else None,
        )


def issuer_proposed(places: list[Place], doc: ExtractedDocument) -> IssuerProposal | None:
    """What `doc` says of its issuer, None when it names none."""
    full, where_full = choose(_names(places, doc, short=False), cover_first=True)
    short, where_short = choose(_names(places, doc, short=True), cover_first=True)
    code, where_code = choose(_codes(places, doc), cover_first=True)
    if not (full or short):
        return None
    full_name, short_name = _cased(str(full or ""), doc), _cased(str(short or ""), doc)
    if not short_name:
        short_name = _cased(FORMS.sub(" ", str(full)).strip(" ,.()（）"), doc) or full_name
    stock_code = str(code or "").upper()
    day = cover_year_end(places)
    evidence = "; ".join(
        f"{what} {where}"
        for what, where in (("full name:", where_full), ("short name:", where_short), ("stock code:", where_code))
        if where
    )
    return IssuerProposal(
        full_name=full_name,
        short_name=short_name,
        stock_code=stock_code,
        code=_code(stock_code, short_name),
        year_end_month=day.month if day is not None else None,
        currency=_currency(places),
        evidence=evidence,
    )


def _names(places: list[Place], doc: ExtractedDocument, *, short: bool) -> Iterator[Seen]:
    for index, place in enumerate(places):
        for label in LABELLED.finditer(place.text):
            if label.group("name") and ("简称" in label.group(0)) == short:
                rest = place.text[label.end() :]
                following = LABELLED.search(rest)
                yield from _name_seen(rest[: following.start()] if following else rest, label.group(0), place)
        if short:
            continue
        if REGISTRANT.search(place.text):
            before = REGISTRANT.split(place.text)[0].strip()
            source = before or (places[index - 1].text if index else "")
            yield from _name_seen(source, "registrant", place, whole=True)
        title = ZH_TITLE.fullmatch(place.text) or EN_TITLE.fullmatch(place.text)
        name = periods_strip(title.group("name")).strip() if title else place.text if place.cover else ""
        if name and len(name) <= NAME_LIMIT and _FORM_END.search(name):
            yield Seen(name, "title" if title else "cover", place)
    for cell, right, below in cells_read(doc):
        label = LABEL_CELL.fullmatch(cell.text)
        if label is None or not label.group("name") or ("简称" in label.group(0)) != short:
            continue
        under = UNDER_HEADER.fullmatch(label.group(0).rstrip(" :"))
        for value in (right, below if under else None):
            if value is not None and not LABEL_CELL.fullmatch(value.text):
                yield from _name_seen(value.text, label.group(0), cell)


def _name_seen(value: str, what: str, place: Place, *, whole: bool = False) -> Iterator[Seen]:
    """A name printed after its label: a Chinese one ends at the first space; an English one
    may hold single spaces."""
    value = value.strip(" :：")
    if not value:
        return
    if not whole:
        value = value.split(" ")[0] if re.match(rf"[{_CJK}]", value) else re.split(r"\s{2,}|[;|]", value)[0]
    value = value.strip(" ,;")
    if 1 < len(value) <= NAME_LIMIT and re.search(rf"[{_CJK}a-z]", value):
        yield Seen(value, what, place)


def _codes(places: list[Place], doc: ExtractedDocument) -> Iterator[Seen]:
    def token(value: str) -> str | None:
        found = re.match(r"[a-z0-9][a-z0-9.-]{0,11}", value.strip(" :："))
        return found.group(0).strip(".-") if found else None

    for place in places:
        for label in LABELLED.finditer(place.text):
            if label.group("code") and (code := token(place.text[label.end() :])):
                yield Seen(code, label.group(0), place)
    for cell, right, below in cells_read(doc):
        label = LABEL_CELL.fullmatch(cell.text)
        if label is None or not label.group("code"):
            continue
        under = UNDER_HEADER.fullmatch(label.group(0).rstrip(" :"))
        for value in (right, below if under else None):
            if value is not None and (code := token(value.text)) and any(ch.isdigit() for ch in code):
                yield Seen(code, label.group(0), cell)


def _code(stock_code: str, short_name: str) -> str:
    """A glossary code: an A-share code with its exchange, a ticker, or the short name's letters."""
    if re.fullmatch(r"[0-9]{6}", stock_code) and stock_code[0] in _A_SHARE:
        return _A_SHARE[stock_code[0]] + stock_code
    if re.fullmatch(r"[A-Z0-9][A-Z0-9_]{0,15}", stock_code.replace(".", "_")):
        return stock_code.replace(".", "_")
    letters = re.sub(r"[^A-Z0-9]+", "_", short_name.upper()).strip("_")
    return letters[:32] if letters and letters[0].isalnum() else ""


def _currency(places: list[Place]) -> str:
    """The currency the document names most, if it names one at least three times."""
    counts: Counter[str] = Counter()
    for place in places:
        for currency, pattern in _CURRENCIES.items():
            counts[currency] += len(pattern.findall(place.text))
    best = counts.most_common(2)
    if not best or best[0][1] < 3 or (len(best) > 1 and best[1][1] == best[0][1]):
        return ""
    return best[0][0]


def _cased(value: str, doc: ExtractedDocument) -> str:
    """`value` (normalised: lower case) as the document prints it."""
    if not value or not re.search(r"[a-z]", value):
        return value
    raws = [doc.title, *(block.text for block in doc.blocks[:200])]
    raws += [cell for table in doc.tables[:20] for row in table.rows for cell in row if cell]
    for raw in raws:
        at = text_normalize(raw).find(value)
        if at >= 0 and len(text_normalize(raw)) == len(raw):
            return raw[at : at + len(value)].strip()
    return value.title()
