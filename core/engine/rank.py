"""Ranking of one metric's figures across entities, channels or periods of one type.

Takes a lookup and the keys to rank; returns a `Ranking` (rows in order with competition ranks,
so ties share a number: 1, 1, 3) or `CannotCompute`. A key without the figure is listed in
`missing`, never dropped silently, and the ranking is as sensitive as every figure ranked,
since each row's place depends on all of them. A lone figure is nobody's first: it gets no
rank item, only its formula value when it is a formula metric's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from core.model.facts import FactRecord, SubTask
from core.model.outcome import (
    KIND_RANK,
    RANK_ORDERS,
    UNIT_RANK,
    CannotCompute,
    Computed,
    Ranking,
    RankRow,
    Reason,
    sensitivity_max,
)

from .build import Labels, describe, missing_inputs, mixed_units, refuse, subject_names
from .display import decimals_check
from .formula import Ref
from .metric import formula_compute
from .operands import FactLookup, FormulaMetric, Label, Operand, Unresolved, code_label, qualifier
from .operands import operand_resolve as resolve


@dataclass(frozen=True)
class RankPool:
    """The whole field a long ranking was cut from, when the caller ranks only its head.

    The ranks of the first rows depend only on the figures at or above them, so a caller that
    found the head of a long list cheaply (every figure at or better than the `top`-th, ties
    included) ranks those keys alone and passes what the rest contributes: how many figures
    were ranked in all, the keys without a figure, and the most sensitive figure's level (the
    head's order says something about every figure below it).
    """

    count: int
    missing: tuple[SubTask, ...]
    sensitivity: str
    outside: SubTask | None = None  # one ranked key below the head, so names say what varies


def rank_compute(
    lookup: FactLookup,
    tasks: Sequence[SubTask],
    *,
    order: str = "desc",
    top: int | None = None,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
    pool: RankPool | None = None,
) -> Ranking | CannotCompute:
    """The listed keys of one metric ordered by their figure; ties share a rank (1, 1, 3).

    A key without the figure is listed in `missing`, never dropped silently. With `top`, rows
    ranked `top` or better are kept, so a tie at the cut keeps every tied row. With `pool`,
    `tasks` are the head of a longer field (see `RankPool`), which `top` must be given for.
    With one figure only, the `Ranking` is not `ranked`: its one row has no rank item.
    """
    decimals_check(decimals)
    if order not in RANK_ORDERS:
        raise ValueError(f"order must be 'desc' or 'asc', not {order!r}")
    if top is not None and top < 1:
        raise ValueError(f"top must be at least 1, not {top}")
    if pool is not None and top is None:
        raise ValueError("a ranking cut from a pool needs `top`")
    tasks = list(dict.fromkeys(tasks))
    if not tasks:
        return refuse(KIND_RANK, "no_inputs", "没有要排名的项目。", "There is nothing to rank.")
    if len({t.metric for t in tasks}) > 1 or len({t.period.period_type for t in tasks}) > 1:
        return refuse(
            KIND_RANK,
            "mismatch",
            "只对同一指标、同类期间的数排名。",
            "Only figures of one metric and one period type are ranked.",
        )
    results = [resolve(lookup, t, formulas) for t in tasks]
    operands = [op for op in results if isinstance(op, Operand)]
    found = [f for op in results for f in op.inputs]
    if len({op.unit for op in operands}) > 1:
        return mixed_units(KIND_RANK, (op.unit for op in operands), found)
    unresolved = [op for op in results if isinstance(op, Unresolved)]
    if not operands:
        return _none_ranked(tasks, unresolved, label, found)
    ordered = sorted(operands, key=lambda op: op.comparable, reverse=order == "desc")
    ranks: list[int] = []
    for i, op in enumerate(ordered):
        ranks.append(ranks[-1] if i and op.comparable == ordered[i - 1].comparable else i + 1)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    inputs = tuple(dict.fromkeys(f for op in ordered for f in op.inputs))
    sensitivity = sensitivity_max([*(f.sensitivity for f in inputs), *((pool.sensitivity,) if pool else ())])
    count = pool.count if pool is not None else len(operands)
    missing = pool.missing if pool is not None else tuple(op.task for op in unresolved if op.missing)
    rows = tuple(
        RankRow(r, counts[r] > 1, op.task, op.comparable, op.display(decimals), op.unit, op.inputs)
        for r, op in zip(ranks, ordered, strict=True)
        if top is None or r <= top
    )
    pooled = [*pool.missing, *((pool.outside,) if pool.outside else ())] if pool is not None else []
    labels = Labels((qualifier(t) for t in [*tasks, *pooled]), label)
    if count < 2:
        computed = _lone_value(lookup, ordered[0], formulas, decimals, label)
    else:
        computed = tuple(_rank_item(row, order, count, labels, label, sensitivity) for row in rows)
    return Ranking(
        order=order,
        top=top,
        rows=rows,
        missing=missing,
        not_meaningful=tuple(op.task for op in unresolved if not op.missing),
        unit=operands[0].unit,
        inputs=inputs,
        sensitivity=sensitivity,
        computed=computed,
        count=count,
    )


NAMED_MAX = 10  # items without the figure named one by one in a refusal; the rest are counted


def _none_ranked(
    tasks: Sequence[SubTask], unresolved: Sequence[Unresolved], label: Label, found: Sequence[FactRecord]
) -> CannotCompute:
    """No item has the figure: say so, naming the items (not only the inputs they lack)."""
    absent = [u.task for u in unresolved if u.missing]
    if not absent:
        return missing_inputs(KIND_RANK, unresolved, label, found)  # every figure is undefined
    undefined = [u.task for u in unresolved if not u.missing]
    every = {lang: dict(zip(tasks, subject_names(tasks, label, lang), strict=True)) for lang in ("zh", "en")}

    def listed(items: Sequence[SubTask], language: str) -> str:
        shown = ("、" if language == "zh" else ", ").join(every[language][t] for t in items[:NAMED_MAX])
        if len(items) > NAMED_MAX:
            more = len(items) - NAMED_MAX
            shown += f" 等 {len(items):,} 项" if language == "zh" else f" and {more:,} more"
        return shown

    count = len(tasks)
    if undefined:
        zh = f"{count:,} 项均无可排名的数据（无该数据：{listed(absent, 'zh')}；分母为 0：{listed(undefined, 'zh')}）"
        en = (
            f"None of the {count:,} items has a figure to rank (no figure: {listed(absent, 'en')}; "
            f"a zero divisor: {listed(undefined, 'en')})"
        )
    else:
        zh = f"{count:,} 项均无该数据（{listed(absent, 'zh')}）"
        en = f"None of the {count:,} items has the figure ({listed(absent, 'en')})"
    reason = Reason(
        "missing_inputs",
        f"{zh}，无法排名。为避免误导，不提供任何推测数字。",
        f"{en}, so there is no ranking. To avoid misleading you, no estimated figure is given.",
    )
    missing = tuple(dict.fromkeys(t for u in unresolved for t in u.missing))
    return CannotCompute(KIND_RANK, reason, missing=missing, inputs=tuple(found))


def _lone_value(
    lookup: FactLookup,
    operand: Operand,
    formulas: Mapping[str, FormulaMetric] | None,
    decimals: int | None,
    label: Label,
) -> tuple[Computed, ...]:
    """The one figure of a field that has no order: its formula value when it was computed, so
    the answer gives it with its formula and inputs; nothing for a stored fact, which is cited."""
    if formulas is None or lookup(operand.task) is not None or operand.task.metric not in formulas:
        return ()
    value = formula_compute(lookup, operand.task, formulas, decimals=decimals, label=label)
    return (value,) if isinstance(value, Computed) else ()


def _rank_item(row: RankRow, order: str, count: int, labels: Labels, label: Label, sensitivity: str) -> Computed:
    ref = Ref(row.subject.metric, qualifier(row.subject))

    def name(language: str) -> str:
        subject = describe(row.subject, label, language, entity=labels.entity, channel=labels.channel)
        if language == "en":
            return f"{subject} rank {row.rank}" + (" (tied)" if row.tied else "")
        return f"{subject}{'并列' if row.tied else '排名'}第{row.rank}"

    way = {"desc": ("降序", "descending"), "asc": ("升序", "ascending")}[order]
    return Computed(
        kind=KIND_RANK,
        name_zh=name("zh"),
        name_en=name("en"),
        formula=f"rank {order} of {labels.reference(ref)} among {count}",
        formula_zh=f"{labels.reference(ref, 'zh')} 在 {count} 项中{way[0]}排名",
        formula_en=f"{way[1]} rank of {labels.reference(ref, 'en')} among {count}",
        value=Decimal(row.rank),
        display=str(row.rank),
        unit=UNIT_RANK,
        inputs=row.inputs,
        sensitivity=sensitivity,
        decimals=0,
        subject=row.subject,
    )
