"""A yes/no check of a stated figure: the question states a figure and asks whether it is so.

Takes the question as asked; returns the `FigureChecked` (the figure as `core.language.quantities`
reads it, value signed and scaled to its class's base unit; one unit of its last written digit;
whether it asks `equals` or `reaches`; the figure as written), or None. The forms, by shape:

- Chinese, a yes/no word right before the figure: `是不是X`, `是否X`, `是否为X`, `是否是X`,
  `是否等于X` (equals); `有没有X`, `有无X`, `是否达到X`, `是否有X`, `是不是有X` (reaches);
- Chinese, the copula or `有`/`达到` right before the figure in a question (`是X吗`, `为X吗`,
  `有X吗`, `达到X了吗`, `…X？`), or the figure right after what it is of (`营收X吗`);
- a tag after the figure: `…X，对吗` / `对不对` / `是吗` / `没错吧`, `… X, right?` / `correct?` /
  `isn't it?` (reaches after a verb of reaching, else equals);
- English `Is/Was/Were/Are … X?` (equals) and `Did/Has … reach/hit X?` (reaches).

The figure ends the question (a period named after it, `in 2024`, `去年`, is read past), is the
one figure the question states, and points nowhere: a change (`增长了10%`, `grew 10%`), a
comparison (`超过`, `over`, `more than`), an approximation (`约`, `250多亿`, `about`) or anything
else between the yes/no word and the figure is no check, and nothing is said yes or no to.

Precision: one unit of the last digit written, zeros included (`250亿` is written to the 亿;
`2.5万亿` to the 千亿); a Chinese numeral to its last place word (`二百五十七亿`: the 亿).
Only the question's shape is read: no glossary word or value.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from core.language.normalize import question_language, text_normalize
from core.language.periods import periods_find
from core.language.quantities import AMOUNT, COUNT, LOSS, MINUS, MONEY, NUMBER, PERCENT, POINTS, Quantity, claims_find
from core.language.quantities.chinese import BIG, RUN, numeral_value
from core.language.quantities.units import PREFIX_CURRENCIES

EQUALS = "equals"
REACHES = "reaches"
# The classes a level stored in the fact table can be: money, a bare amount, a count, a
# percentage, points, a bare number. A ratio, a multiple, a rank or a date checks nothing.
COMPARABLE = (MONEY, AMOUNT, COUNT, PERCENT, POINTS, NUMBER)


@dataclass(frozen=True)
class FigureChecked:
    """The figure a question asks yes or no of, and how it asks."""

    quantity: Quantity
    precision: Decimal  # one unit of the last digit written, in the quantity's base unit
    relation: str  # EQUALS or REACHES
    written: str  # the figure as the analyst wrote it (its currency before it included)


_ANY_DAY = date(2000, 1, 1)  # only the spans of periods are read, never their values
_END = re.compile(r"[\s?!.,;:~。，；：！？～]+$")
_PARTICLES = re.compile(r"[了吗么嘛呢吧啊呀哈]+$")
_ASKING_PARTICLE = re.compile(r"[吗么嘛]")
_TAG_ZH = re.compile(
    r"[,，]?\s*(?:对吗|对么|对不对|对吧|是吗|是吧|是么|是不是|是不是啊|没错吧|没错吗|没错|不是吗|正确吗|准确吗|属实吗|是这样吗)$"
)
_TAG_EN = re.compile(
    r",\s*(?:right|correct|true|no|is that (?:right|correct)|isn't it|wasn't it|aren't they|weren't they)$"
    r"|\s+(?:is that (?:right|correct)|isn't it|wasn't it)$"
)
# A yes/no word right before the figure asks by itself; the copula or 有 asks only in a question.
_ASK_ZH = re.compile(
    r"(?:(?P<reaches>有没有(?:达到了?)?|有无|有否|是否(?:达到了?|有)|是不是(?:达到了?|有)|能否达到)"
    r"|(?P<equals>是不是(?:等于|为)?|是否(?:为|是|等于)?))$"
)
_STATE_ZH = re.compile(r"(?:(?P<reaches>达到了?|有)|(?P<equals>等于|是|为))$")
_COMPARED_ZH = re.compile(
    r"(?:超过|超出|高于|低于|多于|少于|大于|小于|不到|不足|不少于|不低于|不超过|至少|最少|最多|逾|近|接近|约|"
    r"大约|差不多|将近|达|到|至|比|较|了|和|与|或|在|从)$"
)
_AUX_EN = re.compile(r"^(?:so\s+)?(?P<aux>is|was|were|are|did|does|do|has|have|had)(?![a-z])")
_REACH_EN = re.compile(r"(?<![a-z])(?:reach|reached|reaches|hit|hits|attain|attained)$")
_COMPARED_EN = re.compile(
    r"(?<![a-z])(?:over|above|more than|less than|fewer than|under|below|at least|at most|up to|"
    r"exceed|exceeded|exceeds|surpass|surpassed|top|topped|beyond|by|to|from|than|about|around|"
    r"approximately|roughly|nearly|almost|some|circa|between|and|or|within|near|close to|up|down|"
    r"grow|grew|rise|rose|fall|fell|increase|increased|decrease|decreased|decline|declined)$"
)
_TRAILING_EN = re.compile(r"(?:\s+(?:in|for|during|of|at|over|across|as of))+$")
_CURRENCY_BEFORE = re.compile(
    "(?:"
    + "|".join(
        ("(?<![a-z])" if c[0].isalpha() and c.isascii() else "") + re.escape(c)
        for c in sorted(PREFIX_CURRENCIES, key=len, reverse=True)
    )
    + r")\s?$"
)
_ARABIC = re.compile(r"(?P<int>\d[\d,]*)(?:\.(?P<frac>\d+))?(?:e(?P<exp>[+-]?\d{1,3}))?")


def figure_checked(question: str) -> FigureChecked | None:
    """The figure `question` asks yes or no of, or None (see the module's docstring)."""
    normalized = text_normalize(question)
    text = _END.sub("", _periods_blanked(normalized))
    latin = question_language(normalized) == "en"
    tag = (_TAG_EN if latin else _TAG_ZH).search(text)
    if tag is not None:
        text = _END.sub("", text[: tag.start()])
    asking = tag is not None or normalized.rstrip().endswith("?")
    if not latin:
        particles = _PARTICLES.search(text)
        if particles is not None:
            asking = asking or bool(_ASKING_PARTICLE.search(particles.group()))
            text = text[: particles.start()]
    else:
        text = _TRAILING_EN.sub("", text)
    text = text.rstrip()
    figures = [q for q in claims_find(text).quantities if q.unit.startswith(COMPARABLE)]
    if len(figures) != 1 or not text.endswith(figures[0].text):
        return None
    quantity = figures[0]
    if quantity.signed_by not in ("", MINUS, LOSS) or re.search(r"[余多]", quantity.text):
        return None  # a change, or an approximation (250多亿)
    before = text[: len(text) - len(quantity.text)]
    currency = _CURRENCY_BEFORE.search(before)
    head = before[: currency.start()] if currency else before
    head = re.sub(r"[-−+]\s?$", "", head).rstrip()
    relation = _relation_en(head, tag is not None) if latin else _relation_zh(head, tag is not None, asking)
    precision = _precision(quantity)
    if relation is None or precision is None:
        return None
    written = text[len(head) :].strip()
    return FigureChecked(quantity, precision, relation, _as_written(question, written))


def _periods_blanked(normalized: str) -> str:
    """The question with each period it names as a space: `in 2024` is no figure, and a period
    after the figure (`… 25.7 billion in 2024?`) does not keep it from ending the question."""
    parts: list[str] = []
    cursor = 0
    for start, end, _ in periods_find(normalized, _ANY_DAY):
        parts += [normalized[cursor:start], " "]
        cursor = end
    parts.append(normalized[cursor:])
    return " ".join("".join(parts).split())


def _relation_zh(head: str, tagged: bool, asking: bool) -> str | None:
    asked = _ASK_ZH.search(head)
    if asked is not None:
        return REACHES if asked.group("reaches") else EQUALS
    if not (asking or tagged):
        return None  # `营收是257亿`: a statement
    stated = _STATE_ZH.search(head)
    if stated is not None:
        return REACHES if stated.group("reaches") else EQUALS
    if head and not _COMPARED_ZH.search(head) and not head[-1].isdigit():
        return EQUALS  # `营收257亿，对吗`, `营收257亿吗`: the figure right after what it is of
    return None


def _relation_en(head: str, tagged: bool) -> str | None:
    aux = _AUX_EN.match(head)
    if aux is None and not tagged:
        return None
    if _REACH_EN.search(head):
        return REACHES
    if _COMPARED_EN.search(head) or (aux is not None and aux.group("aux") in ("did", "does", "do")):
        return None  # `did revenue grow 10%`: a did-question checks only a figure reached
    return EQUALS


def _precision(quantity: Quantity) -> Decimal | None:
    """One unit of the figure's last written digit, in its base unit: the written numeral's value
    and its last digit's place, scaled as the quantity was (`2.5万亿` → 10^11)."""
    digits = _ARABIC.search(quantity.text)
    try:
        if digits is not None:
            numeral = Decimal(digits.group("int").replace(",", "") + "." + (digits.group("frac") or "0"))
            place = Decimal(1).scaleb(-len(digits.group("frac") or ""))
            if digits.group("exp"):
                numeral, place = numeral.scaleb(int(digits.group("exp"))), place.scaleb(int(digits.group("exp")))
        else:
            runs = list(RUN.finditer(quantity.text))
            if not runs:
                return None
            run = runs[-1]
            frac = run.group("frac") or ""
            value = numeral_value(run.group("run") + (f"点{frac}" if frac else ""))
            if value is None:
                return None
            numeral = value
            place = Decimal(1).scaleb(-len(frac)) if frac else Decimal(_last_place(run.group("run")))
        if numeral == 0:
            return None
        return abs(quantity.value / numeral) * place
    except (InvalidOperation, ZeroDivisionError):
        return None


def _last_place(run: str) -> int:
    """The place a Chinese numeral's last word holds (`十三万亿` → 10^12, `二百五十七` → 1)."""
    place = 1
    for ch in reversed(run):
        if ch not in BIG:
            break
        place *= BIG[ch]
    return place


def _as_written(question: str, figure: str) -> str:
    """The figure in the case the analyst wrote it (`RMB 25.7 billion`), when the question holds it."""
    written = unicodedata.normalize("NFKC", question)
    at = written.lower().find(figure)
    return written[at : at + len(figure)] if at >= 0 and len(written.lower()) == len(written) else figure
