"""The operator cue table: Chinese and English words for each operation, for what a
ranking or a sum runs over, and for rounding.

`RULES` is one ordered list of (kind, compiled pattern, extras): the order matters where one
word holds another (CAGR before growth), and each rule's extras say what its match adds to the
cue (an order, a count, a place, a comparison). It joins the rules of a change, of a part and a
total, of a ranking and of rounding, in that order. `core.parse.cues.read` reads it over a question.
"""

from __future__ import annotations

import re

from core.parse.cues.aggregate_rules import AGGREGATE_RULES
from core.parse.cues.change_rules import CHANGE_RULES
from core.parse.cues.rank_rules import RANK_RULES
from core.parse.cues.rounding_rules import ROUNDING_RULES

RULES = [
    (kind, re.compile(pattern), extras)
    for kind, pattern, extras in (*CHANGE_RULES, *AGGREGATE_RULES, *RANK_RULES, *ROUNDING_RULES)
]

# The operator words as written, for reading a mistyped one (`core.parse.intent.typos`): each is read
# as a cue on its own or before 了多少 (tested).
OPERATOR_WORDS_ZH = frozenset(
    " ".join(
        (
            "同比 环比 增长率 增速 增幅 涨幅 跌幅 增长 增加 减少 下降 下滑 上升 提高 降低 变化 变动",
            "占比 比重 份额 合计 总和 之和 总计 共计 汇总 复合增长率 年均增长率",
            "排名 排序 排行 最高 最低 最大 最小 最多 最少 差额 差值 差距 比值 比率",
        )
    ).split()
)
OPERATOR_WORDS_EN = frozenset(
    " ".join(
        (
            "growth increase decrease share highest lowest largest smallest ranking combined total",
            "difference proportion",
        )
    ).split()
)
