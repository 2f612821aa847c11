"""The members whose figure, or growth rate, meets a condition (`营业利润为负的地区有哪些`,
`which regions grew faster than 10%`): named first, then every member's figure with its source,
those without one named as missing.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from core.engine import QOQ, Change, growth_compute, number_display
from core.engine.display import percent_of
from core.model.facts import FactRecord, SubTask
from core.model.operation import Operation
from core.routes import render
from core.routes.computed.answer import Item
from core.routes.computed.subjects import Axes, Context


def filter_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """The members whose figure, or growth rate, meets the condition asked (`营业利润为负的地区有哪些`,
    `which regions grew faster than 10%`), named first; then every member's figure with its source,
    those without one named as missing. A threshold is read in the figure's stored unit (a rate in
    percent)."""
    assert operation.condition is not None
    comparator, written, _, of_growth = operation.condition
    threshold = Decimal(written)
    glossary = context.glossary
    metric, period, channel = axes.metrics[0], axes.periods[0], axes.channels[0]
    tasks = [SubTask(metric, entity, period, channel) for entity in axes.entities]
    context.lookup.prefetch(tasks, glossary.formula_metrics)
    outcomes: list[Any] = []
    met: list[tuple[SubTask, tuple[str, str]]] = []
    missing: list[SubTask] = []
    for task in tasks:
        shown = ("", "")
        if of_growth:
            outcome: Any = growth_compute(context.lookup, task, operation.comparison, **context.options)
            rate = outcome.rate if isinstance(outcome, Change) else None
            figure = percent_of(rate.value) if rate is not None else None
            shown = (rate.display, rate.display) if rate is not None else shown
        else:
            outcome = context.lookup(task) or task
            figure = outcome.value if isinstance(outcome, FactRecord) else None
            if isinstance(outcome, FactRecord):
                shown = tuple(  # type: ignore[assignment]
                    number_display(outcome.value) + render.unit_suffix(glossary, outcome.unit, lang)
                    for lang in ("zh", "en")
                )
        outcomes.append(outcome)
        if figure is None:
            missing.append(task)
        elif (figure < threshold) if comparator == "<" else (figure > threshold):
            met.append((task, shown))
    lead = _filter_lead(context, operation, metric, period, met, missing, of_growth)
    words = (("环比", "QoQ") if operation.comparison == QOQ else ("同比", "YoY")) if of_growth else ("", "")
    items = [Item(o, context.asked(t, "", ""), words) for o, t in zip(outcomes, tasks, strict=True)]
    return [replace(items[0], lead=lead), *items[1:]] if items else []


def _filter_lead(
    context: Context,
    operation: Operation,
    metric: str,
    period: Any,
    met: list[tuple[SubTask, tuple[str, str]]],
    missing: list[SubTask],
    of_growth: bool,
) -> tuple[str, str]:
    display = context.glossary.display

    def line(language: str) -> str:
        what = display("metric", metric, language)
        at = 1 if language == "en" else 0
        names = [
            f"{display('entity', t.entity, language)} ({shown[at]})"
            if language == "en"
            else f"{display('entity', t.entity, language)}（{shown[at]}）"
            for t, shown in met
        ]
        absent = [display("entity", t.entity, language) for t in missing]
        if language == "en":
            asked = f"{period.label} {what}{' growth' if of_growth else ''} {operation.cue}"
            head = f"{asked}: {', '.join(names)}." if names else f"None has {asked}."
            return head + (f" No figure: {', '.join(absent)}." if absent else "")
        asked = f"{period.label} {what}{'增长率' if of_growth else ''}{operation.cue}"
        head = f"{asked}的：{'、'.join(names)}。" if names else f"没有{asked}的。"
        return head + (f"无数据：{'、'.join(absent)}。" if absent else "")

    return line("zh"), line("en")
