"""The operations mapped onto the engine: which keys each one reads, over which listed
entities, periods and channels, and what is refused before any figure is read. Growth,
difference and CAGR are in `change`, ratio and share in `aggregate` (named after the engine
modules they run); sum, average and rank in `across`, across the members of one axis; the
members that meet a condition in `filtered`; a whole less a part in `excluded`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from core.engine import QOQ, YOY, CannotCompute
from core.engine.display import MAX_DECIMALS
from core.glossary import GlossarySnapshot
from core.model.intent import ParsedIntent
from core.model.operation import (
    OP_AVERAGE,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_EXCLUDE,
    OP_FILTER,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    Operation,
)
from core.model.registry import KIND_CLARIFICATION
from core.ports import FactStore
from core.routes import render
from core.routes.computed.across import across_items, rank_items, sum_items
from core.routes.computed.aggregate import ratio_items, share_items
from core.routes.computed.answer import ComputedAnswer, Item, assemble
from core.routes.computed.change import cagr_items, difference_items, growth_items
from core.routes.computed.excluded import exclude_items
from core.routes.computed.filtered import filter_items
from core.routes.computed.subjects import Axes, Context, Reader, paid_metrics, paid_notes, refusal


def computed_answer(
    intent: ParsedIntent, *, glossary: GlossarySnapshot, store: FactStore, cleared: bool
) -> ComputedAnswer:
    """The operation the intent asks for, over every subject it lists."""
    operation = intent.operation
    assert operation is not None
    language = intent.language
    axes = Axes.of(intent)
    if not axes.metrics:
        return ComputedAnswer(render.WHICH_METRIC[language], KIND_CLARIFICATION)
    problem = _operation_problem(operation)
    if problem is not None:
        return assemble([Item(problem)], glossary, language)
    paid = paid_metrics(glossary)
    context = Context(glossary, Reader(store, cleared, paid), language, operation.decimals)
    items = OPERATION_HANDLERS[operation.kind](context, axes, operation)
    answer = assemble(items, glossary, language, pending=context.lookup.pending)
    notes = paid_notes((f for c in answer.computed for f in c.inputs), paid, glossary, language)
    return replace(answer, text="\n".join([*notes, answer.text])) if notes else answer


def _operation_problem(operation: Operation) -> CannotCompute | None:
    if operation.kind not in OPERATION_HANDLERS:
        return refusal(
            operation.kind, "unknown_operation", "无法识别要做的计算。", "The computation asked for is not known."
        )
    if operation.decimals is not None and not 0 <= operation.decimals <= MAX_DECIMALS:
        return refusal(
            operation.kind,
            "bad_decimals",
            f"小数位数须在 0 到 {MAX_DECIMALS} 之间。",
            f"Decimal places must be between 0 and {MAX_DECIMALS}.",
        )
    if operation.kind in (OP_GROWTH, OP_DIFFERENCE) and operation.comparison not in (YOY, QOQ):
        return refusal(
            operation.kind, "bad_comparison", "无法识别增长的比较基期。", "The growth comparison is not known."
        )
    out_of_range = any(n is not None and n < 1 for n in (operation.top, operation.position))
    if operation.kind == OP_RANK and (operation.order not in ("desc", "asc") or out_of_range):
        return refusal(operation.kind, "bad_rank", "无法识别排名的方式。", "The ranking asked for is not understood.")
    return None


OPERATION_HANDLERS: dict[str, Callable[[Context, Axes, Operation], list[Item]]] = {
    OP_EXCLUDE: exclude_items,
    OP_FILTER: filter_items,
    OP_GROWTH: growth_items,
    OP_DIFFERENCE: difference_items,
    OP_CAGR: cagr_items,
    OP_RATIO: ratio_items,
    OP_SHARE: share_items,
    OP_SUM: sum_items,
    OP_AVERAGE: lambda context, axes, operation: across_items(context, axes, operation, ("平均", "average")),
    OP_RANK: rank_items,
}
