"""A ratio's change (a margin `N ÷ D`) split over its parts, in percentage points: each part's rate
effect `w₀ × (r₁ − r₀)` and mix effect `r₁ × (w₁ − w₀)`, where `r` is the part's ratio and `w` its
share of the parts' `D`.

Takes a lookup, the whole's key, the period it is compared with, the parts as pairs of keys and
the ratio's divisor (and numerator, for a formula metric); returns a `Decomposition` whose
effects sum to the change of the parts' pooled ratio `ΣN ÷ ΣD` (an identity), with what the
whole's own ratio moved otherwise as a row of its own, or None when fewer than two parts have
both figures in both periods.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal, localcontext

from core.engine.formula import PRECISION, Chain, Group, Node
from core.engine.operands import FactLookup, Label
from core.engine.why.decomposition import EFFECT, MIX, POOLED, RATE, UNALLOCATED, WHOLE, Decomposition, Effect, Pair
from core.engine.why.numbers import HUNDRED, minus, nodes_sum, number_build, ref_node
from core.engine.why.words import Words
from core.model.facts import FactRecord, SubTask
from core.model.outcome import UNIT_PP
from core.model.period import Period


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
            return Group(Chain(ref_node(f["r" + when]), (("/", ref_node(f["d" + when])),)))
        return Group(Chain(ref_node(f["r" + when]), (("/", HUNDRED),)))

    totals = {when: Group(nodes_sum([ref_node(f["d" + when]) for _, f in rows])) for when in ("0", "1")}
    pool = [x for _, f in rows for x in f.values()]
    words = Words(label, whole, base)
    effects: list[Effect] = []
    nodes: list[Node] = []
    for part, f in rows:
        w0 = Chain(ref_node(f["d0"]), (("/", totals["0"]),))
        w1 = Chain(ref_node(f["d1"]), (("/", totals["1"]),))
        rate = Chain(Group(w0), (("*", Group(minus(rate_node(f, "1"), rate_node(f, "0")))), ("*", HUNDRED)))
        mix = Chain(rate_node(f, "1"), (("*", Group(minus(w1, w0))), ("*", HUNDRED)))
        rate_c = number_build(rate, pool, UNIT_PP, words.rate_effect(part), label, part, (dimension, RATE, 1))
        mix_c = number_build(mix, pool, UNIT_PP, words.mix_effect(part), label, part, (dimension, MIX, 1))
        total = Chain(Group(rate), (("+", Group(mix)),))
        nodes.append(total)
        total_c = number_build(total, pool, UNIT_PP, words.effect(part), label, part, (dimension, EFFECT, 1))
        effects.append(Effect(part, *(replace(c, weight=divisor) for c in (rate_c, mix_c, total_c))))
    pooled_node = nodes_sum([Group(n) for n in nodes])
    pooled = number_build(pooled_node, pool, UNIT_PP, words.pooled(), label, whole, (dimension, POOLED, len(rows)))
    effects.sort(key=lambda e: (-abs(e.total.value), e.part.entity, e.part.channel))
    own = _own_points(lookup, whole, base, numerator, divisor)
    change, unallocated = pooled, None
    if own is not None:
        own_node, own_facts = own
        change = number_build(own_node, own_facts, UNIT_PP, words.whole(), label, whole, (dimension, WHOLE, 0))
        if not _same(change.value, pooled.value):
            node = minus(Group(own_node), Group(pooled_node))
            unallocated = number_build(
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
        return minus(ref_node(now), ref_node(before)), [now, before]
    figures = [lookup(SubTask(m, k.entity, k.period, k.channel)) for k in keys for m in (numerator, divisor)]
    if any(f is None or (i % 2 and f.value <= 0) for i, f in enumerate(figures)):
        return None
    n1, d1, n0, d0 = (f for f in figures if f is not None)
    node = Chain(
        Group(minus(Chain(ref_node(n1), (("/", ref_node(d1)),)), Chain(ref_node(n0), (("/", ref_node(d0)),)))),
        (("*", HUNDRED),),
    )
    return node, [n1, d1, n0, d0]


def _same(a: Decimal, b: Decimal) -> bool:
    """Equal to far below any display: a pooled ratio's quotients are rounded at 34 digits."""
    with localcontext() as context:
        context.prec = PRECISION
        return abs(a - b) <= max(abs(a), abs(b), Decimal(1)) * Decimal("1e-28")
