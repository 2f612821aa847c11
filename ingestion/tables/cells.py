"""One value cell as a fact candidate: its metric, entity, channel, period and unit,
or the reasons it waits for review.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal

from core.model.period import Period

from ..headers import fiscal_year
from ..scales import Printed, unit_parse
from ..statements import PARENT
from ..values import UnitHint, is_numeric
from .glossary_reader import _NOTHING, _SUB_ROW, _fold, _one, _Reader, _Reading
from .layout import _Column
from .scope import Row, TableContext, TableScope
from .units import per_share_row, printed_merge, unit_resolve

Status = Literal["approved", "pending"]


TOTAL = "TOTAL"


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
    scope: str = ""  # `parent`: a parent-company statement's figure, never the group's
    guessed: bool = False  # the metric is only the closest guess for a label the glossary does not read
    own: bool = False  # the company's own share (`… attributable to <the company>`), over the consolidated total
    figure: bool = True  # False: the cell holds no figure of its key (a change over the year, an amount per share)

    @property
    def period_label(self) -> str:
        return Period(self.period_type, self.period).label

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The fact table's natural key: (metric, entity, period_type, period, channel)."""
        return (self.metric, self.entity, self.period_type, self.period, self.channel)

    @property
    def claims_key(self) -> bool:
        """Whether the cell is a figure for its key, to compare with another of that key: not
        when it names no metric (a bare `合计` of any table), when its metric is only a guess for
        a label the glossary does not read, or when it is a parent company's figure (never the
        group's), or when it holds no figure of its key (`figure`: a change over the year under
        `Changes in operating assets and liabilities:`, an amount per share of a money metric).
        Such a cell waits with its own reason and holds nothing else back."""
        return bool(self.metric) and self.scope != PARENT and not self.guessed and self.figure


def context_read(
    sources: list[_Reading],
    entity_sources: list[_Reading],
    default_entity: str | None,
    scale_sources: list[_Reading],
) -> TableContext:
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
    printed = printed_merge(r.printed for r in scale_sources)
    return TableContext(entity or default_entity, external, metric, channel, unit, printed)


def row_read(
    reader: _Reader,
    label_cells: list[str],
    *,
    section: str,
    inherited: str | None,
    repeats: dict[tuple[int, str], int] | None = None,
    r: int = 0,
    issuer: str | None = None,
) -> Row:
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
    if not _clean(reading) and issuer:
        reading = reader.own(label, issuer) or reading
    elif issuer and reader.read(label).entities == (issuer,) and _clean(reading):
        reading = replace(reading, own=True)  # `Total Oracle Corporation stockholders' equity`
    known = bool(label) and not reading.leftover and not reading.periods
    channel_only = known and bool(reading.channels) and not reading.metrics and not reading.entities
    total = channel_only and not sub_row and reading.channels == (TOTAL,)
    printed = reading.printed or printed
    named = reader.read(section) if section else _NOTHING
    others = [e for e in named.entities if e != issuer]  # `Oracle Corporation stockholders' equity:` is the company's
    changes = bool(_MODIFIER_HEADING.search(section.lower()) or others or named.externals or named.channels)
    modifier = section if section and not reading.qualified and changes else ""
    return Row(
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
        for joined in (f"{section} {label}", f"{section}, {label}"):  # `Net income per share:` › `Diluted`
            qualified = reader.read(joined)
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


def cell_read(
    scope: TableScope,
    row: Row,
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
    value, unit, unit_problems = unit_resolve(
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
        guessed=not row.known,
        own=row.reading.own,
        figure=not per_share_row(scope.reader.glossary, row, metric),
    )


def _period_resolve(scope: TableScope, column: _Column, entity: str) -> tuple[Period, list[str]]:
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


def _metric_resolve(scope: TableScope, row: Row, column: _Column) -> tuple[str, str, list[str]]:
    """The metric, the alias a curator could add for the label ("" when none is needed), and problems.

    A label the glossary cannot read still gets a guess for the reviewer, only a metric of its
    concept (`_label_metric`); the problem keeps the fact pending.
    """
    reader, reading = scope.reader, row.reading
    if row.heading:
        problem = f"under the heading '{row.heading}', which the glossary does not name with '{row.label}'"
        return _label_metric(reader, row), reader.alias_text(row.label), [problem]
    if row.repeated and not reading.qualified and row.inherited_metric is None:
        problem = f"'{row.label}' heads {row.repeated} rows of this table: name each under its heading"
        return _label_metric(reader, row), reader.alias_text(row.label), [problem]
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
    guess = _label_metric(reader, row)
    if row.known:
        problem = "several metrics in one label"
    else:
        problem = f"unknown row label '{alias}'" if alias else "empty row label"
    return guess, alias, [problem]


def _label_metric(reader: _Reader, row: Row) -> str:
    """The one metric a label reads as when the glossary reads all of it; else a metric of the
    label's concept (`concept_metrics`: a name that differs from the label only by formatting
    and words that name nothing), the glossary's reading first; else none. A metric the label
    merely contains (`营业外收入` holds `收入`) is never its guess."""
    named = _one(row.reading.metrics)
    if row.known and named:
        return named
    same = reader.concept_metrics(reader.alias_text(row.label))
    return named if named in same else (same[0] if same else "")


def _entity_resolve(context: TableContext, row: _Reading, column: _Reading) -> tuple[str, list[str]]:
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


def _channel_resolve(context: TableContext, row: _Reading, column: _Reading) -> tuple[str, list[str]]:
    channel = _one(row.channels) or _one(column.channels) or context.channel or TOTAL
    return channel, ["several channels in one label"] if len(row.channels) > 1 else []


def _cell_locator(scope: TableScope, row: Row, column: _Column, cell: tuple[int, int]) -> str:
    r, c = cell
    table = scope.table
    if table.scheme == "a1":
        return table.cell_locator(r, c)
    if scope.transposed:
        return table.cell_locator(r, c, row_label=column.header, col_label=row.label)
    return table.cell_locator(r, c, row_label=row.label, col_label=column.header)
