"""Where a table's header, label columns, period columns and blocks are."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from core.language.normalize import text_normalize
from core.model.period import Period

from ..headers import names_a_measure
from ..statements import CONSOLIDATED, PARENT
from ..values import is_numeric, value_parse
from .glossary_reader import _SUB_ROW, _fold, _one, _Reader, _Reading

_HEADER_SCAN = 8
_SUB_HEADER_ROWS = 2

_CAPTION_LIMIT = 80  # a longer text above a table is prose, whose words do not caption its columns

# Whose figures a column holds, as the financial-enterprise formats head them (财会〔2018〕36号):
# a bank, an insurer or a securities firm prints the group's and the parent's figures side by
# side under one title, `本集团` (`合并`) over the group's columns and `本行` (`本公司`, `母公司`)
# over the parent's. `本公司`, `公司` and `银行` are the parent only beside the group: alone they
# are the issuer itself.
_GROUP_WORDS = (
    "本集团合并", "本集团", "集团合并", "集团", "合并报表", "合并数", "合并", "本公司及子公司",
    "本行及子公司", "本银行及子公司", "the group", "group", "consolidated",
)  # fmt: skip
_PARENT_WORDS = ("本银行", "本行", "母公司报表", "母公司", "parent company", "parent", "the bank")
_BESIDE_GROUP_WORDS = ("本公司", "公司报表", "公司", "银行", "the company", "company", "bank")
_SCOPE_WORD = "|".join(
    re.escape(w) for w in sorted({*_GROUP_WORDS, *_PARENT_WORDS, *_BESIDE_GROUP_WORDS}, key=len, reverse=True)
)
_SCOPED_HEADER = re.compile(
    rf"^(?P<word>{_SCOPE_WORD})(?:\s+|(?=[0-9]))(?P<rest>.+)$|^(?P<before>.+?)\s+(?P<after>{_SCOPE_WORD})$"
)
_SCOPE_CELL = re.compile(rf"(?:{_SCOPE_WORD})")


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
    if _SCOPE_CELL.fullmatch(text_normalize(text)):
        return False  # `本集团` over the columns below it says whose figures they hold: a header row
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
    while top > 0 and (_header_like(grid[top - 1], first, label_allowed=False) or _scope_row(grid[top - 1], first)):
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


def _scope_row(row: list[str], first: int) -> bool:
    """A header row naming whose figures the columns below hold (`项目 | 附注 | 本集团 | | 本行 |`):
    its labels may repeat the header's (`项目` spanning both rows)."""
    values = [text_normalize(cell) for cell in row[first:] if cell]
    return bool(values) and all(_SCOPE_CELL.fullmatch(text) for text in values)


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
    scopes = _scopes(headers)
    read: dict[int, _Column] = {}
    for c, text in headers.items():
        scope, rest = scopes.get(c, ("", text))
        read[c] = _Column(text, reader.header(rest), scope)
    found = {}
    for c, column in read.items():
        period = _period_of(column.reading, strict=strict)
        if period is not None and (dated_ok or period.period_type != "FY"):
            found[c] = column
    return found


def _scopes(headers: dict[int, str]) -> dict[int, tuple[str, str]]:
    """Each column headed with whose figures it holds: its scope (`CONSOLIDATED`, `PARENT`) and
    the rest of its header, which names its period. `本公司` is the parent only beside the group."""
    words: dict[int, tuple[str, str]] = {}
    for c, text in headers.items():
        found = _SCOPED_HEADER.fullmatch(text_normalize(text))
        if found is not None:
            words[c] = (found.group("word") or found.group("after"), found.group("rest") or found.group("before"))
    grouped = any(word in _GROUP_WORDS for word, _ in words.values())
    scopes: dict[int, tuple[str, str]] = {}
    for c, (word, rest) in words.items():
        if word in _GROUP_WORDS:
            scopes[c] = (CONSOLIDATED, rest)
        elif word in _PARENT_WORDS or grouped:
            scopes[c] = (PARENT, rest)
    return scopes


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
    """Why cells of some columns wait for review. A parent's column (`本行` beside `本集团`) holds
    the parent's figures alone, never the group's. Columns of one scope that share a period with
    another (`Domestic` / `International` over the same years) and name no channel of their own
    are a dimension the glossary does not name. A column whose group is a channel stays that
    channel's; the group's and the parent's columns of one period are no dimension."""
    problems = {
        c: f"a parent-company column ('{column.header}': the parent's figures alone): never the group's figure"
        for c, column in columns.items()
        if column.scope == PARENT
    }
    by_period: dict[tuple[Period | None, str], list[int]] = {}
    for c, column in columns.items():
        by_period.setdefault((column.reading.column_period, column.scope), []).append(c)
    for (period, _), same in by_period.items():
        if len(same) < 2 or period is None:
            continue
        channels = [_one(columns[c].reading.channels) for c in same]
        names = ", ".join(f"'{columns[c].header}'" for c in same)
        for c, channel in zip(same, channels, strict=True):
            if channel is None or channels.count(channel) > 1:
                shared = f"columns {names} all hold {period.label}: add their groups as channels or split the table"
                problems[c] = "; ".join(filter(None, (problems.get(c), shared)))
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
    scope: str = ""  # CONSOLIDATED or PARENT when the header says whose figures it holds (`本集团`, `本行`)
