"""Tables printed without ruling lines: rows and columns recovered from where the text sits.

One mechanism for a PDF page (words and their x positions in points) and for lines of text
(words and their character columns, a wide CJK character counting two): the caller gives
`Line`s of `Word`s and the width of one character (`unit`); `aligned_tables` returns each table
it finds as a grid and the lines it took.

- **Value tokens.** A word that reads as a figure (`1,577`, `(1,577)`, `12.5%`, a dash for
  none) is a value; a currency mark (`$`, `€`, `US$`) printed as its own word belongs to the
  figure after it, a `)` or `%` printed as its own word to the figure before it. A line's
  values are its trailing run of value tokens set apart from its label by a gap wider than a
  word space (`… doubtful accounts $226 (2018, $248) 14,481 14,098`: the first two figures are
  words of the label).
- **Columns** are the right edges the values of a block of lines share (figures are set flush
  right; a closing parenthesis may hang past the edge by a character).
- **Blocks.** Value lines follow each other, with label-only lines (section headings,
  `Current assets:`) that stay left of the value columns between them; a line of prose that
  runs into the value columns, or a wide vertical gap, ends the block.
- **Headers** are the lines right above a block's first value line whose words sit over the
  value columns and hold no figure other than a year or a day (`Years ended` / `September 28,`
  / `2019`): each becomes a header row, its words placed in the column under which they sit, so
  a header spread over two or three lines is read as one.
- **Wrapped labels.** A label-only line continues on the next line when the next line starts in
  lower case, a digit or a bracket, or the first ends on a joining word or mark (`of`, `and`,
  `,`, `—`); the values sit on the last line and the label is the lines joined.

A label-area text set apart from the label by a wide gap (a note reference under a `Note`
header, `附注`) becomes a column of its own, which the table reader treats as an attribute.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from itertools import pairwise

from .values import value_parse

_CURRENCY_WORD = re.compile(
    r"^(?:(?:US|HK|NT|NZ|A|C|S|U\.S\.)?\$|[€£¥]|RMB|USD|HKD|EUR|GBP|CNY|人民币)$", re.IGNORECASE
)
_CLOSING = re.compile(r"^(?:\)|%|\)%|%\))$")
_YEAR = re.compile(r"^(?:FY)?(?:19[0-9]{2}|20[0-9]{2})[年]?$", re.IGNORECASE)
_DAY = re.compile(r"^[0-3]?[0-9],?$")
_PERIOD_WORDS = re.compile(
    r"(?<![a-z])(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|years?|months?|weeks?|quarters?|ended|ending|as of|at"
    r"|fiscal|fy|period|restated|actual|audited|unaudited|change|%|percent|note|notes|total)(?![a-z])"
    r"|年|月|日|期|度|附注|本集团|本行|本公司|母公司|集团|合并"
)
# A line of one phrase that states a whole period or the unit is a title line, even where it sits
# over a column (`2019年度` centred on the page, `单位：人民币百万元` set flush right).
_TITLE_LINE = re.compile(
    r"(?:19|20)[0-9]{2}|单位|币种|人民币|(?<![a-z])(?:in|dollars in|amounts in) (?:thousands|millions|billions)",
    re.IGNORECASE,
)
_JOINING_END = re.compile(r"(?:[,，、—–\-(&/]|\b(?:of|and|or|for|in|to|the|on|at|by|from|with|net|less|including))$")
_WRAP_START = re.compile(r"^[a-z0-9(\[$€£¥%&—–\-,;:]")
_HEADER_LINES = 4  # header lines above a block's first value line
_HELD_LINES = 6  # label-only lines (headings, a wrapped label) between two value lines
_GAP_PITCHES = 4.0  # a vertical gap of this many line pitches ends a block


@dataclass(frozen=True)
class Word:
    """A run of text on one line and its horizontal extent; `digits` is where a figure's last
    digit ends, left of a `)` or `%` that hangs past the column (0: at `x1`)."""

    x0: float
    x1: float
    text: str
    digits: float = 0.0

    @property
    def edge(self) -> float:
        """The right edge figures align on."""
        if self.digits:
            return self.digits
        hanging = len(self.text) - len(self.text.rstrip(")%）"))
        if hanging and len(self.text) > hanging:
            return self.x1 - (self.x1 - self.x0) * hanging / len(self.text)
        return self.x1


@dataclass(frozen=True)
class Line:
    top: float
    bottom: float
    words: tuple[Word, ...]

    @property
    def x0(self) -> float:
        return self.words[0].x0 if self.words else 0.0

    @property
    def x1(self) -> float:
        return self.words[-1].x1 if self.words else 0.0


@dataclass(frozen=True)
class AlignedTable:
    """A table as a grid: its header rows first, then one row per labelled value line or
    section heading; `lines` the indexes of the lines it took, `top`/`bottom` its extent."""

    rows: list[list[str]]
    lines: tuple[int, ...]
    top: float
    bottom: float


@dataclass
class _Row:
    index: int  # the line
    label: str
    label_x0: float
    values: list[Word]
    extra: list[Word] = field(default_factory=list)  # label-area phrases after a wide gap
    joined: list[int] = field(default_factory=list)  # lines of a wrapped label above it


_DASHES = frozenset({"-", "—", "–", "--", "——", "n/a", "nm", "n.m."})


def _is_value(text: str) -> bool:
    return value_parse(text) is not None or _is_dash(text)


def _tokens(words: tuple[Word, ...], gap: float) -> list[Word]:
    """Words with a currency mark joined to the figure after it, and a `)` or `%` to the figure
    before it (`(75` `)`, `12.5` `%`; a dash with its `%` is still a dash)."""
    out: list[Word] = []
    pending: Word | None = None
    for word in words:
        if out and _CLOSING.match(word.text) and word.x0 - out[-1].x1 <= gap:
            joined = out[-1].text + word.text
            if _is_value(joined) or _is_dash(out[-1].text):
                last = out.pop()
                out.append(Word(last.x0, word.x1, last.text if _is_dash(last.text) else joined, last.edge))
                continue
        if pending is not None:
            if (_is_value(word.text) or _opens_value(word.text)) and not _YEAR.match(word.text):
                word = Word(pending.x0, word.x1, f"{pending.text} {word.text}", word.edge)
            else:
                out.append(pending)
            pending = None
        if _CURRENCY_WORD.match(word.text):
            pending = word
            continue
        out.append(word)
    if pending is not None:
        out.append(pending)
    return out


def _is_dash(text: str) -> bool:
    return text.strip().lower() in _DASHES


def _opens_value(text: str) -> bool:
    """A figure whose closing bracket is printed as a word of its own (`(75` before `)`)."""
    return text.startswith("(") and _is_value(text + ")")


def _phrases(words: list[Word], gap: float) -> list[Word]:
    """Words closer than `gap` joined into phrases."""
    phrases: list[Word] = []
    for word in words:
        if phrases and word.x0 - phrases[-1].x1 < gap:
            last = phrases.pop()
            phrases.append(Word(last.x0, word.x1, f"{last.text} {word.text}"))
        else:
            phrases.append(word)
    return phrases


def _split(line: Line, gap: float) -> tuple[list[Word], list[Word]]:
    """A line's label phrases and its trailing value tokens (set apart from the label by a gap)."""
    tokens = _tokens(line.words, gap)
    k = len(tokens)
    while k > 0 and _is_value(tokens[k - 1].text):
        k -= 1
    values = tokens[k:]
    # the first value must stand apart from the words before it, else it is a word of the label
    while values and k > 0 and values[0].x0 - tokens[k - 1].x1 < gap:
        k += 1
        values = values[1:]
    return _phrases(tokens[:k], gap), values


def _is_years(values: list[Word]) -> bool:
    return bool(values) and all(_YEAR.match(v.text.strip()) for v in values)


def _header_like(phrases: list[Word], values: list[Word], left: float) -> bool:
    """A header line: something over the value columns, and no figure but years and days."""
    if values and not _is_years(values):
        return False
    over = [p for p in phrases if (p.x0 + p.x1) / 2 >= left] + values
    if not over:
        return False
    for phrase in over:
        text = phrase.text.lower()
        if _YEAR.match(text.strip()):
            continue
        words = text.split()
        if len(words) > 8:
            return False
        if any(ch.isdigit() for ch in text) and not (
            _PERIOD_WORDS.search(text) or all(_YEAR.match(w) or _DAY.match(w) for w in words if w[0].isdigit())
        ):
            return False
    return True


def _columns(rows: list[_Row], tolerance: float) -> list[tuple[float, float]]:
    """The value columns of a block as (left, right) extents, by the right edges its figures
    share; a dash for none is often centred in its column and makes no column."""
    edges = sorted((v.edge, v.x0) for row in rows for v in row.values if not _is_dash(v.text))
    clusters: list[list[tuple[float, float]]] = []
    for edge in edges:
        if clusters and edge[0] - clusters[-1][-1][0] <= tolerance:
            clusters[-1].append(edge)
        else:
            clusters.append([edge])
    lines = len(rows)
    kept = [c for c in clusters if len(c) >= 2 or lines <= 2]
    return [(min(x0 for _, x0 in c), max(x1 for x1, _ in c)) for c in kept]


def _column_of(word: Word, columns: list[tuple[float, float]], tolerance: float) -> int | None:
    """The column a value sits in: its right edge on the column's, within the tolerance; a dash
    in the column whose extent holds its centre."""
    if _is_dash(word.text):
        centre = (word.x0 + word.x1) / 2
        return next((c for c, (left, right) in enumerate(columns) if left - tolerance <= centre <= right), None)
    best = None
    for c, (_, right) in enumerate(columns):
        distance = abs(word.edge - right)
        if distance <= tolerance and (best is None or distance < best[1]):
            best = (c, distance)
    return best[0] if best is not None else None


def _header_column(phrase: Word, columns: list[tuple[float, float]]) -> int:
    """The column a header phrase sits over: the one its centre falls in, else the nearest."""
    centre = (phrase.x0 + phrase.x1) / 2
    for c, (left, right) in enumerate(columns):
        if left - 2 <= centre <= right + 2:
            return c
    covered = [c for c, (left, right) in enumerate(columns) if phrase.x0 <= right and phrase.x1 >= left]
    if covered:
        return covered[0]
    return min(range(len(columns)), key=lambda c: abs((columns[c][0] + columns[c][1]) / 2 - centre))


def aligned_tables(lines: list[Line], unit: float, barriers: tuple[float, ...] = ()) -> list[AlignedTable]:
    """Every table the lines hold (see the module docstring). `unit`: one character's width;
    `barriers`: where other content the lines do not show starts (a ruled table's top)."""
    gap = 1.5 * unit
    tolerance = 1.6 * unit
    split = [_split(line, gap) for line in lines]
    pitches = [b.top - a.top for a, b in pairwise(lines) if b.top > a.top]
    pitch = statistics.median(pitches) if pitches else unit * 2
    tables: list[AlignedTable] = []
    i = 0
    while i < len(lines):
        values = split[i][1]
        if not values or _is_years(values):
            i += 1
            continue
        block = _block(lines, split, i, gap, tolerance, pitch, barriers)
        if block is None:
            i += 1
            continue
        table, end = block
        if table is not None:
            tables.append(table)
        i = end + 1
    return tables


def _block(
    lines: list[Line],
    split: list[tuple[list[Word], list[Word]]],
    start: int,
    gap: float,
    tolerance: float,
    pitch: float,
    barriers: tuple[float, ...],
) -> tuple[AlignedTable | None, int] | None:
    """The table whose first value line is `start`, and the last line it took."""
    left = split[start][1][0].x0
    rows: list[_Row] = []
    held: list[int] = []  # label-only lines not yet known to belong
    edges: set[float] = set()  # the right edges of the values so far
    last = start
    k = start
    while k < len(lines):
        phrases, values = split[k]
        if k > start and lines[k].top - lines[k - 1].bottom > _GAP_PITCHES * pitch:
            break
        if values and not _is_years(values):
            zone = min(left, values[0].x0)
            aligned = all(any(abs(v.edge - edge) <= tolerance for edge in edges) for v in values)
            if phrases and phrases[-1].x1 > zone + gap and rows and not aligned:
                break  # prose that runs into the value columns
            edges.update(v.edge for v in values)
            left = zone
            for h in held:
                hp, hv = split[h]
                rows.append(_Row(h, hp[0].text if hp else "", lines[h].x0, hv, hp[1:]))
            held = []
            label = phrases[0].text if phrases else ""
            rows.append(_Row(k, label, phrases[0].x0 if phrases else lines[k].x0, values, phrases[1:]))
            last = k
        elif not values and phrases and phrases[-1].x1 < left - gap and len(held) < _HELD_LINES:
            held.append(k)
        elif _header_like(phrases, values, left) and rows:
            held.append(k)  # a header again inside the block (a second block of years)
        else:
            break
        k += 1
    # label-only lines right below the last figures, and nothing after them on the page but a
    # footer: a heading the next page continues
    after = lines[k].top if k < len(lines) else float("inf")
    trailing = bool(held) and (k >= len(lines) or after - lines[held[-1]].bottom > 2.5 * pitch)
    trailing = trailing and not any(lines[held[0]].top < b < after for b in barriers)
    for h in held if trailing else []:
        hp, hv = split[h]
        if hv or lines[h].top - lines[last].bottom > 2.5 * pitch:
            break
        rows.append(_Row(h, hp[0].text if hp else "", lines[h].x0, [], hp[1:]))
        last = h
    value_rows = [r for r in rows if r.values]
    if len(value_rows) < 2:
        return None, start
    columns = _columns(value_rows, tolerance)
    if not columns:
        return None, start
    left = min(c[0] for c in columns)
    header, leading = _headers(lines, split, start, left, gap, pitch)
    leading_rows = [_Row(h, split[h][0][0].text, lines[h].x0, [], split[h][0][1:]) for h in leading]
    rows = _wrapped([*leading_rows, *rows], lines)
    width = len(columns)
    attribute = any(r.extra for r in rows) or any(
        p for h in header for p in split[h][0][1:] if (p.x0 + p.x1) / 2 < left
    )
    offset = 2 if attribute else 1
    grid: list[list[str]] = []
    for h in header:
        phrases, values = split[h]
        cells = [""] * (offset + width)
        label_area = [p for p in phrases if (p.x0 + p.x1) / 2 < left]
        if label_area:
            cells[0] = label_area[0].text
            if attribute and label_area[1:]:
                cells[1] = " ".join(p.text for p in label_area[1:])
        for phrase in [p for p in phrases if (p.x0 + p.x1) / 2 >= left] + values:
            c = offset + _header_column(phrase, columns)
            cells[c] = f"{cells[c]} {phrase.text}".strip()
        grid.append(cells)
    taken = list(header)
    for row in rows:
        cells = [""] * (offset + width)
        cells[0] = row.label
        if attribute and row.extra:
            cells[1] = " ".join(p.text for p in row.extra if p.x1 < left - gap)
        strays = []
        for value in row.values:
            c = _column_of(value, columns, tolerance)
            if c is None:
                strays.append(value.text)
            else:
                cells[offset + c] = value.text
        if strays and not any(cells[offset:]):
            continue
        grid.append(cells)
        taken += [*row.joined, row.index]
    top = min(lines[t].top for t in taken)
    bottom = max(lines[t].bottom for t in taken)
    return AlignedTable(grid, tuple(sorted(taken)), top, bottom), last


def _wrapped(rows: list[_Row], lines: list[Line]) -> list[_Row]:
    """A label-only row that the next row's label continues is joined into it (see the module docstring)."""
    out: list[_Row] = []
    for row in rows:
        while (
            out
            and not out[-1].values
            and out[-1].label
            and row.label
            and not out[-1].label.rstrip().endswith((":", "："))
            and (_WRAP_START.match(row.label) or _JOINING_END.search(out[-1].label.rstrip()))
            and lines[row.index].top - lines[out[-1].index].bottom
            < 1.2 * (lines[row.index].bottom - lines[row.index].top)
        ):
            above = out.pop()
            row = _Row(
                row.index,
                f"{above.label} {row.label}",
                above.label_x0,
                row.values,
                row.extra,
                [*above.joined, above.index],
            )
        out.append(row)
    return out


def _headers(
    lines: list[Line], split: list[tuple[list[Word], list[Word]]], start: int, left: float, gap: float, pitch: float
) -> tuple[list[int], list[int]]:
    """The header lines right above a block's first value line, top first, and the label-only
    lines between them and it (section headings and wrapped labels: the body's)."""
    found: list[int] = []
    leading: list[int] = []
    k = start - 1
    while (
        k >= 0
        and len(leading) < 3
        and not split[k][1]
        and split[k][0]
        and split[k][0][-1].x1 < left - gap
        and lines[start if not leading else leading[0]].top - lines[k].bottom <= 2.5 * pitch
    ):
        leading.insert(0, k)
        k -= 1
    below = lines[k + 1].top if k + 1 < len(lines) else lines[start].top
    while k >= 0 and len(found) < _HEADER_LINES:
        phrases, values = split[k]
        if below - lines[k].bottom > 2.5 * pitch or not _header_like(phrases, values, left):
            break
        if not values and len(phrases) == 1 and _TITLE_LINE.search(phrases[0].text):
            break  # `2019年度`, `单位：人民币百万元`, `(In millions)` alone: the title's, not a column's
        found.insert(0, k)
        below = lines[k].top
        k -= 1
    return found, leading
