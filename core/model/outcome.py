"""What every operator returns: a `Computed` value, a `Change`, a `Ranking` or `CannotCompute`.

Each result carries its formula (in codes with periods, and in words), its exact value, its
display, its unit, the facts it was computed from and the most sensitive input's sensitivity,
so the answer can cite and filter a computed figure like a stored one. The engine computes
them; every later stage (the routes, the pipeline, the answer a run returns) passes them on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.model.facts import INTERNAL, PUBLIC, RESTRICTED, FactRecord, SubTask

# The units of a computed value beside its inputs' own: a fraction shown as a percentage
# (0.0854 is 8.54%), percentage points, a place in a ranking.
UNIT_PCT = "PCT"
UNIT_PP = "PP"
UNIT_RANK = "RANK"

KIND_GROWTH = "growth"
KIND_RATIO = "ratio"
KIND_SHARE = "share"
KIND_SUM = "sum"
KIND_RANK = "rank"
KIND_CAGR = "cagr"
KIND_FORMULA = "formula"
KIND_DIFFERENCE = "difference"
KIND_AVERAGE = "average"
KIND_DERIVED = "derived"  # a half or a year not stored, made of other periods (FY − H1, Q1 + Q2)
KINDS = (
    KIND_GROWTH,
    KIND_RATIO,
    KIND_SHARE,
    KIND_SUM,
    KIND_RANK,
    KIND_CAGR,
    KIND_FORMULA,
    KIND_DIFFERENCE,
    KIND_DERIVED,
    KIND_AVERAGE,
)

RANK_ORDERS = ("desc", "asc")  # highest first, lowest first

_SENSITIVITY_ORDER = {PUBLIC: 0, INTERNAL: 1, RESTRICTED: 2}


def sensitivity_max(sensitivities: Iterable[str]) -> str:
    """The most sensitive level; an unknown level counts as RESTRICTED (fail closed)."""
    rank = max((_SENSITIVITY_ORDER.get(s, 2) for s in sensitivities), default=0)
    return (PUBLIC, INTERNAL, RESTRICTED)[rank]


@dataclass(frozen=True)
class Reason:
    """Why something is not computed (or has no rate): a stable code and a sentence per language."""

    code: str
    zh: str
    en: str

    def text(self, language: str) -> str:
        return self.en if language == "en" else self.zh


@dataclass(frozen=True)
class Computed:
    kind: str
    name_zh: str
    name_en: str
    formula: str  # codes with periods: `(REVENUE[FY2025] - REVENUE[FY2024]) / REVENUE[FY2024]`
    formula_zh: str
    formula_en: str
    value: Decimal  # exact; a PCT value is a fraction (0.0854 is 8.54%), a PP value is in points
    display: str  # `8.54%`, `-2.2 pp`, `32,330.3` (the caller adds the unit's name)
    unit: str  # PCT, PP, RANK or the inputs' unit
    inputs: tuple[FactRecord, ...]  # in order of first use in `formula`
    sensitivity: str
    decimals: int | None  # places shown in `display`; None: the exact value
    subject: SubTask | None = None  # the figure described (None for a sum)

    def name(self, language: str) -> str:
        return self.name_en if language == "en" else self.name_zh

    def formula_words(self, language: str) -> str:
        return self.formula_en if language == "en" else self.formula_zh

    def display_text(self, language: str) -> str:
        """`display` for an answer line: percentage points read `个百分点` in Chinese."""
        if self.unit == UNIT_PP and language != "en":
            return self.display.removesuffix(" pp") + " 个百分点"
        return self.display

    @property
    def value_text(self) -> str:
        """The exact value as a decimal string, never with an exponent."""
        text = f"{self.value:f}"
        return text.removeprefix("-") if self.value.is_zero() else text

    @property
    def computed(self) -> tuple[Computed, ...]:
        return (self,)

    def as_dict(self, language: str = "zh") -> dict[str, Any]:
        """The API's `computed` item; a derived item names the period it stands for."""
        item: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name(language),
            "formula": self.formula,
            "formula_words": self.formula_words(language),
            "value": self.value_text,
            "display": self.display_text(language),
            "unit": self.unit,
            "inputs": [
                {"metric": f.metric, "entity": f.entity, "period": f.period.label, "channel": f.channel}
                for f in self.inputs
            ],
        }
        if self.kind == KIND_DERIVED and self.subject is not None:
            item["period"] = self.subject.period.label
        return item


@dataclass(frozen=True)
class Change:
    """A growth or a difference: the absolute change, and the rate when it is meaningful."""

    kind: str  # growth | difference
    change: Computed  # in the inputs' unit, or PP for a PCT metric
    rate: Computed | None  # PCT; None for a PCT metric or a zero or negative base
    no_rate: Reason | None  # why there is no rate

    @property
    def computed(self) -> tuple[Computed, ...]:
        return (self.rate, self.change) if self.rate else (self.change,)

    @property
    def inputs(self) -> tuple[FactRecord, ...]:
        return self.change.inputs

    @property
    def sensitivity(self) -> str:
        return self.change.sensitivity


@dataclass(frozen=True)
class RankRow:
    rank: int  # competition ranking: ties share a number (1, 1, 3)
    tied: bool
    subject: SubTask
    value: Decimal  # the figure ranked; a PCT figure in percent (29.7), as stored
    display: str  # `96,120.3`, `29.7%`
    unit: str
    inputs: tuple[FactRecord, ...]


@dataclass(frozen=True)
class Ranking:
    order: str  # desc | asc
    top: int | None  # rows with rank ≤ top are kept, so a tie at the cut keeps every tied row
    rows: tuple[RankRow, ...]
    missing: tuple[SubTask, ...]  # asked for, but without the figure: listed, never dropped
    not_meaningful: tuple[SubTask, ...]  # a formula figure that is undefined (zero divisor)
    unit: str
    inputs: tuple[FactRecord, ...]  # every fact ranked, also those cut by `top`
    sensitivity: str  # over every input: a rank depends on all of them
    # One per row when `ranked`: value = the rank number, unit RANK. A lone figure has no rank:
    # only its formula value when it was computed (a stored fact is cited as it is).
    computed: tuple[Computed, ...]
    count: int = 0  # figures ranked in all (more than `inputs` holds when cut from a pool)

    @property
    def ranked(self) -> bool:
        """Two figures or more: an order. One figure is a value, never a highest or a first."""
        return self.count >= 2


@dataclass(frozen=True)
class CannotCompute:
    """An honest refusal: the reason, the inputs that are missing and those that were found."""

    kind: str
    reason: Reason
    missing: tuple[SubTask, ...] = ()
    inputs: tuple[FactRecord, ...] = ()

    @property
    def sensitivity(self) -> str:
        return sensitivity_max(f.sensitivity for f in self.inputs)

    @property
    def computed(self) -> tuple[Computed, ...]:
        return ()


Outcome = Computed | Change | Ranking | CannotCompute


def computed_as_dicts(outcome: Outcome | FactRecord, language: str = "zh") -> list[dict[str, Any]]:
    """The API's `computed` list for any outcome (a stored fact that won contributes none)."""
    if isinstance(outcome, FactRecord):
        return []
    return [item.as_dict(language) for item in outcome.computed]
