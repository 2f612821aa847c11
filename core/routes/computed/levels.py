"""Listed sub-tasks and formula metrics answered at their level: each stored fact, else the
formula metric's value, else `查不到`; a half or a year not stored derived from the other periods;
two found facts that differ only in period followed by their difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.engine import Change, Computed, difference_compute, facts_lookup, formula_compute, period_derive
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.ports import FactStore
from core.routes.computed import render as computed_render
from core.routes.computed.answer import ComputedAnswer, Item, assemble
from core.routes.computed.subjects import Context, Reader


def levels_answer(
    tasks: Sequence[SubTask],
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    cleared: bool,
    language: str,
    decimals: int | None = None,
) -> ComputedAnswer:
    """Each sub-task's stored fact, else its formula metric's value (either shown to `decimals`
    places when the question asked), else `查不到`; with exactly two found facts that differ only in
    period (of one type) and nothing else asked, their difference: a series of more periods is
    listed whole, its gaps named, with no change between two of them picked out."""
    context = Context(glossary, Reader(store, cleared), language, decimals)
    formulas = glossary.formula_metrics
    if len(tasks) > 1 or any(task.metric in formulas for task in tasks):
        # a series, a list or a formula's inputs: one read, not one per key
        context.lookup.prefetch(tasks, formulas)
    items: list[Item] = []
    for task in tasks:
        fact = context.lookup(task)
        if fact is None and task.metric not in formulas and task.period.period_type in ("FY", "HY"):
            # a half or a year not stored: each derivation there is, both shown when they disagree
            aggregation = glossary.metrics[task.metric].adds_up if task.metric in glossary.metrics else ""
            derived = period_derive(context.lookup, task, label=glossary.display, aggregation=aggregation)
            values = {c.value for c in derived if isinstance(c, Computed)}
            lead = ("【推算结果不一致】", "[Derivations disagree]") if len(values) > 1 else ("", "")
            items.extend(
                Item(c, context.asked(task, "", ""), lead=lead if i == 0 else ("", "")) for i, c in enumerate(derived)
            )
            if derived:
                continue
        if fact is not None or task.metric not in formulas:
            items.append(Item(fact, decimals=decimals) if fact is not None else Item(task))
            continue
        outcome = formula_compute(context.lookup, task, formulas, label=glossary.display, decimals=decimals)
        items.append(Item(outcome, context.asked(task, "", "")))
    found = [i.outcome for i in items if isinstance(i.outcome, FactRecord)]
    pair = computed_render.comparable_pair(found) if len(tasks) == 2 else None
    if pair is not None:
        older, newer = pair
        task = SubTask(newer.metric, newer.entity, newer.period, newer.channel)
        # the line's rate reads as a growth answer's (`+8.54%`): one rate display across the product
        change = difference_compute(
            facts_lookup(pair), task, replace(task, period=older.period), decimals=decimals, label=glossary.display
        )
        if isinstance(change, Change):
            items.append(Item(change, line=True))
    return assemble(items, glossary, language, pending=context.lookup.pending)
