"""Reading the cue table over a question: `cues_read` takes normalised text and the spans the
glossary took as names, and returns every cue in reading order.

A cue inside a glossary match is part of a name (the 增长率 of a metric called 营收增长率), and an
operator cue inside a longer one is part of it (the 增长率 of 复合增长率); a number a rounding or a
period owns is never a ranking's count or place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.model.operation import OP_RANK, OPERATION_KINDS
from core.parse.cues.kinds import CUE_DECIMALS, YOY
from core.parse.cues.words import RULES


@dataclass(frozen=True)
class Cue:
    """One operator word in the normalised question; `[start, end)` indexes that text."""

    kind: str  # an OP_* kind, CUE_OVER or CUE_DECIMALS
    start: int
    end: int
    text: str  # the word shown in the route reason (同比, 最高, share of …)
    comparison: str = YOY
    order: str | None = None  # rank: asc | desc when the word says so
    top: int | None = None
    position: int | None = None  # rank: the N-th place asked about
    over: str | None = None
    decimals: int | None = None
    relative: bool = False  # stands for the base period (较上年, vs last year)
    weak: bool = False  # an over word that counts only beside a rank or sum cue (最高的地区)
    direction: bool = False  # 从低到高, ascending: orders a ranking, never a clause's own question
    condition: tuple[str, str, bool] | None = None  # 为负, 超过10%: (comparator, threshold, in percent)


def _shown(m: re.Match[str]) -> str:
    groups = m.groupdict()
    return next((groups[name] for name in ("cue", "cue2") if groups.get(name)), m.group(0))


def cues_read(
    normalized: str, *, taken: Sequence[tuple[int, int]], numbers: Sequence[tuple[int, int]] = ()
) -> list[Cue]:
    """Every operator cue in normalised text, in reading order.

    `taken` holds the spans (in `normalized`) of glossary matches that are names: a cue inside
    one is not read. An operator cue inside a longer operator cue is part of that cue (the 增长多少
    of 较2023年增长多少); a list or a rounding cue is always read. A number that belongs to a
    rounding (小数点后两位) or to a period in `numbers` is never a ranking's count or place: a
    ranking cue that overlaps one is not read.
    """
    found: list[Cue] = []
    for kind, pattern, extras in RULES:
        for m in pattern.finditer(normalized):
            start, end = m.span()
            if start == end or any(t_start <= start and end <= t_end for t_start, t_end in taken):
                continue
            found.append(Cue(kind, start, end, _shown(m), **extras(m)))
    owned = [*numbers, *((c.start, c.end) for c in found if c.kind == CUE_DECIMALS)]
    found = [c for c in found if c.kind != OP_RANK or not any(c.start < e and s < c.end for s, e in owned)]
    kept = [
        cue
        for cue in found
        if cue.kind not in OPERATION_KINDS
        or not any(
            other.kind in OPERATION_KINDS
            and other.start <= cue.start
            and cue.end <= other.end
            and (other.end - other.start) > (cue.end - cue.start)
            for other in found
        )
    ]
    return sorted(kept, key=lambda c: (c.start, -(c.end - c.start)))
