"""The cue rules of a change: a gap between two growth rates in points, CAGR, growth against a
year or a quarter earlier (said as an operator, 同比 / YoY, or as a base, 较去年 / than last
year), and a difference. In this order: a gap holds the words of growth and difference, and
复合增长率 holds 增长率.
"""

from __future__ import annotations

from core.model.operation import OP_CAGR, OP_DIFFERENCE, OP_GROWTH
from core.parse.cues.fragments import EN_END, EN_START, SEP, Extras, fixed, no_extras
from core.parse.cues.kinds import CUE_RATE_GAP, QOQ

_RELATIVE_YEAR = r"(?:上一?年|去年|上年度|上一?财年)(?:同期)?"
_RELATIVE_QUARTER = r"(?:上一?个?季度?|上季)"
_EN_LAST = r"(?:compared (?:to|with)|vs\.?|versus|from|over|than|against) (?:the )?(?:last|previous|prior)"


CHANGE_RULES: list[tuple[str, str, Extras]] = [
    # -- a gap between two growth rates, in points (before growth and difference, which it holds) -----
    (
        CUE_RATE_GAP,
        r"(?:增速|增长率|增幅|增长速度)[^,，。.?？!！;；]{0,16}?"
        r"(?:高|低|快|慢|多|少|放缓|加快|提速|回落|下降|下滑|收窄|扩大|提高|降低|减慢|变慢|变快|相差|差了?)[了咗]?"
        r"(?:多少|几多?)个?百分点|(?:增速|增长率)(?:之差|差距|差额)",
        no_extras,
    ),
    (
        CUE_RATE_GAP,
        EN_START + r"(?:how many|by how many) (?:percentage points?|pp|points)[^,.;?!]{0,60}?"
        r"(?:faster|slower|higher|lower|more|less|slow(?:ed)?|accelerat\w*|decelerat\w*)"
        r"|(?:growth|grew)[^,.;?!]{0,40}?(?:slow(?:ed)?|accelerat\w*|decelerat\w*) by how many"
        r" (?:percentage points?|pp|points)"
        r"|(?:gap|difference)[^,.;?!]{0,80}?growth(?: rates?)?"
        r"|gr[eo]w(?:n|s|ing)? (?:faster|slower|more|less)[^.;?!]{0,60}?how many (?:percentage points?|pp|points)"
        + EN_END,
        no_extras,
    ),
    # -- CAGR (before growth: 复合增长率 holds 增长率) ------------------------------------------------
    (OP_CAGR, r"(?:年均)?(?:年)?复合(?:年均|年)?(?:增长率|增速|增长)|年平?均(?:增长率|增速)|年化增长率", no_extras),
    (
        OP_CAGR,
        EN_START + r"(?:cagr|compound(?:ed)? (?:annual |average )*growth(?: rate)?|compound(?:ed)? annual"
        r"|annuali[sz]ed growth(?: rate)?|average annual growth(?: rate)?)" + EN_END,
        no_extras,
    ),
    # -- growth against a year or a quarter earlier ------------------------------------------------
    (
        OP_GROWTH,
        r"(?P<cue>环比|按季)(?:增长|增加|下降|减少|变化|变动|上升|下滑|提高|降低|升|跌)?[了咗]?(?:多少|几多?)?",
        fixed(comparison=QOQ),
    ),
    (
        OP_GROWTH,
        rf"(?:较|(?<![同环之占对])比|相比|相较于?|对比){_RELATIVE_QUARTER}(?:相比|比较)?"
        rf"|(?:与|和|跟|同){_RELATIVE_QUARTER}(?:相比|比较|比)",
        fixed(comparison=QOQ, relative=True),
    ),
    (
        OP_GROWTH,
        EN_START + r"(?:qoq|q/q|quarter[- ](?:over|on)[- ]quarter|sequential(?:ly)?)" + EN_END,
        fixed(comparison=QOQ),
    ),
    (OP_GROWTH, EN_START + _EN_LAST + r" quarter(?:'s)?" + EN_END, fixed(comparison=QOQ, relative=True)),
    (
        OP_GROWTH,
        r"(?P<cue>同比|按年)(?:增长|增加|下降|减少|变化|变动|上升|下滑|提高|降低|升|跌)?[了咗]?(?:多少|几多?)?",
        no_extras,
    ),
    (
        OP_GROWTH,
        rf"(?:较|(?<![同环之占对])比|相比|相较于?|对比){_RELATIVE_YEAR}(?:相比|比较)?"
        rf"|(?:与|和|跟|同){_RELATIVE_YEAR}(?:相比|比较|比)|(?:去年|上年)同期",
        fixed(relative=True),
    ),
    (
        OP_GROWTH,
        r"增长率|增速|增幅|涨幅|跌幅|(?:增长|增加|减少|下降|下滑|上升|提高|降低|变化|变动|上涨|下跌|涨|跌|升)"
        r"(?:[了咗的是为有]{0,2}(?:百分之)?(?:多少|几多?)(?:个百分点)?|(?=得?最))"
        r"|(?:多少|几)个?百分点|个百分点",
        no_extras,
    ),
    (
        OP_GROWTH,
        EN_START + r"(?:yoy|y/y|year[- ](?:over|on)[- ]year|growth|gr[eo]w(?:n|s|ing)?|increase[ds]?|decrease[ds]?"
        r"|percentage points?|pp|change in (?:pp|percentage points?))" + EN_END,
        no_extras,
    ),
    (
        OP_GROWTH,
        EN_START + r"how much [^,.;?!]{0,60}?(?<![a-z])(?P<cue>declin\w*|drop\w*|f[ae]ll\w*|shr[iu]nk\w*"
        r"|ris(?:e|es|en|ing)|rose|chang\w*|(?:go|goes|gone|went) (?:up|down))" + EN_END,
        no_extras,
    ),
    (OP_GROWTH, EN_START + _EN_LAST + r" year(?:'s)?" + EN_END, fixed(relative=True)),
    (OP_GROWTH, EN_START + r"(?:(?:from|than|vs\.?|versus) )?a year (?:earlier|ago|before)" + EN_END, no_extras),
    # -- difference -------------------------------------------------------------------------------------
    (
        OP_DIFFERENCE,
        rf"差额|差值|差距|相差了?(?:(?:多少|几)(?:个?百分点)?)?|差了?(?:多少|几)(?:个?百分点)?"
        rf"|(?:较|(?<![同环之占对])比|相比|相较于?)(?!{_RELATIVE_YEAR}|{_RELATIVE_QUARTER}|重|例|值|率|较)"
        rf"{SEP}{{1,20}}?(?:增加|减少|增长|下降|提高|降低|多|少|高|低|高出|低了)了?(?:多少|几)",
        no_extras,
    ),
    (
        OP_DIFFERENCE,
        EN_START + r"(?:difference|gap|minus|how much (?:more|less|higher|lower|bigger|smaller))" + EN_END,
        no_extras,
    ),
]
