"""An amount's change (revenue, profit) split over its parts: each part's change
`part[now] − part[before]` and its share of the whole's change, largest movers first.

Takes a lookup, the whole's key, the period it is compared with and the parts as pairs of keys;
returns a `Decomposition` whose rows sum exactly to the whole's change (what no part holds is a
row of its own, `unallocated`), or None when fewer than two parts have a figure in both periods
or their units differ. A long list is cut after `shown` rows, the rest one row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal, localcontext

from core.engine.formula import PRECISION, Group, Node
from core.engine.operands import FactLookup, Label
from core.engine.why.decomposition import (
    PART,
    PART_SHARE,
    REST,
    REST_LEFT,
    SHOWN,
    UNALLOCATED,
    WHOLE,
    Decomposition,
    Figures,
    Move,
    Pair,
    Ranked,
)
from core.engine.why.numbers import minus, nodes_sum, number_build, ref_node, share_build
from core.engine.why.words import Words
from core.model.facts import FactRecord, SubTask
from core.model.outcome import Computed
from core.model.period import Period


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
    words = Words(label, whole, base)
    moves: list[tuple[SubTask, Node, Computed]] = []
    for part, now, before in listed:
        node = minus(ref_node(now), ref_node(before))
        moves.append(
            (part, node, number_build(node, (now, before), unit, words.part(part), label, part, (dimension, PART, 1)))
        )
    own = now_whole is not None and before_whole is not None
    if now_whole is not None and before_whole is not None:
        whole_node: Node = minus(ref_node(now_whole), ref_node(before_whole))
        whole_pool: list[FactRecord] = [now_whole, before_whole]
    else:  # no figure of the whole's own: its change is the parts' sum
        every = pairs if len(cut) == len(moved) else [(p, lookup(p), lookup(e)) for _, p, e in moved]
        facts = [(n, b) for _, n, b in every if n is not None and b is not None]
        whole_node = minus(
            Group(nodes_sum([ref_node(n) for n, _ in facts])), Group(nodes_sum([ref_node(b) for _, b in facts]))
        )
        whole_pool = [f for pair in facts for f in pair]
    change = number_build(whole_node, whole_pool, unit, words.whole(), label, whole, (dimension, WHOLE, 0))
    rows = [
        Move(
            part,
            move,
            share_build((node, move), (whole_node, change), label, words.share(part), (dimension, PART_SHARE, 1)),
        )
        for part, node, move in moves
    ]
    shown_sum = sum((m.value for _, _, m in moves), Decimal(0))
    rest_cut = len(listed) < moved_count
    if rest_cut or (own and change.value != shown_sum):
        # the rest (or what no part holds), as the whole's change less the rows shown: a short lineage
        rest_node = minus(Group(whole_node), Group(nodes_sum([n for _, n, _ in moves])))
        pool = (*change.inputs, *(f for _, _, m in moves for f in m.inputs))
        name, share_name = (words.rest(), words.rest_share()) if rest_cut else (words.left(), words.left_share())
        if rest_cut and change.value != parts_sum:  # the rest holds what no part holds as well
            name, share_name = words.rest_and_left(), words.rest_and_left_share()
        role = (REST_LEFT if change.value != parts_sum else REST) if rest_cut else UNALLOCATED
        count = moved_count - len(listed)
        rest = number_build(rest_node, pool, unit, name, label, None, (dimension, role, count))
        share = share_build(
            (rest_node, rest), (whole_node, change), label, share_name, (dimension, role + "_share", count)
        )
        rows.append(Move(None, rest, share, count, not rest_cut or change.value != parts_sum))
    return Decomposition(dimension, whole, base, change, tuple(rows), lacking=tuple(lacking), count=moved_count)


def _bare(lookup: FactLookup) -> Figures:
    def read(task: SubTask) -> tuple[Decimal, str] | None:
        fact = lookup(task)
        return (fact.value, fact.unit) if fact is not None else None

    return read
