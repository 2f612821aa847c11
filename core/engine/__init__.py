"""The computation engine: growth, CAGR, ratio, share, sum, rank, difference and
formula metrics over facts the caller found.

Takes a `FactLookup` (the caller's: `SubTask` → `FactRecord | None`, read with the user's
clearance; `facts_lookup` wraps facts already in hand), the keys asked about and, optionally,
the formula metrics and a `label` (e.g. `GlossarySnapshot.display`) for names in words. Returns
a `Computed`, a `Change` (growth, difference), a `Ranking` or `CannotCompute` with a reason and
the missing keys; it never fetches, guesses or falls back to another figure.

Invariants:
- every value is `Decimal` arithmetic over the listed `inputs` only, and
  `computed_reevaluate` recomputes it from the `formula` text and those inputs;
- display rounds half-up on a copy; the exact value is kept;
- a computed value is as sensitive as its most sensitive input.
"""

from core.engine.aggregate import ratio_compute, share_compute, sum_compute
from core.engine.build import computed_reevaluate
from core.engine.cagr import cagr_compute
from core.engine.change import difference_compute, growth_compute
from core.engine.derive import period_derive
from core.engine.display import decimal_round, number_display, value_display
from core.engine.metric import formula_compute
from core.engine.operands import (
    QOQ,
    YOY,
    FactLookup,
    FormulaMetric,
    Label,
    comparison_period,
    comparison_task,
    facts_lookup,
    formula_metrics_build,
)
from core.engine.rank import RankPool, rank_compute
from core.model.outcome import (
    KIND_CAGR,
    KIND_DIFFERENCE,
    KIND_FORMULA,
    KIND_GROWTH,
    KIND_RANK,
    KIND_RATIO,
    KIND_SHARE,
    KIND_SUM,
    KINDS,
    RANK_ORDERS,
    UNIT_PCT,
    UNIT_PP,
    UNIT_RANK,
    CannotCompute,
    Change,
    Computed,
    Outcome,
    Ranking,
    RankRow,
    Reason,
    computed_as_dicts,
    sensitivity_max,
)

__all__ = [
    "KINDS",
    "KIND_CAGR",
    "KIND_DIFFERENCE",
    "KIND_FORMULA",
    "KIND_GROWTH",
    "KIND_RANK",
    "KIND_RATIO",
    "KIND_SHARE",
    "KIND_SUM",
    "QOQ",
    "RANK_ORDERS",
    "UNIT_PCT",
    "UNIT_PP",
    "UNIT_RANK",
    "YOY",
    "CannotCompute",
    "Change",
    "Computed",
    "FactLookup",
    "FormulaMetric",
    "Label",
    "Outcome",
    "RankPool",
    "RankRow",
    "Ranking",
    "Reason",
    "cagr_compute",
    "comparison_period",
    "comparison_task",
    "computed_as_dicts",
    "computed_reevaluate",
    "decimal_round",
    "difference_compute",
    "facts_lookup",
    "formula_compute",
    "formula_metrics_build",
    "growth_compute",
    "number_display",
    "period_derive",
    "rank_compute",
    "ratio_compute",
    "sensitivity_max",
    "share_compute",
    "sum_compute",
    "value_display",
]
