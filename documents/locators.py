"""Locators as a reader says them: `ACME集团 · D3 (营业收入, FY2024)`, `第3页 · 表1 ·
营业收入 / FY2025`. The machine locator (`sheet=ACME集团!D3`, `page=3,table=1,row=…,col=…`)
stays in the JSON and in a tooltip; this is the one place it is turned into words.
"""

from __future__ import annotations

import re

_PLACES = {
    "zh": {
        "page": "第{}页",
        "slide": "第{}张幻灯片",
        "table": "表{}",
        "para": "第{}段",
        "notes": "备注",
        "section": "{}",
        "line": "第{}行",
    },
    "en": {
        "page": "page {}",
        "slide": "slide {}",
        "table": "table {}",
        "para": "paragraph {}",
        "notes": "notes",
        "section": "{}",
        "line": "line {}",
    },
}
_SEPARATOR = " · "
_SHEET_CELL = re.compile(r"^sheet=(?P<sheet>.+)!(?P<cell>[A-Z]{1,3}[0-9]+)$")


def locator_human(locator: str, *, language: str = "zh", what: str = "") -> str:
    """`locator` in words, in `language` (`zh` or `en`); `what` (e.g. `营业收入, FY2024`) is
    added after a sheet cell's reference, which does not say it. An unknown part is kept as
    written, so nothing a locator says is lost."""
    words = _PLACES.get(language, _PLACES["zh"])
    sheet = _SHEET_CELL.match(locator)
    if sheet is not None:
        cell = sheet["cell"] + (f" ({what})" if what else "")
        return _SEPARATOR.join((sheet["sheet"], cell))
    if locator.startswith("sheet="):
        return locator[len("sheet=") :]
    parts: list[str] = []
    row = column = None
    for part in locator.split(","):
        key, equals, value = part.partition("=")
        if not equals:
            parts.append(words.get(key, key))
        elif key == "row":
            row = value
        elif key == "col":
            column = value
        elif key in words:
            parts.append(words[key].format(value))
        else:
            parts.append(part)
    if row is not None or column is not None:
        parts.append(" / ".join(label for label in (row, column) if label))
    return _SEPARATOR.join(parts)


def source_human(document: str, locator: str, *, language: str = "zh", what: str = "") -> str:
    """A document and a place in it: `ACME_5yr_Summary.xlsx · ACME集团 · D3 (营业收入, FY2024)`."""
    place = locator_human(locator, language=language, what=what)
    return _SEPARATOR.join(part for part in (document, place) if part)


def locators_in_words(text: str, places: dict[str, str]) -> str:
    """`text` with each machine locator among `places`' keys said in the words given for it, in
    one pass (longest first, so `slide=3` never replaces a piece of `slide=3,table=1,…`)."""
    wanted = sorted((locator for locator in places if locator), key=len, reverse=True)
    if not wanted or not text:
        return text
    pattern = re.compile("|".join(re.escape(locator) for locator in wanted))
    return pattern.sub(lambda match: places[match.group(0)], text)
