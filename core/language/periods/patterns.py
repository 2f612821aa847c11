"""The period grammar's word and number patterns: years, halves, quarters, months, counts, ranges.

Regular-expression fragments only, in Chinese and English, read on normalised text; the rules
that put them together and build periods are in `core.language.periods.grammar`.
"""

from __future__ import annotations

import re

_CN_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4, "首": 1}
_CN_NUMBER = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_YEAR = r"(?<![0-9.])(?P<year>199[0-9]|20[0-9]{2}|2100)(?![0-9])"
# A two-digit year is read only right before 年 (`24年`), never after a digit or a word that makes
# the number a count of years (`近10年`, `过去10年`), nor when 年 goes on to a duration (`10年期`).
_SHORT_YEAR = (
    r"(?<![0-9.近去来前后每这那几多第了满达逾超约共续立])(?P<yy>[0-9]{2})"
    r"(?:财年|年度|年(?!来|内|间|期|以来|之|多|左右|前|后|里|半(?!年)|级|代|龄))"
)
_YEAR_PREFIX = rf"(?:(?<![a-z])(?:fy\s?)?{_YEAR}\s?(?:财年|年度|年)?|{_SHORT_YEAR})"
# An English unit ends where no ASCII letter follows (`2000 percent的增长`): `\b` would see the
# Chinese character after it as part of the word and read the number as a year.
_NOT_A_QUANTITY = (
    r"(?!\.[0-9]|\s?(?:万|亿|元|百万|千|个|家|人|%|‰|美元|港元|块|件|台|名|倍|笔|次|份|"
    r"亩|平|米|公里|吨|kg|km|(?:m|k|bn|mn|x|pp|bps?|percent(?:age)?|times"
    r"|(?:million|billion|thousand|trillion)s?)(?![a-z])))"
)
_HALF = r"(?P<half>上半年|下半年|上半|下半|h1|h2)"
# `第四季` and `首季` (Hong Kong usage) say the quarter without 度; `四季` alone is the four seasons.
_QUARTER = r"(?:(?<![a-z])q(?P<q1>[1-4])|第(?P<q2>[一二三四1-4])季度?|(?P<q3>[一二三四])季度|(?P<q4>首)季度?)"
_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_MONTHS = rf"(?<![0-9一二三四五六七八九十])(?P<m1>{_MONTH})\s?月?\s?(?:-|~|〜|至|到|—|–)\s?(?P<m2>{_MONTH})\s?月份?"
# `2025年前6个月` is the months from January (without a year it may mean the last six);
# `前两季度` is the first half, `前三季度` (nine months) is no period type (see `_UNREAD`).
_FIRST_MONTHS = r"前(?P<m2>[0-9]{1,2}|十[一二]?|[一二两三四五六七八九])个月"
_FIRST_QUARTERS = r"前(?P<fq>[一二两三四1-4])个?季度?"
_FIRST_QUARTERS_SPAN = {1: ("QUARTER", "Q1"), 2: ("HY", "H1"), 4: ("FY", "")}
# Stretches of time the grammar recognises but no period type holds: a single month, a month or
# a quarter that does not exist, a year to date. Each is claimed with the year before it, so
# the year is never read as the whole fiscal year, and reported by `periods_unread`.
_ANY_YEAR = r"(?<![0-9.])(?:199[0-9]|20[0-9]{2}|2100)(?![0-9])"
_BAD_QUARTER = r"(?:(?<![a-z])q(?:0|[5-9]|[1-9][0-9]+)(?![0-9])|第(?:[五六七八九十零]+|0|[5-9]|[1-9][0-9]+)季度?)"
_BAD_HALF = r"(?<![a-z])h(?:0|[3-9]|[1-9][0-9]+)(?![0-9])"
_BAD_MONTH = r"(?<![0-9])(?:0+|1[3-9]|[2-9][0-9]|[1-9][0-9]{2,})\s?月"
# a date (`12月31日`) is left alone: `截至2025年12月31日止年度` names the year
_ONE_MONTH = (
    r"(?<![0-9一二三四五六七八九十])(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s?月份?"
    r"(?!\s?(?:[0-9]|[一二三四五六七八九十])+\s?[日号])"
)
_RELATIVE_MONTH = r"本月|当月|这个?月|上一?个?月|下一?个?月"
# the last N months, or the first N years: a stretch the question does not name
_RECENT = r"(?:近|最近|过去|前)(?:[0-9]+|[一二两三四五六七八九十]+)个?(?:财年|年度|年|季度|个?月)"
# Ranges expand into every period of them, in order.
_COUNT = r"(?P<n>[0-9]{1,2}|[一二三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
_RANGE_JOIN = r"\s?(?:到|至|-|~|〜|—|–|to|through)\s?"
# the last N complete years or quarters at the reference date (`近三年`, `过去5年`, `最近4个季度`)
_LAST_N = rf"(?:近|最近|过去)\s?{_COUNT}\s?个?(?P<unit>财年|年度|年|季度)(?!来|内|间|期|以来)"
_EN_NUMBER = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "ten": 10, "twelve": 12}
_EN_LAST_N = (
    r"(?<![a-z])(?:the )?(?:last|past|previous|recent) (?P<n>[0-9]{1,2}|two|three|four|five|six|seven|eight|ten|twelve)"
    r" (?:fiscal |full )?(?P<unit>years|quarters)(?![a-z])"
)
# A stretch just before the periods asked before (`那前三年呢`, `之前四个季度`, `the three years
# before`): read only against the previous question's periods (`periods_before`); on its own it
# names no period and is asked back. `前三季度` / `前三个季度` stay the first three quarters.
_EN_COUNT = r"(?P<n>[0-9]{1,2}|two|three|four|five|six|seven|eight|ten|twelve)"
_SHIFT_BACK = (
    rf"(?:之前|此前|以前|往前|再往前|更早)的?\s?{_COUNT}\s?个?(?P<unit>财年|年度|年|季度)(?!来|内|间|期|以来)"
    rf"|(?<![0-9.])前\s?{_COUNT.replace('<n>', '<n2>')}\s?个?(?P<unit2>财年|年度|年)(?!来|内|间|期|以来)"
    rf"|(?<![a-z])(?:the )?{_EN_COUNT.replace('<n>', '<en>')} (?:fiscal |full )?(?P<en_unit>years|quarters)"
    r" (?:before|earlier|prior)(?: (?:that|it|then|this|those|these))?(?![a-z])"
    rf"|(?<![a-z])(?:the )?preceding {_EN_COUNT.replace('<n>', '<en2>')} (?:fiscal |full )?(?P<en_unit2>years|quarters)"
    r"(?![a-z])"
)
_SHIFT_BACK_RE = re.compile(_SHIFT_BACK)
# `2022到2025年`, `2022年至2025年`, `22-25年`, `FY2022-FY2025`, `2022 to 2025`
_YEAR_END = r"(?:fy\s?)?(?P<{0}>199[0-9]|20[0-9]{{2}}|2100|[0-9]{{2}})"
_YEAR_RANGE = (
    r"(?<![0-9.a-z])"
    + _YEAR_END.format("a")
    + r"(?![0-9])\s?(?:财年|年度|年)?"
    + _RANGE_JOIN
    + _YEAR_END.format("b")
    + r"(?![0-9.])"
    + _NOT_A_QUANTITY
    # the last year's half, quarter or month is no range of years (`2024-2025年上半年`)
    + r"(?!\s?(?:财年|年度|年)?\s?(?:的)?\s?(?:上半|下半|h[12]|q[1-4]|第|[一二三四]季|[0-9]{1,2}\s?月))"
    + r"\s?(?P<unit>财年|年度|年(?!期|以来|来|内|间))?"
)
# `Q1到Q4`, `一到四季度`, `第一至第四季度`, `Q1 to Q4 2025`
_QUARTER_RANGE = (
    r"(?:(?<![a-z])q(?P<qa>[1-4])" + _RANGE_JOIN + r"q(?P<qb>[1-4])(?![0-9])"
    r"|第?(?P<qc>[一二三四1-4])(?:季度)?" + _RANGE_JOIN + r"第?(?P<qd>[一二三四1-4])个?季度?(?<=季|度))"
)
# every quarter of the years named (`2025年每个季度`, `各季度`, `2025年季度平均`, `quarterly`)
_EACH_QUARTER = re.compile(
    r"每一?个?季度|各个?季度?|逐季|分季度|(?:哪|边)一?个?季度?|(?<=年)季度(?![末初])"
    r"|(?<![a-z])(?:quarterly|each quarter|every quarter|which quarters?)(?![a-z])"
)
_EN_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_EN_UNREAD = (
    r"(?<![a-z0-9])(?:9m|(?:the )?(?:first )?(?:nine|9) months|(?:the )?first (?:three|3) (?:fiscal )?quarters"
    r"|ytd|year[- ]to[- ]date|this month|last month"
    rf"|{_EN_MONTH}\.?(?= (?:of )?{_ANY_YEAR}))(?![a-z])"
)
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
# what may stand between an English stretch and its year (`the first nine months of fiscal 2025`)
_EN_YEAR_JOIN = r"(?: of| in| for)?(?: the)?(?: fiscal(?: year)?| fy)?"
# `the first six months`, `first 2 quarters`: the stretch from the start of the year (like 前6个月)
_EN_FIRST_N = (
    r"(?<![a-z])(?:the )?first (?P<en>[0-9]{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r" (?:fiscal )?(?P<en_unit>months|quarters)(?![a-z])"
)
_EN_COUNTS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
# The whole fiscal year of the year in context (`2025年全年`, `占全年的比重`, `full year 2025`): the
# year named before it in the sentence, else the latest complete one (`years`).
_WHOLE_YEAR = r"(?:全年度?|全财年|(?<!调)整个?(?:财年|年度|年))"
_EN_WHOLE_YEAR = r"(?<![a-z])(?:the )?(?:full|whole|entire)[- ](?:fiscal )?year(?![a-z])"
# A period's end (`2025年末`, `年底`, `第三季度末`, `at year end`, `the end of 2025`): a figure at a
# date is the period's own figure, so the words belong to the period, never glued to a metric.
# Its start (`2025年初`, `期初`, `the beginning of 2025`) is the day before it: a stretch no period
# type holds, asked back (`periods_unread`) rather than answered for the year.
# A bare 末, 底 or 初 only where it ends its word (not 末期股息, 底薪, 初步).
_END = r"末(?![期端尾])|底(?![薪价线层部下])"
_END_AFTER = {
    "FY": re.compile(rf"\s?(?:的)?\s?(?:年末|年底|期末)|{_END}|\s?(?:fiscal )?year[- ]end(?![a-z])"),
    "HY": re.compile(rf"\s?(?:的)?\s?期末|{_END}"),
    "QUARTER": re.compile(rf"\s?(?:的)?\s?(?:期末|季末|季度末)|{_END}"),
}
_START_AFTER = re.compile(r"\s?(?:的)?\s?(?:年初|期初|季初)|初(?![步次级中心衷始])")
_EN_END_BEFORE = re.compile(r"(?<![a-z])(?:(?:at|as of|as at) )?(?:the )?end of (?:the )?$")
_EN_START_BEFORE = re.compile(r"(?<![a-z])(?:(?:at|as of|as at) )?(?:the )?(?:beginning|start) of (?:the )?$")
_YEAR_END = r"(?<![年0-9])(?:年末|年底)|(?<![a-z])(?:(?:at|as of|as at) )?(?:the )?(?:fiscal )?year[- ]end(?![a-z])"
_YEAR_END += r"|(?<![a-z])(?:(?:at|as of|as at) )?the end of the (?:fiscal )?year(?![a-z])"
_YEAR_START = r"(?<![年0-9])年初|(?<![a-z])(?:at )?the (?:beginning|start) of the (?:fiscal )?year(?![a-z])"
# Quarters or halves listed with their word said once (`第三和第四季度`, `三、四季度`, `上、下半年`,
# `the third and fourth quarters`): each of them, as if the word followed each.
_LIST_AND = r"\s?(?:和|与|及|以及|跟|、|,|/|&)\s?"
_QUARTER_LIST = (
    r"(?P<ql>(?:第|(?<![前近第0-9a-z一二三四五六七八九十两]))[一二三四1-4](?:" + _LIST_AND + r"第?[一二三四1-4])+)季度?"
)
_HALF_LIST = rf"(?<![以向往])上(?:{_LIST_AND})?下半年"
_EN_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_EN_QUARTER_LIST = (
    rf"(?<![a-z])(?:the )?(?P<el>{_EN_ORDINAL}(?:(?:,|,? and|,? &| and| &) (?:the )?{_EN_ORDINAL})+)"
    r" (?:fiscal )?quarters(?![a-z])"
)
_EN_HALF = r"(?<![a-z])(?P<ord>first|second|1st|2nd) half"
_EN_QUARTER = r"(?<![a-z])(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th) quarter"
_EN_OF_YEAR = rf"(?: of)?(?: the)?(?: fiscal(?: year)?| fy)?\s?{_YEAR}"
_REL_YEAR = r"(?P<rel>去年|今年|前年|本年|明年|上年|上一年)"
_REL_YEAR_OFFSET = {"去年": -1, "上年": -1, "上一年": -1, "今年": 0, "本年": 0, "前年": -2, "明年": 1}
# What may stand between the periods of one list (`2025年第三季度和第四季度`, `Q3 and Q4 2025`).
# A semicolon joins the clauses of one sentence: the year named before it still holds after it.
_SENTENCE_END = re.compile(r"[。？?！!]")
_LIST_JOINER = re.compile(r"(?:\s|和|与|及|以及|、|,|/|跟|或|至|到|-|~|较|相比|对比|比|and|&|or|to|vs\.?|versus)*")
# a stretch from the start of a year that is the sum of its first quarters (`前三季度`, `1-9月`)
_CUMULATIVE = re.compile(
    rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?"
    r"(?:前(?:三|3)个?季度?|(?:1|一)\s?月?\s?(?:-|~|〜|至|到|—|–)\s?(?:9|九)\s?月份?"
    r"|(?:9m|(?:the )?first (?:nine|9) months|(?:the )?first (?:three|3) (?:fiscal )?quarters)"
    rf"(?:{_EN_YEAR_JOIN}\s?(?P<ey>199[0-9]|20[0-9]{{2}}|2100))?)"
)
