"""Tables → fact candidates (SPEC §15, issue D).

Two layouts are read: metric rows × period columns (a header row of periods) and the transposed
one (period rows × metric columns). Headers may span several rows (merged cells such as `2025`
over `H1 | H2`, or `FY2025` over `线上 | 门店`). Each value cell is resolved through the glossary:

- the **metric** from the row label (or, for a row naming only a channel such as `其中：线上`,
  the metric of the row above; for a row naming only an entity, the one metric of the title);
- the **entity** from the row label, else the column header, the table title, the sheet name,
  the first cell, then `default_entity`;
- the **channel** from the row label, else the column header or the title; `TOTAL` by default;
- the **period** from the column header, through the SPEC §5 grammar (absolute forms only);
- the **unit** from the value (`29.7%`) or the label (`新开门店数（家）`), else from a header or
  title (`（人民币百万元）`) when it agrees with the metric's unit, else the metric's own unit;
  `亿元` / `万元` / `千元` are converted to 百万元 exactly.

Anything not understood becomes a `pending` candidate with its reason, never an approved guess:
an unknown label (with a suggested alias and, when one is close, a suggested metric), an
external or missing entity, a unit that contradicts the metric's.
"""

from __future__ import annotations

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

from .ir import ExtractedDocument, Table
from .values import _BRACKETS, UnitHint, UnitMarkers, is_numeric, value_parse

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

Status = Literal["approved", "pending"]


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
    unit: UnitHint | None = None
    leftover: str = ""

    @property
    def period(self) -> Period | None:
        """The one absolute period of a clean period header, else None."""
        if self.relative or len(self.periods) != 1 or self.leftover or self.externals:
            return None
        if len(self.metrics) > 1 or len(self.entities) > 1 or len(self.channels) > 1:
            return None
        return self.periods[0]


_NOTHING = _Reading()


def _distinct(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _one(items: tuple[str, ...]) -> str | None:
    return items[0] if len(items) == 1 else None


class _Reader:
    """Reads texts through one glossary, with a cache (tables repeat their labels)."""

    def __init__(self, glossary: GlossarySnapshot):
        self.glossary = glossary
        self.markers = UnitMarkers((u.code, u.name_zh, u.name_en) for u in glossary.units.values())
        self.cache: dict[str, _Reading] = {}
        self.metric_names = [
            (text_normalize(text), code) for code in glossary.metrics for text in glossary.aliases_of("metric", code)
        ]

    def read(self, raw: str) -> _Reading:
        if not raw.strip():
            return _NOTHING
        found = self.cache.get(raw)
        if found is None:
            found = self.cache[raw] = self._read(raw)
        return found

    def _read(self, raw: str) -> _Reading:
        normalized = _report_periods(text_normalize(raw))
        unit = self.markers.hint(normalized)
        core = self.markers.strip(normalized)
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
        for word in _FILLER:
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
        )

    def alias_text(self, label: str) -> str:
        """A label as a curator would add it as an alias: no unit brackets, no `其中：`."""
        text = unicodedata.normalize("NFKC", label)
        text = _BRACKETS.sub(lambda m: " " if self.markers.whole(m.group(1)) else m.group(0), text)
        text = " ".join(text.split()).strip(" :：-—–·")
        return text[2:].lstrip(" :：") if text.startswith("其中") else text

    def closest_metric(self, label: str) -> str:
        key = text_normalize(label)
        best, score = "", _FUZZY_CUTOFF
        for name, code in self.metric_names:
            ratio = difflib.SequenceMatcher(None, key, name).ratio()
            if ratio > score:
                best, score = code, ratio
        return best


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
    return not is_numeric(text) and reader.read(text).period is None


def _header_like(row: list[str], first: int, *, label_allowed: bool) -> bool:
    """A header row: text only, something above the value columns, labels empty (or allowed)."""
    if not any(row[first:]) or any(is_numeric(cell) for cell in row if cell):
        return False
    return label_allowed or not any(row[:first])


def _find_header(grid: list[list[str]], reader: _Reader) -> tuple[int, int] | None:
    """(header row, first period column) of a metric-rows × period-columns grid, or None."""
    for r in range(min(len(grid), _HEADER_SCAN)):
        cells = [(c, text) for c, text in enumerate(grid[r]) if text]
        if not cells:
            continue
        periods = [c for c, text in cells if reader.read(text).period is not None]
        numeric = [c for c, text in cells if c not in periods and is_numeric(text)]
        if periods and not numeric and min(periods) >= 1:
            return r, min(periods)
        if numeric:
            return None
    return None


def _layout(grid: list[list[str]], reader: _Reader) -> _Layout | None:
    transposed = False
    found = _find_header(grid, reader)
    if found is None:
        flipped = [list(column) for column in zip(*grid, strict=True)] if grid else []
        found = _find_header(flipped, reader)
        if found is None:
            return None
        grid, transposed = flipped, True
    row, first = found
    top = row
    while top > 0 and _header_like(grid[top - 1], first, label_allowed=False) and len(set(grid[top - 1]) - {""}) > 1:
        top -= 1
    bottom = row
    while (
        bottom + 1 < len(grid)
        and bottom - row < _SUB_HEADER_ROWS
        and _header_like(grid[bottom + 1], first, label_allowed=True)
    ):
        bottom += 1
    layout = _Layout(grid, transposed, top, bottom, first)
    if bottom > row:  # keep sub-header rows only if they do not spoil any period column
        plain = replace(layout, bottom=row)
        if _period_columns(plain, reader) > _period_columns(layout, reader):
            return plain
    return layout


def _period_columns(layout: _Layout, reader: _Reader) -> int:
    return sum(1 for text in _column_headers(layout).values() if reader.read(text).period is not None)


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


@dataclass(frozen=True)
class _Context:
    entity: str | None
    external: bool
    metric: str | None
    channel: str | None
    unit: UnitHint | None


def _context(sources: list[_Reading], entity_sources: list[_Reading], default_entity: str | None) -> _Context:
    """The table-level entity, metric, channel and unit, from the first source that names one."""
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
    return _Context(entity or default_entity, external, metric, channel, unit)


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
    reader = _reader_for(glossary)
    width = table.width
    grid = [row + [""] * (width - len(row)) for row in table.rows]
    start = 0
    while start < len(grid) - 1 and _is_title_row(grid[start], reader):
        start += 1
    preamble = [next(c for c in grid[r] if c) for r in range(start)]
    layout = _layout(grid[start:], reader)
    if layout is None:
        return []
    grid = layout.grid

    def real(r: int, c: int) -> tuple[int, int]:
        return (start + c, r) if layout.transposed else (start + r, c)

    above = [" ".join(dict.fromkeys(c for c in grid[r] if c)) for r in range(layout.top)]
    corner = " ".join(
        grid[r][c] for r in range(layout.top, layout.bottom + 1) for c in range(layout.first) if grid[r][c]
    )
    titled = [reader.read(t) for t in [table.title, *preamble, *above]]
    sheet = reader.read(sheet_name if sheet_name is not None else table.sheet)
    context = _context([*titled, reader.read(corner)], [*titled, sheet, reader.read(corner)], default_entity)

    headers = {c: _Column(text, reader.read(text)) for c, text in _column_headers(layout).items()}
    columns = {c: column for c, column in headers.items() if column.reading.period is not None}
    if not columns:
        return []

    scope = _Scope(reader, table, layout.transposed, context, document_name, sensitivity)
    candidates: list[FactCandidate] = []
    last_metric: str | None = None
    for r in range(layout.bottom + 1, len(grid)):
        row = _row(reader, grid[r][: layout.first], inherited=last_metric)
        if len(row.reading.metrics) == 1 and row.known:
            last_metric = row.reading.metrics[0]
        elif row.reading.metrics or not row.known:
            last_metric = None
        values = [(c, value_parse(grid[r][c])) for c in columns]
        if not any(parsed for _, parsed in values):
            continue
        for c, parsed in values:
            if parsed is not None:
                candidates.append(_candidate(scope, row, columns[c], real(r, c), parsed))
    return candidates


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
    inherited_metric: str | None  # the metric of the row above, for a row naming only a channel


@dataclass(frozen=True)
class _Column:
    header: str
    reading: _Reading


def _row(reader: _Reader, label_cells: list[str], *, inherited: str | None) -> _Row:
    parts: list[str] = []
    unit: UnitHint | None = None
    for text in label_cells:
        if not text:
            continue
        whole = reader.markers.whole(text)
        if whole is not None:
            unit = whole
        elif not is_numeric(text):  # a serial-number column (序号) is no part of the label
            parts.append(text)
    label = " ".join(parts)
    reading = reader.read(label)
    known = not reading.leftover and not reading.periods
    return _Row(label, reading, known, reading.unit or unit, inherited)


def _candidate(
    scope: _Scope, row: _Row, column: _Column, cell: tuple[int, int], parsed: tuple[Decimal, bool]
) -> FactCandidate:
    """One value cell as a fact: pending, with every reason, when anything is not understood."""
    metric, alias, metric_problems = _metric_resolve(scope, row, column)
    entity, entity_problems = _entity_resolve(scope.context, row.reading, column.reading)
    channel, channel_problems = _channel_resolve(scope.context, row.reading, column.reading)
    value, unit, unit_problems = _unit_resolve(scope, row, column, metric=metric, parsed=parsed)
    reasons = [*metric_problems, *entity_problems, *channel_problems, *unit_problems]
    period = column.reading.periods[0]
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


def _metric_resolve(scope: _Scope, row: _Row, column: _Column) -> tuple[str, str, list[str]]:
    """The metric, the alias a curator could add for the label ("" when none is needed), and problems.

    A label the glossary cannot read still gets a guess (its one metric, else the closest metric
    name), for the reviewer; the problem keeps the fact pending.
    """
    reader, reading = scope.reader, row.reading
    if row.known and len(reading.metrics) == 1:
        return reading.metrics[0], "", []
    if row.known and not reading.metrics:
        channel_only = bool(reading.channels) and not reading.entities and not reading.externals
        metric = (
            (row.inherited_metric if channel_only else None) or _one(column.reading.metrics) or scope.context.metric
        )
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
    channel = _one(row.channels) or _one(column.channels) or context.channel or "TOTAL"
    return channel, ["several channels in one label"] if len(row.channels) > 1 else []


def _unit_resolve(
    scope: _Scope, row: _Row, column: _Column, *, metric: str, parsed: tuple[Decimal, bool]
) -> tuple[Decimal, str, list[str]]:
    """The value in the unit the fact is stored in, that unit's code ("" for none), and problems.

    A unit on the value (`29.7%`) or the row label wins, and must be the metric's; a header's or
    the title's counts only when it agrees with the metric's; else the metric's own unit.
    """
    value, percent = parsed
    metric_info = scope.reader.glossary.metrics.get(metric)
    metric_unit = metric_info.unit if metric_info is not None else ""
    explicit = UnitHint("PCT") if percent else row.unit
    ambient = column.reading.unit or scope.context.unit
    problems: list[str] = []
    hint: UnitHint | None
    if explicit is not None:
        hint = explicit
        if metric_unit and explicit.code != metric_unit:
            problems.append(f"unit {explicit.code} but {metric} is in {metric_unit}")
    elif ambient is not None and (not metric_unit or ambient.code == metric_unit):
        hint = ambient
    else:
        hint = UnitHint(metric_unit) if metric_unit else None
    if hint is not None and hint.factor != 1:
        value = value * hint.factor
    return value, hint.code if hint is not None else "", problems


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
        found = facts_from_table(
            table,
            glossary=glossary,
            document_name=document.name,
            sensitivity=sensitivity,
            default_entity=default_entity,
        )
        if not found:
            warnings.append(f"{table.locator_prefix}: no facts read (no period header was found)")
        candidates.extend(found)
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
            if index == same[0]:
                kept.append(fact)  # the same fact twice (a summary repeated): keep the first
        else:
            kept.append(replace(fact, status="pending", reason=_join(fact.reason, "conflicting values in document")))
    return kept


def _join(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)
