"""A quantitative why: a figure's change split over the parts the fact table holds for it.

Takes a `FactLookup` (read with the user's clearance), the figure asked about, the period it is
compared with and the parts to split over (its channels, its subsidiaries, its quarters);
returns a `Decomposition`, or None when fewer than two parts have a figure in both periods.

- **An amount** (revenue, profit): each part's change `part[now] − part[before]` and its share
  of the whole's change, largest movers first. The rows sum exactly to the whole's change: what
  no part holds (the parts do not add up to the whole, a part has a figure in one period only)
  is its own row, `unallocated`, never spread over the parts.
- **A ratio** (a margin `N ÷ D`): each part's rate effect `w₀ × (r₁ − r₀)` and mix effect
  `r₁ × (w₁ − w₀)`, where `r` is the part's ratio and `w` its share of the parts' `D`. The
  effects sum to the change of the parts' pooled ratio `ΣN ÷ ΣD` (an identity); where the
  whole's own ratio moved otherwise, the difference is again a row of its own.

Every number is a `Computed` over the facts it lists, so it re-evaluates from its formula
(`computed_reevaluate`). Only facts the lookup returns are read: a part the user may not see
does not exist here, so it changes nothing the user is shown (the caller says the parts are
those it may see). A long list of parts is cut after `shown` rows; the rest is one row,
computed as the whole's change less the rows shown, so its lineage stays short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from decimal import Decimal, localcontext
from typing import Any

from core.engine.build import computed_build
from core.engine.display import RATE_DECIMALS, UNIT_PCT, UNIT_PP
from core.engine.formula import PRECISION, Chain, Group, Node, Number, Ref
from core.engine.operands import FactLookup, Label, qualifier
from core.engine.outcome import CannotCompute, Computed
from core.model.types import FactRecord, Period, SubTask

KIND_CHANGE = "change"  # a part's change, the parts' sum, what no part holds
KIND_SHARE = "share"
KIND_EFFECT = "effect"  # a ratio's rate or mix effect, in percentage points
DIMENSIONS = ("channel", "entity", "quarter")
SHOWN = 10  # rows listed before the rest are one row
_HUNDRED = Number(Decimal(100), "100")
Pair = tuple[SubTask, SubTask]  # a part's key in the period asked, and in the period compared with
Figures = Callable[[SubTask], tuple[Decimal, str] | None]  # a key's bare value and unit


# What a decomposition's number is (`WhyComputed.role`): the whole's change, a part's change or
# share, the rest of a long list, change no part holds, a ratio's effects and their sum.
WHOLE, PART, PART_SHARE, REST, UNALLOCATED = "whole", "part", "part_share", "rest", "unallocated"
REST_LEFT = "rest_left"  # the rest of a long list, holding change no part holds as well
RATE, MIX, EFFECT, POOLED = "rate", "mix", "effect", "pooled"
Tag = tuple[str, str, int]  # dimension, role, how many parts the number stands for


@dataclass(frozen=True)
class WhyComputed(Computed):
    """A decomposition's number, with what it is: its dimension, its role and, for a part, the
    part (`subject`); the rest says how many parts it stands for. The API item carries them
    under `why`, so a page can draw the parts without reading the names."""

    dimension: str = ""
    role: str = ""
    parts: int = 0
    weight: str = ""  # a ratio's effects: the metric its parts are weighted by

    def as_dict(self, language: str = "zh") -> dict[str, Any]:
        item = super().as_dict(language)
        part = self.subject if self.role in (PART, PART_SHARE, RATE, MIX, EFFECT) else None
        item["why"] = {
            "dimension": self.dimension,
            "role": self.role,
            "parts": self.parts,
            "weight": self.weight,
            "part": ({"entity": part.entity, "channel": part.channel, "period": part.period.label} if part else None),
        }
        return item


def _tagged(computed: Computed, tag: Tag) -> WhyComputed:
    values = {f.name: getattr(computed, f.name) for f in fields(Computed)}
    return WhyComputed(**values, dimension=tag[0], role=tag[1], parts=tag[2])


@dataclass(frozen=True)
class Move:
    """One row of an amount's decomposition: a part (or the rest, or what no part holds)."""

    part: SubTask | None  # None: the rest, or the unallocated row
    change: Computed
    share: Computed | None  # of the whole's change; None when that change is zero
    parts: int = 1  # how many parts the row stands for (the rest: more than one)
    unallocated: bool = False  # the row holds change no part holds


@dataclass(frozen=True)
class Effect:
    """One part of a ratio's change: its rate effect and its mix effect, in points."""

    part: SubTask
    rate: Computed
    mix: Computed
    total: Computed  # rate + mix


@dataclass(frozen=True)
class Decomposition:
    dimension: str  # channel | entity | quarter
    whole: SubTask
    base: Period
    change: Computed  # the whole's change: the sum of `rows` (amount) or the ratio's change in points
    rows: tuple[Move, ...] = ()  # an amount: largest movers first, then the rest, then unallocated
    effects: tuple[Effect, ...] = ()  # a ratio: largest effects first
    unallocated: Computed | None = None  # a ratio: the whole's change in points the parts' effects leave
    weight_metric: str = ""  # a ratio: the metric its parts are weighted by (its divisor)
    lacking: tuple[SubTask, ...] = ()  # parts with a figure in one of the two periods only
    count: int = 0  # parts with a figure in both periods

    @property
    def computed(self) -> tuple[Computed, ...]:
        items: list[Computed] = [self.change]
        for row in self.rows:
            items.extend(x for x in (row.change, row.share) if x is not None)
        for effect in self.effects:
            items.extend((effect.rate, effect.mix, effect.total))
        if self.unallocated is not None:
            items.append(self.unallocated)
        return tuple(items)

    @property
    def inputs(self) -> tuple[FactRecord, ...]:
        return tuple(dict.fromkeys(f for c in self.computed for f in c.inputs))


def _ref(fact: FactRecord) -> Ref:
    return Ref(fact.metric, qualifier(fact))


def _minus(now: Node, before: Node) -> Chain:
    return Chain(now, (("-", before),))


def _sum(nodes: Sequence[Node]) -> Node:
    return nodes[0] if len(nodes) == 1 else Chain(nodes[0], tuple(("+", n) for n in nodes[1:]))


def _build(
    node: Node,
    pool: Sequence[FactRecord],
    unit: str,
    name: tuple[str, str],
    label: Label,
    subject: SubTask | None,
    tag: Tag,
) -> WhyComputed:
    exact = unit not in (UNIT_PCT, UNIT_PP)
    built = computed_build(
        KIND_CHANGE if exact else KIND_EFFECT,
        node,
        pool,
        unit=unit,
        name=name,
        label=label,
        decimals=None if exact else RATE_DECIMALS,
        subject=subject,
    )
    if isinstance(built, CannotCompute):  # only a zero divisor, which every caller rules out first
        raise ValueError(built.reason.en)
    return _tagged(built, tag)


def _share(
    move: tuple[Node, Computed], whole: tuple[Node, Computed], label: Label, words: tuple[str, str], tag: Tag
) -> WhyComputed | None:
    if whole[1].value.is_zero():
        return None
    node = Chain(Group(move[0]), (("/", Group(whole[0])),))
    built = computed_build(
        KIND_SHARE,
        node,
        (*move[1].inputs, *whole[1].inputs),
        unit=UNIT_PCT,
        name=words,
        label=label,
        decimals=1,
        subject=move[1].subject,
    )
    return None if isinstance(built, CannotCompute) else _tagged(built, tag)


def amount_decompose(
    lookup: FactLookup,
    whole: SubTask,
    base: Period,
    parts: Sequence[Pair],
    dimension: str,
    *,
    label: Label,
    shown: int = SHOWN,
    figures: Figures | None = None,
    prefetch: Callable[[Sequence[SubTask]], None] | None = None,
    ranked: Ranked | None = None,
) -> Decomposition | None:
    """An amount's change over `parts`: each a part's key now and the key it is compared with.

    With `figures` (bare values and units, read in bulk with the same clearance), every part is
    ranked and summed from them, and only the rows listed read their facts through `lookup`
    (announced first to `prefetch`, which may read them in one go). With `ranked` (holding the
    first `shown + 1` changes at least), the parts were ranked and summed elsewhere: it stands
    for every part's figures when the whole has figures of its own."""
    now_whole, before_whole = lookup(whole), lookup(SubTask(whole.metric, whole.entity, base, whole.channel))
    moved: list[tuple[Decimal, SubTask, SubTask]]
    lacking: list[SubTask]
    units: set[str]
    head = None
    if ranked is not None and now_whole is not None and before_whole is not None:
        head = ranked if len(ranked.moved) >= min(ranked.count, shown + 1) else None
    if head is not None:
        moved, lacking, units = list(head.moved), list(head.lacking), set(head.units)
        parts_sum, moved_count = head.total, head.count
    else:
        read: Figures = figures or _bare(lookup)
        moved, lacking, units = [], [], set()
        with localcontext() as ctx:
            ctx.prec = PRECISION
            for part, earlier in parts:
                now, before = read(part), read(earlier)
                if now is not None and before is not None:
                    moved.append((now[0] - before[0], part, earlier))
                    units.update((now[1], before[1]))
                elif now is not None or before is not None:
                    lacking.append(part)
            parts_sum = sum((m[0] for m in moved), Decimal(0))
        moved_count = len(moved)
    if now_whole is not None and before_whole is not None:
        units |= {now_whole.unit, before_whole.unit}
    if moved_count < 2 or len(units) != 1:
        return None
    (unit,) = units
    moved.sort(key=lambda m: (-abs(m[0]), m[1].entity, m[1].channel, m[1].period.sort_key))
    cut = moved if moved_count <= shown + 1 else moved[:shown]
    if prefetch is not None and (figures is not None or head is not None):
        prefetch([key for _, part, earlier in cut for key in (part, earlier)])
    pairs: list[tuple[SubTask, FactRecord, FactRecord]] = []
    for _, part, earlier in cut:
        now_fact, before_fact = lookup(part), lookup(earlier)
        if now_fact is None or before_fact is None:  # gone since the figures were read
            return None
        pairs.append((part, now_fact, before_fact))
    listed = pairs
    words = _Words(label, whole, base)
    moves: list[tuple[SubTask, Node, Computed]] = []
    for part, now, before in listed:
        node = _minus(_ref(now), _ref(before))
        moves.append(
            (part, node, _build(node, (now, before), unit, words.part(part), label, part, (dimension, PART, 1)))
        )
    own = now_whole is not None and before_whole is not None
    if now_whole is not None and before_whole is not None:
        whole_node: Node = _minus(_ref(now_whole), _ref(before_whole))
        whole_pool: list[FactRecord] = [now_whole, before_whole]
    else:  # no figure of the whole's own: its change is the parts' sum
        every = pairs if len(cut) == len(moved) else [(p, lookup(p), lookup(e)) for _, p, e in moved]
        facts = [(n, b) for _, n, b in every if n is not None and b is not None]
        whole_node = _minus(Group(_sum([_ref(n) for n, _ in facts])), Group(_sum([_ref(b) for _, b in facts])))
        whole_pool = [f for pair in facts for f in pair]
    change = _build(whole_node, whole_pool, unit, words.whole(), label, whole, (dimension, WHOLE, 0))
    rows = [
        Move(
            part, move, _share((node, move), (whole_node, change), label, words.share(part), (dimension, PART_SHARE, 1))
        )
        for part, node, move in moves
    ]
    shown_sum = sum((m.value for _, _, m in moves), Decimal(0))
    rest_cut = len(listed) < moved_count
    if rest_cut or (own and change.value != shown_sum):
        # the rest (or what no part holds), as the whole's change less the rows shown: a short lineage
        rest_node = _minus(Group(whole_node), Group(_sum([n for _, n, _ in moves])))
        pool = (*change.inputs, *(f for _, _, m in moves for f in m.inputs))
        name, share_name = (words.rest(), words.rest_share()) if rest_cut else (words.left(), words.left_share())
        if rest_cut and change.value != parts_sum:  # the rest holds what no part holds as well
            name, share_name = words.rest_and_left(), words.rest_and_left_share()
        role = (REST_LEFT if change.value != parts_sum else REST) if rest_cut else UNALLOCATED
        count = moved_count - len(listed)
        rest = _build(rest_node, pool, unit, name, label, None, (dimension, role, count))
        share = _share((rest_node, rest), (whole_node, change), label, share_name, (dimension, role + "_share", count))
        rows.append(Move(None, rest, share, count, not rest_cut or change.value != parts_sum))
    return Decomposition(dimension, whole, base, change, tuple(rows), lacking=tuple(lacking), count=moved_count)


@dataclass(frozen=True)
class Ranked:
    """A long list of parts ranked and summed elsewhere (a database), as `amount_decompose`
    would from every part's figures: `moved` holds `(change, part, earlier)` of at least the
    first `top` parts asked for (largest |change| first, ties by entity code), `count` how
    many parts have a figure in both periods, `units` theirs, `total` the exact sum of their
    changes, and `lacking` the parts with a figure in one period only, in the parts' order."""

    moved: tuple[tuple[Decimal, SubTask, SubTask], ...]
    count: int
    units: frozenset[str]
    lacking: tuple[SubTask, ...]
    total: Decimal


def _bare(lookup: FactLookup) -> Figures:
    def read(task: SubTask) -> tuple[Decimal, str] | None:
        fact = lookup(task)
        return (fact.value, fact.unit) if fact is not None else None

    return read


def ratio_decompose(
    lookup: FactLookup,
    whole: SubTask,
    base: Period,
    parts: Sequence[Pair],
    dimension: str,
    *,
    numerator: str | None,
    divisor: str,
    label: Label,
) -> Decomposition | None:
    """A ratio's change in points over `parts`: rate and mix effects, weighted by `divisor`.

    With `numerator`, a part's ratio is `numerator ÷ divisor` (a formula metric); without, it is
    the part's stored figure of the ratio itself, in percent. The effects are reconciled with
    the whole's own change in points, from its own figures when it has them."""
    rows: list[tuple[SubTask, dict[str, FactRecord]]] = []
    for part, earlier in parts:
        figures: dict[str, FactRecord] = {}
        for when, key in (("1", part), ("0", earlier)):
            weight = lookup(SubTask(divisor, key.entity, key.period, key.channel))
            rate = lookup(SubTask(numerator or key.metric, key.entity, key.period, key.channel))
            if weight is None or rate is None or weight.value <= 0:
                break
            figures["d" + when], figures["r" + when] = weight, rate
        else:
            rows.append((part, figures))
    if len(rows) < 2:
        return None

    def rate_node(f: dict[str, FactRecord], when: str) -> Node:
        if numerator is not None:
            return Group(Chain(_ref(f["r" + when]), (("/", _ref(f["d" + when])),)))
        return Group(Chain(_ref(f["r" + when]), (("/", _HUNDRED),)))

    totals = {when: Group(_sum([_ref(f["d" + when]) for _, f in rows])) for when in ("0", "1")}
    pool = [x for _, f in rows for x in f.values()]
    words = _Words(label, whole, base)
    effects: list[Effect] = []
    nodes: list[Node] = []
    for part, f in rows:
        w0 = Chain(_ref(f["d0"]), (("/", totals["0"]),))
        w1 = Chain(_ref(f["d1"]), (("/", totals["1"]),))
        rate = Chain(Group(w0), (("*", Group(_minus(rate_node(f, "1"), rate_node(f, "0")))), ("*", _HUNDRED)))
        mix = Chain(rate_node(f, "1"), (("*", Group(_minus(w1, w0))), ("*", _HUNDRED)))
        rate_c = _build(rate, pool, UNIT_PP, words.rate_effect(part), label, part, (dimension, RATE, 1))
        mix_c = _build(mix, pool, UNIT_PP, words.mix_effect(part), label, part, (dimension, MIX, 1))
        total = Chain(Group(rate), (("+", Group(mix)),))
        nodes.append(total)
        total_c = _build(total, pool, UNIT_PP, words.effect(part), label, part, (dimension, EFFECT, 1))
        effects.append(Effect(part, *(replace(c, weight=divisor) for c in (rate_c, mix_c, total_c))))
    pooled_node = _sum([Group(n) for n in nodes])
    pooled = _build(pooled_node, pool, UNIT_PP, words.pooled(), label, whole, (dimension, POOLED, len(rows)))
    effects.sort(key=lambda e: (-abs(e.total.value), e.part.entity, e.part.channel))
    own = _own_points(lookup, whole, base, numerator, divisor)
    change, unallocated = pooled, None
    if own is not None:
        own_node, own_facts = own
        change = _build(own_node, own_facts, UNIT_PP, words.whole(), label, whole, (dimension, WHOLE, 0))
        if not _same(change.value, pooled.value):
            node = _minus(Group(own_node), Group(pooled_node))
            unallocated = _build(
                node, (*own_facts, *pool), UNIT_PP, words.left(), label, None, (dimension, UNALLOCATED, 0)
            )
    return Decomposition(
        dimension,
        whole,
        base,
        change,
        effects=tuple(effects),
        unallocated=unallocated,
        weight_metric=divisor,
        count=len(rows),
    )


def _own_points(
    lookup: FactLookup, whole: SubTask, base: Period, numerator: str | None, divisor: str
) -> tuple[Node, list[FactRecord]] | None:
    """The whole's own change in points: its stored figures, or its `numerator ÷ divisor`."""
    keys = (whole, SubTask(whole.metric, whole.entity, base, whole.channel))
    if numerator is None:
        now, before = (lookup(k) for k in keys)
        if now is None or before is None:
            return None
        return _minus(_ref(now), _ref(before)), [now, before]
    figures = [lookup(SubTask(m, k.entity, k.period, k.channel)) for k in keys for m in (numerator, divisor)]
    if any(f is None or (i % 2 and f.value <= 0) for i, f in enumerate(figures)):
        return None
    n1, d1, n0, d0 = (f for f in figures if f is not None)
    node = Chain(
        Group(_minus(Chain(_ref(n1), (("/", _ref(d1)),)), Chain(_ref(n0), (("/", _ref(d0)),)))), (("*", _HUNDRED),)
    )
    return node, [n1, d1, n0, d0]


def _same(a: Decimal, b: Decimal) -> bool:
    """Equal to far below any display: a pooled ratio's quotients are rounded at 34 digits."""
    with localcontext() as context:
        context.prec = PRECISION
        return abs(a - b) <= max(abs(a), abs(b), Decimal(1)) * Decimal("1e-28")


class _Words:
    """The names of a decomposition's numbers, in both languages."""

    def __init__(self, label: Label, whole: SubTask, base: Period) -> None:
        self.label, self.subject, self.base = label, whole, base

    def _part(self, part: SubTask, language: str) -> str:
        if part.channel != self.subject.channel:
            return self.label("channel", part.channel, language)
        if part.entity != self.subject.entity:
            return self.label("entity", part.entity, language)
        return part.period.label

    def _span(self) -> str:
        return f"{self.subject.period.label} vs {self.base.label}"

    def part(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 变动（{self._span()}）", f"{self._part(part, 'en')} change ({self._span()})"

    def share(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 占总变动", f"{self._part(part, 'en')} share of the change"

    def whole(self) -> tuple[str, str]:
        zh = self.label("entity", self.subject.entity, "zh") + self.label("metric", self.subject.metric, "zh")
        en = self.label("entity", self.subject.entity, "en") + " " + self.label("metric", self.subject.metric, "en")
        return f"{zh} 变动（{self._span()}）", f"{en} change ({self._span()})"

    def rest(self) -> tuple[str, str]:
        return "其余部分合计变动", "the other parts' change"

    def rest_share(self) -> tuple[str, str]:
        return "其余部分占总变动", "the other parts' share of the change"

    def left(self) -> tuple[str, str]:
        return "未归入以上部分的变动", "change not in the parts above"

    def rest_and_left(self) -> tuple[str, str]:
        return "其余部分及未归入部分的变动", "the other parts' change and change in no part"

    def rest_and_left_share(self) -> tuple[str, str]:
        return "其余及未归入部分占总变动", "the other and unallocated share of the change"

    def left_share(self) -> tuple[str, str]:
        return "未归入部分占总变动", "share not in the parts above"

    def rate_effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 率效应", f"{self._part(part, 'en')} rate effect"

    def mix_effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 结构效应", f"{self._part(part, 'en')} mix effect"

    def effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 合计影响", f"{self._part(part, 'en')} total effect"

    def pooled(self) -> tuple[str, str]:
        return "各部分合计影响", "the parts' effects together"
