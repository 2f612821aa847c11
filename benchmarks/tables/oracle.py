"""Ground truth for a TAT-QA table, read from the grid as printed.

Takes one TAT-QA item (`table.table`, `paragraphs`, `questions`) and its index in the file;
returns a `TableTruth`: every number cell with its row label, the metric alias a curator would
give that row, the fiscal year of its column and the scale it must be stored with, each cell
in exactly one class (`SCORED` or a named class outside the oracle). Written independently of
the product: nothing here imports `ingestion` or `core`, so the two cannot share a parser's bug.

The rules, in the order they apply:

- **number cell**: column ≥ 1, text that parses as a number once `$ € £ ¥`, spaces and thousands
  commas are removed; `(x)` is negative, a trailing `%` a percent; `—`, `-`, `–` and empty are
  no value. Exact `Decimal`.
- **header rows**: from the top down to (not including) the first row holding a number cell that
  is not a year (1990–2100 and nothing else). The *period header* is the header rows down to the
  last one with text beyond the label column; header rows below it (labels only) are body rows.
- **period of a column**: its period-header texts joined, where an empty cell of an upper row
  takes the caption on its left when both columns agree on whether their cells below name a
  year. `FY<y>` when the text names exactly one year y (`2019`, `2 0 1 9`, `December 31, 2019`,
  `Fiscal 2019`, `FY19`, `F19`, `2019/20` → 2020; footnote marks allowed; a date in 1–7 January
  names the year before). A header naming no year or two, or with change / % / percent /
  variance / increase / decrease / note (not "see note") / vs, is no period (a header cell that
  is only `%` is the column's unit). One naming a quarter, a half or N weeks (N ≠ 52, 53) is a
  sub-year column, and so is every dated column beside it, or every column when the label
  column's header names one (`Quarters Ended`). Period columns sharing one year form a column
  group (a dimension the glossary lacks): their cells are expected pending.
- **rows**: the label is `row[0]` stripped; a labelled row with no number cell, or whose label
  ends with ":", is a section heading; a value row's section is the nearest heading above it. A
  label on more than one value row of a table is qualified `"{section} {label}"`; if that still
  repeats (or there is no section) the rows collide and their cells are expected pending.
- **scale**: a percent cell is `percent`; else the table's gold scale, the one of thousand /
  million / billion among its table questions, else the one scale stated in the grid or the
  lead paragraph, else `unknown`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from .printed import (
    _DATED,
    _PERCENT_UNIT,
    COLLIDING,
    COLUMN_GROUP,
    DUE,
    ONE,
    PERCENT,
    SCORED,
    SUB_YEAR,
    UNKNOWN,
    UNLABELLED,
    company_name,
    entity_code,
    gold_scale,
    header_period,
    is_sub_year,
    is_year,
    lead_index,
    number_read,
    paragraphs_sorted,
    scales_stated,
    years_named,
)


@dataclass(frozen=True)
class Cell:
    """One number cell of the grid and what the product must make of it."""

    row: int
    col: int
    text: str
    value: Decimal
    percent: bool
    label: str
    alias: str  # the metric alias of its row ("" for an unlabelled row)
    year: int | None  # the fiscal year of its column (None outside period columns)
    kind: str  # SCORED or a class outside the oracle
    scale: str  # percent | thousand | million | billion | unknown


@dataclass(frozen=True)
class TableTruth:
    index: int
    uid: str
    grid: list[list[str]]
    header_rows: int  # the period header's rows (what a continuation page repeats)
    periods: dict[int, int]  # column → fiscal year, for the period columns
    cells: list[Cell]
    lead: str
    gold_scale: str
    stated_scales: frozenset[str]

    @property
    def entity(self) -> str:
        return entity_code(self.index)

    @property
    def company(self) -> str:
        return company_name(self.index)

    @property
    def selected(self) -> bool:
        """The scale is decidable from what is printed: the grid or its lead states exactly one
        scale, and the gold scale does not contradict it."""
        return len(self.stated_scales) == 1 and self.gold_scale in (UNKNOWN, *self.stated_scales)

    def aliases(self) -> list[str]:
        return list(dict.fromkeys(cell.alias for cell in self.cells if cell.alias and cell.year is not None))


def _header_end(grid: list[list[str]]) -> int:
    for r, row in enumerate(grid):
        for c in range(1, len(row)):
            if number_read(row[c]) is not None and not is_year(row[c]):
                return r
    return len(grid)


def _period_header_rows(grid: list[list[str]], band: int) -> int:
    rows = 0
    for r in range(band):
        if any(cell.strip() for cell in grid[r][1:]):
            rows = r + 1
    return rows


def column_headers(grid: list[list[str]], rows: int) -> dict[int, list[str]]:
    """Each column's period-header texts, top down, merged captions spread.

    An empty cell of an upper row takes the caption on its left (the label column never spreads)
    when the caption's column and this one agree on whether their cells below name a year. A
    merged caption's span is not printed (TAT-QA sets it in one of the columns it covers), and
    that agreement is what tells `2019` over `Amount | % of total`, or `% of penetration` over
    two dates, from `Percent Change` over `Actual | Constant` beside a `2018` column.
    """
    width = max((len(row) for row in grid), default=0)
    cells = [[grid[r][c].strip() if c < len(grid[r]) else "" for c in range(width)] for r in range(rows)]

    def dated_below(r: int, c: int) -> bool:
        return bool(years_named(" ".join(cells[below][c] for below in range(r + 1, rows))))

    filled = [list(row) for row in cells]
    for r in range(rows - 1):
        source = 0
        for c in range(1, width):
            if cells[r][c]:
                source = c
            elif source >= 1 and dated_below(r, source) == dated_below(r, c):
                filled[r][c] = cells[r][source]
            else:
                source = 0
    return {c: [row[c] for row in filled if row[c]] for c in range(1, width)}


def columns_read(grid: list[list[str]], rows: int) -> tuple[dict[int, int], dict[int, str], set[int]]:
    """(column → fiscal year for the period columns, column → class, the columns whose unit is `%`).

    A sub-year caption in the label column (`Quarters Ended`) makes every column sub-year; a
    sub-year column makes every dated column sub-year too (quarter ends are dated).
    """
    periods: dict[int, int] = {}
    kinds: dict[int, str] = {}
    percent_columns: set[int] = set()
    headers = column_headers(grid, rows)
    for c, parts in headers.items():
        year, kind, percent_unit = column_period(parts)
        if percent_unit:
            percent_columns.add(c)
        if year is None:
            kinds[c] = kind
        else:
            periods[c] = year
    corner = " ".join(grid[r][0] for r in range(rows) if grid[r])
    if is_sub_year(corner) or SUB_YEAR in kinds.values():
        for c in list(periods):
            if is_sub_year(corner) or _DATED.search(" ".join(headers[c])):
                kinds[c] = SUB_YEAR
                del periods[c]
    repeated = {y for y in periods.values() if list(periods.values()).count(y) > 1}
    for c, year in periods.items():
        kinds[c] = COLUMN_GROUP if year in repeated else SCORED
    return periods, kinds, percent_columns


def column_period(parts: list[str]) -> tuple[int | None, str, bool]:
    """(fiscal year or None, the class of a column that is no period, whether its unit is `%`).

    A header cell that is nothing but `%` or `(%)` is the column's unit, like `€m` beside a year.
    """
    percent_unit = any(_PERCENT_UNIT.fullmatch(part) for part in parts)
    year, kind = header_period(" ".join(part for part in parts if not _PERCENT_UNIT.fullmatch(part)))
    return year, kind, percent_unit


_PER_SHARE_EXCEPTED = re.compile(r"except[^)]*?per[- ]share", re.IGNORECASE)
_SHARES_EXCEPTED = re.compile(r"except[^)]*?(?<!per )\bshares?\b(?![- ]per)", re.IGNORECASE)
_PER_SHARE_LABEL = re.compile(r"per (?:\w+ ){0,2}share|\beps\b", re.IGNORECASE)
_SHARES_LABEL = re.compile(r"(?<!per )\bshares\b", re.IGNORECASE)
_DUE_MARK = re.compile(r"\bthereafter\b|\b(?:more|less) than \w+ years?\b|\bafter \w+ years\b", re.IGNORECASE)
_PERCENT_LABEL = re.compile(r"\(\s?%\s?\)|%\s*$|\bin %|\bpercentage\b", re.IGNORECASE)


def _block_starts(grid: list[list[str]]) -> list[int]:
    """Where each block of the table begins: row 0, and every body row that is a period header
    again (no number but years, e.g. a second `Dec 30, 2017 | … | Dec 29, 2018` row)."""
    starts = [0]
    r = _header_end(grid)
    while r < len(grid):
        row = grid[r]
        cells = row[1:]
        numbers = [c for c in cells if number_read(c) is not None and not is_year(c)]
        if not numbers and any(years_named(c) for c in cells) and r > starts[-1] + _header_end(grid[starts[-1] :]):
            starts.append(r)
        r += 1
    return starts


def table_truth(item: dict[str, Any], index: int) -> TableTruth:
    grid = [[str(cell) for cell in row] for row in item["table"]["table"]]
    paragraphs = paragraphs_sorted(item.get("paragraphs", []))
    at = lead_index(paragraphs)
    lead = paragraphs[at]["text"] if at is not None else ""
    gold = gold_scale(item.get("questions", []))
    printed = " ".join(" ".join(row) for row in grid) + " " + lead
    stated = scales_stated(printed)
    table_scale = gold if gold != UNKNOWN else (next(iter(stated)) if len(stated) == 1 else UNKNOWN)
    excepted = (bool(_PER_SHARE_EXCEPTED.search(printed)), bool(_SHARES_EXCEPTED.search(printed)))
    transposed = _transposed(grid)
    read_grid = [list(column) for column in zip(*_padded(grid), strict=True)] if transposed else grid
    cells, first_header_rows, first_periods = _cells(read_grid, table_scale, excepted)
    header = [cell for row in read_grid[: max(first_header_rows, 1)] for cell in row]
    if any(_DUE_MARK.search(cell) for cell in header):
        cells = [replace(cell, kind=DUE) for cell in cells]  # a schedule of amounts due: its years are due dates
    if transposed:  # periods run down the first column: the truth of the flipped grid, flipped back
        cells = [replace(cell, row=cell.col, col=cell.row) for cell in cells]
        first_header_rows, first_periods = 1, {}
    return TableTruth(
        index=index,
        uid=item["table"].get("uid", ""),
        grid=grid,
        header_rows=first_header_rows,
        periods=first_periods,
        cells=cells,
        lead=lead,
        gold_scale=gold,
        stated_scales=stated,
    )


def _padded(grid: list[list[str]]) -> list[list[str]]:
    width = max((len(row) for row in grid), default=0)
    return [row + [""] * (width - len(row)) for row in grid]


def _transposed(grid: list[list[str]]) -> bool:
    """Periods down the first column (`2021 | $138 | $6`), none across the top."""
    if not grid or any(years_named(cell) for cell in grid[0][1:]):
        return False
    return sum(is_year(row[0].strip()) for row in grid[1:] if row) >= 2


def _cells(
    grid: list[list[str]], table_scale: str, excepted: tuple[bool, bool]
) -> tuple[list[Cell], int, dict[int, int]]:
    """Every number cell of a metric-rows × period-columns grid, block by block."""
    starts = _block_starts(grid)
    cells: list[Cell] = []
    first_header_rows, first_periods = 0, {}
    for number, begin in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(grid)
        block = grid[begin:end]
        band = _header_end(block)
        header_rows = _period_header_rows(block, band)
        periods, column_kind, percent_columns = columns_read(block, header_rows)
        if number == 0:
            first_header_rows, first_periods = header_rows, periods
        labels, sections, numbers = _rows(block, header_rows, band)
        in_periods = {r: {c: v for c, v in found.items() if c in periods} for r, found in numbers.items()}
        aliases, colliding = _aliases(labels, sections, in_periods)
        for r, found in numbers.items():
            label = labels[r]
            if _PERCENT_LABEL.search(label):
                row_scale = PERCENT
            elif (excepted[0] and _PER_SHARE_LABEL.search(f"{sections[r]} {label}")) or (
                excepted[1] and _SHARES_LABEL.search(label)
            ):
                row_scale = ONE
            else:
                row_scale = table_scale
            for c, (value, percent) in found.items():
                if column_kind[c] != SCORED:
                    kind = column_kind[c]
                elif not label:
                    kind = UNLABELLED
                elif r in colliding:
                    kind = COLLIDING
                else:
                    kind = SCORED
                cells.append(
                    Cell(
                        row=begin + r,
                        col=c,
                        text=grid[begin + r][c],
                        value=value,
                        percent=percent,
                        label=label,
                        alias=aliases.get(r, ""),
                        year=periods.get(c),
                        kind=kind,
                        scale=PERCENT if percent or c in percent_columns else row_scale,
                    )
                )
    return cells, first_header_rows, first_periods


def _rows(
    grid: list[list[str]], header_rows: int, band: int
) -> tuple[dict[int, str], dict[int, str], dict[int, dict[int, tuple[Decimal, bool]]]]:
    """Row labels, each value row's section, and each value row's number cells (body rows only)."""
    labels: dict[int, str] = {}
    sections: dict[int, str] = {}
    numbers: dict[int, dict[int, tuple[Decimal, bool]]] = {}
    section = ""
    for r in range(header_rows, len(grid)):
        row = grid[r]
        label = row[0].strip() if row else ""
        found = {}
        if r >= band:
            for c in range(1, len(row)):
                read = number_read(row[c])
                if read is not None:
                    found[c] = read
        if found:
            labels[r], sections[r], numbers[r] = label, section, found
        if label and (not found or label.endswith(":")):
            section = label.rstrip(":").strip()
    return labels, sections, numbers


def _aliases(
    labels: dict[int, str], sections: dict[int, str], numbers: dict[int, dict[int, tuple[Decimal, bool]]]
) -> tuple[dict[int, str], set[int]]:
    """Each value row's metric alias, and the colliding rows: a repeated label with no section
    above it, or whose qualified alias still repeats, when its rows print different figures (a
    label printed again with the same figures, such as a total repeated below its analysis, is
    one item printed twice)."""
    counts: dict[str, int] = {}
    figures: dict[str, set[tuple[tuple[int, tuple[Decimal, bool]], ...]]] = {}
    for r in numbers:
        if labels[r]:
            counts[_fold(labels[r])] = counts.get(_fold(labels[r]), 0) + 1
            figures.setdefault(_fold(labels[r]), set()).add(tuple(sorted(numbers[r].items())))
    aliases: dict[int, str] = {}
    colliding: set[int] = set()
    for r in numbers:
        label = labels[r]
        if not label:
            continue
        repeated = counts[_fold(label)] > 1 and len(figures[_fold(label)]) > 1
        aliases[r] = f"{sections[r]} {label}" if repeated and sections[r] else label
        if repeated and not sections[r]:
            colliding.add(r)
    final: dict[str, list[int]] = {}
    for r, alias in aliases.items():
        final.setdefault(_fold(alias), []).append(r)
    for rows in final.values():  # one alias on rows that print different figures
        if len(rows) > 1 and len({tuple(sorted(numbers[r].items())) for r in rows}) > 1:
            colliding.update(rows)
    return aliases, colliding


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def truths_build(items: list[dict[str, Any]]) -> list[TableTruth]:
    return [table_truth(item, index) for index, item in enumerate(items)]
