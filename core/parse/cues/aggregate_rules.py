"""The cue rules of a part against a whole and of a total: share and ratio, a condition on the
members (为负的地区有哪些, which regions grew faster than 10%), a whole less a part, sum and
average. In this order: 剔除 is no total.
"""

from __future__ import annotations

import re
from typing import Any

from core.model.operation import OP_AVERAGE, OP_EXCLUDE, OP_RATIO, OP_SHARE, OP_SUM
from core.parse.cues.fragments import EN_END, EN_START, SEP, Extras, no_extras
from core.parse.cues.kinds import CUE_CONDITION

_BELOW = ("小于", "低于", "少于", "slower", "less", "lower", "below", "under", "smaller")


def _condition(m: re.Match[str]) -> dict[str, Any]:
    """`为负` → (<, 0); `超过10%` → (>, 10, percent); `slower than 5%` → (<, 5, percent)."""
    groups = m.groupdict()
    if groups.get("neg"):
        return {"condition": ("<", "0", False)}
    if groups.get("pos"):
        return {"condition": (">", "0", False)}
    below = groups["cmp"] in _BELOW
    return {"condition": ("<" if below else ">", groups["num"], bool(groups.get("pct")))}


AGGREGATE_RULES: list[tuple[str, str, Extras]] = [
    # -- share and ratio ------------------------------------------------------------------------------
    (
        OP_SHARE,
        rf"占比|比重|所占(?:比例|份额)|份额|占{SEP}{{0,15}}?的?(?P<cue>比例|比重|百分比)|占(?:到)?(?:多少|几成)"
        rf"|占{SEP}{{1,15}}?(?P<cue2>百分之(?:多少|几)|(?:多少|几多?) ?[%％])",
        no_extras,
    ),
    (
        OP_SHARE,
        EN_START + r"(?:share(?: of)?|proportion(?: of)?|as a (?:percentage|percent|share|proportion) of"
        r"|percentage of|percent of)" + EN_END,
        no_extras,
    ),
    (OP_RATIO, r"之比|比值|比率|(?:多少|几多?)倍", no_extras),
    (
        OP_RATIO,
        EN_START + r"(?:(?P<cue>ratio) (?:of|between)|to [^,.;?!]{1,40}? (?P<cue2>ratio)|how many times)" + EN_END,
        no_extras,
    ),
    # -- a condition on the members (为负的地区有哪些, which regions grew faster than 10%) -------------
    (
        CUE_CONDITION,
        r"(?:为|是|出现)?(?P<neg>负数?|负值|亏损)(?=的|$|\s|[,，。?？])"
        r"|(?:为|是)?(?P<pos>正数?|正值|盈利)(?=的|$|\s|[,，。?？])"
        r"|(?P<cmp>大于|高于|超过|多于|小于|低于|少于)(?P<num>-?[0-9]+(?:\.[0-9]+)?)\s?(?P<pct>%|个百分点)?",
        _condition,
    ),
    (
        CUE_CONDITION,
        EN_START + r"(?:(?P<cmp>faster|more|higher|greater|bigger|above|over|slower|less|lower|below|under|smaller)"
        r" than (?P<num>-?[0-9]+(?:\.[0-9]+)?)\s?(?P<pct>%|percent)?|(?P<neg>negative|a loss|losses)"
        r"|(?P<pos>positive|a profit))" + EN_END,
        _condition,
    ),
    # -- a whole less a part (before sum: 剔除 is no total) -----------------------------------------------
    (OP_EXCLUDE, r"剔除|不含|不包括|不计|除去|排除|扣除|减去(?=[^多几]{0,8}后)|除了", no_extras),
    (
        OP_EXCLUDE,
        EN_START + r"(?:excluding|exclusive of|ex-|other than|except(?: for)?|not including|net of)" + EN_END,
        no_extras,
    ),
    # -- sum --------------------------------------------------------------------------------------------
    (OP_SUM, r"合计|总和|之和|一共|总共|共计|加起来|加总|总计|汇总|累计|累积|加埋", no_extras),
    (
        OP_SUM,
        EN_START + r"(?:in total|combined|sum(?: of)?|total(?: of)?|altogether|add(?:ed)? up|aggregate|cumulative"
        r"|cumulatively)" + EN_END,
        no_extras,
    ),
    # -- average ----------------------------------------------------------------------------------------
    (OP_AVERAGE, r"平均(?:值|数)?(?!增长|增速|复合)|均值", no_extras),
    # `average revenue per store` is a metric of its own: only `average of`, `on average` ask for a mean
    (
        OP_AVERAGE,
        EN_START + r"(?:(?:the )?(?:average|mean) (?:of|over|across)|on average|averaged)" + EN_END,
        no_extras,
    ),
]
