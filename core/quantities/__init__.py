"""Figures in prose (SPEC §7, the numeric grounding check): value, unit class and sign.

Takes normalised text (see `normalize.text_normalize`); returns every figure it states as a
`Quantity` and every year it names. The grounding check compares a claim's quantities with a
source's, so both sides go through this one parser and a verbatim quote always matches itself.

- **Numbers:** Arabic with thousands separators and decimals (`1,284.5`); amounts glued to a
  currency (`rmb150亿`, `hk$320亿`, `us$5m`); Chinese numerals (`二十亿`, `一百二十亿`,
  `三点五亿`, `两成`, `百分之三十`). `几`/`数` make a numeral approximate and no figure
  (`几十亿`, `数百万`). An ordinal (`第3`, `第一`) numbers the text itself and is no figure;
  digits glued to other letters are part of a name (`q4`, `iphone15`) unless a Chinese unit or
  `%` follows. Full-width digits arrive as ASCII (NFKC).
  A Chinese numeral is a figure only with a scale or unit (`两家`, `二十亿`, `三个门店`), and
  a lone `一` with a counter is an article (`一家门店`). A count of the answer's own parts
  (`两个原因`, `3个方面`, `三项措施`) is no figure in either script.
- **Value and unit class:** the value is scaled to its class's base unit (亿/万/千/百万,
  million/billion/thousand, `m`/`bn`/`k`): `percent`, `points` (个百分点/pp; 基点/bp as
  hundredths), `permille`, `times` (倍), `money:CNY|HKD|USD|…` (元, rmb, 港元, hk$, 美元, $ …),
  `count` (家, 人, 个, 间, 店 …), `time` (年, 个月, 天), `date` (月, 日), `amount` (a scale
  and no unit: `150亿`) and `number` (neither).
- **Sign:** an explicit minus (`-`, `−`, `负`) makes a value negative, and so does a word that
  states the figure as a loss or a fall when it stands right before it: `亏损10.85亿元`,
  `同比下降6.7%`, `down 6.7%`. A fall *to* a level (`下降至29.7%`) is a level, not a change,
  and stays positive. Parentheses are not read as negative: in prose `（15%）` is an aside.
- **Years:** a period with a written year (`2025年`, `FY2025`, `2025Q4`, `2025H1`,
  `二〇二五年`) is a year, not a quantity; relative periods (`去年`, `Q3`) name no digits.
"""

from __future__ import annotations

from .chinese import chinese_integer
from .reading import Claims, claims_find
from .units import AMOUNT, COUNT, MONEY, NUMBER, PERCENT, POINTS, Quantity, fact_quantity

__all__ = [
    "AMOUNT",
    "COUNT",
    "MONEY",
    "NUMBER",
    "PERCENT",
    "POINTS",
    "Claims",
    "Quantity",
    "chinese_integer",
    "claims_find",
    "fact_quantity",
]
