"""What a computation runs over: the axes a question listed, the clearance-filtered lookup, and
the members of a sum or a ranking when the question names no list.

`Reader` is the engine's `FactLookup`: the store read through `task_run` with the user's
clearance, so a RESTRICTED fact is simply not found for an uncleared user.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from core.engine import CannotCompute, FormulaMetric, RankPool, Reason, number_display, sensitivity_max
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.intent import ParsedIntent, Part
from core.model.operation import OP_RANK, Operation
from core.model.period import Period
from core.ports import BulkFactStore, FactStore, FiguresHead, FiguresHeadStore
from core.routes.lookup.tools import task_pending, task_run

_PAID = re.compile(
    r"(?<![a-z])(?:paid|payments?|purchases?|expenditures?|capex|repurchases?|spent|outflows?)(?![a-z])|"
    r"支付|支出|开支|购建|购买|回购"
)


def paid_metrics(glossary: GlossarySnapshot) -> frozenset[str]:
    """The metrics that are amounts paid (capex, dividends paid, purchases …), by their names and
    aliases: a cash-flow statement prints them as outflows, in parentheses, and they are stored
    so; an analyst computes with the amount paid."""
    return frozenset(
        code
        for code, info in glossary.metrics.items()
        if any(_PAID.search(word.lower()) for word in (info.name, *glossary.aliases_of("metric", code)))
    )


def paid_notes(
    facts: Iterable[FactRecord], paid: frozenset[str], glossary: GlossarySnapshot, language: str
) -> list[str]:
    """A line per amount paid stored negative that a computation took as paid."""
    notes = []
    for fact in dict.fromkeys(f for f in facts if f.metric in paid and f.value < 0):
        metric = glossary.display("metric", fact.metric, language)
        printed, amount = number_display(fact.value), number_display(-fact.value)
        if language == "en":
            notes.append(
                f"{metric} {fact.period.label} is printed as an outflow ({printed}); "
                f"taken as the amount paid, {amount}."
            )
        else:
            notes.append(f"{metric} {fact.period.label} 以流出列示（{printed}），按支付金额 {amount} 计算。")
    return notes


class Reader:
    """The engine's `FactLookup`: the store read with the user's clearance, each key once."""

    def __init__(self, store: FactStore, cleared: bool, paid: frozenset[str] = frozenset()) -> None:
        self._store, self._cleared = store, cleared
        self._seen: dict[tuple[str, ...], FactRecord | None] = {}
        self.paid = paid  # amounts paid: computed with as paid (`core.engine.operands.operand_resolve`)

    def __call__(self, task: SubTask) -> FactRecord | None:
        if task.key not in self._seen:
            self._seen[task.key] = task_run(self._store, task, cleared=self._cleared)[1]
        return self._seen[task.key]

    def pending(self, task: SubTask) -> int:
        """The candidates for `task` awaiting review that the user may see (`task_pending`)."""
        return task_pending(self._store, task, cleared=self._cleared)

    def prefetch(self, tasks: Iterable[SubTask], formulas: Mapping[str, FormulaMetric]) -> None:
        """Read every key `tasks` can need in one bulk read, when the store offers one: each
        task and, for a formula metric, every metric its formula reaches, for the same entity,
        period and channel. Keys read and not found are remembered as missing."""
        if not isinstance(self._store, BulkFactStore):
            return
        wanted = {
            replace(task, metric=code)
            for task in tasks
            for code in metrics_reached(task.metric, formulas)
            if replace(task, metric=code).key not in self._seen
        }
        if not wanted:
            return
        found = self._store.facts_get(wanted, cleared=self._cleared)
        for task in wanted:
            self._seen[task.key] = found.get(task.key)

    def ranking_head(
        self, first: SubTask, entities: Sequence[str], *, order: str, top: int, formulas: Mapping[str, FormulaMetric]
    ) -> tuple[list[SubTask], RankPool] | None:
        """The head of a long ranking of one stored metric across `entities` (for `first`'s
        period and channel), found from bare figures: every entity whose figure is at or better
        than the `top`-th (ties included), and what the rest of the field contributes
        (`RankPool`). None when the store cannot read bare figures, the metric is a formula
        metric, or no more than `top` figures exist: the caller then ranks every key.

        A store that finds the head itself (`FiguresHeadStore`) is asked for it; otherwise, or
        when it cannot tell, every figure is read and the head is found here."""
        if len(entities) <= top or first.metric in formulas or not isinstance(self._store, BulkFactStore):
            return None
        head = None
        if isinstance(self._store, FiguresHeadStore):
            head = self._store.figures_head(
                first.metric, entities, first.period, first.channel, cleared=self._cleared, order=order, top=top
            )
        if head is None:
            rows = self._store.figures_get(
                first.metric, entities, first.period, first.channel, cleared=self._cleared, order=order
            )
            head = FiguresHead(
                rows=tuple(rows),
                count=len(rows),
                units=frozenset(row[3] for row in rows),
                sensitivity=sensitivity_max({row[2] for row in rows}),
                found=frozenset(row[0] for row in rows) if len(rows) < len(entities) else None,
            )
        rows = head.rows
        if head.count <= top or len(head.units) > 1:
            return None  # short, or in mixed units: the engine ranks every key (and refuses the mix)
        # Every figure tied with the `top`-th is in the head, and so is any the store could only
        # order approximately against it (equal as doubles): the engine then ranks the head exactly.
        boundary = float(Decimal(str(rows[top - 1][1])))
        cut = next((i for i in range(top, len(rows)) if float(Decimal(str(rows[i][1]))) != boundary), len(rows))
        # The head in the order it was listed: the engine's stable sort then orders ties as it
        # would over the whole field.
        position = {entity: i for i, entity in enumerate(entities)}
        leaders = sorted((row[0] for row in rows[:cut]), key=position.__getitem__)

        def task(entity: str) -> SubTask:
            return SubTask(first.metric, entity, first.period, first.channel)

        found = head.found
        pool = RankPool(
            count=head.count,
            missing=tuple(task(e) for e in entities if e not in found) if found is not None else (),
            sensitivity=head.sensitivity,
            outside=task(rows[cut][0]) if cut < len(rows) else None,
        )
        heads = [task(entity) for entity in leaders]
        self.prefetch(heads, formulas)
        return heads, pool


def metrics_reached(code: str, formulas: Mapping[str, FormulaMetric]) -> set[str]:
    """`code` and, when it is a formula metric, every metric code its formula uses, transitively."""
    reached, frontier = {code}, [code]
    while frontier:
        metric = formulas.get(frontier.pop())
        for used in metric.formula.codes if metric is not None else ():
            if used not in reached:
                reached.add(used)
                frontier.append(used)
    return reached


@dataclass(frozen=True)
class Axes:
    """The values the question listed on each axis (a single slot counts as a list of one)."""

    metrics: tuple[str, ...]
    entities: tuple[str, ...]
    periods: tuple[Period, ...]
    channels: tuple[str, ...]

    @classmethod
    def of(cls, intent: ParsedIntent) -> Axes:
        return cls(
            intent.metrics or ((intent.metric,) if intent.metric else ()),
            intent.entities or ((intent.entity,) if intent.entity else ()),
            intent.periods or ((intent.period,) if intent.period else ()),
            intent.channels or (intent.channel,),
        )

    def listed(self, axis: str) -> tuple[Any, ...]:
        """The values listed on `axis` (metric, entity, period or channel)."""
        return {"metric": self.metrics, "entity": self.entities, "period": self.periods, "channel": self.channels}[axis]

    def tasks(self) -> list[SubTask]:
        return [SubTask(m, e, p, c) for m, e, p, c in itertools.product(*self._lists())]

    def _lists(self) -> tuple[tuple[Any, ...], ...]:
        return (self.metrics, self.entities, self.periods, self.channels)


def subtasks_of(intent: ParsedIntent) -> list[SubTask]:
    """The Cartesian product of the listed axes (metrics, entities, periods, channels)."""
    return Axes.of(intent).tasks()


def part_intent(intent: ParsedIntent, part: Part) -> ParsedIntent:
    """The intent of one part: its metrics, operation and slots; a slot the question left to
    the clarifier's assumption stays assumed."""
    return replace(
        intent,
        metric=part.metrics[0],
        metrics=part.metrics,
        entity=part.entities[0] if part.entities else intent.entity,
        entities=part.entities,
        period=part.periods[0] if part.periods else intent.period,
        periods=part.periods,
        channel=part.channels[0] if part.channels else "TOTAL",
        channels=part.channels,
        channel_given=bool(part.channels),
        operation=part.operation,
        decimals=part.decimals,
        parts=(),
    )


@dataclass(frozen=True)
class Context:
    """One computation's glossary, lookup, language and the decimals the question asked for."""

    glossary: GlossarySnapshot
    lookup: Reader
    language: str
    decimals: int | None

    @property
    def options(self) -> dict[str, Any]:
        return {
            "formulas": self.glossary.formula_metrics,
            "decimals": self.decimals,
            "label": self.glossary.display,
        }

    def asked(
        self, task: SubTask, zh: str, en: str, *, period: bool = True, entity: bool = True, channel: bool = True
    ) -> tuple[str, str]:
        """What was asked, in words: `ACME集团 FY2025 营业收入同比增长率` (a refusal's title). A sum
        or a ranking across members names no member (`FY2025 净利润排名`): turn off its axis."""

        def words(language: str) -> str:
            display = self.glossary.display
            shown = channel and task.channel != "TOTAL"
            where = display("channel", task.channel, language) if shown else ""
            metric = display("metric", task.metric, language)
            owner = display("entity", task.entity, language) if entity else ""
            parts = [owner, task.period.label if period else ""]
            head = " ".join(p for p in parts if p)
            if language == "en":
                return " ".join(x for x in (head, metric + (f" ({where})" if where else ""), en) if x)
            return " ".join(x for x in (head, metric) if x) + (f"（{where}）" if where else "") + zh

        return words("zh"), words("en")


def refusal(kind: str, code: str, zh: str, en: str) -> CannotCompute:
    return CannotCompute(kind, Reason(code, zh, en))


def joined(names: Sequence[str], language: str) -> str:
    """`A和B` / `A、B和C`; `A and B` / `A, B and C`."""
    if len(names) < 2:
        return "".join(names)
    last = " and " if language == "en" else "和"
    return (", " if language == "en" else "、").join(names[:-1]) + last + names[-1]


def metrics_joined(context: Context, metrics: Sequence[str]) -> tuple[str, str]:
    names = {lang: [context.glossary.display("metric", m, lang) for m in metrics] for lang in ("zh", "en")}
    return joined(names["zh"], "zh"), joined(names["en"], "en")


def units_refusal(context: Context, kind: str, metrics: Sequence[str], verb: tuple[str, str]) -> CannotCompute | None:
    """Two or more metrics the glossary gives different units, refused before any figure is read:
    `新开门店数（COUNT）和活跃会员数（万人）单位不一致，不能合计。`"""
    glossary = context.glossary
    units = {code: glossary.metrics[code].unit for code in metrics if code in glossary.metrics}
    if len(set(units.values())) < 2:
        return None

    def listed(language: str) -> str:
        def one(code: str) -> str:
            unit = glossary.unit_display(units[code], language) or units[code]
            name = glossary.display("metric", code, language)
            return f"{name} ({unit})" if language == "en" else f"{name}（{unit}）"

        return joined([one(code) for code in units], language)

    return refusal(
        kind,
        "mixed_units",
        f"{listed('zh')}单位不一致，不能{verb[0]}。",
        f"{listed('en')} are in different units, so they cannot be {verb[1]}.",
    )


def members_of(context: Context, axes: Axes, operation: Operation) -> tuple[str, Sequence[Any]] | CannotCompute:
    """What a sum or a ranking runs across: the listed entities, channels or periods, else what
    `operation.over` names (every channel; the entity's subsidiaries by default)."""
    if len(axes.entities) > 1:
        return "entity", axes.entities
    if len(axes.channels) > 1:
        return "channel", axes.channels
    if len(axes.periods) > 1:
        return "period", axes.periods
    glossary = context.glossary
    if operation.over == "channels":
        return "channel", tuple(code for code in glossary.channels if code != "TOTAL")
    owner = axes.entities[0] if axes.entities else glossary.home_entity
    children = tuple(e.code for e in glossary.in_scope_entities() if owner and e.parent == owner)
    if children:
        return "entity", children
    zh, en = ("排名", "a ranking") if operation.kind == OP_RANK else ("合计", "a total")
    return refusal(
        operation.kind,
        "no_members",
        f"没有可用于{zh}的项目；请列出要{zh}的实体或渠道。",
        f"There is nothing to make {en} of; list the entities or channels.",
    )
