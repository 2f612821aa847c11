"""`import_facts`, reading: a CSV or XLSX file's rows as cells in `FIELDS` order (`rows_from_csv`,
`rows_from_xlsx`), and each row's cells as one fact ready to write (`row_parse`), its names
resolved through the glossary by a `Resolver` that, with `create_missing`, adds an unknown entity
or metric (and its alias) as it goes. A row that cannot be a fact is the text of its error."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import InvalidOperation
from operator import itemgetter
from pathlib import Path
from typing import Any

from core.glossary import GlossarySnapshot
from core.model.facts import CODE_RE, SENSITIVITIES
from core.model.period import Period
from core.model.sign import SIGN_POSITIVE
from ingestion.values import decimal_parse

from ..models import Alias, Entity, FactMetric, Metric
from ..periods import period_absolute
from .glossary import unit_ensure
from .glossary_import import ImportAborted

REQUIRED = ("entity", "metric", "period", "value", "unit")
FIELDS = (*REQUIRED, "channel", "source_doc", "locator", "valid_as_of", "sensitivity", "document")
Cells = tuple[str, ...]  # one row's cells in FIELDS order, stripped, '' when absent


@dataclass
class FactImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)
    created_entities: list[str] = field(default_factory=list)
    created_metrics: list[str] = field(default_factory=list)


def rows_from_csv(path: Path) -> Iterator[tuple[int, Cells]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        picks = _header_picks(header)
        # An absent column reads the cell one past the row, which every row gets as ''; a row
        # shorter than the header takes the slower way, cell by cell.
        absent = len(header) + 1_000
        pick = itemgetter(*(-1 if i == absent else i for i in picks))
        strip = str.strip
        for number, values in enumerate(reader, start=2):
            width = len(values)
            values.append("")
            try:
                cells = tuple(map(strip, pick(values)))
            except IndexError:
                cells = tuple(values[i].strip() if i < width else "" for i in picks)
            if any(cells):
                yield number, cells


def rows_from_xlsx(path: Path) -> Iterator[tuple[int, Cells]]:
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises zip, XML and key errors on a broken file
        raise ImportAborted([f"file: not a readable .xlsx workbook ({type(error).__name__})"]) from None
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        picks = _header_picks([str(h or "") for h in next(rows, ())])
        for number, values in enumerate(rows, start=2):
            width = len(values)
            cells = tuple(_xlsx_cell(values[i]) if i < width else "" for i in picks)
            if any(cells):
                yield number, cells
    finally:
        workbook.close()


def _xlsx_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime):
        return value.date().isoformat()
    return str(value).strip()


def _header_picks(header: list[str]) -> list[int]:
    """For each of FIELDS, its column index in the file (or one past the end when absent)."""
    names = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise ImportAborted([f"header: missing column(s) {', '.join(missing)}"])
    return [names.index(f) if f in names else len(names) + 1_000 for f in FIELDS]


def rows_count(path: Path) -> int | None:
    """Data rows in a CSV (for the progress bar), counted without parsing."""
    if path.suffix.lower() != ".csv":
        return None
    with path.open("rb") as handle:
        return max(sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1, 0)


class Resolver:
    """Turns raw cells into codes, with a cache per distinct cell (files repeat them a lot).

    `codes[kind]`, `periods` and `units` are the caches themselves: the row parser reads them
    directly and calls the resolver only for a cell it has not seen."""

    def __init__(self, glossary: GlossarySnapshot, create_missing: bool, report: FactImportReport):
        self.glossary = glossary
        self.create_missing = create_missing
        self.report = report
        self.codes: dict[str, dict[str, str | None]] = {"entity": {}, "metric": {}, "channel": {}}
        self.periods: dict[str, Period | None] = {}
        self.units: dict[str, str | None] = {}
        self.documents: dict[str, int] | None = None
        # Metrics whose facts store the amount (`positive` sign convention); a metric the import
        # creates is `as_printed`, the default.
        self.positive = frozenset(code for code, info in glossary.metrics.items() if info.sign == SIGN_POSITIVE)
        # Entered around the resolver's own queries (`facts_import` makes them wait while a
        # batch is being written on the same connection).
        self.database: Callable[[], AbstractContextManager[Any]] = nullcontext

    def code(self, kind: str, raw: str, unit: str = "") -> str | None:
        cache = self.codes[kind]
        if raw not in cache:
            code = self.glossary.resolve(kind, raw)
            if code is not None and kind == "entity" and self.glossary.is_external(code):
                code = None
            if code is None and self.create_missing and kind in ("entity", "metric") and raw:
                with self.database():
                    code = self._create(kind, raw, unit)
            cache[raw] = code
        return cache[raw]

    def _create(self, kind: str, raw: str, unit: str) -> str | None:
        code = (
            raw.upper() if CODE_RE.match(raw.upper()) else f"AUTO_{hashlib.sha1(raw.encode()).hexdigest()[:8].upper()}"
        )
        if kind == "entity":
            Entity.objects.get_or_create(code=code, defaults={"name": raw, "kind": "subsidiary"})
            self.report.created_entities.append(code)
        else:
            if not unit:
                return None
            Metric.objects.get_or_create(code=code, defaults={"name": raw, "unit_id": unit})
            self.report.created_metrics.append(code)
        if raw != code:
            Alias.objects.get_or_create(text=raw, defaults={f"{kind}_id": _pk(kind, code), "kind": kind})
        return code

    def period(self, raw: str) -> Period | None:
        if raw not in self.periods:
            self.periods[raw] = period_absolute(raw)  # a relative period (去年 …) is rejected
        return self.periods[raw]

    def document(self, name: str) -> int | None:
        if self.documents is None:
            # Every name at once, on the first row that names one: one query per import.
            document_model = FactMetric._meta.get_field("document").related_model
            with self.database():
                self.documents = dict(document_model.objects.values_list("name", "pk"))  # type: ignore[union-attr]
        return self.documents.get(name)

    def unit(self, raw: str) -> str | None:
        if raw not in self.units:
            code: str | None = raw if raw in self.glossary.units else None
            if code is None:
                for unit in self.glossary.units.values():
                    if raw and raw in (unit.name_zh, unit.name_en):
                        code = unit.code
            if code is None and self.create_missing and CODE_RE.match(raw):
                with self.database():
                    code = unit_ensure(raw).code
            self.units[raw] = code
        return self.units[raw]


def _pk(kind: str, code: str) -> int:
    model = Entity if kind == "entity" else Metric
    return int(model.objects.values_list("pk", flat=True).get(code=code))


# One parsed row, in the order of the writer's first thirteen `COLUMNS` (its first five are its key):
# metric, entity, period type, period, channel, value (exact text), unit, source_doc, locator,
# document id, valid_as_of (ISO text), sensitivity and the printed value (exact text, or None
# when the value is as printed).
Fact = tuple[str, str, str, str, str, str, str, str, str, int | None, str | None, str, str | None]
_UNSEEN: Any = object()


def row_parse(number: int, cells: Cells, resolver: Resolver, source_name: str) -> Fact | str:
    raw_entity, raw_metric, raw_period, raw_value, raw_unit, raw_channel, source_doc, locator, as_of, sens, doc = cells
    # Each cache is read here and the resolver called only for a cell not seen before: a million
    # rows repeat a few thousand names.
    unit = resolver.units.get(raw_unit, _UNSEEN)
    if unit is _UNSEEN:
        unit = resolver.unit(raw_unit)
    if unit is None:
        return f"row {number}: unknown unit '{raw_unit[:40]}'"
    codes = resolver.codes
    entity = codes["entity"].get(raw_entity, _UNSEEN)
    if entity is _UNSEEN:
        entity = resolver.code("entity", raw_entity)
    if entity is None:
        return f"row {number}: unknown entity '{raw_entity[:40]}'"
    metric = codes["metric"].get(raw_metric, _UNSEEN)
    if metric is _UNSEEN:
        metric = resolver.code("metric", raw_metric, unit)
    if metric is None:
        return f"row {number}: unknown metric '{raw_metric[:40]}'"
    raw_channel = raw_channel or "TOTAL"
    channel = codes["channel"].get(raw_channel, _UNSEEN)
    if channel is _UNSEEN:
        channel = resolver.code("channel", raw_channel)
    if channel is None:
        return f"row {number}: unknown channel '{raw_channel[:40]}'"
    period = resolver.periods.get(raw_period, _UNSEEN)
    if period is _UNSEEN:
        period = resolver.period(raw_period)
    if period is None:
        return f"row {number}: '{raw_period[:40]}' is not a period (FY2025, 2025H1, 2025Q4 …)"
    try:
        value = decimal_parse(raw_value)
    except (InvalidOperation, ValueError):
        return f"row {number}: value '{raw_value[:40]}' is not a number"
    valid_as_of = None
    if as_of:
        try:
            valid_as_of = date.fromisoformat(as_of[:10]).isoformat()
        except ValueError:
            return f"row {number}: valid_as_of '{as_of[:40]}' is not a date (YYYY-MM-DD)"
    sensitivity = sens.upper() if sens else "INTERNAL"
    if sensitivity not in SENSITIVITIES:
        return f"row {number}: sensitivity must be one of {', '.join(SENSITIVITIES)}"
    document_id = None
    if doc:
        document_id = resolver.document(doc)
        if document_id is None:
            return f"row {number}: unknown document '{doc[:80]}' (no ingested document has that name)"
        if source_doc and source_doc != doc:
            return f"row {number}: source_doc '{source_doc[:40]}' differs from document '{doc[:40]}'"
        if not locator:
            return f"row {number}: a document needs a locator (where in it, e.g. sheet=Sheet1!B2 or page=3)"
        source_doc = doc
    source_doc = source_doc or source_name
    locator = locator or f"file={source_name},row={number}"
    printed = None
    if metric in resolver.positive:
        printed, value = format(value, "f"), value.copy_abs()
    if len(source_doc) > 255 or len(locator) > 255:
        return f"row {number}: source_doc and locator are limited to 255 characters"
    return (
        metric,
        entity,
        period.period_type,
        period.period,
        channel,
        # The text the database keeps (SQLite) or reads exactly (PostgreSQL), scale included.
        format(value, "f"),
        unit,
        source_doc,
        locator,
        document_id,
        valid_as_of,
        sensitivity,
        printed,
    )
