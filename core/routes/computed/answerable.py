"""The periods an ask-back may offer: those whose answer holds a figure.

`periods_answerable(intent, periods, …)` takes the intent as asked (with a stretch of time no
period type holds: `3月`, `Q5`) and the periods the clarifier would offer in its place, and
returns, in the same order, those for which the same question asked for that period is answered
with a figure: a stored fact, a half or a year derived from stored ones where the metric adds up
(FY − H1 for a flow, never for a ratio), a formula metric over stored facts, or the computation
asked over them. Each period is answered by the very engine that answers the option when it is
chosen (the level, or the operation asked), with the user's clearance, so an option offered is
never a `查不到`, and a RESTRICTED figure the user may not see offers nothing. The answers are
thrown away: the clarifier shows period labels only, never a figure.

The store is read once per key: first in one bulk read (when the store offers one) of every key
the periods, their derivations and their comparisons can need, and no review-queue count is
read (nothing is rendered).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.intent import ParsedIntent
from core.model.period import Period
from core.model.registry import KIND_ANSWER
from core.ports import BulkFactStore, FactStore
from core.routes.computed.handlers import computed_answer
from core.routes.computed.levels import levels_answer
from core.routes.computed.subjects import Axes, metrics_reached, part_intent, subtasks_of


def periods_answerable(
    intent: ParsedIntent,
    periods: Sequence[Period],
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    cleared: bool,
) -> tuple[Period, ...]:
    """The periods among `periods` for which `intent`, asked for that period alone (as a chosen
    option asks it, with the home entity assumed when it names none), is answered with a figure.
    With no entity and no home entity the question is not answerable as it stands (the entity is
    asked next), and every period is returned."""
    entity = intent.entity or glossary.home_entity
    if entity is None:
        return tuple(periods)
    asked = [_for_period(intent, period, entity) for period in periods]
    reader = _read_once(store, _keys(asked, glossary), cleared)
    return tuple(
        period
        for period, one in zip(periods, asked, strict=True)
        if _answered(one, glossary=glossary, store=reader, cleared=cleared)
    )


def _for_period(intent: ParsedIntent, period: Period, entity: str) -> ParsedIntent:
    """The intent a chosen option answers: its `scope` sets the one period, and the home entity
    is assumed when the question names none."""
    return replace(intent, period=period, periods=(period,), entity=intent.entity or entity)


def _answered(intent: ParsedIntent, *, glossary: GlossarySnapshot, store: FactStore, cleared: bool) -> bool:
    for one in [part_intent(intent, part) for part in intent.parts] or [intent]:
        if one.operation is not None:
            answer = computed_answer(one, glossary=glossary, store=store, cleared=cleared)
        else:
            tasks = subtasks_of(one)
            answer = levels_answer(tasks, glossary=glossary, store=store, cleared=cleared, language=one.language)
        if answer.kind == KIND_ANSWER:
            return True
    return False


def _keys(asked: Sequence[ParsedIntent], glossary: GlossarySnapshot) -> list[SubTask]:
    """Every key the answers can read for the listed entities: each metric (and the metrics its
    formula reaches) in every period of the period's year, which a derived half or year is made
    of, and of the year before, which a growth compares with."""
    formulas = glossary.formula_metrics
    keys: dict[tuple[str, ...], SubTask] = {}
    for intent in asked:
        for one in [part_intent(intent, part) for part in intent.parts] or [intent]:
            axes = Axes.of(one)
            metrics = {code for metric in axes.metrics for code in metrics_reached(metric, formulas)}
            years = (one.period.year,) if one.period is not None else ()
            if one.operation is not None:
                years += tuple(year - 1 for year in years)
            for metric in sorted(metrics):
                for entity in axes.entities:
                    for channel in axes.channels:
                        for period in (p for year in years for p in _year_periods(year)):
                            task = SubTask(metric, entity, period, channel)
                            keys.setdefault(task.key, task)
    return list(keys.values())


def _year_periods(year: int) -> tuple[Period, ...]:
    return (
        Period("FY", str(year)),
        Period("HY", f"{year}H1"),
        Period("HY", f"{year}H2"),
        *(Period("QUARTER", f"{year}Q{q}") for q in range(1, 5)),
    )


class _ReadOnce:
    """`store` read once per key, with `keys` read up front in one bulk read when the store can,
    and no review-queue count (an option's answer is never shown)."""

    def __init__(self, store: FactStore, keys: Sequence[SubTask], cleared: bool) -> None:
        self._store = store
        self._known: dict[tuple[str, ...], FactRecord | None] = {}
        if keys and isinstance(store, BulkFactStore):
            found = store.facts_get(keys, cleared=cleared)
            self._known = {task.key: found.get(task.key) for task in keys}

    def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None:
        if task.key not in self._known:
            self._known[task.key] = self._store.fact_get(task, cleared=cleared)
        return self._known[task.key]

    def pending_count(self, task: SubTask, *, cleared: bool) -> int:
        return 0


class _BulkReadOnce(_ReadOnce):
    """The same over a store that also reads many keys at once (a ranking's field)."""

    _store: Any

    def facts_get(self, tasks: Iterable[SubTask], *, cleared: bool) -> dict[tuple[str, ...], FactRecord]:
        tasks = list(tasks)
        unread = [task for task in tasks if task.key not in self._known]
        if unread:
            found = self._store.facts_get(unread, cleared=cleared)
            self._known.update((task.key, found.get(task.key)) for task in unread)
        return {task.key: fact for task in tasks if (fact := self._known[task.key]) is not None}

    def figures_get(self, *args: Any, **kwargs: Any) -> Any:
        return self._store.figures_get(*args, **kwargs)


def _read_once(store: FactStore, keys: Sequence[SubTask], cleared: bool) -> _ReadOnce:
    if isinstance(store, BulkFactStore):
        return _BulkReadOnce(store, keys, cleared)
    return _ReadOnce(store, keys, cleared)
