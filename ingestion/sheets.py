"""Excel extraction (openpyxl, read-only, cached values — never formulas) into the shared IR.

Every worksheet is read; blocks of rows separated by blank rows become tables, and a row holding
a single text (a merged title such as `ACME香港 五年财务摘要（人民币百万元）`) becomes the title of
the block below it (and its `lead`: the text right before the table). Above a sheet's first
table, a lone text row followed by another is a heading: the `heading` of every table below it
on that sheet. Merged cells holding text are filled across their range so that a merged
header reads in every column it covers. Numbers are rendered as the sheet displays them: a
percent format gives `29.7%`, a fixed-decimal format keeps its decimals (`5,230.0` → `5230.0`).
Cell locators are real A1 references: `sheet=ACME香港!C4`.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Context, Decimal
from pathlib import PurePath
from typing import Any
from xml.etree import ElementTree

from .ir import ExtractedDocument, ExtractionError, Table
from .values import is_numeric, spreads_over_merge

MAX_CELLS = 2_000_000
_EXCEL_DIGITS = 15
_MERGE = re.compile(rb'<(?:\w+:)?mergeCell\s+ref="([A-Z]{1,3}[0-9]+(?::[A-Z]{1,3}[0-9]+)?)"')
_NS_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_NS_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_NS_PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _sheet_paths(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name → the path of its XML part, from the workbook and its relationships."""
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels.iter(f"{_NS_PKG}Relationship")}
    paths: dict[str, str] = {}
    for sheet in workbook.iter(f"{_NS_MAIN}sheet"):
        target = targets.get(sheet.get(f"{_NS_REL}id"), "")
        path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        paths[sheet.get("name", "")] = path
    return paths


def _merged(archive: zipfile.ZipFile, path: str) -> list[tuple[int, int, int, int]]:
    """The merged ranges of one sheet as (min_row, min_col, max_row, max_col)."""
    from openpyxl.utils.cell import range_boundaries

    try:
        xml = archive.read(path)
    except KeyError:
        return []
    ranges = []
    for ref in _MERGE.findall(xml):
        min_col, min_row, max_col, max_row = range_boundaries(ref.decode())
        ranges.append((min_row, min_col, max_row, max_col))
    return ranges


def _decimals(section: str) -> int | None:
    """Decimal places a number format shows, or None for General."""
    if "0" not in section and "#" not in section:
        return None
    m = re.search(r"\.([0#]+)", section)
    return len(m.group(1)) if m else 0


def number_text(value: int | float | Decimal, number_format: str | None) -> str:
    """A number as the sheet displays it, exact: `0.297` in `0.0%` → `29.7%`, `5230` in `#,##0.0` → `5230.0`."""
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if isinstance(value, float) and len(number.as_tuple().digits) > _EXCEL_DIGITS:
        # A double written with 17 digits (98215.39999999999): Excel keeps 15 significant digits.
        number = Context(prec=_EXCEL_DIGITS).plus(number).normalize()
        if number.as_tuple().exponent > 0:  # type: ignore[operator]
            number = number.quantize(Decimal(1))
    fmt = number_format or "General"
    section = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.', "", fmt.split(";")[0])
    percent = "%" in section
    if percent:
        number *= 100
    scale = re.search(r"[0#](,+)[^0#]*$", section)
    if scale:
        number /= Decimal(1000) ** len(scale.group(1))
    places = _decimals(section)
    if places is not None:
        number = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = format(number, "f")
    return text + "%" if percent else text


def _text(cell: Any) -> str:
    value = cell.value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float | Decimal):
        if isinstance(value, float) and value != value:  # NaN never appears in a sheet, but be safe
            return ""
        return number_text(value, getattr(cell, "number_format", None))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return " ".join(str(value).split())


def _sheet_cells(ws: Any, name: str, budget: list[int]) -> dict[tuple[int, int], str]:
    cells: dict[tuple[int, int], str] = {}
    ws.reset_dimensions()  # never trust the stored dimension (it may claim A1:XFD1048576)
    for r, row in enumerate(ws.iter_rows(), start=1):
        for position, cell in enumerate(row, start=1):
            text = _text(cell)
            if not text:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                raise ExtractionError(
                    f"{name}: more than {MAX_CELLS:,} filled cells; the workbook is too large.", "too_large"
                )
            cells[(getattr(cell, "row", None) or r, getattr(cell, "column", None) or position)] = text
    return cells


def _fill_merges(cells: dict[tuple[int, int], str], merges: list[tuple[int, int, int, int]]) -> None:
    for min_row, min_col, max_row, max_col in merges:
        text = cells.get((min_row, min_col), "")
        if not spreads_over_merge(text) or (max_row - min_row + 1) * (max_col - min_col + 1) > 10_000:
            continue
        for r in range(min_row, max_row + 1):
            for c in range(min_col, max_col + 1):
                cells[(r, c)] = text


_YEAR_LIKE = re.compile(r"(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])")


def _continues(by_row: dict[int, dict[int, str]], previous: list[int], block: list[int]) -> bool:
    """A block one blank row below a table, with no header of its own (no year-like cell): the
    same table after a spacer row, as annual reports set them."""
    if block[0] != previous[-1] + 2:
        return False
    if not any(is_numeric(text) for r in previous for text in by_row[r].values()):
        return False
    return not any(_header_like(by_row[r]) for r in block)


def _header_like(row: dict[int, str]) -> bool:
    """A row that could head a table: a text naming a year, or years in a row with no label."""
    texts = [row[c] for c in sorted(row)]
    if any(_YEAR_LIKE.search(text) and not is_numeric(text) for text in texts):
        return True
    labelled = not is_numeric(texts[0]) if texts else False
    return not labelled and any(_YEAR_LIKE.fullmatch(text) for text in texts)


def _tables(sheet: str, cells: dict[tuple[int, int], str]) -> list[Table]:
    """Blocks of consecutive non-blank rows; a lone single-text row at the block's left edge titles
    the block below (one further right, such as `Fiscal 2019` over a group of columns, heads them).

    The lone rows above a table (a note such as `… (in thousands):`, then a caption) are its
    lead; the last is its title. A block one spacer row below a table, with no header of its
    own, continues that table.
    """
    by_row: dict[int, dict[int, str]] = {}
    for (r, c), text in cells.items():
        by_row.setdefault(r, {})[c] = text
    blocks: list[list[int]] = []
    for r in sorted(by_row):
        if blocks and r == blocks[-1][-1] + 1:
            blocks[-1].append(r)
        elif blocks and _continues(by_row, blocks[-1], [r, *_run(by_row, r)]):
            blocks[-1].extend([r - 1, r])
        else:
            blocks.append([r])
    tables: list[Table] = []
    lone: list[str] = []
    heading = ""
    for block in blocks:
        first_row = by_row.get(block[0]) or {}
        texts = set(first_row.values())
        body_left = min((c for r in block[1:] for c in by_row.get(r, {})), default=min(first_row))
        if len(texts) == 1 and not is_numeric(next(iter(texts))) and min(first_row) <= body_left:
            if not tables and lone:  # after a table, a lone row may be its footnote, never a heading
                heading = lone[0]
            lone.append(next(iter(texts)))
            block = block[1:]
            if not block:
                continue
        caption = lone[-1] if lone else ""
        columns = sorted({c for r in block for c in by_row.get(r, {})})
        first_col, last_col = columns[0], columns[-1]
        if (last_col - first_col + 1) * len(block) > 4 * MAX_CELLS:
            raise ExtractionError(f"sheet {sheet}: the used range is too large to read as a table.", "too_large")
        grid = [[by_row.get(r, {}).get(c, "") for c in range(first_col, last_col + 1)] for r in block]
        lead = " ".join(lone)
        tables.append(
            Table(f"sheet={sheet}", caption, grid, "a1", (block[0], first_col), sheet, lead=lead, heading=heading)
        )
        lone = []
    return tables


def _run(by_row: dict[int, dict[int, str]], r: int) -> list[int]:
    """The rows that follow `r` without a gap."""
    found = []
    while r + 1 in by_row:
        r += 1
        found.append(r)
    return found


def read_xlsx(name: str, data: bytes, *, media_type: str, max_pages: int) -> ExtractedDocument:
    from openpyxl import load_workbook

    archive = zipfile.ZipFile(io.BytesIO(data))
    try:
        paths = _sheet_paths(archive)
    except (KeyError, ElementTree.ParseError):  # an unusual package layout: read on, without merges
        paths = {}
    workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheets = workbook.worksheets
        if len(sheets) > max_pages:
            raise ExtractionError(f"{name}: {len(sheets)} sheets exceed the limit of {max_pages}.", "too_many_pages")
        budget = [MAX_CELLS]
        tables: list[Table] = []
        for ws in sheets:
            cells = _sheet_cells(ws, name, budget)
            _fill_merges(cells, _merged(archive, paths.get(ws.title, "")))
            tables.extend(_tables(ws.title, cells))
        title = workbook.properties.title or PurePath(name).stem
    finally:
        workbook.close()
    return ExtractedDocument(name, media_type, title, tables, [], len(sheets))
