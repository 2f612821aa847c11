"""A series answer as data: one metric of one entity and channel over a range of periods.

Takes a stored answer (`agent.serialize.Answer`); returns every period of the range asked, in order, each
with its stored fact, its derived values or nothing (missing, named, never skipped), and the
growth per step the answer computed ending at that period. When the first step's base is the
period just before the range, it leads as a base row. None when the answer is no series: fewer
than three rows, several metrics or entities, a ranking (which keeps its bar chart) or a
question asked back.

Nothing is computed here: every value is a found fact's or a computed item's, as the engine
wrote it. The UI (`series_view`) and the CSV export (`export`) both read this.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from agent.serialize import Answer, AnswerComputed, AnswerFact, AnswerKey
from core.model.clarification import CLARIFY_ASK_FIRST, CLARIFY_OUT_OF_SCOPE_ENTITY
from core.model.period import Period

SERIES_MIN = 3  # two periods are a comparison: their bar chart and difference line stay
FOUND, DERIVED, MISSING = "found", "derived", "missing"
UNIT_PCT = "PCT"
ASKED_BACK = (CLARIFY_ASK_FIRST, CLARIFY_OUT_OF_SCOPE_ENTITY)  # a question back answers nothing yet


@dataclass(frozen=True)
class SeriesRow:
    period: Period
    status: str  # found | derived | missing
    base: bool  # before the range asked: the first step's base
    fact: AnswerFact | None
    derived: tuple[AnswerComputed, ...]  # one per derivation; two that disagree are both kept
    rate: AnswerComputed | None  # the growth rate ending at this period
    change: AnswerComputed | None  # the absolute change (or points) ending at this period

    @property
    def value(self) -> Decimal | None:
        """The exact value: the fact's, else the derivations' when they agree; None otherwise."""
        if self.fact is not None:
            return self.fact.value
        values = {item.value for item in self.derived}
        return next(iter(values)) if len(values) == 1 else None

    @property
    def unit(self) -> str:
        if self.fact is not None:
            return self.fact.unit
        return self.derived[0].unit if self.derived else ""


@dataclass(frozen=True)
class Series:
    metric: str
    entity: str
    channel: str
    rows: tuple[SeriesRow, ...]
    steps: tuple[int, ...]  # indexes in `computed` of the growth items the rows carry

    @property
    def unit(self) -> str:
        return next((row.unit for row in self.rows if row.unit), "")

    @property
    def has_rates(self) -> bool:
        return any(row.rate is not None for row in self.rows)

    @property
    def has_changes(self) -> bool:
        return any(row.change is not None for row in self.rows)


def _key(item: AnswerFact | AnswerKey) -> tuple[str, str, str]:
    return item.metric, item.entity, item.channel


def period_previous(period: Period) -> Period:
    """The period just before `period`, of its type: FY2024 → FY2023, 2025H1 → 2024H2, 2025Q1 → 2024Q4."""
    year = period.year
    if period.period_type == "FY":
        return Period("FY", str(year - 1))
    if period.period_type == "HY":
        return Period("HY", f"{year}H1") if period.period.endswith("H2") else Period("HY", f"{year - 1}H2")
    quarter = int(period.period[-1])
    return Period("QUARTER", f"{year}Q{quarter - 1}") if quarter > 1 else Period("QUARTER", f"{year - 1}Q4")


def answer_series(answer: Answer) -> Series | None:
    """The answer's series, or None when it is none (see the module's docstring)."""
    intent, computed = answer.intent, answer.computed
    if any(item.kind == "rank" for item in computed):
        return None
    if answer.clarification.mode in ASKED_BACK:
        return None
    metric, entity, channel = intent.metric, intent.entity, intent.channel
    if not metric or not entity:
        return None
    if set(intent.metrics or [metric]) != {metric} or set(intent.entities or [entity]) != {entity}:
        return None
    if not intent.periods or len({p.period_type for p in intent.periods}) != 1:
        return None
    asked = sorted(set(intent.periods), key=lambda p: p.sort_key)
    key = (metric, entity, channel)
    facts = {f.period: f for f in answer.facts if _key(f) == key}
    derived: dict[Period, list[AnswerComputed]] = {}
    steps: dict[Period, dict[str, tuple[int, AnswerComputed]]] = {}
    for index, item in enumerate(computed):
        if item.kind == "derived" and item.period and all(_key(i) == key for i in item.inputs):
            derived.setdefault(item.period, []).append(item)
        elif item.kind == "growth" and len(item.inputs) == 2 and all(_key(i) == key for i in item.inputs):
            role = "rate" if item.unit == UNIT_PCT else "change"
            steps.setdefault(item.inputs[0].period, {}).setdefault(role, (index, item))
    periods = [(p, False) for p in asked]
    first = steps.get(asked[0], {})
    base = period_previous(asked[0])
    if any(item.inputs[1].period == base for _, item in first.values()) and base in facts:
        periods.insert(0, (base, True))
    if len(periods) < SERIES_MIN:
        return None
    rows = []
    carried: list[int] = []
    for period, is_base in periods:
        fact = facts.get(period)
        made = tuple(derived.get(period, ())) if fact is None else ()
        status = FOUND if fact is not None else DERIVED if made else MISSING
        step = steps.get(period, {})
        carried += [index for index, _ in step.values()]
        rows.append(
            SeriesRow(
                period=period,
                status=status,
                base=is_base,
                fact=fact,
                derived=made,
                rate=step["rate"][1] if "rate" in step else None,
                change=step["change"][1] if "change" in step else None,
            )
        )
    return Series(metric, entity, channel, tuple(rows), tuple(sorted(carried)))
