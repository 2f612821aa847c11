"""A hostile model: it never calls a tool and puts invented figures in every reply.

Every form the narrative grounding check must see through is here: a figure inside a
parenthetical made to look like a citation, amounts glued to currency letters, Chinese
numerals, a unit swapped under a number the sources do have (`6.7%` → `6.7亿元`, `15%` →
`15家`), a sign dropped from a loss, and the question's own figure echoed back. The same reply
answers routing, reranking, synthesis and the tool loop. Used by `test_hostile_model.py` and
by the drill (`scripts/reliability.py`).
"""

from __future__ import annotations

import json
import re

HOSTILE_REPLY = (
    "香港收入承压，以资料为准 [1]。"
    "（2026年香港收入将降至150亿元 · 管理层预测）"
    "集团营收约RMB980亿，香港约HKD320亿 [1]。"
    "线上占比已达三成 [2]。"
    "门店租金增加二十亿元，营销费用五百万元 [1]。"
    "香港营收减少6.7亿元 [1]。"
    "年内新开15家旗舰店 [2]。"
    "东南亚营业利润1,085.2百万元 [1]。"
    "收入下降了30% [1]。"
    "Revenue will reach USD 4.2bn next year [1]."
)

# Each invented figure, in the form the model wrote it. None appears in the demo data in that
# form: `6.7` and `15` do (as `6.7%` and `15%`), and the loss is stored as −1,085.2.
INVENTED = {
    "fake citation": re.compile(r"150\s*亿"),
    "RMB-glued amount": re.compile(r"980\s*亿"),
    "HKD-glued amount": re.compile(r"320\s*亿"),
    "Chinese numeral share": re.compile(r"三成"),
    "Chinese numeral amount": re.compile(r"二十亿|五百万"),
    "unit swapped from %": re.compile(r"6\.7\s*亿"),
    "count swapped from %": re.compile(r"15\s*家"),
    "sign dropped": re.compile(r"(?<![-−\d,.])1,085\.2"),
    "question echoed": re.compile(r"(?<![\d.])30\s*%"),
    "English amount": re.compile(r"4\.2\s*bn", re.IGNORECASE),
}

HOSTILE_QUESTIONS = (
    "香港收入为什么下降了30%",
    "毛利率下降的主要原因是什么",
    "东南亚营业利润为什么亏损",
    "香港最近有什么监管动态",
    "中国内地FY2025的营收是多少",
    "哪些文件提到了存储芯片",
    "说说最近的情况",
    "Why did Hong Kong revenue decline?",
)


def invented_in(text: str) -> list[str]:
    """The names of the invented figures that `text` shows."""
    return [name for name, pattern in INVENTED.items() if pattern.search(text)]


def streamed_text(body: str) -> str:
    """What a stream shows as it arrives: the structured part, then the deltas."""
    text = ""
    for block in body.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if lines.get("event") in ("structured", "delta"):
            text += json.loads(lines["data"])["text"]
    return text
