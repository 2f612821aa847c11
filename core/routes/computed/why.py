"""The quantitative why of a figure's change: the change, then its parts, before any passage.

Takes the intent of a why-question about one figure (`为什么下降`, `what drove`, `點解跌咗`),
the glossary, the fact store and the user's clearance; returns a `WhyAnswer` (its lines, every
`Computed` and every input fact), or None when the figure or the one it is compared with is
not found (the caller then answers as before).

The figure is compared with a year earlier (`环比`: the previous period). Its change is split
over every dimension the fact table holds for it (`core.engine.why`): its channels, its
subsidiaries (the glossary's children of the entity), the quarters of a year. An amount gives
each part's change and share; a ratio gives each part's rate and mix effects, weighted by its
divisor: a formula metric's own (`GROSS_PROFIT / REVENUE`), or for a stored percentage the
amount metric whose quotient the whole's figures print in both periods (found, never assumed).
Only facts the user may see are read, and the answer always says the parts are those the user
may see, so a hidden part is neither shown nor hinted at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from typing import overload

from core.engine import QOQ, YOY, Change, Computed, comparison_period, growth_compute
from core.engine.formula import PRECISION
from core.engine.why.amount import amount_decompose
from core.engine.why.decomposition import SHOWN, Decomposition, Figures, Pair, Ranked
from core.engine.why.ratio import ratio_decompose
from core.glossary import AGGREGATION_NONE, GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.intent import ParsedIntent
from core.model.period import Period
from core.ports import BulkFactStore, ChangesHeadStore, FactStore
from core.routes.computed.render import change_lines
from core.routes.computed.subjects import Reader
from core.routes.computed.why_ratio import ratio_basis
from core.routes.computed.why_text import decomposition_lines, direction_note, visible_note
from core.routes.render import is_en

TOP_MOVERS = 1  # the parts whose names steer the passages that follow


@dataclass(frozen=True)
class WhyAnswer:
    lines: tuple[str, ...]
    computed: tuple[Computed, ...]
    facts: tuple[FactRecord, ...]
    movers: tuple[SubTask, ...]  # the parts that moved most, largest first


def why_whole(intent: ParsedIntent, glossary: GlossarySnapshot) -> tuple[ParsedIntent, str | None]:
    """A why asked with its parts listed (`拆分一下各子公司`, `按渠道`, `by region`) is a why of
    the whole they make up, split that way: every child of one entity, or every channel."""
    entities = intent.entities
    if len(entities) > 1:
        parents = {glossary.entities[e].parent for e in entities if e in glossary.entities}
        parent = next(iter(parents)) if len(parents) == 1 else None
        if parent and set(entities) == {c.code for c in glossary.children(parent)}:
            return replace(intent, entity=parent, entities=(parent,)), "entity"
    channels = {c for c in glossary.channels if c != "TOTAL"}
    if len(intent.channels) > 1 and set(intent.channels) == channels:
        return replace(intent, channel="TOTAL", channels=("TOTAL",), channel_given=False), "channel"
    return intent, None


def why_answer(
    intent: ParsedIntent,
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    cleared: bool,
    dimension: str | None = None,
) -> WhyAnswer | None:
    """The why of `intent`'s figure; `dimension` keeps only that split (`why_whole`)."""
    if intent.metric is None or intent.entity is None or intent.period is None:
        return None
    # over several periods (`近两年为什么下滑`), the last one's change: where the span ends
    period = max(intent.periods, key=lambda p: p.sort_key) if len(intent.periods) > 1 else intent.period
    task = SubTask(intent.metric, intent.entity, period, intent.channel or "TOTAL")
    operator = QOQ if intent.operation is not None and intent.operation.comparison == QOQ else YOY
    base = comparison_period(task.period, operator)
    lookup = Reader(store, cleared)
    formulas = glossary.formula_metrics
    label = glossary.display
    change = growth_compute(lookup, task, operator, formulas=formulas, label=label)
    language = intent.language
    if not isinstance(change, Change):
        # the figure is found (the caller's structured part), the one it is compared with is not
        said = change.reason.text(language)
        lead = "The change cannot be given: " if is_en(language) else "无法给出变动："
        return WhyAnswer((lead + said,), (), (), ())
    words = ("环比", "QoQ") if operator == QOQ else ("同比", "YoY")
    # the change, unless the structured part already computed it (`为什么同比增长`)
    shown = intent.operation is not None and intent.operation.kind == "growth"
    lines = [] if shown else [*change_lines(change, words, glossary, language)[:2]]
    lines.extend(direction_note(intent.raw_question, change.change.value, language))
    decompositions = [
        d for d in _decompositions(lookup, task, base, glossary, store, cleared) if dimension in (None, d.dimension)
    ]
    if decompositions:
        lines.append(visible_note(language))
    for decomposition in decompositions:
        lines.extend(decomposition_lines(decomposition, glossary, language))
    if not decompositions:
        lines.append(
            "The fact table holds no parts of this figure in both periods to split the change over."
            if is_en(language)
            else "事实库中没有该数字在两个期间都有数据的组成部分，无法拆分变动。"
        )
    computed = [*change.computed, *(c for d in decompositions for c in d.computed if c is not d.change)]
    facts = tuple(dict.fromkeys([*change.inputs, *(f for c in computed for f in c.inputs)]))
    return WhyAnswer(tuple(lines), tuple(dict.fromkeys(computed)), facts, _movers(decompositions))


def _pairs(parts: Sequence[SubTask], before: Period) -> list[Pair]:
    return [(p, SubTask(p.metric, p.entity, before, p.channel)) for p in parts]


class _EntityPairs(Sequence[Pair]):
    """The pairs of a split over entities (a whole's subsidiaries), each built when read: a split
    over thousands that the database ranks (`_ranked`) builds only the rows it lists."""

    def __init__(self, task: SubTask, base: Period, entities: Sequence[str]) -> None:
        self.task, self.base, self.entities = task, base, tuple(entities)

    def pair(self, entity: str) -> Pair:
        now = SubTask(self.task.metric, entity, self.task.period, self.task.channel)
        return now, SubTask(now.metric, entity, self.base, now.channel)

    def __len__(self) -> int:
        return len(self.entities)

    @overload
    def __getitem__(self, index: int) -> Pair: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Pair]: ...
    def __getitem__(self, index: int | slice) -> Pair | Sequence[Pair]:
        if isinstance(index, slice):
            return [self.pair(e) for e in self.entities[index]]
        return self.pair(self.entities[index])


def _dimensions(task: SubTask, base: Period, glossary: GlossarySnapshot) -> list[tuple[str, Sequence[Pair]]]:
    """The ways the fact table can split `task`: channels, subsidiaries, quarters of a year."""
    found: list[tuple[str, Sequence[Pair]]] = []
    if task.channel == "TOTAL":
        channels = [SubTask(task.metric, task.entity, task.period, c) for c in glossary.channels if c != "TOTAL"]
        found.append(("channel", _pairs(channels, base)))
    found.append(("entity", _EntityPairs(task, base, [c.code for c in glossary.children(task.entity)])))
    if task.period.period_type == "FY" and base.period_type == "FY":
        quarters = [
            (
                replace(task, period=Period("QUARTER", f"{task.period.year}Q{q}")),
                replace(task, period=Period("QUARTER", f"{base.year}Q{q}")),
            )
            for q in range(1, 5)
        ]
        found.append(("quarter", quarters))
    return [(name, pairs) for name, pairs in found if len(pairs) >= 2]


def _decompositions(
    lookup: Reader, task: SubTask, base: Period, glossary: GlossarySnapshot, store: FactStore, cleared: bool
) -> list[Decomposition]:
    dimensions = _dimensions(task, base, glossary)
    metric = glossary.metrics.get(task.metric)
    ratio = metric is not None and metric.adds_up == AGGREGATION_NONE
    short = [key for _, pairs in dimensions if len(pairs) <= SHOWN + 1 for pair in pairs for key in pair]
    lookup.prefetch(short, {})
    found: list[Decomposition] = []
    for dimension, pairs in dimensions:
        if ratio:
            basis = ratio_basis(lookup, task, base, glossary)
            if basis is None:
                return []
            numerator, divisor = basis
            if numerator is not None:  # a formula metric: its parts' figures are its terms'
                lookup.prefetch(
                    [replace(k, metric=m) for pair in pairs for k in pair for m in (numerator, divisor)], {}
                )
            made = ratio_decompose(
                lookup,
                task,
                base,
                pairs,
                dimension,
                numerator=numerator,
                divisor=divisor,
                label=glossary.display,
            )
        else:
            ranked = _ranked(lookup, store, cleared, task, base, pairs)
            figures = _figures(store, cleared, pairs) if ranked is None else None
            made = amount_decompose(
                lookup,
                task,
                base,
                pairs,
                dimension,
                label=glossary.display,
                figures=figures,
                prefetch=lambda keys: lookup.prefetch(keys, {}),
                ranked=ranked,
            )
        if made is not None:
            found.append(made)
    # the split whose parts add up to the whole first (no unallocated row), then by how many parts
    found.sort(key=lambda d: (_left(d) is not None, -d.count))
    return found


def _figures(store: FactStore, cleared: bool, pairs: Sequence[Pair]) -> Figures | None:
    """A long list of parts' bare figures in two bulk reads (one per period), when the store
    offers them and the parts differ only by entity: what ranks and sums 5,000 subsidiaries."""
    if len(pairs) <= SHOWN + 1 or not isinstance(pairs, _EntityPairs) or not isinstance(store, BulkFactStore):
        return None
    now, entities = pairs.task, pairs.entities
    table: dict[tuple[str, ...], tuple[Decimal, str]] = {}
    for period in (now.period, pairs.base):
        rows = store.figures_get(now.metric, entities, period, now.channel, cleared=cleared, order="desc")
        for entity, value, _, unit in rows:
            table[SubTask(now.metric, entity, period, now.channel).key] = (Decimal(str(value)), unit)
    return lambda task: table.get(task.key)


def _ranked(
    lookup: Reader, store: FactStore, cleared: bool, whole: SubTask, base: Period, pairs: Sequence[Pair]
) -> Ranked | None:
    """A long list of parts that differ only by entity, ranked and summed by the store in the
    database (`ChangesHeadStore`), when the whole has figures of its own (else the engine sums
    the parts' facts): the same `Ranked` that `amount_decompose` would make from every part's
    figures, without reading them. None when the store cannot tell it; `_figures` then reads."""
    if len(pairs) <= SHOWN + 1 or not isinstance(pairs, _EntityPairs) or not isinstance(store, ChangesHeadStore):
        return None
    if lookup(whole) is None or lookup(SubTask(whole.metric, whole.entity, base, whole.channel)) is None:
        return None
    now = pairs.task
    head = store.changes_head(
        now.metric, pairs.entities, now.period, pairs.base, now.channel, cleared=cleared, top=SHOWN + 1
    )
    if head is None:
        return None
    with localcontext() as context:
        context.prec = PRECISION
        moved = tuple((n - b, *pairs.pair(entity)) for entity, n, b, *_ in head.rows)
    lacking = tuple(pairs.pair(e)[0] for e in pairs.entities if e in head.lacking) if head.lacking else ()
    return Ranked(moved, head.count, head.units, lacking, head.total)


def _left(decomposition: Decomposition) -> Computed | None:
    if decomposition.unallocated is not None:
        return decomposition.unallocated
    return next((r.change for r in decomposition.rows if r.unallocated), None)


def _movers(decompositions: Sequence[Decomposition]) -> tuple[SubTask, ...]:
    if not decompositions:
        return ()
    first = decompositions[0]
    parts = [e.part for e in first.effects] or [r.part for r in first.rows if r.part is not None]
    return tuple(parts[:TOP_MOVERS])
