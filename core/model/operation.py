"""The computation a question asks for over its slots: the operation kinds (`OP_*`; no operation
is the level) and `Operation`, as read from the question's words, with what qualifies it (the
period a growth is compared with, a ranking's order, cut and place, a filter's condition, the
decimals asked for).
"""

from __future__ import annotations

from dataclasses import dataclass

# What a question asks to compute over its slots; `None` on an intent: the level.
OP_GROWTH = "growth"  # `comparison` yoy | qoq: against a year earlier, or the previous period
OP_CAGR = "cagr"  # between the first and last listed years
OP_DIFFERENCE = "difference"  # the absolute change only (较…增加/减少了多少)
OP_RATIO = "ratio"  # metrics[0] / metrics[1] (之比, ratio)
OP_SHARE = "share"  # part of a whole: metric of metric, entity of parent (or of entities[1]),
#                     channel of its entity's TOTAL (占比, 比重, share of)
OP_SUM = "sum"  # across listed entities or channels (合计, 总和, 一共, total)
OP_RANK = "rank"  # across subsidiaries / listed entities / channels (最高, 最低, 排名, 前N, which)
OP_EXCLUDE = "exclude"  # the whole less a part it holds (不含香港, excluding Hong Kong)
OP_FILTER = "filter"  # the members whose figure (or growth) meets a condition (为负的地区有哪些)
OP_AVERAGE = "average"  # the mean over listed periods, entities or channels (平均, average)
OPERATION_KINDS = (
    OP_GROWTH,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    OP_AVERAGE,
    OP_RANK,
    OP_EXCLUDE,
    OP_FILTER,
)


@dataclass(frozen=True)
class Operation:
    """The computation a question asks for, as read from its words.

    `cue` is the question's own words that asked for it (shown in the route reason, e.g.
    `依据：指标 营业收入 · 同比`). `decimals` is what the question asked for (`保留3位小数`),
    None for the default. `over` says what a ranking or a sum runs across when the question
    names no list: `entities` (the home entity's subsidiaries, 各地区 / 哪个地区) or `channels`
    (every channel, 各渠道). `position` is the place a ranking question asks about (排名第二,
    倒数第二, second highest: 2, counted in `order`); None when it asks for the whole order or
    the leader.
    """

    kind: str
    cue: str = ""
    comparison: str = "yoy"  # growth: yoy | qoq
    order: str = "desc"  # rank: desc (最高, 前N) | asc (最低)
    top: int | None = None  # rank: 前N / top N
    decimals: int | None = None
    over: str | None = None  # rank / sum with no list: entities | channels
    position: int | None = None  # rank: the N-th place asked about (第N名, N-th highest)
    ranked: bool = False  # growth: the members' rates ordered by `order` (哪个地区增长最快, 增速排名)
    gap: bool = False  # growth: the gap between two rates in percentage points (增速高多少个百分点)
    # filter: (comparator `<` or `>`, threshold as written, whether it is in percent, whether it is
    # of the growth rate): `营业利润为负` → ("<", "0", False, False); `grew faster than 10%` → (">", "10", True, True)
    condition: tuple[str, str, bool, bool] | None = None
