"""Tables → fact candidates (SPEC §15, issues D and J).

Two layouts are read: metric rows × period columns (a header row of periods) and the transposed
one (period rows × metric columns). Headers may span several rows (merged cells such as `2025`
over `H1 | H2`, `Domestic` over repeated years, `Years Ended September 30,` over a row of years).
Each value cell is resolved through the glossary:

- the **metric** from the row label as printed (`Gross margin (%)`), else under its section
  heading (a label-only row or one ending in `:`: `RSUs` › `Granted`), else the label read
  without units and footnotes; an explicit sub-row (`其中：线上`, `of which`) takes the metric of
  the row above; a bare total (`Total`, `合计`) never does;
- the **entity** from the row label, else the column header, the table title, the nearest
  heading, the sheet name, the first cell, then `default_entity`;
- the **channel** from the row label, else the column header or the title; `TOTAL` by default;
  columns sharing a period are a dimension: a channel the glossary names, else review;
- the **period** from the column header (`headers`: dates, `Fiscal 2019`, `FY19`, `2019/20`,
  footnote marks), through the SPEC §5 grammar (absolute forms only); a dated header is checked
  against the company's fiscal year end when the curator set one;
- the **unit**: a percent value or a unit on the label (`（家）`) must be the metric's; a money
  figure's scale and currency (`scales`) come from the label, the column header, the table
  (corner, title rows, caption) or the sentence before it, and are converted exactly into the
  metric's scale, or stored as printed for an `AS_PRINTED` metric.

Anything not understood becomes a `pending` candidate with its reason, never an approved guess:
an unknown label (with a suggested alias and, when one is close, a suggested metric), an
external or missing entity, a unit that contradicts the metric's, a scale nobody stated, a
column group, a bare total, two values for one key.
"""

from __future__ import annotations

import calendar
import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Literal

from core.glossary import GlossarySnapshot
from core.normalize import compact_view, text_normalize
from core.periods import periods_find
from core.types import Period

from .headers import (
    due_schedule,
    fiscal_year,
    header_prepare,
    names_a_measure,
    not_a_period,
    periods_rewrite,
    sub_annual,
)
from .ir import ExtractedDocument, Table
from .scales import (
    AS_PRINTED,
    DOLLAR,
    Printed,
    currency_strip,
    dollar_currency,
    scale_read,
    scale_strip,
    unit_code,
    unit_parse,
)
from .values import _BRACKETS, UnitHint, UnitMarkers, cell_currency, is_numeric, value_parse

# Two reference dates: a period that reads the same on both is absolute (FY2025), one that
# does not is relative (去年, H1) and means nothing inside a document.
_REF_A, _REF_B = date(2000, 1, 1), date(2001, 7, 1)
_FILLER = (
    "其中",
    "ofwhich",
    "including",
    "项目",
    "指标",
    "全年",
    "实际",
    "actual",
    "未经审计",
    "经审计",
    "unaudited",
    "audited",
    "reported",
    "单位",
    "人民币",
)
# Report headers the §5 grammar does not read: `2025年1-6月` (H1), `2025年7-9月` (Q3), `1H2025`.
_MONTH_RANGES = {"1-3": "q1", "4-6": "q2", "7-9": "q3", "10-12": "q4", "1-6": "h1", "7-12": "h2", "1-12": ""}
_MONTH_RANGE = re.compile(r"(19[9][0-9]|20[0-9]{2}|2100)\s?年?\s?(1|4|7|10)\s?[-~–—至]\s?(3|6|9|12)\s?月(?:份)?")
_HALF_FIRST = re.compile(r"(?<![a-z0-9])([12])h\s?(20[0-9]{2}|[0-9]{2})(?![0-9])")
_HEADER_SCAN = 8
_SUB_HEADER_ROWS = 2
_FUZZY_CUTOFF = 0.6
_CAPTION_LIMIT = 80  # a longer text above a table is prose, whose words do not caption its columns

Status = Literal["approved", "pending"]
TOTAL = "TOTAL"
COUNT = "COUNT"


@dataclass(frozen=True)
class FactCandidate:
    """One value cell read as a fact; `pending` ones go to the review queue with their `reason`."""

    entity: str
    metric: str
    period_type: str
    period: str
    channel: str
    value: Decimal
    unit: str
    source_doc: str
    locator: str
    status: Status
    suggested_alias: str
    raw_label: str
    sensitivity: str = "INTERNAL"
    reason: str = ""

    @property
    def period_label(self) -> str:
        return Period(self.period_type, self.period).label

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The fact table's natural key: (metric, entity, period_type, period, channel)."""
        return (self.metric, self.entity, self.period_type, self.period, self.channel)


@dataclass(frozen=True)
class _Reading:
    """What one piece of text (a title, a header, a label) names."""

    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    externals: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    relative: bool = False
    unit: UnitHint | None = None  # a unit other than money (`%`, `家`)
    leftover: str = ""
    printed: Printed | None = None  # the currency and scale it states
    dates: tuple[date, ...] = ()
    not_period: bool = False  # `Change`, `% of total`, `Note`
    whole: bool = False  # the whole label is one alias, as printed
    qualified: bool = False  # read under its section heading

    @property
    def period(self) -> Period | None:
        """The one absolute period of a clean period header, else None."""
        if self.leftover:
            return None
        return self.column_period

    @property
    def column_period(self) -> Period | None:
        """The one absolute period of a column header, which may also carry a group caption."""
        if self.relative or self.not_period or len(self.periods) != 1 or self.externals:
            return None
        if len(self.metrics) > 1 or len(self.entities) > 1 or len(self.channels) > 1:
            return None
        return self.periods[0]


_NOTHING = _Reading()
# Words of a report's column headers that name no dimension (`Years Ended`, `As of`, `Restated`).
_HEADER_FILLER = (
    "fortheyearsended",
    "fortheyearended",
    "fiscalyearsended",
    "fiscalyearended",
    "fiscalyearend",
    "yearsended",
    "yearended",
    "yearend",
    "fiscalyears",
    "fiscalyear",
    "fiscal",
    "asofandfortheyearended",
    "asof",
    "asat",
    "ended",
    "restated",
    "asreported",
    "balances",
    "balance",
    "amount",
    "total",
)
_SUB_ROW = re.compile(r"^(?:其中|of which|ofwhich|including|incl\.?|among which|thereof)\s*[:：,，]?\s*", re.IGNORECASE)


def _distinct(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _one(items: tuple[str, ...]) -> str | None:
    return items[0] if len(items) == 1 else None


class _Reader:
    """Reads texts through one glossary, with a cache (tables repeat their labels)."""

    def __init__(self, glossary: GlossarySnapshot):
        self.glossary = glossary
        self.markers = UnitMarkers((u.code, u.name_zh, u.name_en) for u in glossary.units.values())
        self.cache: dict[tuple[str, bool], _Reading] = {}
        self.closest: dict[str, str] = {}
        self.metric_names = [
            (text_normalize(text), code) for code in glossary.metrics for text in glossary.aliases_of("metric", code)
        ]

    def read(self, raw: str) -> _Reading:
        """A label, a title or a caption: only bracketed units and scales are set aside."""
        return self._cached(raw, header=False)

    def header(self, raw: str) -> _Reading:
        """A column header: currency, scale, footnotes and report words are set aside too."""
        return self._cached(raw, header=True)

    def _cached(self, raw: str, *, header: bool) -> _Reading:
        if not raw.strip():
            return _NOTHING
        found = self.cache.get((raw, header))
        if found is None:
            found = self.cache[(raw, header)] = self._read(raw, header=header)
        return found

    def _whole(self, raw: str) -> _Reading | None:
        """The label as printed, when it is one metric's alias (`Gross margin (%)`, `Current year1`)."""
        target = self.glossary.matcher.lookup(raw)
        if target is None or target.kind != "metric":
            return None
        normalized = text_normalize(raw)
        unit = self.markers.hint(normalized)
        money = unit_parse(unit.code) if unit is not None else None
        printed = _bracketed_scale(normalized)
        if money is not None and printed is None:
            printed = Printed(money[0], money[1] * unit.factor)  # type: ignore[union-attr]
        return _Reading(metrics=(target.code,), unit=None if money else unit, whole=True, printed=printed)

    def _read(self, raw: str, *, header: bool) -> _Reading:
        if not header:
            whole = self._whole(raw)
            if whole is not None:
                return whole
        normalized, dates = periods_rewrite(_report_periods(text_normalize(header_prepare(raw))))
        printed = scale_read(normalized) if header else _bracketed_scale(normalized)
        unit = self.markers.hint(normalized)
        money = unit_parse(unit.code) if unit is not None else None
        if money is not None:
            if printed is None or printed.factor is None:
                printed = Printed(money[0], money[1] * unit.factor)  # type: ignore[union-attr]
            unit = None
        core = self.markers.strip(normalized)
        core = scale_strip(core) if header else _BRACKETS.sub(_scale_bracket_drop, core)
        first, second = periods_find(core, _REF_A), periods_find(core, _REF_B)
        relative = [p for *_, p in first] != [p for *_, p in second]
        chars = list(core)
        for start, end, _ in first:
            chars[start:end] = " " * (end - start)
        rest = " ".join("".join(chars).split())
        matches = self.glossary.match(rest)
        compact, _ = compact_view(rest)
        taken = [False] * len(compact)
        for m in matches:
            taken[m.start : m.end] = [True] * (m.end - m.start)
        leftover = "".join(ch for ch, used in zip(compact, taken, strict=True) if not used)
        leftover = "".join(ch for ch in leftover if unicodedata.category(ch)[0] not in "PSZ")
        for word in (*_FILLER, *_HEADER_FILLER) if header else _FILLER:
            leftover = leftover.replace(word, "")
        entities = [m for m in matches if m.kind == "entity"]
        return _Reading(
            metrics=_distinct(m.code for m in matches if m.kind == "metric"),
            entities=_distinct(m.code for m in entities if not m.external),
            externals=_distinct(m.code for m in entities if m.external),
            channels=_distinct(m.code for m in matches if m.kind == "channel"),
            periods=tuple(dict.fromkeys(p for *_, p in first)),
            relative=relative,
            unit=unit,
            leftover=leftover,
            printed=printed,
            dates=dates,
            not_period=header and (not_a_period(normalized) or any(ch.isdigit() for ch in leftover)),
        )

    def alias_text(self, label: str) -> str:
        """A label as a curator would add it as an alias: no unit brackets, no `其中：`."""
        text = unicodedata.normalize("NFKC", label)
        text = _BRACKETS.sub(lambda m: " " if self.markers.whole(m.group(1)) else m.group(0), text)
        text = " ".join(text.split()).strip(" :：-—–·")
        return text[2:].lstrip(" :：") if text.startswith("其中") else text

    def closest_metric(self, label: str) -> str:
        found = self.closest.get(label)
        if found is None:
            found = self.closest[label] = self._closest(label)
        return found

    def _closest(self, label: str) -> str:
        best, score = "", _FUZZY_CUTOFF
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(text_normalize(label))  # the label's index is built once
        for name, code in self.metric_names:
            matcher.set_seq1(name)
            if matcher.real_quick_ratio() > score and matcher.quick_ratio() > score:
                ratio = matcher.ratio()
                if ratio > score:
                    best, score = code, ratio
        return best


def _bracketed_scale(normalized: str) -> Printed | None:
    """The scale a label states in brackets (`Number of shares (thousands)`, `Revenue ($m)`)."""
    for m in _BRACKETS.finditer(normalized):
        found = scale_read(m.group(1))
        if found is not None:
            return found
    return None


def _scale_bracket_drop(m: re.Match[str]) -> str:
    return " " if scale_read(m.group(1)) is not None and not scale_strip(m.group(1)).strip() else m.group(0)


def _report_periods(text: str) -> str:
    """Rewrite report-style period headers into the §5 grammar (`2025年1-6月` → `2025h1`)."""

    def months(m: re.Match[str]) -> str:
        suffix = _MONTH_RANGES.get(f"{m.group(2)}-{m.group(3)}")
        return m.group(0) if suffix is None else f"{m.group(1)}{suffix or '年'}"

    text = _MONTH_RANGE.sub(months, text)
    return _HALF_FIRST.sub(lambda m: f"h{m.group(1)} {_full_year(m.group(2))}", text)


def _full_year(text: str) -> str:
    return text if len(text) == 4 else f"20{text}"


_READERS: dict[int, tuple[GlossarySnapshot, _Reader]] = {}


def _reader_for(glossary: GlossarySnapshot) -> _Reader:
    held = _READERS.get(id(glossary))
    if held is not None and held[0] is glossary:
        return held[1]
    if len(_READERS) > 8:
        _READERS.clear()
    reader = _Reader(glossary)
    _READERS[id(glossary)] = (glossary, reader)
    return reader


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


@dataclass(frozen=True)
class _Context:
    entity: str | None
    external: bool
    metric: str | None
    channel: str | None
    unit: UnitHint | None
    printed: Printed | None  # the scale and currency the table states, else the lead sentence's


def _context(
    sources: list[_Reading],
    entity_sources: list[_Reading],
    default_entity: str | None,
    scale_sources: list[_Reading],
) -> _Context:
    """The table-level entity, metric, channel, unit and scale, from the first source that names one."""
    entity, external = None, False
    for reading in entity_sources:
        if len(reading.entities) == 1:
            entity = reading.entities[0]
            break
        if reading.externals and not reading.entities:
            entity, external = reading.externals[0], True
            break
    metric = next((r.metrics[0] for r in sources if len(r.metrics) == 1), None)
    channel = next((r.channels[0] for r in entity_sources if len(r.channels) == 1), None)
    unit = next((r.unit for r in entity_sources if r.unit is not None), None)
    printed = _printed_merge(r.printed for r in scale_sources)
    return _Context(entity or default_entity, external, metric, channel, unit, printed)


def _printed_merge(statements: Iterable[Printed | None]) -> Printed | None:
    """The first scale stated, with the first currency stated beside any of them."""
    stated = [p for p in statements if p is not None]
    scaled = next((p for p in stated if p.factor is not None), None)
    # The nearest currency named wins (a row's `US$` over the table's `RMB'000`); a bare `$` only
    # when nothing names one.
    currency = next((p.currency for p in stated if p.currency and p.currency != DOLLAR), "")
    currency = currency or next((p.currency for p in stated if p.currency), "")
    if scaled is None:
        return Printed(currency, None) if currency else None
    excepted = " ".join(p.excepted for p in stated if p.excepted)
    return Printed(currency, scaled.factor, excepted)


def facts_from_table(
    table: Table,
    *,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None = None,
    sheet_name: str | None = None,
) -> list[FactCandidate]:
    """Every value cell of `table` as a fact candidate, each with its cell-level locator."""
    return table_read(
        table,
        glossary=glossary,
        document_name=document_name,
        sensitivity=sensitivity,
        default_entity=default_entity,
        sheet_name=sheet_name,
    ).candidates


@dataclass(frozen=True)
class TableFacts:
    """What one table yields; `problem` says why it yields nothing ("" when it yields facts)."""

    candidates: list[FactCandidate]
    problem: str = ""


def table_read(
    table: Table,
    *,
    glossary: GlossarySnapshot,
    document_name: str,
    sensitivity: str,
    default_entity: str | None = None,
    sheet_name: str | None = None,
    inherited: Printed | None = None,
) -> TableFacts:
    """Every value cell of `table` as a fact candidate, or why there is none. `inherited`: the
    scale of the block above, for a second block under its own header rows."""
    reader = _reader_for(glossary)
    width = table.width
    grid = [row + [""] * (width - len(row)) for row in table.rows]
    start = 0
    while start < len(grid) - 1 and _is_title_row(grid[start], reader):
        start += 1
    preamble = [next(c for c in grid[r] if c) for r in range(start)]
    layout = _layout(grid[start:], reader)
    if layout is None:
        return TableFacts([], "no row or column of periods (years, dates or fiscal years) was found")
    grid = layout.grid

    def real(r: int, c: int) -> tuple[int, int]:
        return (start + c, r) if layout.transposed else (start + r, c)

    above = [" ".join(dict.fromkeys(c for c in grid[r] if c)) for r in range(layout.top)]
    corner = " ".join(
        grid[r][c] for r in range(layout.top, layout.bottom + 1) for c in range(layout.first) if grid[r][c]
    )
    titled = [reader.read(t) for t in [table.title, *preamble, *above]]
    headed = [reader.header(t) for t in [table.title, *preamble, *above, corner] if len(t) <= _CAPTION_LIMIT]
    sheet = reader.read(sheet_name if sheet_name is not None else table.sheet)
    heading = reader.read(table.heading)
    lead = reader.read("")
    lead_printed = _printed_merge(
        scale_read(text_normalize(text), prose=True) for text in (table.lead, table.heading) if text
    )
    stated = [*_table_scale(layout, reader), *_body_scale(grid, layout, reader)]
    scales = [*stated, *headed, *titled, replace(lead, printed=lead_printed), replace(lead, printed=inherited)]
    # A currency is no company (`Amounts in HK$ million` names no Hong Kong entity).
    named = [reader.read(currency_strip(t)) for t in [table.title, *preamble, *above]]
    context = _context(
        [*titled, reader.read(corner)],
        [*named, heading, sheet, reader.read(currency_strip(corner))],
        default_entity,
        scales,
    )

    corner_label = " ".join(grid[r][0] for r in range(layout.top, layout.bottom + 1) if grid[r][0])
    captions = [table.title, *preamble, *above, corner_label]
    annual = not any(sub_annual(text_normalize(text)) for text in captions if 0 < len(text) <= _CAPTION_LIMIT)
    annual = annual and not (table.lead and sub_annual(text_normalize(table.lead), prose=True))
    headers = _column_headers(layout)
    if any(due_schedule(text_normalize(text)) for text in headers.values()):
        return TableFacts([], "a schedule of amounts due by year (`Thereafter`): its years are due dates")
    dated_ok = annual
    columns = _columns(headers, reader, dated_ok=dated_ok, strict=layout.transposed)
    for c in headers.keys() - columns.keys():
        rescued = _caption_dropped(layout, c, reader)
        if rescued is not None and (dated_ok or _period_of(rescued.reading, strict=False) is None):
            columns[c] = rescued
    columns = dict(sorted(columns.items()))
    if not columns:
        if not dated_ok:
            return TableFacts([], "its columns are quarters, halves or year-to-date, which a year alone does not name")
        return TableFacts([], "no column header names a period")
    groups = _column_groups(columns) | _dates_apart(columns, context.entity, reader)
    label_columns = _label_columns(layout, reader)

    scope = _Scope(reader, table, layout.transposed, context, document_name, sensitivity)
    repeats = _repeated_labels(grid, layout, columns, label_columns, reader)
    candidates: list[FactCandidate] = []
    last_metric: str | None = None
    section = ""
    for r in range(layout.bottom + 1, len(grid)):
        cells = grid[r]
        label_cells = [cells[c] if c in label_columns else _unit_only(reader, cells[c]) for c in range(layout.first)]
        values = [(c, value_parse(cells[c])) for c in columns]
        again = None if layout.transposed else _header_again(cells, layout.first, reader, dated_ok=dated_ok)
        if again:  # a second block under its own header rows (`Dec 30, 2017 | … | Dec 29, 2018`)
            rest = replace(table, rows=grid[r:], origin=(table.origin[0] + start + r, table.origin[1]))
            candidates += table_read(
                rest,
                glossary=glossary,
                document_name=document_name,
                sensitivity=sensitivity,
                default_entity=default_entity,
                sheet_name=sheet_name,
                inherited=context.printed,
            ).candidates
            break
        if not any(parsed for _, parsed in values):
            heading_text = _section_heading(cells, label_columns)
            if heading_text is not None:
                section, last_metric = heading_text, None
            continue
        row = _row(reader, label_cells, section=section, inherited=last_metric, repeats=repeats, r=r)
        if row.label.rstrip().endswith((":", "：")):
            section = row.label.rstrip(" :：")
        if len(row.reading.metrics) == 1 and row.known:
            last_metric = row.reading.metrics[0]
        elif row.reading.metrics or not row.known:
            last_metric = None
        for c, parsed in values:
            if parsed is not None:
                candidate = _candidate(scope, row, columns[c], real(r, c), parsed, currency=cell_currency(cells[c]))
                if c in groups:
                    candidate = replace(candidate, status="pending", reason=_join(candidate.reason, groups[c]))
                candidates.append(candidate)
    return TableFacts(candidates, "" if candidates else "no value cell under a period column")


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


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


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
class _Scope:
    """What every cell of one table shares."""

    reader: _Reader
    table: Table
    transposed: bool
    context: _Context
    document_name: str
    sensitivity: str


@dataclass(frozen=True)
class _Row:
    label: str  # the label cells joined, without a unit-only cell or a serial number
    reading: _Reading
    known: bool  # the glossary knows every word of the label, and it names no period
    unit: UnitHint | None
    inherited_metric: str | None  # the metric of the row above, for an explicit sub-row (`其中：线上`)
    total: bool = False  # a bare total (`Total`, `合计`) the glossary names no metric for
    printed: Printed | None = None  # a money unit the row states (a `百万元` unit cell)
    repeated: int = 0  # how often this label heads a value row of the block, when more than once
    heading: str = ""  # a section heading that changes what the label means (`Discontinued operations:`)
    section: str = ""


@dataclass(frozen=True)
class _Column:
    header: str
    reading: _Reading


def _row(
    reader: _Reader,
    label_cells: list[str],
    *,
    section: str,
    inherited: str | None,
    repeats: dict[tuple[int, str], int] | None = None,
    r: int = 0,
) -> _Row:
    parts: list[str] = []
    unit: UnitHint | None = None
    printed: Printed | None = None
    for text in label_cells:
        if not text:
            continue
        whole = reader.markers.whole(text)
        money = unit_parse(whole.code) if whole is not None else None
        if money is not None:
            printed = Printed(money[0], money[1] * whole.factor)  # type: ignore[union-attr]
        elif whole is not None:
            unit = whole
        elif not is_numeric(text):  # a serial-number column (序号) is no part of the label
            parts.append(text)
    label = " ".join(parts)
    sub_row = _SUB_ROW.match(label) is not None
    repeated = (repeats or {}).get((r, _fold(label)), 0)
    reading = _qualified(reader, label, section, repeated=bool(repeated))
    known = bool(label) and not reading.leftover and not reading.periods
    channel_only = known and bool(reading.channels) and not reading.metrics and not reading.entities
    total = channel_only and not sub_row and reading.channels == (TOTAL,)
    printed = reading.printed or printed
    named = reader.read(section) if section else _NOTHING
    changes = bool(_MODIFIER_HEADING.search(section.lower()) or named.entities or named.externals or named.channels)
    modifier = section if section and not reading.qualified and changes else ""
    return _Row(
        label,
        reading,
        known,
        reading.unit or unit,
        inherited if sub_row else None,
        total,
        printed,
        repeated,
        modifier,
        section,
    )


_MODIFIER_HEADING = re.compile(
    r"(?<![a-z])(?:discontinued|pro ?forma|adjusted|non-?gaap|restated|unaudited|constant currency|organic"
    r"|excluding|supplement\w*|as a % of|as a percentage of)(?![a-z])|终止经营|备考|调整后"
)


def _qualified(reader: _Reader, label: str, section: str, *, repeated: bool) -> _Reading:
    """The label read under its section heading (`RSUs` › `Granted`, `Domestic:` › `Revenue`) when
    that names exactly one metric and the label repeats in the table, or alone names no one
    metric, or the heading adds an entity or a channel; else the label alone."""
    alone = reader.read(label)
    if section and label:
        qualified = reader.read(f"{section} {label}")
        if _clean(qualified) and (repeated or not _clean(alone) or _adds_context(qualified, alone)):
            return replace(qualified, qualified=True)
    return alone


def _clean(reading: _Reading) -> bool:
    return len(reading.metrics) == 1 and not reading.leftover and not reading.periods


def _adds_context(qualified: _Reading, alone: _Reading) -> bool:
    return bool(
        set(qualified.entities) - set(alone.entities)
        or set(qualified.externals) - set(alone.externals)
        or set(qualified.channels) - set(alone.channels)
    )


def _candidate(
    scope: _Scope,
    row: _Row,
    column: _Column,
    cell: tuple[int, int],
    parsed: tuple[Decimal, bool],
    *,
    currency: str = "",
) -> FactCandidate:
    """One value cell as a fact: pending, with every reason, when anything is not understood."""
    metric, alias, metric_problems = _metric_resolve(scope, row, column)
    entity, entity_problems = _entity_resolve(scope.context, row.reading, column.reading)
    channel, channel_problems = _channel_resolve(scope.context, row.reading, column.reading)
    period, period_problems = _period_resolve(scope, column, entity)
    value, unit, unit_problems = _unit_resolve(
        scope, row, column, metric=metric, entity=entity, parsed=parsed, currency=currency
    )
    reasons = [*metric_problems, *entity_problems, *channel_problems, *period_problems, *unit_problems]
    return FactCandidate(
        entity=entity,
        metric=metric,
        period_type=period.period_type,
        period=period.period,
        channel=channel,
        value=value,
        unit=unit,
        source_doc=scope.document_name,
        locator=_cell_locator(scope, row, column, cell),
        status="pending" if reasons else "approved",
        suggested_alias=alias,
        raw_label=row.label,
        sensitivity=scope.sensitivity,
        reason="; ".join(reasons),
    )


def _period_resolve(scope: _Scope, column: _Column, entity: str) -> tuple[Period, list[str]]:
    """The column's period; a dated header is checked against the company's fiscal year end."""
    period = column.reading.column_period
    assert period is not None
    info = scope.reader.glossary.entities.get(entity)
    month = info.year_end_month if info is not None else None
    if month is None or len(column.reading.dates) != 1 or period.period_type != "FY":
        return period, []
    day = column.reading.dates[0]
    year = fiscal_year(day, month)
    if year is None:
        name = calendar.month_name[month]
        return period, [f"{day.isoformat()} is not a fiscal year end of {entity} (its year ends in {name})"]
    return Period("FY", str(year)), []


def _metric_resolve(scope: _Scope, row: _Row, column: _Column) -> tuple[str, str, list[str]]:
    """The metric, the alias a curator could add for the label ("" when none is needed), and problems.

    A label the glossary cannot read still gets a guess (its one metric, else the closest metric
    name), for the reviewer; the problem keeps the fact pending.
    """
    reader, reading = scope.reader, row.reading
    if row.heading:
        problem = f"under the heading '{row.heading}', which the glossary does not name with '{row.label}'"
        return _one(reading.metrics) or "", reader.alias_text(row.label), [problem]
    if row.repeated and not reading.qualified and row.inherited_metric is None:
        problem = f"'{row.label}' heads {row.repeated} rows of this table: name each under its heading"
        return _one(reading.metrics) or "", reader.alias_text(row.label), [problem]
    if row.known and len(reading.metrics) == 1:
        return reading.metrics[0], "", []
    if row.total:
        return (
            "",
            reader.alias_text(row.label),
            [f"a total row: the glossary does not say which metric '{row.label}' totals"],
        )
    if row.known and not reading.metrics:
        channel_only = bool(reading.channels) and not reading.entities and not reading.externals
        titled = None if row.section and reader.read(row.section).leftover else scope.context.metric
        metric = (row.inherited_metric if channel_only else None) or _one(column.reading.metrics) or titled
        if metric:
            return metric, "", []
        return "", reader.alias_text(row.label), ["the row label names no metric"]
    alias = reader.alias_text(row.label)
    guess = reading.metrics[0] if len(reading.metrics) == 1 else reader.closest_metric(alias)
    if row.known:
        problem = "several metrics in one label"
    else:
        problem = f"unknown row label '{alias}'" if alias else "empty row label"
    return guess, alias, [problem]


def _entity_resolve(context: _Context, row: _Reading, column: _Reading) -> tuple[str, list[str]]:
    """The row label's entity, else the column header's, else the table's; an external one is a problem."""
    externals = row.externals or column.externals
    if externals:
        return externals[0], ["an external entity"]
    entity = _one(row.entities) or _one(column.entities) or context.entity or ""
    if not row.entities and not column.entities and context.external:
        return entity, ["an external entity"]
    if len(row.entities) > 1 or (not row.entities and len(column.entities) > 1):
        return entity, ["several entities in one label"]
    if not entity:
        return entity, ["no entity in the title, sheet name or first cell"]
    return entity, []


def _channel_resolve(context: _Context, row: _Reading, column: _Reading) -> tuple[str, list[str]]:
    channel = _one(row.channels) or _one(column.channels) or context.channel or TOTAL
    return channel, ["several channels in one label"] if len(row.channels) > 1 else []


def _unit_resolve(
    scope: _Scope,
    row: _Row,
    column: _Column,
    *,
    metric: str,
    entity: str,
    parsed: tuple[Decimal, bool],
    currency: str,
) -> tuple[Decimal, str, list[str]]:
    """The value in the unit the fact is stored in, that unit's code ("" for none), and problems.

    A percent value (`29.7%`) or a unit on the row label (`（家）`) must be the metric's unit. A
    money figure takes its scale from the row label, else the column header, else the table
    (header, title, caption, the sentence before it) and its currency from the cell, the label,
    the header, the table, else the company's; it is converted exactly into the metric's scale,
    or kept as printed for an `AS_PRINTED` metric. No stated scale: pending, never a guess.
    """
    value, percent = parsed
    glossary = scope.reader.glossary
    metric_info = glossary.metrics.get(metric)
    metric_unit = metric_info.unit if metric_info is not None else ""
    metric_money = unit_parse(metric_unit)
    explicit = UnitHint("PCT") if percent else row.unit
    table = scope.context.printed
    row_text = f"{row.section} {row.label}".lower()
    percent_open = explicit is None and table is not None and (metric_unit in ("", AS_PRINTED) or metric_money)
    kind = _excepted_kind(table.excepted, row_text) if percent_open else None
    if kind == "percent":
        explicit = UnitHint("PCT")  # `(in millions, except percentages)`: a `%` row is a percentage
    elif kind == "percent?":
        return value, "", [f"the table excepts percentages: is '{row.label}' one?"]
    if explicit is not None:
        problems = []
        if metric_unit and metric_unit != AS_PRINTED and explicit.code != metric_unit:
            problems.append(f"unit {explicit.code} but {metric} is in {metric_unit}")
        return value * explicit.factor, explicit.code, problems
    if metric_unit and metric_unit != AS_PRINTED and metric_money is None:
        return _count_resolve(scope, row, column, value=value, metric=metric, unit=metric_unit)
    printed = _printed_for(scope, row, column, currency)
    info = glossary.entities.get(entity)
    company = info.currency if info is not None else ""
    stated = printed.currency if printed is not None else ""
    if stated == DOLLAR:
        stated = dollar_currency(company)
    factor = printed.factor if printed is not None else None
    if factor is None:
        where = "the row, its column, the table's title or the sentence before it"
        return value, metric_unit if metric_money else "", [f"no scale stated ({where} name none)"]
    if metric_money is None:  # AS_PRINTED, or no metric: keep what the table prints
        code = unit_code(stated or company, factor)
        if code is None:
            return value, "", [f"a scale of {factor} has no unit"]
        return value, code, []
    wanted_currency, wanted_factor = metric_money
    stated = stated or company
    if stated and wanted_currency and stated != wanted_currency:
        return value, metric_unit, [f"printed in {stated} but {metric} is in {wanted_currency}"]
    return value * (factor / wanted_factor), metric_unit, []


def _count_resolve(
    scope: _Scope, row: _Row, column: _Column, *, value: Decimal, metric: str, unit: str
) -> tuple[Decimal, str, list[str]]:
    """A figure of a metric that is no money (a count, persons, a ratio). A scale on its own row
    (`Stores (thousands)`) converts a plain count exactly; a scale with no currency that the
    table states for every figure (`(in thousands)`) leaves it open whether it counts this row
    too, so the fact waits; a money statement (`RMB'000`) does not concern it."""
    ambient = column.reading.unit or scope.context.unit
    factor = ambient.factor if ambient is not None and ambient.code == unit else Decimal(1)
    stated = row.printed.factor if row.printed is not None else None
    if stated is not None:
        if unit == COUNT:
            return value * stated, unit, []
        return value, unit, [f"the row states a scale of {stated} for {metric}, which is in {unit}"]
    table = scope.context.printed
    if unit == COUNT and table is not None and table.factor not in (None, Decimal(1)) and not table.currency:
        excepted = table.excepted and _excepted(table.excepted, f"{row.section} {row.label}".lower())
        if not excepted:
            return (
                value,
                unit,
                [f"the table states a scale of {table.factor} for every figure: is {metric} counted in it?"],
            )
    return value * factor, unit, []


def _printed_for(scope: _Scope, row: _Row, column: _Column, currency: str) -> Printed | None:
    """The scale and currency that apply to one cell: the row's, else the column's, else the
    table's; a row of the kind the table's statement excepts (`except per share data`) keeps
    its own figures."""
    table = scope.context.printed
    if table is not None and table.excepted and _excepted(table.excepted, f"{row.section} {row.label}".lower()):
        table = Printed(table.currency, Decimal(1))
    cell = scale_read(text_normalize(currency)) if currency else None
    return _printed_merge([row.printed, column.reading.printed, table, cell])


# What an exception names, and the rows it covers (by their label or heading).
_EXCEPTIONS = {
    "per share": (
        re.compile(r"per[- ](?:share|ads|adr|unit)"),
        re.compile(r"per (?:[a-z]+ ){0,2}(?:share|ads|adr|unit)|\beps\b|每股"),
    ),
    "shares": (re.compile(r"(?<!per )\bshares?\b"), re.compile(r"(?<!per )\bshares?\b(?! price)|share count")),
    "percent": (re.compile(r"percent|%|ratio"), re.compile(r"%|percent|ratio")),
    "percent?": (re.compile(r"percent|%|ratio"), re.compile(r"margin|\brate\b|yield|return on")),
    "counts": (
        re.compile(r"headcount|employees|number of|units|stores"),
        re.compile(r"headcount|employees|number of|\bstores\b"),
    ),
}


def _excepted_kind(exception: str, row_text: str) -> str | None:
    """Which kind of row the statement's exception covers this row as, or None."""
    return next(
        (kind for kind, (said, rows) in _EXCEPTIONS.items() if said.search(exception) and rows.search(row_text)), None
    )


def _excepted(exception: str, row_text: str) -> bool:
    return _excepted_kind(exception, row_text) is not None


def _cell_locator(scope: _Scope, row: _Row, column: _Column, cell: tuple[int, int]) -> str:
    r, c = cell
    table = scope.table
    if table.scheme == "a1":
        return table.cell_locator(r, c)
    if scope.transposed:
        return table.cell_locator(r, c, row_label=column.header, col_label=row.label)
    return table.cell_locator(r, c, row_label=row.label, col_label=column.header)


@dataclass(frozen=True)
class DocumentFacts:
    """What a document's tables yield: every candidate, and one warning per table that gave none."""

    candidates: list[FactCandidate]
    warnings: list[str]


def document_facts(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
) -> DocumentFacts:
    """The fact candidates of every table; a key given two different values becomes pending.

    A table that yields no candidate gives a warning naming the table and why, the same in
    every format.
    """
    candidates: list[FactCandidate] = []
    warnings: list[str] = []
    for table in document.tables:
        read = table_read(
            table,
            glossary=glossary,
            document_name=document.name,
            sensitivity=sensitivity,
            default_entity=default_entity,
        )
        if read.problem:
            warnings.append(f"{table.locator_prefix}: no facts read ({read.problem})")
        candidates.extend(read.candidates)
    return DocumentFacts(_conflicts_marked(candidates), warnings)


def facts_from_document(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
) -> list[FactCandidate]:
    """The fact candidates of every table (see `document_facts`)."""
    return document_facts(
        document, glossary=glossary, sensitivity=sensitivity, default_entity=default_entity
    ).candidates


def _conflicts_marked(candidates: list[FactCandidate]) -> list[FactCandidate]:
    by_key: dict[tuple[str, str, str, str, str], list[int]] = {}
    for index, fact in enumerate(candidates):
        by_key.setdefault(fact.key, []).append(index)
    kept: list[FactCandidate] = []
    for index, fact in enumerate(candidates):
        same = by_key[fact.key]
        if len(same) == 1:
            kept.append(fact)
        elif len({(candidates[i].value, candidates[i].unit) for i in same}) == 1:
            if all(candidates[i].status == "approved" for i in same):
                if index == same[0]:
                    kept.append(fact)  # the same fact twice (a summary repeated): keep the first
            else:
                kept.append(replace(fact, status="pending", reason=fact.reason or "the same figure waits for review"))
        else:
            kept.append(replace(fact, status="pending", reason=_join(fact.reason, "conflicting values in document")))
    return kept


def _join(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)
