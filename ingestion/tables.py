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

    headers = {c: (text, reader.read(text)) for c, text in _column_headers(layout).items()}
    columns = {c: (text, reading) for c, (text, reading) in headers.items() if reading.period is not None}
    if not columns:
        return []

    candidates: list[FactCandidate] = []
    last_metric: str | None = None
    for r in range(layout.bottom + 1, len(grid)):
        row = grid[r]
        parts: list[str] = []
        row_unit: UnitHint | None = None
        for c in range(layout.first):
            if not row[c]:
                continue
            whole = reader.markers.whole(row[c])
            if whole is not None:
                row_unit = whole
            elif not is_numeric(row[c]):  # a serial-number column (序号) is no part of the label
                parts.append(row[c])
        label = " ".join(parts)
        reading = reader.read(label)
        row_unit = reading.unit or row_unit
        known = not reading.leftover and not reading.periods
        if len(reading.metrics) == 1 and known:
            last_metric = reading.metrics[0]
        elif reading.metrics or not known:
            last_metric = None
        values = [(c, value_parse(row[c])) for c in columns]
        if not any(parsed for _, parsed in values):
            continue
        for c, parsed in values:
            if parsed is None:
                continue
            header_text, column = columns[c]
            candidates.append(
                _candidate(
                    reader,
                    table,
                    real(r, c),
                    layout.transposed,
                    label=label,
                    header=header_text,
                    row=reading,
                    known=known,
                    row_unit=row_unit,
                    column=column,
                    context=context,
                    inherited=last_metric,
                    parsed=parsed,
                    document_name=document_name,
                    sensitivity=sensitivity,
                )
            )
    return candidates


def _candidate(
    reader: _Reader,
    table: Table,
    cell: tuple[int, int],
    transposed: bool,
    *,
    label: str,
    header: str,
    row: _Reading,
    known: bool,
    row_unit: UnitHint | None,
    column: _Reading,
    context: _Context,
    inherited: str | None,
    parsed: tuple[Decimal, bool],
    document_name: str,
    sensitivity: str,
) -> FactCandidate:
    glossary = reader.glossary
    reasons: list[str] = []
    alias = ""
    # metric
    if known and len(row.metrics) == 1:
        metric = row.metrics[0]
    elif known and not row.metrics:
        channel_only = bool(row.channels) and not row.entities and not row.externals
        metric = (inherited if channel_only else None) or _one(column.metrics) or context.metric or ""
        if not metric:
            reasons.append("the row label names no metric")
            alias = reader.alias_text(label)
    else:
        alias = reader.alias_text(label)
        metric = row.metrics[0] if len(row.metrics) == 1 else reader.closest_metric(alias)
        if known:
            reasons.append("several metrics in one label")
        else:
            reasons.append(f"unknown row label '{alias}'" if alias else "empty row label")
    # entity
    externals = row.externals or column.externals
    if externals:
        entity = externals[0]
        reasons.append("an external entity")
    else:
        entity = _one(row.entities) or _one(column.entities) or context.entity or ""
        if not row.entities and not column.entities and context.external:
            reasons.append("an external entity")
        elif len(row.entities) > 1 or (not row.entities and len(column.entities) > 1):
            reasons.append("several entities in one label")
        elif not entity:
            reasons.append("no entity in the title, sheet name or first cell")
    # channel
    channel = _one(row.channels) or _one(column.channels) or context.channel or "TOTAL"
    if len(row.channels) > 1:
        reasons.append("several channels in one label")
    # unit and value
    value, percent = parsed
    metric_info = glossary.metrics.get(metric)
    metric_unit = metric_info.unit if metric_info is not None else ""
    explicit = UnitHint("PCT") if percent else row_unit
    ambient = column.unit or context.unit
    if explicit is not None:
        hint: UnitHint | None = explicit
        if metric_unit and explicit.code != metric_unit:
            reasons.append(f"unit {explicit.code} but {metric} is in {metric_unit}")
    elif ambient is not None and (not metric_unit or ambient.code == metric_unit):
        hint = ambient
    else:
        hint = UnitHint(metric_unit) if metric_unit else None
    if hint is not None and hint.factor != 1:
        value = value * hint.factor
    period = column.periods[0]
    r, c = cell
    if table.scheme == "a1":
        locator = table.cell_locator(r, c)
    elif transposed:
        locator = table.cell_locator(r, c, row_label=header, col_label=label)
    else:
        locator = table.cell_locator(r, c, row_label=label, col_label=header)
    return FactCandidate(
        entity=entity,
        metric=metric,
        period_type=period.period_type,
        period=period.period,
        channel=channel,
        value=value,
        unit=hint.code if hint is not None else "",
        source_doc=document_name,
        locator=locator,
        status="pending" if reasons else "approved",
        suggested_alias=alias,
        raw_label=label,
        sensitivity=sensitivity,
        reason="; ".join(reasons),
    )


def facts_from_document(
    document: ExtractedDocument,
    *,
    glossary: GlossarySnapshot,
    sensitivity: str,
    default_entity: str | None = None,
) -> list[FactCandidate]:
    """The fact candidates of every table; a key given two different values becomes pending."""
    candidates = [
        fact
        for table in document.tables
        for fact in facts_from_table(
            table,
            glossary=glossary,
            document_name=document.name,
            sensitivity=sensitivity,
            default_entity=default_entity,
        )
    ]
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
