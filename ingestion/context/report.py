"""The report a document is and its period: a title line (`2019年年度报告`, `二〇一九年年度报告`,
`2019年年报`, `Annual Report 2019`) anywhere, as a cover or a running header prints it; on the
cover, a filing form (`Form 10-K`), `annual report pursuant to section 13` and `for the fiscal
year ended <date>`; a file name's title words, form or compact period (`2019Q3`, `FY2019`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta

from core.model.period import Period

from ..headers import periods_rewrite
from .places import Place, Seen

ANNUAL, HALF_YEAR, QUARTERLY = "annual", "half_year", "quarterly"
REPORT_TYPES = (ANNUAL, HALF_YEAR, QUARTERLY)
_PERIOD_TYPES = {ANNUAL: "FY", HALF_YEAR: "HY", QUARTERLY: "QUARTER"}
_YEAR = r"(?P<year>(?:19|20)[0-9]{2})"
# A cover prints its year in digits or in Chinese numerals, zero as 〇, ○ or 零 (`二〇一九年`).
_NUMERALS = {**dict.fromkeys("〇○零o0", "0"), **{n: str(i) for i, n in enumerate("一二三四五六七八九", 1)}}
_ZH_YEAR = r"(?P<year>(?:19|20)[0-9]{2}|(?:一九|二[〇○零o0])[〇○零o0一二三四五六七八九]{2})"
# A dual-listed bank or insurer files an edition per share class; a corrected report says so.
_EDITION = r"\(?(?:[ah]股|修订版|修订稿|更正版|更正后)\)?"
ZH_REPORT = (
    rf"(?:{_ZH_YEAR}\s?(?:年\s?)?)?(?P<kind>年度报告|年报|半年度报告|半年报|中期报告"
    rf"|第?\s?(?P<quarter>[一二三四1-4])\s?季度报告)\s?(?:摘要|全文|正文)?(?:\s?{_EDITION})?"
)
EN_REPORT = (
    rf"(?:{_YEAR}\s)?(?P<kind>annual|interim|half[- ]year(?:ly)?|quarterly) report"
    r"(?:\s(?:for\s)?(?:the\s)?(?:year\s)?(?P<year2>(?:19|20)[0-9]{2}))?"
)
ZH_TITLE = re.compile(rf"(?P<name>[^。，,；;:：!?！？的]{{0,40}}?)\s?{ZH_REPORT}")
EN_TITLE = re.compile(rf"(?P<name>.{{0,60}}?)\s?{EN_REPORT}")
_QUARTERS = {"一": 1, "二": 2, "三": 3, "四": 4}
# A cover's title set letter-spaced (`2 0 1 9 年 年 度 报 告`): no space between its characters.
_LETTER_SPACED = re.compile(r"(?<=[0-9\u3007\u25cb\u4e00-\u9fff]) (?=[0-9\u3007\u25cb\u4e00-\u9fff])")
_EN_KINDS = {"annual": ANNUAL, "interim": HALF_YEAR, "quarterly": QUARTERLY}
_FORM = re.compile(r"(?<![a-z0-9])form\s?(?P<form>10-k|20-f|40-f|10-q)(?![a-z0-9])")
_FORM_TYPES = {"10-k": ANNUAL, "20-f": ANNUAL, "40-f": ANNUAL, "10-q": QUARTERLY}
_PURSUANT = re.compile(r"(?<![☐□] )(?<![☐□])\b(?P<kind>annual|quarterly) report pursuant to\b")
_ENDED = re.compile(
    r"\bfor the (?:(?P<annual>(?:fiscal |financial )?year)|(?P<quarterly>quarterly period|quarter|three months)"
    r"|(?P<half_year>six months|6 months|half[- ]year|interim period)) ended(?:\b|(?=[a-z]))(?P<rest>.{0,30})"
)  # `ended` may be glued to the date the cover prints in another font (`endedDecember 31, 2019`)
_FILE_FORM = re.compile(r"(?<![a-z0-9])(?P<form>10-k|20-f|40-f|10-q)(?![a-z0-9])")
_PERIOD_WORDS = re.compile(r"(?<![0-9a-z])(?:fy\s?)?(?:19|20)[0-9]{2}(?:\s?(?:h[12]|q[1-4]|年度?))?(?![0-9a-z])")
_COMPACT_PERIOD = re.compile(
    r"(?<![0-9a-z])(?:fy\s?(?P<fy>(?:19|20)[0-9]{2})|(?P<year>(?:19|20)[0-9]{2})\s?(?P<part>h[12]|q[1-4]))(?![0-9a-z])"
)


def reports_read(places: list[Place], year_end: int | None) -> Iterator[Seen]:
    for place in places:
        report = title_report(place.text)
        if report is not None:
            yield Seen(report, place.text, place)
        if not place.cover:
            continue
        for form in _FORM.finditer(place.text):
            yield Seen((_FORM_TYPES[form.group("form")], None), form.group(0), place)
        for pursuant in _PURSUANT.finditer(place.text):
            yield Seen((_EN_KINDS[pursuant.group("kind")], None), pursuant.group(0), place)
        for ended in _ENDED.finditer(place.text):
            kind = next(k for k in (ANNUAL, QUARTERLY, HALF_YEAR) if ended.group(k))
            dates = periods_rewrite(ended.group("rest"))[1]
            period = _dated(kind, dates[0], year_end) if dates else None
            yield Seen((kind, period), ended.group(0).strip(), place)


def cover_year_end(places: list[Place]) -> date | None:
    """The day the cover says the fiscal year ended (`For the fiscal year ended May 31, 2019`)."""
    for place in places:
        if not place.cover:
            continue
        for ended in _ENDED.finditer(place.text):
            dates = periods_rewrite(ended.group("rest"))[1]
            if ended.group("annual") and dates:
                return dates[0]
    return None


def title_report(text: str) -> tuple[str | None, Period | None] | None:
    """The report a title line names (`2019年年度报告`, `二〇一九年第三季度报告`, `Annual Report 2019`,
    `ACME 2025H1 中期报告`), else None."""
    zh = ZH_TITLE.fullmatch(text) or ZH_TITLE.fullmatch(_LETTER_SPACED.sub("", text))
    en = EN_TITLE.fullmatch(text)
    if zh is not None:
        report_type, period = _zh_report(zh)
    elif en is not None:
        report_type, period = _en_report(en)
    else:
        return None
    if period is None:
        compact = _compact_period(text)
        period = compact if fits(report_type, compact) else None
    return report_type, period


def periods_strip(text: str) -> str:
    """`text` without the years and periods a title prints beside a name (`ACME 2025H1`)."""
    return _PERIOD_WORDS.sub(" ", text)


def _zh_report(found: re.Match[str]) -> tuple[str | None, Period | None]:
    kind, quarter = found.group("kind"), found.group("quarter")
    year = "".join(_NUMERALS.get(char, char) for char in found.group("year") or "")
    if quarter:
        number = _QUARTERS.get(quarter) or int(quarter)
        return QUARTERLY, Period("QUARTER", f"{year}Q{number}") if year else None
    if kind.startswith(("半年", "中期")):
        return HALF_YEAR, Period("HY", f"{year}H1") if year else None
    return ANNUAL, Period("FY", year) if year else None


def _en_report(found: re.Match[str]) -> tuple[str | None, Period | None]:
    kind = _EN_KINDS.get(found.group("kind"), HALF_YEAR)
    year = found.group("year") or found.group("year2")
    if not year or kind == QUARTERLY:
        return kind, None
    return kind, Period("FY", year) if kind == ANNUAL else Period("HY", f"{year}H1")


def _dated(kind: str, day: date, year_end: int | None) -> Period:
    """The period of this kind that ends on `day`, in the company's fiscal calendar (a calendar
    year without a year-end month): the year is named by the month it ends in."""
    if day.day <= 7:  # a 52/53-week period closing in the first days of the next month
        day -= timedelta(days=7)
    end_month = year_end or 12
    year = day.year if day.month <= end_month else day.year + 1
    if kind == ANNUAL:
        return Period("FY", str(year))
    quarter = (day.month - end_month - 1) % 12 // 3 + 1
    if kind == QUARTERLY:
        return Period("QUARTER", f"{year}Q{quarter}")
    return Period("HY", f"{year}H{1 if quarter <= 2 else 2}")


def file_report(name: str) -> tuple[str | None, Period | None]:
    """What a file name says of its report: a title's words, a filing form, a compact period."""
    report_type: str | None = None
    period: Period | None = None
    zh = re.search(ZH_REPORT, name)
    en = re.search(EN_REPORT, name)
    if zh is not None:
        report_type, period = _zh_report(zh)
    elif en is not None:
        report_type, period = _en_report(en)
    form = _FILE_FORM.search(name)
    if report_type is None and form is not None:
        report_type = _FORM_TYPES[form.group("form")]
    if period is None:
        period = _compact_period(name)
    return report_type, period


def _compact_period(text: str) -> Period | None:
    """A period written compactly: `FY2019`, `2019H1`, `2019Q3`."""
    compact = _COMPACT_PERIOD.search(text)
    if compact is None:
        return None
    if compact.group("fy"):
        return Period("FY", compact.group("fy"))
    part = compact.group("part").upper()
    return Period("HY" if part.startswith("H") else "QUARTER", f"{compact.group('year')}{part}")


def fits(report_type: str | None, period: Period | None) -> bool:
    return report_type is None or period is None or _PERIOD_TYPES[report_type] == period.period_type


def report_label(report_type: str | None, period: Period | None) -> str:
    return " ".join(part for part in (report_type, period.label if period else None) if part)
