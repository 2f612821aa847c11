"""The source viewer to the cell: a cited cell shown in its table, highlighted.

The table is read again from the bytes the document was last ingested from (`DocumentFile`)
with the same extractor, so what is shown is the grid the fact was read from. A cell locator
names its table by prefix (`slide=3,table=1`, `page=64,table=1`, `table=2`, `sheet=ACME集团`)
and its cell either by A1 reference (sheets) or by row label and column header; the labels are
found again in the grid the way ingestion made them (a label is one cell's text or the
non-numeric cells of the row joined; a header is one cell's text or the header cells of the
column joined), read through `locator_label`.

Clearance is the answers': the document must be visible to the caller
(`document_list`), and a cell holding a fact the caller may not see is masked.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock

from facts.models import FactMetric
from facts.selectors import facts_visible
from ingestion.extract import extract
from ingestion.ir import CellAddress, ExtractionError, Table, cell_address, column_letters, locator_label
from ingestion.values import is_numeric

from .models import Document, DocumentFile

_CACHE: OrderedDict[str, list[Table]] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = Lock()
_A1 = re.compile(r"^(?P<col>[A-Z]{1,3})(?P<row>[0-9]+)$")


@dataclass(frozen=True)
class GridCell:
    text: str
    focus: bool = False
    masked: bool = False
    anchor: str = ""


@dataclass(frozen=True)
class GridRow:
    label: str  # the sheet's row number (sheets), else ""
    cells: list[GridCell]


@dataclass(frozen=True)
class CellGrid:
    """One table with the cited cell marked: `columns` are the sheet's column letters (sheets,
    else empty), `header` the table's first row, `body` the rest."""

    table: Table
    locator: str
    focus: tuple[int, int]
    columns: list[str] = field(default_factory=list)
    header: GridRow | None = None
    body: list[GridRow] = field(default_factory=list)

    @property
    def focus_text(self) -> str:
        return self.table.cell(*self.focus)

    @property
    def what(self) -> str:
        """The cell's row label and column header (`营业收入, FY2024`), which a sheet reference does not say."""
        r, c = self.focus
        row = next((text for text in self.table.rows[r][:c] if text and not is_numeric(text)), "")
        column = next((self.table.cell(above, c) for above in range(r) if self.table.cell(above, c)), "")
        return ", ".join(part for part in (row, column) if part)


def _column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def document_tables(document: Document) -> list[Table]:
    """The tables of the document's stored bytes, read again (kept for the last few documents)."""
    key = f"{document.pk}:{document.sha256}"
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    stored = DocumentFile.objects.filter(document=document).values_list("data", flat=True).first()
    if stored is None:
        return []
    try:
        tables = extract(document.name, bytes(stored)).tables
    except ExtractionError:
        tables = []
    with _LOCK:
        _CACHE[key] = tables
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return tables


def _row_labels(table: Table, r: int) -> set[str]:
    """What ingestion may have named row `r`: each text cell, and the text cells joined up to each one."""
    labels: set[str] = set()
    parts: list[str] = []
    for text in table.rows[r] if r < len(table.rows) else []:
        if not text or is_numeric(text):
            continue
        parts.append(text)
        labels.add(locator_label(text))
        labels.add(locator_label(" ".join(parts)))
    return labels


def _column_headers(table: Table, c: int, below: int) -> set[str]:
    """What ingestion may have named column `c` above row `below`: each header cell, the header
    cells joined top-down (an empty cell takes the merged one to its left)."""
    headers: set[str] = set()
    parts: list[str] = []
    for r in range(below):
        text = table.cell(r, c)
        if not text:
            text = next((table.cell(r, left) for left in range(c - 1, -1, -1) if table.cell(r, left)), "")
        if not text or (parts and parts[-1] == text):
            continue
        parts.append(text)
        headers.add(locator_label(text))
        headers.add(locator_label(" ".join(parts)))
    return headers


def cell_position(table: Table, address: CellAddress) -> tuple[int, int] | None:
    """Where in `table` a cell address sits, as (row, column) of its grid; None when it is not there."""
    if table.scheme == "a1":
        row, column = int(address.row), _column_number(address.column)
        r, c = row - table.origin[0], column - table.origin[1]
        if 0 <= r < len(table.rows) and 0 <= c < table.width:
            return r, c
        return None
    for row_name, column_name in ((address.row, address.column), (address.column, address.row)):
        for r in range(len(table.rows)):
            if row_name not in _row_labels(table, r):
                continue
            for c in range(table.width):
                text = table.cell(r, c)
                if text and is_numeric(text) and column_name in _column_headers(table, c, r):
                    return r, c
    return None


def _hidden_locators(document: Document, *, cleared: bool) -> set[str]:
    """Locators of the document's facts the caller may not see (none for the cleared)."""
    if cleared:
        return set()
    every = FactMetric.objects.filter(document=document)
    visible = set(facts_visible(every, cleared=False).values_list("pk", flat=True))
    return {locator for pk, locator in every.values_list("pk", "locator") if pk not in visible}


def cell_grid(document: Document, locator: str, *, cleared: bool) -> CellGrid | None:
    """The table holding the cell `locator` names, with that cell marked and any cell holding a
    fact hidden from the caller masked; None when the locator names no cell found in the
    document. The caller has already checked that `document` is visible to them."""
    address = cell_address(locator)
    if address is None:
        return None
    for table in document_tables(document):
        if table.locator_prefix != address.table:
            continue
        at = cell_position(table, address)
        if at is None:
            continue
        hidden_locators = _hidden_locators(document, cleared=cleared)
        if locator in hidden_locators:
            return None
        masked: set[tuple[int, int]] = set()
        for hidden in hidden_locators:
            there = cell_address(hidden)
            if there is not None and there.table == table.locator_prefix:
                position = cell_position(table, there)
                if position is None:  # a hidden figure we cannot place: mask every figure
                    masked |= _figures(table)
                else:
                    masked.add(position)
        return _grid(table, locator, at, masked)
    return None


def _figures(table: Table) -> set[tuple[int, int]]:
    return {(r, c) for r in range(len(table.rows)) for c in range(table.width) if is_numeric(table.cell(r, c))}


def _grid(table: Table, locator: str, at: tuple[int, int], masked: set[tuple[int, int]]) -> CellGrid:
    sheet = table.scheme == "a1"

    def row(r: int) -> GridRow:
        cells = []
        for c in range(table.width):
            focus = (r, c) == at
            cells.append(
                GridCell(
                    text="" if (r, c) in masked else table.cell(r, c),
                    focus=focus,
                    masked=(r, c) in masked,
                    anchor="cell" if focus else "",
                )
            )
        return GridRow(label=str(table.origin[0] + r) if sheet else "", cells=cells)

    columns = [column_letters(table.origin[1] + c) for c in range(table.width)] if sheet else []
    rows = [row(r) for r in range(len(table.rows))]
    return CellGrid(table=table, locator=locator, focus=at, columns=columns, header=rows[0], body=rows[1:])


def document_format(name: str) -> str:
    """The format a reader names a document by (`Excel 工作簿` → its extension: `XLSX`)."""
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    return suffix.upper()
