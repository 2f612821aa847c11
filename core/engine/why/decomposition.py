"""What a quantitative why returns: a `Decomposition` of a figure's change over one dimension
(its channels, its subsidiaries or its quarters), with an amount's rows (`Move`) or a ratio's
effects (`Effect`), each number a `WhyComputed` that says what it is (its dimension, its role,
how many parts it stands for), and `Ranked`, the parts of a long list ranked and summed
elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.model.facts import FactRecord, SubTask
from core.model.outcome import Computed
from core.model.period import Period

KIND_CHANGE = "change"  # a part's change, the parts' sum, what no part holds
KIND_SHARE = "share"
KIND_EFFECT = "effect"  # a ratio's rate or mix effect, in percentage points
DIMENSIONS = ("channel", "entity", "quarter")
SHOWN = 10  # rows listed before the rest are one row
Pair = tuple[SubTask, SubTask]  # a part's key in the period asked, and in the period compared with
Figures = Callable[[SubTask], tuple[Decimal, str] | None]  # a key's bare value and unit


# What a decomposition's number is (`WhyComputed.role`): the whole's change, a part's change or
# share, the rest of a long list, change no part holds, a ratio's effects and their sum.
WHOLE, PART, PART_SHARE, REST, UNALLOCATED = "whole", "part", "part_share", "rest", "unallocated"
REST_LEFT = "rest_left"  # the rest of a long list, holding change no part holds as well
RATE, MIX, EFFECT, POOLED = "rate", "mix", "effect", "pooled"
Tag = tuple[str, str, int]  # dimension, role, how many parts the number stands for


@dataclass(frozen=True)
class WhyComputed(Computed):
    """A decomposition's number, with what it is: its dimension, its role and, for a part, the
    part (`subject`); the rest says how many parts it stands for. The API item carries them
    under `why`, so a page can draw the parts without reading the names."""

    dimension: str = ""
    role: str = ""
    parts: int = 0
    weight: str = ""  # a ratio's effects: the metric its parts are weighted by

    def as_dict(self, language: str = "zh") -> dict[str, Any]:
        item = super().as_dict(language)
        part = self.subject if self.role in (PART, PART_SHARE, RATE, MIX, EFFECT) else None
        item["why"] = {
            "dimension": self.dimension,
            "role": self.role,
            "parts": self.parts,
            "weight": self.weight,
            "part": ({"entity": part.entity, "channel": part.channel, "period": part.period.label} if part else None),
        }
        return item


@dataclass(frozen=True)
class Move:
    """One row of an amount's decomposition: a part (or the rest, or what no part holds)."""

    part: SubTask | None  # None: the rest, or the unallocated row
    change: Computed
    share: Computed | None  # of the whole's change; None when that change is zero
    parts: int = 1  # how many parts the row stands for (the rest: more than one)
    unallocated: bool = False  # the row holds change no part holds


@dataclass(frozen=True)
class Effect:
    """One part of a ratio's change: its rate effect and its mix effect, in points."""

    part: SubTask
    rate: Computed
    mix: Computed
    total: Computed  # rate + mix


@dataclass(frozen=True)
class Decomposition:
    dimension: str  # channel | entity | quarter
    whole: SubTask
    base: Period
    change: Computed  # the whole's change: the sum of `rows` (amount) or the ratio's change in points
    rows: tuple[Move, ...] = ()  # an amount: largest movers first, then the rest, then unallocated
    effects: tuple[Effect, ...] = ()  # a ratio: largest effects first
    unallocated: Computed | None = None  # a ratio: the whole's change in points the parts' effects leave
    weight_metric: str = ""  # a ratio: the metric its parts are weighted by (its divisor)
    lacking: tuple[SubTask, ...] = ()  # parts with a figure in one of the two periods only
    count: int = 0  # parts with a figure in both periods

    @property
    def computed(self) -> tuple[Computed, ...]:
        items: list[Computed] = [self.change]
        for row in self.rows:
            items.extend(x for x in (row.change, row.share) if x is not None)
        for effect in self.effects:
            items.extend((effect.rate, effect.mix, effect.total))
        if self.unallocated is not None:
            items.append(self.unallocated)
        return tuple(items)

    @property
    def inputs(self) -> tuple[FactRecord, ...]:
        return tuple(dict.fromkeys(f for c in self.computed for f in c.inputs))


@dataclass(frozen=True)
class Ranked:
    """A long list of parts ranked and summed elsewhere (a database), as `amount_decompose`
    would from every part's figures: `moved` holds `(change, part, earlier)` of at least the
    first `top` parts asked for (largest |change| first, ties by entity code), `count` how
    many parts have a figure in both periods, `units` theirs, `total` the exact sum of their
    changes, and `lacking` the parts with a figure in one period only, in the parts' order."""

    moved: tuple[tuple[Decimal, SubTask, SubTask], ...]
    count: int
    units: frozenset[str]
    lacking: tuple[SubTask, ...]
    total: Decimal
