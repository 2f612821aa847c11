"""Questions as analysts write them, for properties that must hold whatever is asked.

`QUESTIONS` builds a question from pieces the parser reads and pieces it does not: long English
instructions, the demo glossary's aliases, names no glossary holds, period words (FY2019,
`FY2019 - FY2021`, 近三年, `3 year average`), formulas with + - * / and parentheses, figures,
percent signs, unit words, rounding instructions, and short runs of mixed CJK, Latin, digit and
punctuation characters. Every question is one the API accepts: not blank once normalised, at
most 2,000 characters, no NUL and no lone surrogate.

`TRACE_REGRESSIONS` are the question an analyst reported as a server error (Corning) and
questions whose unrecognised term, longer than the trace keeps, the trace refused with one;
properties run them first, every time.
"""

from __future__ import annotations

import string

from hypothesis import strategies as st

from core.language.normalize import text_normalize
from tests.fakes import demo_glossary

CORNING = (
    "Taking into account the information outlined in the income statement, what is the FY2019 - FY2021 "
    "3 year average unadjusted operating income % margin for Corning? Round to two decimals."
)
LONG_ACRONYM = "what was the ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ of ACME in FY2025"
TRACE_REGRESSIONS = (CORNING, LONG_ACRONYM, "ACME FY2025 ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ是多少")

INSTRUCTIONS = [
    "Taking into account the information outlined in the income statement,",
    "Based on the figures reported in the consolidated balance sheet and the cash flow statement,",
    "Using only the line items shown in the annual report, and ignoring any restatement,",
    "According to the management discussion and analysis section,",
    "请根据利润表中列示的信息，",
    "结合年报附注和现金流量表，",
    "Round to two decimals.",
    "Round your answer to the nearest whole number.",
    "Answer in USD millions.",
    "保留2位小数",
    "请给出计算过程",
    "what is the",
    "what was",
    "how much did",
    "是多少",
    "同比增长多少",
    "为什么下降",
]
NAMES = ["Corning", "3M", "AT&T", "Tencent", "Apple Inc.", "腾讯", "中国平安", "Sea Limited", "ACME日本"]
PERIODS = [
    "FY2019",
    "FY2021",
    "FY2019 - FY2021",
    "FY2018-FY2020",
    "3 year average",
    "5-year",
    "2025年",
    "2024H1",
    "Q3 2024",
    "2025Q4",
    "TTM",
    "YTD",
    "近三年",
    "去年",
    "上半年",
    "2019至2021年",
]
MODIFIERS = ["unadjusted", "adjusted", "average", "recurring", "normalised", "pre-tax", "underlying", "3 year", "TTM"]
UNITS = ["USD millions", "million", "billion", "thousand", "bps", "百万元", "亿元", "万元", "个百分点", "倍"]
PERCENTS = ["%", "％", "percent", "per cent", "百分比", "% margin", "unadjusted operating income % margin"]
SEPARATORS = [" ", "", "，", ", ", "的", "和", " and ", "? ", "；", "\n"]
SCRIPTS = st.characters(categories=("Lu", "Ll", "Lo", "Nd", "Po", "Sm", "Zs"))  # no NUL, no surrogate

FIGURES = st.one_of(
    st.integers(min_value=-(10**9), max_value=10**12).map(str),
    st.decimals(min_value=-(10**6), max_value=10**6, places=2, allow_nan=False).map(lambda d: f"{d:,}"),
    st.integers(min_value=0, max_value=300).map(lambda n: f"{n}%"),
)
OPERANDS = st.one_of(st.sampled_from(sorted({a.text for a in demo_glossary().aliases})), FIGURES)
FORMULAS = st.recursive(
    OPERANDS,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from([" + ", " - ", " * ", " / ", "+", "-", "*", "/"]), inner).map("".join),
        inner.map(lambda text: f"({text})"),
    ),
    max_leaves=6,
)
PIECES = st.one_of(
    st.sampled_from(INSTRUCTIONS),
    OPERANDS,
    st.sampled_from(NAMES),
    st.sampled_from(PERIODS),
    st.sampled_from(UNITS),
    st.sampled_from(PERCENTS),
    FORMULAS,
    st.text(SCRIPTS, min_size=1, max_size=12),
)


TERMS = st.one_of(
    # an acronym no glossary holds, of any length (Hypothesis alone would keep them short)
    st.sampled_from([2, 5, 12, 33, 40]).flatmap(lambda n: st.text(string.ascii_uppercase, min_size=n, max_size=n)),
    st.builds(
        "{} {}".format,
        st.lists(st.sampled_from(MODIFIERS), min_size=1, max_size=6).map(" ".join),
        st.sampled_from(["operating margin", "net income", "revenue", "gross margin", "operating income % margin"]),
    ),
    FORMULAS,
)
# The shape of a question about one figure, with the term asked for one no glossary may hold.
ONE_FIGURE = st.builds(
    "{} what is the {} {} for {}? {}".format,
    st.sampled_from(INSTRUCTIONS),
    st.sampled_from(PERIODS),
    TERMS,
    st.sampled_from([*NAMES, "ACME", "香港"]),
    st.sampled_from(INSTRUCTIONS),
)


def _joined(pieces: list[str], separators: list[str]) -> str:
    return "".join(piece + separators[i % len(separators)] for i, piece in enumerate(pieces))


QUESTIONS = (
    st.one_of(
        ONE_FIGURE,
        st.builds(
            _joined, st.lists(PIECES, min_size=1, max_size=12), st.lists(st.sampled_from(SEPARATORS), min_size=1)
        ),
    )
    .map(lambda question: question.strip()[:2000])
    .filter(lambda question: bool(text_normalize(question)))
)
