"""Where a table's header, label columns, period columns and blocks are."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from core.language.normalize import text_normalize
from core.model.types import Period

from ..headers import names_a_measure
from ..values import is_numeric, value_parse
from .reading import _SUB_ROW, _fold, _one, _Reader, _Reading

_HEADER_SCAN = 8
_SUB_HEADER_ROWS = 2

_CAPTION_LIMIT = 80  # a longer text above a table is prose, whose words do not caption its columns


@dataclass(frozen=True)
class _Layout:
    grid: list[list[str]]  # the table body, transposed when periods run down the first column
    transposed: bool
    top: int  # first header row (of `grid`)
    bottom: int  # last header row
    first: int  # first period column; the columns before it hold labels


def _is_title_row(row: list[str], reader: _Reader) -> bool:
    values = {cell for cell in row if cell}
    if len(values) != 1:
        return False
    (text,) = values
    return not is_numeric(text) and reader.header(text).column_period is None


def _header_like(row: list[str], first: int, *, label_allowed: bool) -> bool:
    """A header row: text only, something above the value columns, labels empty (or allowed)."""
    if not any(row[first:]) or any(is_numeric(cell) for cell in row if cell):
        return False
    return label_allowed or not any(row[:first])


def _find_header(grid: list[list[str]], reader: _Reader, *, strict: bool = False) -> tuple[int, int] | None:
    """(header row, first period column) of a metric-rows × period-columns grid, or None.

    `strict` (periods down the first column): a cell must be a period and nothing else, so a row
    label such as `Net balances at September 30, 2018` is no period."""
    for r in range(min(len(grid), _HEADER_SCAN)):
        cells = [(c, text) for c, text in enumerate(grid[r]) if text]
        if not cells:
            continue
        periods = [c for c, text in cells if c >= 1 and _period_of(reader.header(text), strict=strict) is not None]
        numeric = [c for c, text in cells if c not in periods and is_numeric(text)]
        if periods and all(is_numeric(grid[r][c]) for c in periods) and reader.read(grid[r][0]).metrics:
            years = [int(reader.header(grid[r][c]).periods[0].period[:4]) for c in periods]
            if any(abs(a - b) != 1 for a, b in pairwise(years)):
                return None  # `Stores | 2045 | 1998`: a metric's figures that look like years, not a header
        if periods and not numeric:
            return r, min(periods)
        if numeric:
            return None
    return None


def _layout(grid: list[list[str]], reader: _Reader) -> _Layout | None:
    transposed = False
    found = _find_header(grid, reader)
    if found is None:
        flipped = [list(column) for column in zip(*grid, strict=True)] if grid else []
        found = _find_header(flipped, reader, strict=True)
        if found is None:
            return None
        grid, transposed = flipped, True
    row, first = found
    top = row
    while top > 0 and _header_like(grid[top - 1], first, label_allowed=False):
        top -= 1
    bottom = row
    while (
        bottom + 1 < len(grid)
        and bottom - row < _SUB_HEADER_ROWS
        and _header_like(grid[bottom + 1], first, label_allowed=True)
    ):
        bottom += 1
    layout = _Layout(grid, transposed, top, bottom, first)
    if bottom > row:  # keep sub-header rows only if they do not lose a period to an annotation
        plain = replace(layout, bottom=row)
        below = [cell for r in range(row + 1, bottom + 1) for cell in grid[r][first:] if cell]
        measured = any(names_a_measure(text_normalize(cell)) for cell in below)
        if not measured and _period_count(plain, reader) > _period_count(layout, reader):
            return plain
    return layout


def _period_count(layout: _Layout, reader: _Reader) -> int:
    """How many distinct periods the value columns name."""
    periods = {reader.header(text).column_period for text in _column_headers(layout).values()}
    return len(periods - {None})


def _column_headers(layout: _Layout) -> dict[int, str]:
    """Each value column's header text, the header rows joined (merged upper cells filled right)."""
    rows = [list(layout.grid[r]) for r in range(layout.top, layout.bottom + 1)]
    for row in rows[:-1]:
        for c in range(layout.first + 1, len(row)):
            if not row[c]:
                row[c] = row[c - 1]
    headers: dict[int, str] = {}
    for c in range(layout.first, len(layout.grid[0])):
        parts: list[str] = []
        for row in rows:
            if row[c] and (not parts or parts[-1] != row[c]):
                parts.append(row[c])
        headers[c] = " ".join(parts)
    return headers


def _table_scale(layout: _Layout, reader: _Reader) -> list[_Reading]:
    """Header rows holding nothing but one scale statement (`(in millions)` in one cell)."""
    found = []
    for r in range(layout.top, layout.bottom + 1):
        texts = {cell for cell in layout.grid[r][layout.first :] if cell}
        if len(texts) == 1:
            reading = reader.header(texts.pop())
            if reading.printed is not None and reading.column_period is None and not reading.leftover:
                found.append(reading)
    return found


_CURRENCY_MARK = re.compile(r"\s*(?:[a-zA-Z]{0,3}\s?[$€£¥]|[A-Z]{3})\s*")


def _body_scale(grid: list[list[str]], layout: _Layout, reader: _Reader) -> list[_Reading]:
    """Rows between the header and the first figures holding nothing but one scale statement
    (`(In thousands)` alone)."""
    found = []
    for r in range(layout.bottom + 1, len(grid)):
        if any(is_numeric(cell) for cell in grid[r][layout.first :]):
            break  # a statement below figures does not rescale the figures above it
        texts = {cell for cell in grid[r] if cell and not _CURRENCY_MARK.fullmatch(cell)}
        if len(texts) == 1:
            reading = reader.header(texts.pop())
            if reading.printed is not None and reading.printed.factor is not None and not reading.leftover:
                found.append(reading)
    return found


def _repeated_labels(
    grid: list[list[str]], layout: _Layout, columns: dict[int, _Column], label_columns: list[int], reader: _Reader
) -> dict[tuple[int, str], int]:
    """(row, folded label) → how many value rows of its block carry that label, when more than one.
    A block ends where a header row starts again."""
    counts: dict[str, list[int]] = {}
    found: dict[tuple[int, str], int] = {}

    def close() -> None:
        for label, rows in counts.items():
            if len(rows) > 1:
                found.update({(r, label): len(rows) for r in rows})
        counts.clear()

    for r in range(layout.bottom + 1, len(grid)):
        cells = grid[r]
        if not layout.transposed and _header_again(cells, layout.first, reader, dated_ok=True):
            close()
            continue
        if any(value_parse(cells[c]) for c in range(layout.first, len(cells))):
            label = " ".join(cells[c] for c in label_columns if cells[c] and not is_numeric(cells[c]))
            if label and _SUB_ROW.match(label) is None:
                counts.setdefault(_fold(label), []).append(r)
    close()
    return found


def _caption_dropped(layout: _Layout, c: int, reader: _Reader) -> _Column | None:
    """A column whose caption above (`31,` left of a broken merge) spoils an otherwise clean period
    cell: the period cell and what sits below it, when that is only a scale (`(in millions)`)."""
    if layout.transposed:
        return None
    parts = [layout.grid[r][c] for r in range(layout.top, layout.bottom + 1)]
    for i in range(len(parts) - 1, 0, -1):
        if not parts[i] or reader.header(parts[i]).period is None:
            continue
        below = [p for p in parts[i + 1 :] if p]
        if all(reader.header(p).printed is not None and not reader.header(p).leftover for p in below):
            text = " ".join([parts[i], *below])
            return _Column(text, reader.header(text))
        return None
    return None


def _period_of(reading: _Reading, *, strict: bool) -> Period | None:
    return reading.period if strict else reading.column_period


def _columns(
    headers: dict[int, str], reader: _Reader, *, dated_ok: bool = True, strict: bool = False
) -> dict[int, _Column]:
    """The value columns whose header names a period; a fiscal year only when the table's caption
    does not make its columns quarters, halves or year-to-date (`Six Months Ended June 30,`)."""
    read = {c: _Column(text, reader.header(text)) for c, text in headers.items()}
    found = {}
    for c, column in read.items():
        period = _period_of(column.reading, strict=strict)
        if period is not None and (dated_ok or period.period_type != "FY"):
            found[c] = column
    return found


def _header_again(cells: list[str], first: int, reader: _Reader, *, dated_ok: bool) -> dict[int, _Column] | None:
    """The period columns of a body row that is a header row again (text periods, or a row of
    bare years such as `| 2017 | 2016` with no metric label), else None."""
    values = [cells[c] for c in range(first, len(cells)) if cells[c]]
    label = " ".join(cells[:first]).strip()
    years = bool(values) and all(reader.header(text).period is not None for text in values)
    if years and label and reader.read(label).metrics:
        years = False
    if not years and not _header_like(cells, first, label_allowed=True):
        return None
    return _columns({c: cells[c] for c in range(first, len(cells)) if cells[c]}, reader, dated_ok=dated_ok) or None


def _dates_apart(columns: dict[int, _Column], entity: str | None, reader: _Reader) -> dict[int, str]:
    """Dated columns that cannot all be fiscal year ends (`June 30, 2019 | December 31, 2018`),
    when the company's year end is not set: they wait for review."""
    info = reader.glossary.entities.get(entity or "")
    if info is not None and info.year_end_month is not None:
        return {}
    dated = {c: column.reading.dates[0] for c, column in columns.items() if len(column.reading.dates) == 1}
    days = [day.timetuple().tm_yday for day in dated.values()]
    apart = max((min(abs(a - b), 365 - abs(a - b)) for a in days for b in days), default=0)
    if apart <= 7:  # 52/53-week years end within a week of each other
        return {}
    names = ", ".join(sorted({f"{day:%d %B}" for day in dated.values()}))
    return {c: f"dates {names} cannot all end a fiscal year: set the company's year-end month" for c in dated}


def _column_groups(columns: dict[int, _Column]) -> dict[int, str]:
    """Columns that share a period with another (`Domestic` / `International` over the same years)
    and name no channel of their own: a dimension the glossary does not name, so each of their
    cells waits for review. A column whose group is a channel stays that channel's."""
    by_period: dict[Period | None, list[int]] = {}
    for c, column in columns.items():
        by_period.setdefault(column.reading.column_period, []).append(c)
    problems: dict[int, str] = {}
    for period, same in by_period.items():
        if len(same) < 2 or period is None:
            continue
        channels = [_one(columns[c].reading.channels) for c in same]
        names = ", ".join(f"'{columns[c].header}'" for c in same)
        for c, channel in zip(same, channels, strict=True):
            if channel is None or channels.count(channel) > 1:
                problems[c] = (
                    f"columns {names} all hold {period.label}: add their groups as channels or split the table"
                )
    return problems


def _label_columns(layout: _Layout, reader: _Reader) -> list[int]:
    """The columns before the periods that make up a row's label: a later one headed with words
    of its own (`Note`, `Useful life`) is an attribute, not part of the label."""
    labels = [0]
    for c in range(1, layout.first):
        header = " ".join(layout.grid[r][c] for r in range(layout.top, layout.bottom + 1) if layout.grid[r][c])
        if not header or not reader.header(header).leftover:
            labels.append(c)
    return labels


def _unit_only(reader: _Reader, text: str) -> str:
    """An attribute column's cell counts only when it names a unit (a `单位` column)."""
    return text if text and reader.markers.whole(text) is not None else ""


def _section_heading(cells: list[str], label_columns: list[int]) -> str | None:
    """A labelled row with nothing else in it heads a section; None for any other row."""
    label = " ".join(cells[c] for c in label_columns if cells[c]).strip()
    others = [cell for c, cell in enumerate(cells) if c not in label_columns and cell.strip()]
    if not label or others or is_numeric(label):
        return None
    return label.rstrip(" :：")


@dataclass(frozen=True)
class _Column:
    header: str
    reading: _Reading
