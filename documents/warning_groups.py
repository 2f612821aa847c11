"""A document's warnings as a curator reads them (issue R): grouped by kind, with counts.

Ingestion keeps one warning per line (`page=4,table=1: no facts read (no row or column of
periods …)`, an extraction warning); a 150-page report has hundreds. `warnings_grouped` gives one
group per kind — the reason in brackets, else the whole line — with how many and where, the kinds
about a financial statement first, then the most frequent; `warnings_summary` says it in one line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_TABLE_WARNING = re.compile(r"^(?P<place>[^:：]+): no facts read \((?P<kind>.+)\)$")
_STATEMENT = re.compile(r"statement|报表")
SHOWN_PLACES = 12
SUMMARY_PLACES = 3


@dataclass
class WarningGroup:
    kind: str
    places: list[str] = field(default_factory=list)
    count: int = 0

    @property
    def places_shown(self) -> str:
        return self.places_listed(SHOWN_PLACES)

    def places_listed(self, limit: int) -> str:
        more = len(self.places) - limit
        shown = "; ".join(self.places[:limit])
        return f"{shown}; … (+{more})" if more > 0 else shown


def warnings_grouped(warnings: Sequence[str]) -> list[WarningGroup]:
    groups: dict[str, WarningGroup] = {}
    for warning in warnings:
        m = _TABLE_WARNING.match(warning)
        kind, place = (m.group("kind"), m.group("place")) if m else (warning, "")
        group = groups.setdefault(kind, WarningGroup(kind))
        group.count += 1
        if place:
            group.places.append(place)
    return sorted(groups.values(), key=lambda g: (not _STATEMENT.search(g.kind), -g.count, g.kind))


def warnings_summary(warnings: Sequence[str]) -> str:
    """`207 warnings: 180 × no row or column of periods … (page=4,table=1; …); 14 × …` ("" for none)."""
    if not warnings:
        return ""
    groups = warnings_grouped(warnings)
    kinds = "; ".join(
        f"{g.count} × {g.kind}" + (f" ({g.places_listed(SUMMARY_PLACES)})" if g.places else "") for g in groups
    )
    return f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''}: {kinds}"
