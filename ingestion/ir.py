"""The intermediate representation every extractor returns.

Tables are grids of cell texts that know how to name each cell (`Table.cell_locator`); text is
a list of `Block`s whose locators keep the document's structure. The same `ExtractedDocument`
feeds both channels: tables → facts (`ingestion.tables`), blocks → chunks
(`retrieval.chunking.chunks_build`).

Cell locators, per format:
- pptx  `slide=3,table=1,row=营业收入,col=FY2025`
- pdf   `page=2,table=1,row=ACME香港,col=2025H1`
- docx  `table=1,row=净利润,col=FY2025`
- html  `table=1,row=净利润,col=FY2025`
- xlsx  `sheet=ACME香港!C4` (a real A1 reference)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

LABEL_LIMIT = 40


class ExtractionError(Exception):
    """A file that cannot be extracted; `message` is safe to show to a user, `code` is for programs.

    Codes: empty, too_large, too_many_pages, corrupt, encrypted, mislabelled, unsupported.
    """

    def __init__(self, message: str, code: str = "corrupt"):
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Block:
    """A paragraph of text and where it sits: `locator` names its structure ("section=…",
    "slide=3", "page=2"; "" for none), `para` its paragraph number there."""

    text: str
    locator: str
    para: int | None = None
    heading: str = ""


def column_letters(column: int) -> str:
    """1 → A, 27 → AA."""
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def locator_label(text: str) -> str:
    """A cell text made safe to sit inside a `key=value,key=value` locator."""
    cleaned = " ".join(text.split()).replace(",", "，").replace("=", "＝")
    return cleaned[:LABEL_LIMIT]


@dataclass(frozen=True)
class Table:
    """One table as a grid of stripped cell texts (`""` for an empty cell).

    `scheme="labels"`: a cell is named by its row label and column header
    (`{prefix},row=…,col=…`); `scheme="a1"`: by its sheet cell (`{prefix}!C4`), where
    `origin` is the 1-based (row, column) of `rows[0][0]` in the sheet. `lead` is the text
    right before the table (the paragraph or line that introduces it, e.g. "… (in thousands):"),
    where a scale is often stated; `heading` is the nearest section heading above it; `caption`
    every line above it down from the previous table or heading (a statement's title, its date,
    `编制单位：`, the unit line), where a statement says what it is and whose.
    """

    locator_prefix: str
    title: str
    rows: list[list[str]]
    scheme: Literal["labels", "a1"] = "labels"
    origin: tuple[int, int] = (1, 1)
    sheet: str = ""
    lead: str = ""
    heading: str = ""
    caption: str = ""  # every line between the previous table (or heading) and this one

    @property
    def width(self) -> int:
        return max((len(row) for row in self.rows), default=0)

    def cell(self, r: int, c: int) -> str:
        row = self.rows[r] if 0 <= r < len(self.rows) else []
        return row[c] if 0 <= c < len(row) else ""

    def a1(self, r: int, c: int) -> str:
        return f"{column_letters(self.origin[1] + c)}{self.origin[0] + r}"

    def cell_locator(self, r: int, c: int, *, row_label: str | None = None, col_label: str | None = None) -> str:
        """The cell-level locator of cell (r, c); labels default to the first column and first row."""
        if self.scheme == "a1":
            return f"{self.locator_prefix}!{self.a1(r, c)}"
        row_text = locator_label(self.cell(r, 0) if row_label is None else row_label) or str(r + 1)
        col_text = locator_label(self.cell(0, c) if col_label is None else col_label) or str(c + 1)
        return f"{self.locator_prefix},row={row_text},col={col_text}"


@dataclass(frozen=True)
class IngestWarning:
    """Something read but not understood, short of refusing the file.

    `code` names the kind and never changes (a display names it in its reader's language);
    `text` says it in English, as a log line does; `place` is where (a table's locator prefix,
    "" for the whole file); `count`, how many of what the kind counts (lines of text), else 0.
    """

    code: str
    text: str
    place: str = ""
    count: int = 0

    @property
    def line(self) -> str:
        """`page=4,table=1: no facts read (…)`, or the text alone for the whole file."""
        return f"{self.place}: {self.text}" if self.place else self.text

    def as_dict(self) -> dict[str, str | int]:
        return {"code": self.code, "text": self.text, "place": self.place, "count": self.count}

    @classmethod
    def from_dict(cls, stored: dict[str, str | int]) -> IngestWarning:
        return cls(
            str(stored.get("code", "")),
            str(stored.get("text", "")),
            str(stored.get("place", "")),
            int(stored.get("count", 0)),
        )


# The kinds of warning the extractors give (the tables' own are `ingestion.tables.TABLE_PROBLEMS`).
PDF_EMPTY_PASSWORD = "pdf.empty_password"
PDF_UNDECODABLE_LINES = "pdf.undecodable_lines"
YEAR_END_PROPOSED = "context.year_end_unset"  # the cover names the year end the glossary lacks


@dataclass(frozen=True)
class ExtractedDocument:
    """Everything extracted from one file; `pages` counts slides, pages or sheets (0: not paginated)."""

    name: str
    media_type: str
    title: str
    tables: list[Table]
    blocks: list[Block]
    pages: int
    warnings: list[IngestWarning] = field(default_factory=list)


def is_cell_locator(locator: str) -> bool:
    """True for a locator that names one cell (`…,row=…,col=…` or `sheet=…!C4`)."""
    return cell_address(locator) is not None


_LABELLED_CELL = re.compile(r"^(?:(?P<table>.*),)?row=(?P<row>[^,]+),col=(?P<col>[^,]+)$")
_SHEET_CELL = re.compile(r"^(?P<table>sheet=.+)!(?P<col>[A-Z]{1,3})(?P<row>[0-9]+)$")


@dataclass(frozen=True)
class CellAddress:
    """Where a cell locator points: its table (the locator's prefix), row and column."""

    table: str
    row: str
    column: str


def cell_address(locator: str) -> CellAddress | None:
    """The table, row and column a cell locator names (`slide=3,table=1,row=营业收入,col=FY2025`
    → `slide=3,table=1`, `营业收入`, `FY2025`; `sheet=ACME香港!C4` → `sheet=ACME香港`, `4`, `C`);
    None for a locator that names no single cell."""
    match = _LABELLED_CELL.match(locator) or _SHEET_CELL.match(locator)
    if match is None:
        return None
    return CellAddress(match["table"] or "", match["row"], match["col"])


def locator_place(locator: str) -> str:
    """The outermost place a locator names: its first part (`slide=3`, `page=2`, `section=…`),
    without a sheet cell's reference (`sheet=ACME香港!C4` → `sheet=ACME香港`)."""
    first = locator.split(",", 1)[0]
    sheet = _SHEET_CELL.match(first)
    return sheet["table"] if sheet else first
