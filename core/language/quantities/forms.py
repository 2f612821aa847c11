"""Written forms of a figure that are not a numeral and a unit: fractions, discounts, doublings,
zero growth and ranks. Each is read before the numerals, and the numerals inside it are not
read again.

- `N分之M` is the ratio M/N (`三分之一`, `1/3`); `百分之M` is M percent and `千分之M` M
  permille. `一半` is the ratio 1/2.
- `打七折`, `七五折`, `7.5折` are the ratios 0.7, 0.75, 0.75.
- `翻倍`, `翻番`, `翻一番`, `doubled` are two times, `翻两番` four, `tripled` three: each a rise;
  `减半`, `腰斩`, `halved` are half: a fall.
- `零增长`, `zero growth` are zero percent.
- A rank is a claim (`rank`): `第2`, `第二`, `排名第二`, `No.1`, `#1`, `2nd`; within the first N
  (`rank:top`): `top3`, `前三名`, `前10大`. An ordinal that numbers the answer's own points is
  none: `第一，` opening its clause (but not after a ranking word: `排名：第一，`), or
  `第一个原因`, `第二阶段`.
"""

from __future__ import annotations

import re
from decimal import Decimal

from core.language.quantities.chinese import BIG, DIGITS, SMALL, numeral_value
from core.language.quantities.direction import FALL, RISE, Figure
from core.language.quantities.units import PERCENT, PERMILLE, RANK, RATIO, TIMES, TOP, WRITTEN

_CN = f"[{''.join(DIGITS)}{''.join(SMALL)}{''.join(BIG)}]+(?:点[{''.join(DIGITS)}]+)?"
_NUMERAL = rf"(?:\d+(?:\.\d+)?|{_CN})"
_FRACTION = re.compile(rf"(?P<den>\d+|{_CN})分之(?P<num>{_NUMERAL})")
_SLASH = re.compile(r"(?<![\d./])(?P<num>\d+)/(?P<den>\d+)(?![\d/])")
_HALF = re.compile(r"一半")
_DISCOUNT = re.compile(
    rf"(?<![\d.{''.join(DIGITS)}{''.join(SMALL)}])打?(?P<n>\d{{1,2}}(?:\.\d)?|[一二三四五六七八九]{{1,2}})"
    r"折(?!叠|合|旧|算|扣|返|射|线|中|腾|服|损|现|页|痕|纸)"
)
_DOUBLED = re.compile(r"翻了?一?(?:倍|番)|(?<![a-z])doubl(?:ed|es|ing)(?![a-z])")
_TIMES_WORDS = {
    "tripl": Decimal(3),
    "trebl": Decimal(3),
    "quadrupl": Decimal(4),
}
_MULTIPLIED = re.compile(r"(?<![a-z])(?P<stem>tripl|trebl|quadrupl)(?:ed|es|ing)(?![a-z])")
_POWERS = re.compile(r"翻了?(?P<n>两|二|三|四|[2-9])番")
_HALVED = re.compile(r"减半|腰斩|(?<![a-z])halv(?:ed|es|ing)(?![a-z])")
_ZERO = re.compile(r"零增长|(?<![a-z])zero growth(?![a-z])")
_ORDINAL = re.compile(rf"第\s?(?P<n>\d+|{_CN})")
_TOP = re.compile(rf"(?<![a-z])top[\s-]?(?P<n>\d+)(?!\d)|前(?P<cn>\d+|{_CN})(?:名|位|强|大)")
_NUMBERED = re.compile(
    r"(?<![a-z])(?:no\.\s?|no(?=\d)|#\s?)(?P<n>\d+)(?!\d)|(?<![\d.])(?P<nth>\d+)(?:st|nd|rd|th)(?![a-z])"
)
_CLAUSE_START = re.compile(r"(?:^|[,;:。!?()\n、])\s*$")
_RANKED_BEFORE = re.compile(r"(?:排名|名次|排行|位列|位居|居|列|(?<![a-z])rank(?:ed|s|ing)?)\s?[,:;、]?$")
_POINT_AFTER = re.compile(r"\s?[,;:、.]")
_OWN_PARTS = re.compile(
    r"(?:个|项|条|点|大)?(?:主要|重要|关键|核心)?"
    r"(?:原因|方面|因素|问题|部分|阶段|层面|角度|维度|要点|特点|措施|举措|步骤|步|建议|理由|变化|驱动)"
)


def _integer(written: str) -> Decimal | None:
    value = numeral_value(written)
    return value if value is not None and value == value.to_integral_value() else None


def forms_find(text: str) -> tuple[list[Figure], list[tuple[int, int]]]:
    """The figures these forms state, and every span they cover (ordinals that state none too)."""
    figures: list[Figure] = []
    spans: list[tuple[int, int]] = []

    def add(m: re.Match[str], value: Decimal | None, unit: str, sign: str = "") -> None:
        if any(m.start() < end and start < m.end() for start, end in spans):
            return
        spans.append(m.span())
        if value is None:  # the form is read, but not as a value: only the same words support it
            value, unit = Decimal(0), WRITTEN + m.group()
        figures.append(Figure(m.start(), m.end(), value, unit, m.group(), sign))

    for m in _FRACTION.finditer(text):
        den, num = m.group("den"), numeral_value(m.group("num"))
        if den == "百":
            add(m, num, PERCENT)
        elif den == "千":
            add(m, num, PERMILLE)
        else:
            whole = Decimal(10**4) if den == "万" else numeral_value(den)
            add(m, num / whole if num is not None and whole else None, RATIO)
    for m in _SLASH.finditer(text):
        den = Decimal(m.group("den"))
        add(m, Decimal(m.group("num")) / den if den else None, RATIO)
    for m in _HALF.finditer(text):
        add(m, Decimal("0.5"), RATIO)
    for m in _DISCOUNT.finditer(text):
        add(m, _discount(m.group("n")), RATIO)
    for m in _DOUBLED.finditer(text):
        add(m, Decimal(2), TIMES, RISE)
    for m in _MULTIPLIED.finditer(text):
        add(m, _TIMES_WORDS[m.group("stem")], TIMES, RISE)
    for m in _POWERS.finditer(text):
        power = numeral_value(m.group("n"))
        add(m, Decimal(2) ** int(power) if power is not None else None, TIMES, RISE)
    for m in _HALVED.finditer(text):
        add(m, Decimal("0.5"), TIMES, FALL)
    for m in _ZERO.finditer(text):
        add(m, Decimal(0), PERCENT)
    for m in _ORDINAL.finditer(text):
        opens = _CLAUSE_START.search(text, max(0, m.start() - 4), m.start())
        if (
            opens
            and _POINT_AFTER.match(text, m.end())
            and not _RANKED_BEFORE.search(text, max(0, opens.start() - 12), opens.start() + 1)
        ):
            spans.append(m.span())  # 第一，…；第二，…: the answer numbering its own points
        elif _OWN_PARTS.match(text, m.end()):
            spans.append(m.span())
        else:
            add(m, _integer(m.group("n")), RANK)
    for m in _TOP.finditer(text):
        add(m, _integer(m.group("n") or m.group("cn")), TOP)
    for m in _NUMBERED.finditer(text):
        add(m, Decimal(m.group("n") or m.group("nth")), RANK)
    return figures, spans


def _discount(written: str) -> Decimal:
    if written.isdigit() and len(written) == 2:
        return Decimal(written) / 100  # 75折
    if written[0] in DIGITS:
        digits = [DIGITS[ch] for ch in written]
        return Decimal(digits[0]) / 10 + (Decimal(digits[1]) / 100 if len(digits) > 1 else 0)
    return Decimal(written) / 10
