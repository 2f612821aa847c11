"""Figures in prose (the numeric grounding check): value, unit class and sign.

Takes normalised text (`text_normalize`, or `prose_normalize` so that capitals still show);
returns every figure it states as a `Quantity` and every year it names. The grounding check
compares a claim's quantities with a source's, so both sides go through this one reader and a
verbatim quote always matches itself. It fails closed: a number it cannot classify is still a
claim, of a class only the same written form supports.

- **Numbers:** Arabic with thousands separators, decimals and exponents (`1,284.5`, `1.5e9`);
  other scripts' digits (`٢٥`) and full-width ones as ASCII; Chinese numerals (`二十亿`,
  `三点五亿`, `两成`, `百亿`, `千元`); Roman numerals with a Chinese unit or in capitals
  (`Ⅻ家`, `XII`). A Chinese numeral of two characters or more is a figure even with no unit
  (`双十一`); one character with no unit is part of a word (`十分`, `统一`, `一二线`).
- **Forms** (`forms`): fractions `三分之一`/`1/3` (ratio), `百分之`/`千分之` (percent/permille),
  `一半`; discounts `打七折`/`七五折` (ratio); `翻倍`/`翻番`/`doubled` (times, a rise); `减半`/
  `halved`; `零增长` (zero percent); ranks `第2`/`排名第二`/`No.1`/`2nd` (`rank`) and `top3`/
  `前三名` (`rank:top`). A numbered point of the answer (`第一，` opening a clause, `第二个原因`)
  is none.
- **Letters glued to digits** are a unit when known: `pct` (its own class: percent in English,
  points in Chinese broker prose), `ppt`/`pp`/`bps`, `x`/`times`/`倍`, the scales `k`/`m`/`mn`/
  `bn`/`tn`/`thousand`/`million`/`billion`/`trillion`. Any three letters glued to an amount
  (`myr1.2bn`), or written in capitals beside it (`MYR 1.2bn`, `1.2bn THB`), are a currency
  code. Any other letters make a class of their own (`iphone15` → `glued:iphone#`, `5g` →
  `glued:#g`). Periods (`FY2025`, `2025Q4`, `2025H1`, `Q4 2025`) are years, not figures.
- **Value and unit class:** the value is scaled to its class's base unit: `percent`, `points`
  (个百分点/pp; 基点/bps as hundredths), `permille`, `ratio`, `times`, `money:CNY|HKD|USD|…`,
  `count` (家, 人, 个 …), `time`, `date`, `rank`, `amount` (a scale and no unit: `150亿`),
  `number` (neither), `glued:…`, and `written:…` for a range read as written (`三四成`).
- **Approximations** state no figure: `几` before or after a numeral (`几十亿`, `十几亿`) and
  `数` before a place value (`数百家`), but not the `数` that ends a counted noun (`门店总数三百家`,
  `会员人数六千万` are exact). A count of the answer's own parts (`两个原因`, `3个方面`) and a
  lone `一` with a counter (`一家门店`) are none either.
- **Sign and direction** (`direction`): a written minus, a loss word beside the figure, or
  the nearest rise/fall word in its clause, before or after it. Parentheses are not read as
  negative: in prose `（15%）` is an aside.
- **Years:** a period with a written year (`2025年`, `FY2025`, `2025Q4`, `2025H1`,
  `二〇二五年`) is a year, not a quantity; relative periods (`去年`, `Q3`) name no digits.
"""

from __future__ import annotations

from core.language.quantities.chinese import chinese_integer
from core.language.quantities.direction import FALL, LOSS, MINUS, NEGATIVE, PLUS, RISE
from core.language.quantities.prose import prose_normalize
from core.language.quantities.reading import Claims, claims_find
from core.language.quantities.units import AMOUNT, COUNT, FACT, MONEY, NUMBER, PERCENT, POINTS, Quantity, fact_quantity

__all__ = [
    "AMOUNT",
    "COUNT",
    "FACT",
    "FALL",
    "LOSS",
    "MINUS",
    "MONEY",
    "NEGATIVE",
    "NUMBER",
    "PERCENT",
    "PLUS",
    "POINTS",
    "RISE",
    "Claims",
    "Quantity",
    "chinese_integer",
    "claims_find",
    "fact_quantity",
    "prose_normalize",
]
