"""A ruled table's grid as its page draws it, tidied into the grid a reader expects.

Typeset statements often give a figure's currency mark, or its closing bracket or `%`, a
cell of its own (`$ | 20,514`), and span a header over the mark's cell and the figure's
(`2019` over both). `grid_tidy` joins a currency mark to the figure after it and a `)` or `%`
to the figure before it, moves a header printed over the mark's cell, or spanning both, onto the
column that holds the figures, and drops the columns left with nothing in them.
"""

from __future__ import annotations

import re

from .values import is_numeric

_MARK = re.compile(r"^(?:(?:US|HK|NT|NZ|A|C|S|U\.S\.)?\$|[€£¥]|RMB|USD|HKD|EUR|GBP|CNY)$", re.IGNORECASE)
_CLOSING = re.compile(r"^(?:\)|%|\)%|%\))$")
_DASHES = frozenset({"-", "—", "–", "--", "——"})


def grid_tidy(raw: list[list[str | None]]) -> list[list[str]]:
    """`raw`: cell texts, `None` for a cell merged into the one on its left (see the module docstring)."""
    if not raw:
        return []
    width = max(len(row) for row in raw)
    rows: list[list[str | None]] = [[*row, *[""] * (width - len(row))] for row in raw]
    printed = [any(row[c] for row in rows) for c in range(width)]
    for row in rows:
        _marks_joined(row)
    _headers_over_figures(rows, width)
    spans: dict[tuple[int, int], int] = {}  # (row, start column) → last column of a span
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell:
                end = c
                while end + 1 < width and row[end + 1] is None:
                    end += 1
                if end > c:
                    spans[(r, c)] = end
    content = [any(row[c] and (r, c) not in spans for r, row in enumerate(rows)) for c in range(width)]
    for (r, c), end in spans.items():
        if not content[c]:
            target = next((k for k in range(c + 1, end + 1) if content[k]), None)
            if target is not None:
                rows[r][target], rows[r][c] = rows[r][c], ""
    # a column this emptied goes; one printed empty stays (a `附注` column a continued page leaves blank)
    kept = [c for c in range(width) if any(row[c] for row in rows) or not printed[c]]
    return [[row[c] or "" for c in kept] for row in rows]


def _marks_joined(row: list[str | None]) -> None:
    for c, cell in enumerate(row):
        if not cell:
            continue
        text = cell.strip()
        if _MARK.match(text):
            after = next((k for k in range(c + 1, len(row)) if row[k]), None)
            if after is not None and is_numeric(row[after] or ""):
                row[after] = f"{text} {row[after]}"
                row[c] = ""
            elif after is not None and (row[after] or "").strip() in _DASHES:
                row[c] = ""  # `$ | —`: no figure, in the figure's column
        elif _CLOSING.match(text):
            before = next((k for k in range(c - 1, -1, -1) if row[k]), None)
            if before is not None and is_numeric(f"{row[before]}{text}"):
                row[before] = f"{row[before]}{text}"
                row[c] = ""


def _headers_over_figures(rows: list[list[str | None]], width: int) -> None:
    """A header printed over a currency mark's cell (`2019` over `$ | 20,514`, the mark now joined
    to its figure): a column with header text and no figure, right of which a column has figures
    and no header, gives its header to that column."""
    first = next((r for r, row in enumerate(rows) if any(_figure(cell) for cell in row)), len(rows))
    head, body = rows[:first], rows[first:]
    for c in range(width - 1):
        header = any(row[c] for row in head)
        if not header or any(row[c] and not _MARK.match(row[c] or "") for row in body):
            continue  # a column with text or figures of its own below (labels, notes)
        if any(_figure(row[c + 1]) for row in body) and not any(row[c + 1] for row in head):
            for row in head:
                row[c + 1], row[c] = row[c], ""


def _figure(cell: str | None) -> bool:
    return bool(cell) and is_numeric(cell or "") and not re.fullmatch(r"(?:19|20)[0-9]{2}", (cell or "").strip())
