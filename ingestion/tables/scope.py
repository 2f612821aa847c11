"""The scope a value cell is read in: what its table states (`TableContext`), what every cell of
the table shares (`TableScope`) and its row's label as read (`Row`).

`cells` builds them and reads a cell in them; `units` reads the cell's scale and currency from
them. Both import them from here, so neither imports the other's types.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Table
from ..scales import Printed
from ..values import UnitHint
from .glossary_reader import _Reader, _Reading


@dataclass(frozen=True)
class TableContext:
    """The table-level entity, metric, channel, unit and scale, from the first source that names one."""

    entity: str | None
    external: bool
    metric: str | None
    channel: str | None
    unit: UnitHint | None
    printed: Printed | None  # the scale and currency the table states, else the lead sentence's


@dataclass(frozen=True)
class TableScope:
    """What every cell of one table shares."""

    reader: _Reader
    table: Table
    transposed: bool
    context: TableContext
    document_name: str
    sensitivity: str


@dataclass(frozen=True)
class Row:
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
