"""What a fact is: an approved row as the store hands it to the core (`FactRecord`), the key a
figure is asked by (`SubTask`: metric, entity, period, channel), the pattern of the codes that
name a catalogue's metrics, entities and channels (`CODE_RE`), the kinds of entity, and the
sensitivity levels a fact, and everything computed from it, carries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from core.model.period import Period

ENTITY_HOME = "home"
ENTITY_SUBSIDIARY = "subsidiary"
ENTITY_PEER = "peer"
ENTITY_EXTERNAL = "external"
ENTITY_KINDS = (ENTITY_HOME, ENTITY_SUBSIDIARY, ENTITY_PEER, ENTITY_EXTERNAL)

PUBLIC = "PUBLIC"
INTERNAL = "INTERNAL"
RESTRICTED = "RESTRICTED"
SENSITIVITIES = (PUBLIC, INTERNAL, RESTRICTED)

CODE_RE = re.compile(r"^[A-Z0-9][A-Z0-9_]*$")


@dataclass(frozen=True)
class FactRecord:
    """An approved fact row as the store hands it to the core."""

    metric: str
    entity: str
    period: Period
    channel: str
    value: Decimal
    unit: str
    source_doc: str
    locator: str
    document_id: int | None = None
    valid_as_of: date | None = None
    sensitivity: str = INTERNAL
    # The figure as the report printed it, kept when the metric's sign convention stores another
    # value (`core.model.sign`: a `positive` metric stores `(1,577)` as 1577); None: as printed.
    printed_value: Decimal | None = None


@dataclass(frozen=True)
class SubTask:
    metric: str
    entity: str
    period: Period
    channel: str = "TOTAL"

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.metric, self.entity, self.period.period_type, self.period.period, self.channel)
