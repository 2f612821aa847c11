"""The verdict a yes/no check of a stated figure leads with (`不是。` / `是的。` / `No.` / `Yes.`).

Takes the figure the question checks (`core.parse.intent.figure_checked`) and the one stored fact
the lookup found; returns the verdict and its line, or None when the two cannot be compared (a
money figure in another currency, a percentage against an amount …): then nothing is said yes
or no to, and the fact line stands alone. No fact, no verdict: the caller asks only with one.

The rule. The asked figure is converted with its scale and unit into the fact's unit
(`13万亿` → 13,000,000 百万元; a bare number is read in the fact's unit); nothing is converted
across currencies.

- `equals` (`是不是X`, `是X吗`, `Was … X?`): equal exactly → `yes`. Otherwise both are rounded
  half-up to the coarser of two precisions, the question's (one unit of its last written digit:
  `2.5万亿` to the 千亿, `246亿` to the 亿, `250亿` to the 亿 too, a written zero being a digit)
  and the fact's as stored (`24,611.4 百万元` to the 0.1 百万元). Equal then → `approximately`
  (`是的，约为…` / `Yes, approximately …`): so `246亿` against 24,611.4 百万元 is approximately
  so, while `2.5万亿` (0.0 万亿 at its precision) and `250亿` are not. Anything else → `no`.
- `reaches` (`有没有X`, `是否达到X`, `Did … reach X?`): the fact at least X, exactly → `yes`;
  below it → `no`. A threshold is not rounded.

The line states only two figures: the asked one as the analyst wrote it and the fact's value as
the fact line shows it (invariant 1): never a difference, a rounding or a conversion of either.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

from core.glossary import GlossarySnapshot
from core.language.quantities import AMOUNT, COUNT, MONEY, NUMBER, PERCENT, POINTS, fact_quantity
from core.model.facts import FactRecord
from core.parse.intent import REACHES, FigureChecked
from core.routes.render import unit_suffix, value_format

YES = "yes"
APPROXIMATELY = "approximately"
NO = "no"

# What an asked figure of each class may be compared with, by the fact's class.
_COMPARABLE = {
    PERCENT: (PERCENT, NUMBER),
    POINTS: (POINTS, NUMBER),
    COUNT: (COUNT, AMOUNT, NUMBER),
    NUMBER: (NUMBER,),
}

_LINES = {
    ("zh", YES): "是的。事实表中为 {value}，与所问的 {asked} 一致。",
    ("zh", APPROXIMATELY): "是的，约为 {asked}：事实表中为 {value}，两者仅在四舍五入后相符。",
    ("zh", NO): "不是。事实表中为 {value}，不是 {asked}。",
    ("zh", YES, REACHES): "是的。事实表中为 {value}，达到 {asked}。",
    ("zh", NO, REACHES): "不是。事实表中为 {value}，未达到 {asked}。",
    ("en", YES): "Yes. The fact table has {value}, which equals {asked}.",
    ("en", APPROXIMATELY): "Yes, approximately {asked}: the fact table has {value}, which matches only after rounding.",
    ("en", NO): "No. The fact table has {value}, not {asked}.",
    ("en", YES, REACHES): "Yes. The fact table has {value}, which reaches {asked}.",
    ("en", NO, REACHES): "No. The fact table has {value}, which does not reach {asked}.",
}


def figure_verdict(checked: FigureChecked, fact: FactRecord) -> str | None:
    """`yes`, `approximately` or `no` for the figure checked against the fact (see the module's
    docstring), or None when the two are not of one kind."""
    stored = fact_quantity(fact)
    one = fact_quantity(replace(fact, value=Decimal(1))).value  # one of the fact's unit, in its base
    asked = checked.quantity
    if stored.unit.startswith(MONEY):
        fits = asked.unit in (stored.unit, AMOUNT, NUMBER)
    else:
        fits = asked.unit in _COMPARABLE.get(stored.unit, ())
    if not fits or one == 0:
        return None
    target = asked.value * one if asked.unit == NUMBER else asked.value
    precision = checked.precision * one if asked.unit == NUMBER else checked.precision
    if checked.relation == REACHES:
        return YES if stored.value >= target else NO
    if stored.value == target:
        return YES
    coarser = max(precision, one * _stored_place(fact.value))
    return APPROXIMATELY if _rounded(stored.value, coarser) == _rounded(target, coarser) else NO


def verdict_line(checked: FigureChecked, fact: FactRecord, glossary: GlossarySnapshot, language: str) -> str | None:
    """The verdict's line in the question's language, or None when there is no verdict."""
    verdict = figure_verdict(checked, fact)
    if verdict is None:
        return None
    lang = "en" if language == "en" else "zh"
    template = _LINES.get((lang, verdict, checked.relation)) or _LINES[(lang, verdict)]
    value = value_format(fact.value) + unit_suffix(glossary, fact.unit, language)
    return template.format(value=value, asked=checked.written)


def _stored_place(value: Decimal) -> Decimal:
    """One unit of the stored value's last digit (`24611.4` → 0.1; `412` → 1)."""
    exponent = value.as_tuple().exponent
    return Decimal(1).scaleb(exponent) if isinstance(exponent, int) and exponent < 0 else Decimal(1)


def _rounded(value: Decimal, step: Decimal) -> Decimal:
    return (value / step).to_integral_value(rounding=ROUND_HALF_UP) * step
