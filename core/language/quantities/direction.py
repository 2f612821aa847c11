"""Which way a figure points: the sign a written minus, a loss word or a rise/fall word gives it.

Takes the normalised text and the figures read from it (with their spans); returns each as a
`Quantity` whose value is signed and whose `signed_by` says what signed it. Sources and
claims go through this one rule, so a quote always reads as itself.

1. A written sign (`-5%`, `+5%`) or a form that is its own direction (`翻倍`, `halved`) wins.
2. A loss word right beside the figure makes the value itself negative: `亏损10.85亿元`,
   `亏损额为…`, `亏损扩大至…`, `10.85亿元的亏损`, `a net loss of 5bn`, `5bn loss`.
3. Otherwise the nearest rise or fall word in the figure's clause, before *or* after it, gives
   its direction: `同比下挫21.2%`, `21.2%的下滑`, `a 10.0% decline`. A clause ends at `,;:。!?()`
   and at the end of an English sentence; a word does not reach past another figure unless
   the two are listed together (`8%-10%`, `10%和5%`, `5% to 8%`). A verb that moves *to* or
   *from* a level (`下降至29.7%`, `由31.9%下降至…`, `fell to`, `fell from`) gives no direction:
   those figures are levels. A clause that only states a size (`幅度为10.0%`) takes the
   direction of the clause before it.
4. A position or a date (`rank`, `date`) has no sign.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from core.language.quantities.units import UNSIGNED, Quantity

MINUS, PLUS, LOSS, FALL, RISE = "minus", "plus", "loss", "fall", "rise"
NEGATIVE = frozenset({MINUS, LOSS, FALL})

_FALL_ZH = (
    "下降|下滑|下跌|下挫|下行|下调|下探|下修|减少|降低|回落|回调|萎缩|缩水|缩减|缩小|收窄|减弱|"
    "走低|走弱|锐减|骤降|大跌|暴跌|大降|跌落|滑落|放缓|流失"
)
_RISE_ZH = (
    "增长|增加|上升|上涨|提高|提升|攀升|扩大|走高|走强|回升|反弹|上调|上修|大增|激增|猛增|飙升|暴涨|大涨|增多|上扬|拉升"
)
_FALL_EN = (
    r"declin(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|drop(?:s|ped|ping)?|fell|fall(?:s|ing|en)?|down|"
    r"lower(?:ed)?|shr(?:ank|ink|inks|inking|unk)|slump(?:s|ed|ing)?|plung(?:e|es|ed|ing)|"
    r"plummet(?:s|ed|ing)?|tumbl(?:e|es|ed|ing)|sl(?:id|ide|ides|iding)|slip(?:s|ped)?|dip(?:s|ped)?|"
    r"sank|sinks?|contract(?:ed|ing|ion)|cuts?|reduc(?:ed|tion)|negative growth"
)
_RISE_EN = (
    r"ris(?:e|es|ing|en)|rose|up|gr(?:ow|ows|ew|own|owing|owth)|increas(?:e|es|ed|ing)|gain(?:s|ed)?|"
    r"climb(?:s|ed)?|jump(?:s|ed)?|surg(?:e|es|ed)|soar(?:s|ed)?|rebound(?:s|ed)?|expand(?:s|ed)?|"
    r"expansion|higher|improv(?:e|es|ed)|boost(?:s|ed)?"
)
# Nouns that name a change's size (降幅为6.7%): `为` after them is no level.
_NOUNS = re.compile(r"(?P<fall>降幅|跌幅|减幅|负增长)|(?P<rise>增幅|涨幅|升幅)")
_LEVEL = r"(?P<level>了?\s?(?:至|到|为)|\s(?:to|from)(?![a-z]))?"
_VERBS = re.compile(
    rf"(?:(?P<fall>{_FALL_ZH}|(?<![a-z])(?:{_FALL_EN})(?![a-z]))"
    rf"|(?P<rise>(?<!负)(?:{_RISE_ZH})|(?<![a-z])(?:{_RISE_EN})(?![a-z]))){_LEVEL}"
)
_FILLER = (
    r"了|为|约|近|逾|超过|超|达到|高达|达|额为|额|约为|大约|将近|接近|共计|合计|同比|环比|\s"
    r"|(?<![a-z])(?:of|by|about|around|approximately|nearly|almost|roughly|some|over|more than|a|an|the)(?![a-z])"
)
_FILLERS = f"(?:{_FILLER})*"
# A one-character verb counts only right before its figure: 降6.7%, 增至5%, 翻3倍.
_SHORT_VERB = re.compile(rf"(?:(?P<fall>降|跌|减)|(?P<rise>增|升|涨|翻))(?P<level>了?(?:至|到|为))?{_FILLERS}$")
_LOSS_BEFORE = re.compile(
    rf"(?:(?P<minus>负)|净?亏损|(?<![扭减盈])亏|(?<![a-z])(?:net )?(?:loss(?:es)?|deficit)(?![a-z]))"
    rf"(?:{_FILLER}|(?:{_FALL_ZH}|{_RISE_ZH}|[增降升减])了?(?:至|到))*$"
)
_LOSS_AFTER = re.compile(
    r"(?:\s|的|of)*(?:[\u4e00-\u9fff]{0,2}亏损|(?<![a-z])(?:net )?(?:loss(?:es)?|deficit)(?![a-z]))"
)
_BESIDE = 24  # how far a word "beside" its figure may stand, fillers included
_MINUS_BEFORE = re.compile(r"(?<![0-9a-z%‰.)\]])[-−]\s?$")
_CLAUSE_END = re.compile(r"[;:。!?()\n]|,(?!\d{3})|\.(?=\s|$)")
_SIZE_ONLY = re.compile(r"幅度")
_LIST_JOIN = re.compile(r"\s?(?:、|和|与|及|以及|或|and|or|/)\s?")
_RANGE_JOIN = re.compile(r"\s?(?:-|–|~|至|到|to)\s?")


@dataclass(frozen=True)
class Figure:
    """A figure as read, before its sign: `value` ≥ 0 unless its form says otherwise."""

    start: int
    end: int
    value: Decimal
    unit: str
    text: str
    sign: str = ""  # MINUS or PLUS when written as a sign, or the direction a form is (翻倍: RISE)


class _Clauses:
    """Where each clause of a text starts and ends."""

    def __init__(self, text: str) -> None:
        found = list(_CLAUSE_END.finditer(text))
        self.starts = [m.start() for m in found]
        self.ends = [m.end() for m in found]
        self.length = len(text)

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The clause holding `text[start:end]`: from after the last end before it to the next."""
        before = bisect_right(self.ends, start)
        after = bisect_left(self.starts, end)
        return (self.ends[before - 1] if before else 0), (
            self.starts[after] if after < len(self.starts) else self.length
        )


def _joined(text: str, first: Figure, second: Figure) -> bool:
    gap = text[first.end : second.start]
    return bool(_LIST_JOIN.fullmatch(gap)) or (first.unit == second.unit and bool(_RANGE_JOIN.fullmatch(gap)))


def _runs(text: str, figures: Sequence[Figure]) -> list[list[Figure]]:
    runs: list[list[Figure]] = []
    for figure in figures:
        if runs and _joined(text, runs[-1][-1], figure):
            runs[-1].append(figure)
        else:
            runs.append([figure])
    return runs


def _nearest(text: str, left: int, start: int, end: int, right: int) -> str | None:
    """The direction of the nearest rise/fall word in `text[left:start]` or `text[end:right]`."""
    found: list[tuple[int, int, str]] = []  # (distance, side: 0 before, 1 after, direction)
    window = text[left:start]
    for pattern in (_VERBS, _NOUNS):
        before = list(pattern.finditer(window))
        if before:
            m = before[-1]
            found.append((len(window) - m.end(), 0, _kind(m)))
        after = pattern.search(text, end, right)
        if after:
            found.append((after.start() - end, 1, _kind(after)))
    short = _SHORT_VERB.search(text, max(left, start - _BESIDE), start)
    if short:
        found.append((0, 0, _kind(short)))
    if not found:
        return None
    return min(found)[2]


def _kind(m: re.Match[str]) -> str:
    if m.re is not _NOUNS and m.group("level"):
        return ""  # a move to or from a level: the figure is the level
    return FALL if m.group("fall") else RISE


def _loss(text: str, left: int, start: int, end: int, right: int) -> str | None:
    before = _LOSS_BEFORE.search(text, max(left, start - _BESIDE), start)
    if before:
        return MINUS if before.group("minus") else LOSS
    return LOSS if _LOSS_AFTER.match(text, end, right) else None


def quantities_sign(text: str, figures: Sequence[Figure]) -> list[Quantity]:
    """Each figure as a `Quantity`, signed by the rule of the module docstring."""
    ordered = sorted(figures, key=lambda f: f.start)
    quantities: list[Quantity] = []
    clauses = _Clauses(text)
    runs = _runs(text, ordered)
    for index, run in enumerate(runs):
        first, last = run[0], run[-1]
        clause_start, _ = clauses.around(first.start, first.end)
        _, clause_end = clauses.around(last.start, last.end)
        left = max(clause_start, runs[index - 1][-1].end if index else 0)
        right = min(clause_end, runs[index + 1][0].start if index + 1 < len(runs) else len(text))
        direction = _nearest(text, left, first.start, last.end, right)
        if direction is None and _SIZE_ONLY.search(text, left, first.start) and clause_start:
            previous_start, _ = clauses.around(clause_start - 1, clause_start - 1)
            direction = _nearest(text, previous_start, clause_start - 1, last.end, last.end)
        for figure in run:
            quantities.append(_signed(text, figure, left, right, direction))
    return quantities


def _signed(text: str, figure: Figure, left: int, right: int, direction: str | None) -> Quantity:
    if figure.unit in UNSIGNED:
        signed_by = ""
    elif figure.sign:
        signed_by = figure.sign
    elif _MINUS_BEFORE.search(text[max(0, figure.start - 4) : figure.start]):
        signed_by = MINUS  # -百分之五: a form written with a minus
    else:
        signed_by = _loss(text, left, figure.start, figure.end, right) or direction or ""
    value = -figure.value if signed_by in NEGATIVE and figure.value > 0 else figure.value
    return Quantity(value, figure.unit, figure.text, signed_by)
