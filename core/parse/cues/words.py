"""The operator cue table: Chinese and English words for each operation, for what a
ranking or a sum runs over, and for rounding.

`RULES` is one ordered list of (kind, compiled pattern, extras): the order matters where one
word holds another (CAGR before growth), and each rule's extras say what its match adds to the
cue (an order, a count, a place, a comparison). `core.parse.cues.read` reads it over a question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from core.model.types import (
    OP_AVERAGE,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_EXCLUDE,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
)
from core.parse.cues.counts import EN_N, EN_ORDINAL, ZH_N, count_read

CUE_OVER = "over"  # a ranking's or a sum's list: 各地区, by channel
CUE_DECIMALS = "decimals"  # 保留两位小数, 2 decimal places
CUE_CONDITION = "condition"  # 为负, 超过10%, faster than 10%: a filter on the members listed or asked
CUE_RATE_GAP = "rate_gap"  # 增速比内地高多少个百分点: two growth rates compared, in points
OVER_ENTITIES = "entities"
OVER_CHANNELS = "channels"
OVER_PERIODS = "periods"  # 哪一年最高: the periods of the range asked
YOY = "yoy"
QOQ = "qoq"

_ZH_ROUND = r"四舍五入|舍入"
_EN_START = r"(?<![a-z0-9])"
_EN_END = r"(?![a-z0-9])"
_SEP = r"[^,，。.？?!！;；、]"  # one character inside a clause
_ZH_ENTITY_DIMS = r"子公司|分公司|附属公司|事业部|业务单元|地区|区域|市场|板块|分部|公司"
_EN_ENTITY_DIMS = r"regions?|subsidiar(?:y|ies)|segments?|markets?|business units?|divisions?|entities|companies"
# "which" is 哪个 / 哪家 in Mandarin and 边个 / 边间 (邊個 / 邊間) in Cantonese.
_ZH_WHICH = r"哪一?个|哪一?家|哪一?间|边一?个|边一?间|边几间"
_ZH_LIST_PREFIX = rf"各个?|每一?个|(?<![部充十百])分|按|{_ZH_WHICH}|哪些|所有|全部"
_EN_LIST_PREFIX = r"each|every|by|per|which|across(?: all)?(?: the)?|all(?: the)?|among(?: the)?"
_RELATIVE_YEAR = r"(?:上一?年|去年|上年度|上一?财年)(?:同期)?"
_RELATIVE_QUARTER = r"(?:上一?个?季度?|上季)"
_EN_LAST = r"(?:compared (?:to|with)|vs\.?|versus|from|over|than|against) (?:the )?(?:last|previous|prior)"
# A direction between the two ends of an order: 从低到高, 由大到小, from smallest to largest.
_ZH_FROM, _ZH_TO = r"(?:从|由|自)", r"(?:到|至|往|而)"
_ZH_LOW, _ZH_HIGH = r"(?:低|小|少)", r"(?:高|大|多)"
_EN_LOW, _EN_HIGH = r"(?:lowest|smallest|least|low)", r"(?:highest|largest|biggest|most|high)"


_Extras = Callable[[re.Match[str]], dict[str, Any]]


def _none(m: re.Match[str]) -> dict[str, Any]:
    return {}


def _fixed(**extras: Any) -> _Extras:
    return lambda m: dict(extras)


def _rank(order: str | None) -> _Extras:
    def extras(m: re.Match[str]) -> dict[str, Any]:
        groups = m.groupdict()
        return {
            "order": order,
            "top": count_read(groups.get("top") or groups.get("top2")),
            "position": count_read(groups.get("pos")),
        }

    return extras


def _direction(order: str) -> _Extras:
    """从低到高, ascending: the order of a ranking, said as a direction (`Cue.direction`)."""
    return _fixed(order=order, direction=True)


def _ranked_from_bottom(m: re.Match[str]) -> dict[str, Any]:
    """倒数第二, second lowest, ranked last: counted from the bottom."""
    groups = m.groupdict()
    return {"order": "asc", "position": count_read(groups.get("pos") or groups.get("pos2"))}


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


def _decimals(m: re.Match[str]) -> dict[str, Any]:
    """`保留两位小数` → 2; `取整` / `to the nearest whole number` → 0."""
    groups = m.groupdict()
    if groups.get("frac"):  # 精确到0.01: as many places as the unit has
        return {"decimals": len(groups["frac"].split(".")[1])}
    n = groups.get("n") or groups.get("n2")
    return {"decimals": count_read(n) if n else 0}


_RULES: list[tuple[str, str, _Extras]] = [
    # -- a gap between two growth rates, in points (before growth and difference, which it holds) -----
    (
        CUE_RATE_GAP,
        r"(?:增速|增长率|增幅|增长速度)[^,，。.?？!！;；]{0,16}?"
        r"(?:高|低|快|慢|多|少|放缓|加快|提速|回落|下降|下滑|收窄|扩大|提高|降低|减慢|变慢|变快|相差|差了?)[了咗]?"
        r"(?:多少|几多?)个?百分点|(?:增速|增长率)(?:之差|差距|差额)",
        _none,
    ),
    (
        CUE_RATE_GAP,
        _EN_START + r"(?:how many|by how many) (?:percentage points?|pp|points)[^,.;?!]{0,60}?"
        r"(?:faster|slower|higher|lower|more|less|slow(?:ed)?|accelerat\w*|decelerat\w*)"
        r"|(?:growth|grew)[^,.;?!]{0,40}?(?:slow(?:ed)?|accelerat\w*|decelerat\w*) by how many"
        r" (?:percentage points?|pp|points)"
        r"|(?:gap|difference)[^,.;?!]{0,80}?growth(?: rates?)?"
        r"|gr[eo]w(?:n|s|ing)? (?:faster|slower|more|less)[^.;?!]{0,60}?how many (?:percentage points?|pp|points)"
        + _EN_END,
        _none,
    ),
    # -- CAGR (before growth: 复合增长率 holds 增长率) ------------------------------------------------
    (OP_CAGR, r"(?:年均)?(?:年)?复合(?:年均|年)?(?:增长率|增速|增长)|年平?均(?:增长率|增速)|年化增长率", _none),
    (
        OP_CAGR,
        _EN_START + r"(?:cagr|compound(?:ed)? (?:annual |average )*growth(?: rate)?|compound(?:ed)? annual"
        r"|annuali[sz]ed growth(?: rate)?|average annual growth(?: rate)?)" + _EN_END,
        _none,
    ),
    # -- growth against a year or a quarter earlier ------------------------------------------------
    (
        OP_GROWTH,
        r"(?P<cue>环比|按季)(?:增长|增加|下降|减少|变化|变动|上升|下滑|提高|降低|升|跌)?[了咗]?(?:多少|几多?)?",
        _fixed(comparison=QOQ),
    ),
    (
        OP_GROWTH,
        rf"(?:较|(?<![同环之占对])比|相比|相较于?|对比){_RELATIVE_QUARTER}(?:相比|比较)?"
        rf"|(?:与|和|跟|同){_RELATIVE_QUARTER}(?:相比|比较|比)",
        _fixed(comparison=QOQ, relative=True),
    ),
    (
        OP_GROWTH,
        _EN_START + r"(?:qoq|q/q|quarter[- ](?:over|on)[- ]quarter|sequential(?:ly)?)" + _EN_END,
        _fixed(comparison=QOQ),
    ),
    (OP_GROWTH, _EN_START + _EN_LAST + r" quarter(?:'s)?" + _EN_END, _fixed(comparison=QOQ, relative=True)),
    (
        OP_GROWTH,
        r"(?P<cue>同比|按年)(?:增长|增加|下降|减少|变化|变动|上升|下滑|提高|降低|升|跌)?[了咗]?(?:多少|几多?)?",
        _none,
    ),
    (
        OP_GROWTH,
        rf"(?:较|(?<![同环之占对])比|相比|相较于?|对比){_RELATIVE_YEAR}(?:相比|比较)?"
        rf"|(?:与|和|跟|同){_RELATIVE_YEAR}(?:相比|比较|比)|(?:去年|上年)同期",
        _fixed(relative=True),
    ),
    (
        OP_GROWTH,
        r"增长率|增速|增幅|涨幅|跌幅|(?:增长|增加|减少|下降|下滑|上升|提高|降低|变化|变动|上涨|下跌|涨|跌|升)"
        r"(?:[了咗的是为有]{0,2}(?:百分之)?(?:多少|几多?)(?:个百分点)?|(?=得?最))"
        r"|(?:多少|几)个?百分点|个百分点",
        _none,
    ),
    (
        OP_GROWTH,
        _EN_START + r"(?:yoy|y/y|year[- ](?:over|on)[- ]year|growth|gr[eo]w(?:n|s|ing)?|increase[ds]?|decrease[ds]?"
        r"|percentage points?|pp|change in (?:pp|percentage points?))" + _EN_END,
        _none,
    ),
    (
        OP_GROWTH,
        _EN_START + r"how much [^,.;?!]{0,60}?(?<![a-z])(?P<cue>declin\w*|drop\w*|f[ae]ll\w*|shr[iu]nk\w*"
        r"|ris(?:e|es|en|ing)|rose|chang\w*|(?:go|goes|gone|went) (?:up|down))" + _EN_END,
        _none,
    ),
    (OP_GROWTH, _EN_START + _EN_LAST + r" year(?:'s)?" + _EN_END, _fixed(relative=True)),
    (OP_GROWTH, _EN_START + r"(?:(?:from|than|vs\.?|versus) )?a year (?:earlier|ago|before)" + _EN_END, _none),
    # -- difference -------------------------------------------------------------------------------------
    (
        OP_DIFFERENCE,
        rf"差额|差值|差距|相差了?(?:(?:多少|几)(?:个?百分点)?)?|差了?(?:多少|几)(?:个?百分点)?"
        rf"|(?:较|(?<![同环之占对])比|相比|相较于?)(?!{_RELATIVE_YEAR}|{_RELATIVE_QUARTER}|重|例|值|率|较)"
        rf"{_SEP}{{1,20}}?(?:增加|减少|增长|下降|提高|降低|多|少|高|低|高出|低了)了?(?:多少|几)",
        _none,
    ),
    (
        OP_DIFFERENCE,
        _EN_START + r"(?:difference|gap|minus|how much (?:more|less|higher|lower|bigger|smaller))" + _EN_END,
        _none,
    ),
    # -- share and ratio ------------------------------------------------------------------------------
    (
        OP_SHARE,
        rf"占比|比重|所占(?:比例|份额)|份额|占{_SEP}{{0,15}}?的?(?P<cue>比例|比重|百分比)|占(?:到)?(?:多少|几成)"
        rf"|占{_SEP}{{1,15}}?(?P<cue2>百分之(?:多少|几)|(?:多少|几多?) ?[%％])",
        _none,
    ),
    (
        OP_SHARE,
        _EN_START + r"(?:share(?: of)?|proportion(?: of)?|as a (?:percentage|percent|share|proportion) of"
        r"|percentage of|percent of)" + _EN_END,
        _none,
    ),
    (OP_RATIO, r"之比|比值|比率|(?:多少|几多?)倍", _none),
    (
        OP_RATIO,
        _EN_START + r"(?:(?P<cue>ratio) (?:of|between)|to [^,.;?!]{1,40}? (?P<cue2>ratio)|how many times)" + _EN_END,
        _none,
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
        _EN_START + r"(?:(?P<cmp>faster|more|higher|greater|bigger|above|over|slower|less|lower|below|under|smaller)"
        r" than (?P<num>-?[0-9]+(?:\.[0-9]+)?)\s?(?P<pct>%|percent)?|(?P<neg>negative|a loss|losses)"
        r"|(?P<pos>positive|a profit))" + _EN_END,
        _condition,
    ),
    # -- a whole less a part (before sum: 剔除 is no total) -----------------------------------------------
    (OP_EXCLUDE, r"剔除|不含|不包括|不计|除去|排除|扣除|减去(?=[^多几]{0,8}后)|除了", _none),
    (
        OP_EXCLUDE,
        _EN_START + r"(?:excluding|exclusive of|ex-|other than|except(?: for)?|not including|net of)" + _EN_END,
        _none,
    ),
    # -- sum --------------------------------------------------------------------------------------------
    (OP_SUM, r"合计|总和|之和|一共|总共|共计|加起来|加总|总计|汇总|累计|累积|加埋", _none),
    (
        OP_SUM,
        _EN_START + r"(?:in total|combined|sum(?: of)?|total(?: of)?|altogether|add(?:ed)? up|aggregate|cumulative"
        r"|cumulatively)" + _EN_END,
        _none,
    ),
    # -- average ----------------------------------------------------------------------------------------
    (OP_AVERAGE, r"平均(?:值|数)?(?!增长|增速|复合)|均值", _none),
    # `average revenue per store` is a metric of its own: only `average of`, `on average` ask for a mean
    (OP_AVERAGE, _EN_START + r"(?:(?:the )?(?:average|mean) (?:of|over|across)|on average|averaged)" + _EN_END, _none),
    # -- rank -------------------------------------------------------------------------------------------
    (OP_RANK, rf"(?:最低|最小|最少|最差|最慢)(?:的(?P<top>{ZH_N})(?:个|家|名|位))?|更低|更少|更小", _rank("asc")),
    (
        OP_RANK,
        rf"(?:最高|最大|最多|最好|最快)(?:的(?P<top>{ZH_N})(?:个|家|名|位))?|更高|更多|更大",
        _rank("desc"),
    ),
    # the order said as a direction: 从低到高 / 由小到大 / 升序, ascending / smallest to largest
    (OP_RANK, rf"{_ZH_FROM}{_ZH_LOW}{_ZH_TO}{_ZH_HIGH}|升序", _direction("asc")),
    (OP_RANK, rf"{_ZH_FROM}{_ZH_HIGH}{_ZH_TO}{_ZH_LOW}|降序", _direction("desc")),
    (
        OP_RANK,
        _EN_START + rf"(?:ascending|(?:from )?(?:the )?{_EN_LOW} to (?:the )?{_EN_HIGH})" + _EN_END,
        _direction("asc"),
    ),
    (
        OP_RANK,
        _EN_START + rf"(?:descending|(?:from )?(?:the )?{_EN_HIGH} to (?:the )?{_EN_LOW})" + _EN_END,
        _direction("desc"),
    ),
    # a place in the order: 排名第二, 第二名, 第二高, 倒数第二 (a 第N that is no quarter or period)
    (
        OP_RANK,
        rf"(?:排名|排行|排在?|名列|位列|位居)第(?P<pos>{ZH_N})(?:名|位)?(?!个?季|个?月|年|天|日|周|期|半|{ZH_N})"
        rf"|第(?P<pos2>{ZH_N})(?:名|位)",
        lambda m: {"order": None, "position": count_read(m.group("pos") or m.group("pos2"))},
    ),
    (OP_RANK, rf"第(?P<pos>{ZH_N})(?:高|大|多)", _rank("desc")),
    (OP_RANK, rf"第(?P<pos>{ZH_N})(?:低|小|少)|倒数第(?P<pos2>{ZH_N})(?:名|位)?", _ranked_from_bottom),
    (
        OP_RANK,
        r"(?:排名|排行|排在?|位列|位居|名列)(?:在)?最后(?:一名|一位)?|最后一名|最后一位|末位|垫底",
        _rank("asc"),
    ),
    (OP_RANK, rf"倒数(?:前)?(?P<top>{ZH_N})?(?:名|位)?|后(?P<top2>{ZH_N})(?:名|位)", _rank("asc")),
    (
        OP_RANK,
        rf"排名|排序|排行|名列|(?<![目此之以提])前(?P<top>{ZH_N})(?:名|位|家|个|大)?(?!个?季|个?月|年|天|日|周|期|半|{ZH_N})",
        _rank(None),
    ),
    (OP_RANK, rf"(?:{_ZH_WHICH})(?:{_ZH_ENTITY_DIMS}|渠道)|哪一?家|边一?间", _rank(None)),
    (
        OP_RANK,
        _EN_START
        + r"(?:lowest|smallest|(?<!at )least|worst|slowest|lower|bottom(?:[- ](?P<top>"
        + EN_N
        + r"))?)"
        + _EN_END,
        _rank("asc"),
    ),
    (
        OP_RANK,
        _EN_START + r"(?:highest|largest|biggest|most(?! recent| recently| likely| of)|best|fastest|higher"
        rf"|top(?:[- ](?P<top>{EN_N})| (?=(?:{_EN_ENTITY_DIMS}|channels?|perform))))" + _EN_END,
        _rank("desc"),
    ),
    (
        OP_RANK,
        _EN_START + rf"(?P<pos>{EN_ORDINAL}) (?:highest|largest|biggest|most|best|fastest)" + _EN_END,
        _rank("desc"),
    ),
    (
        OP_RANK,
        _EN_START + rf"(?:(?P<pos>{EN_ORDINAL}) (?:lowest|smallest|least|worst|slowest)"
        r"|(?:rank(?:ed|s)?|placed?|came|finish(?:ed)?) (?:in )?(?:the )?last(?: place)?|in last place)" + _EN_END,
        _ranked_from_bottom,
    ),
    (
        OP_RANK,
        _EN_START
        + rf"(?:rank(?:ed|s)?|placed?|came) (?:in )?(?:the )?(?:no\.? ?|number |#)?(?P<pos>{EN_ORDINAL}|[0-9]+)"
        r"(?: place)?" + _EN_END,
        _rank(None),
    ),
    (
        OP_RANK,
        _EN_START + rf"(?:rank(?:ing|ings|ed)?|which (?:{_EN_ENTITY_DIMS}|channels?))" + _EN_END,
        _rank(None),
    ),
    # -- what a ranking or a sum runs over ------------------------------------------------------------
    (CUE_OVER, rf"(?:{_ZH_LIST_PREFIX})(?:{_ZH_ENTITY_DIMS})|哪一?家", _fixed(over=OVER_ENTITIES)),
    (CUE_OVER, rf"(?:{_ZH_LIST_PREFIX})(?:销售)?渠道", _fixed(over=OVER_CHANNELS)),
    (CUE_OVER, r"(?:哪|边)一?个?(?:财?年度?|季度?)", _fixed(over=OVER_PERIODS)),
    (CUE_OVER, _EN_START + r"which (?:fiscal )?(?:years?|quarters?|periods?)" + _EN_END, _fixed(over=OVER_PERIODS)),
    (CUE_OVER, rf"的(?:{_ZH_ENTITY_DIMS})", _fixed(over=OVER_ENTITIES, weak=True)),
    (CUE_OVER, r"的(?:销售)?渠道", _fixed(over=OVER_CHANNELS, weak=True)),
    (
        CUE_OVER,
        _EN_START + rf"(?:{_EN_LIST_PREFIX}) (?:{_EN_ENTITY_DIMS})" + _EN_END,
        _fixed(over=OVER_ENTITIES),
    ),
    (CUE_OVER, _EN_START + rf"(?:{_EN_LIST_PREFIX}) channels?" + _EN_END, _fixed(over=OVER_CHANNELS)),
    (CUE_OVER, _EN_START + rf"(?:{_EN_ENTITY_DIMS})" + _EN_END, _fixed(over=OVER_ENTITIES, weak=True)),
    (CUE_OVER, _EN_START + r"channels?" + _EN_END, _fixed(over=OVER_CHANNELS, weak=True)),
    # -- rounding ---------------------------------------------------------------------------------------
    # a place after the point, counted (两位小数, 小数点后两位) or ordinal (小数点后第一位); an
    # integer (四舍五入到整数, 保留整数, 取整); a step (精确到0.01); each may open with 四舍五入
    (
        CUE_DECIMALS,
        rf"(?:{_ZH_ROUND}(?:后|并|,)?)?"
        rf"(?:(?:(?:保留|精确|取|{_ZH_ROUND})(?:到|至)?(?:小数点后)?|(?:到|至)?小数点后)第?(?P<n>{ZH_N}|零)位(?:小数|数字)?"
        rf"|(?P<n2>{ZH_N})位小数|(?:保留|精确|{_ZH_ROUND})(?:到|至)?(?P<frac>0?\.0*1)(?![0-9])"
        rf"|(?:保留|精确|取|{_ZH_ROUND})(?:到|至|为|成)?(?:整数位?|个位)|取整)",
        _decimals,
    ),
    (
        CUE_DECIMALS,
        _EN_START + rf"(?:(?:to |at )?(?P<n>{EN_N}) ?(?:decimal places?|decimals?|dp|d\.p\.)"
        rf"|(?:(?:rounded |round )?to |at )?the (?P<n2>{EN_ORDINAL}) decimal(?: place)?"
        r"|(?:rounded |round )?to (?:the nearest )?(?:integer|whole number|(?P<frac>0?\.0*1)(?![0-9])))" + _EN_END,
        _decimals,
    ),
]
RULES = [(kind, re.compile(pattern), extras) for kind, pattern, extras in _RULES]

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
