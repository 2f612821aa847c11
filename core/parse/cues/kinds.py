"""The kinds of cue beside the operations (`OP_*`): what a ranking or a sum runs over (`CUE_OVER`,
with `OVER_*` its lists), the rounding asked for (`CUE_DECIMALS`), a condition on the members
(`CUE_CONDITION`) and a gap between two growth rates (`CUE_RATE_GAP`); and the comparisons a
growth is taken against, a year earlier (`YOY`) or the previous quarter (`QOQ`).
"""

from __future__ import annotations

CUE_OVER = "over"  # a ranking's or a sum's list: 各地区, by channel
CUE_DECIMALS = "decimals"  # 保留两位小数, 2 decimal places
CUE_CONDITION = "condition"  # 为负, 超过10%, faster than 10%: a filter on the members listed or asked
CUE_RATE_GAP = "rate_gap"  # 增速比内地高多少个百分点: two growth rates compared, in points
OVER_ENTITIES = "entities"
OVER_CHANNELS = "channels"
OVER_PERIODS = "periods"  # 哪一年最高: the periods of the range asked
YOY = "yoy"
QOQ = "qoq"
