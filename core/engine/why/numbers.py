"""How each number of a decomposition is built: a formula tree over the facts it lists, made a
`Computed` (`computed_build`) and tagged with its dimension, role and count (`WhyComputed`), so
it re-evaluates from its formula and its inputs like any computed value. A change keeps its
exact value; an effect in percentage points, and a share of the whole's change, are shown
rounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from decimal import Decimal

from core.engine.build import computed_build
from core.engine.display import RATE_DECIMALS
from core.engine.formula import Chain, Group, Node, Number, Ref
from core.engine.operands import Label, qualifier
from core.engine.why.decomposition import KIND_CHANGE, KIND_EFFECT, KIND_SHARE, Tag, WhyComputed
from core.model.facts import FactRecord, SubTask
from core.model.outcome import UNIT_PCT, UNIT_PP, CannotCompute, Computed

HUNDRED = Number(Decimal(100), "100")


def _tagged(computed: Computed, tag: Tag) -> WhyComputed:
    values = {f.name: getattr(computed, f.name) for f in fields(Computed)}
    return WhyComputed(**values, dimension=tag[0], role=tag[1], parts=tag[2])


def ref_node(fact: FactRecord) -> Ref:
    return Ref(fact.metric, qualifier(fact))


def minus(now: Node, before: Node) -> Chain:
    return Chain(now, (("-", before),))


def nodes_sum(nodes: Sequence[Node]) -> Node:
    return nodes[0] if len(nodes) == 1 else Chain(nodes[0], tuple(("+", n) for n in nodes[1:]))


def number_build(
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


def share_build(
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
