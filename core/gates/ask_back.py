"""Asking back for a period: a stretch of time no period type holds (`前三季度` under an operation,
`3月`, `Q5`), offered as the periods whose answer holds a figure; and a series said without a
range (`历年`, `哪一年最高`, `quarterly`), offered as ranges counted back from the latest complete
period. Each option asks the same question again, so choosing it answers; none shows a figure.

Also the other side of a period named without a year (`第四季度`, `上半年`, `前三季度`, `H1`, `Q3`):
the grammar reads it as the latest complete such period, and `year_assumed` says so for the
assumption banner, with the other choices (the same period a year earlier; the latest complete
quarter or half when that is another) as the question asked again with the year written in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from core.language.periods import (
    latest_complete_fiscal_year,
    latest_complete_of_type,
    periods_assumed,
    series_unbounded,
)
from core.model.clarification import CLARIFY_ASK_FIRST, ClarificationResult, NarrowingOption
from core.model.intent import ParsedIntent
from core.model.period import Period

# Of the periods a period ask-back could offer, those whose answer holds a figure (in order).
Answerable = Callable[[Sequence[Period]], Sequence[Period]]


def ask_for_period(
    intent: ParsedIntent,
    unread: tuple[int, int, str],
    reference_date: date,
    language: str,
    answerable: Answerable | None,
) -> ClarificationResult:
    """`前三季度`, `1-9月`, `Q5`: say which periods the data holds and offer them for the year the
    question named (else the latest complete fiscal year); each option asks the same question
    with that period in place of the words, so choosing it answers. With `answerable`, only the
    periods whose answer holds a figure are offered (never `2025H2` when it has none and cannot
    be derived); when the year named has none, the latest complete fiscal year's are offered, and
    when that has none either, none, and the question says so."""
    start, end, words = unread
    named = re.search(r"(?<![0-9])(?:199[0-9]|20[0-9]{2}|2100)(?![0-9])", words)
    default = latest_complete_fiscal_year(reference_date).year
    year = int(named.group(0)) if named else default
    periods = _year_periods(year)
    tried = [year]
    if answerable is not None:
        periods = list(answerable(periods))
        if not periods and year != default:
            tried.append(default)
            periods = list(answerable(_year_periods(default)))
    text = intent.normalized
    options = tuple(
        NarrowingOption(p.label, f"{text[:start]}{p.label}{text[end:]}", {"period": p.label}) for p in periods
    )
    written = _as_written(words, intent.raw_question)
    labels = [p.label for p in periods]
    every = answerable is None
    if language == "en":
        question = (
            f"'{written}' is not a period the figures are kept for: they are kept by fiscal year (FY), half "
            "(H1/H2) and quarter (Q1–Q4), so no full-year or other figure is given in its place. "
        )
        empty = " or ".join(str(y) for y in (tried if not periods else tried[:-1]))
        if empty:
            question += f"No period of {empty} has a figure for this question" + (
                "; please ask again with another period, entity or metric." if not periods else ". "
            )
        if periods:
            question += "Which period do you mean? " + ("Options: " if every else "Periods with figures: ")
            question += ", ".join(labels) + "."
    else:
        question = (
            f"无法按“{written}”查询：数据按财年（FY）、半年（H1/H2）和季度（Q1–Q4）记录，"
            "为避免答非所问，不以全年或其他期间的数字代替。"
        )
        empty = "和".join(f"{y}年" for y in (tried if not periods else tried[:-1]))
        if empty:
            question += f"{empty}没有查得到此问数据的期间" + (
                "，请调整期间、实体或指标后重问。" if not periods else "；"
            )
        if periods:
            question += (
                "请问您想查询" + ("" if every else "（只列出查得到数据的期间）") + "：" + "、".join(labels) + "？"
            )
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def series_unbounded_kind(intent: ParsedIntent) -> str | None:
    """The period type of a series asked without a range (`集团历年营收`, `哪一年营收最高`,
    `quarterly revenue`): `FY` or `QUARTER`; None when a period is named or no series is asked.
    Such a question is asked back: the latest year alone would answer another question, and a
    ranking of entities in its place a different one."""
    if intent.period is not None or intent.periods or any(p.periods for p in intent.parts):
        return None
    kind = series_unbounded(intent.normalized)
    over_periods = any(
        op is not None and op.over == "periods" for op in (intent.operation, *(p.operation for p in intent.parts))
    )
    if kind is None and over_periods:
        kind = "QUARTER" if re.search("季|quarter", intent.normalized) else "FY"
    return kind


def ask_for_range(intent: ParsedIntent, kind: str, reference_date: date, language: str) -> ClarificationResult:
    """Ask for the range of a series; each option asks the same question over a range counted
    back from the latest complete period, so choosing it answers."""
    en = language == "en"
    if kind == "QUARTER":
        spans = ((4, "最近四个季度", "the last four quarters"), (8, "最近八个季度", "the last eight quarters"))
    else:
        spans = ((3, "近三年", "the last three years"), (5, "近五年", "the last five years"))
    text = intent.normalized
    options = tuple(
        NarrowingOption(en_words if en else zh_words, f"{text} for {en_words}" if en else f"{zh_words}{text}", {})
        for _, zh_words, en_words in spans
    )
    labels = [o.label for o in options]
    if en:
        question = (
            "Over which periods? The question asks for each "
            + ("quarter" if kind == "QUARTER" else "year")
            + " but names no range, so no single period is answered in its place. For example: "
            + " or ".join(labels)
            + "."
        )
    else:
        unit = "季度" if kind == "QUARTER" else "年度"
        question = (
            f"请指定期间范围：问题要按{unit}逐期列示或比较，但没有给出起止期间，为避免答非所问，不以单一期间代替。"
            + "例如："
            + "、".join(labels)
            + "。"
        )
    return ClarificationResult(mode=CLARIFY_ASK_FIRST, question=question, narrowing_options=options)


def _year_periods(year: int) -> list[Period]:
    return [
        Period("FY", str(year)),
        Period("HY", f"{year}H1"),
        Period("HY", f"{year}H2"),
        *(Period("QUARTER", f"{year}Q{q}") for q in range(1, 5)),
    ]


def _as_written(words: str, question: str) -> str:
    """Normalised words in the question's own casing (`Q5`, not `q5`)."""
    written = unicodedata.normalize("NFKC", question)
    found = re.search(r"\s?".join(re.escape(ch) for ch in words if not ch.isspace()), written, re.IGNORECASE)
    return found.group(0) if found else words


@dataclass(frozen=True)
class YearAssumed:
    """The periods a question names without a year (`words`, as written), read as the latest
    complete such periods (`periods`), and the other choices as options."""

    words: tuple[str, ...]
    periods: tuple[Period, ...]
    options: tuple[NarrowingOption, ...]

    def said(self, language: str) -> str:
        """The banner's clause: `未指定年份，“第四季度”按最近完整的 2025Q4 计算`."""
        labels = [p.label for p in self.periods]
        if language == "en":
            words = ", ".join(f"'{w}'" for w in self.words)
            return f"no year given, reading {words} as the latest complete {', '.join(labels)}"
        return f"未指定年份，{''.join(f'“{w}”' for w in self.words)}按最近完整的 {'、'.join(labels)} 计算"


def year_assumed(intent: ParsedIntent, reference_date: date) -> YearAssumed | None:
    """The periods the question names without a year and answers for as the latest complete ones,
    or None. A period the question no longer asks (a `scope` chose another) is not assumed."""
    text = intent.normalized
    if not text:
        return None
    asked = {intent.period, *intent.periods, *(p for part in intent.parts for p in part.periods)}
    spans = [(s, e, found) for s, e, found in periods_assumed(text, reference_date) if set(found) <= asked]
    if not spans:
        return None
    earlier = [(s, e, tuple(_year_back(p) for p in found)) for s, e, found in spans]
    options = [_option(intent, earlier)]
    first = spans[0][2]
    if len(spans) == 1 and len(first) == 1 and first[0].period_type in ("QUARTER", "HY"):
        latest = latest_complete_of_type(first[0].period_type, reference_date)
        if latest != first[0]:
            options.append(_option(intent, [(spans[0][0], spans[0][1], (latest,))]))
    return YearAssumed(
        words=tuple(_as_written(text[s:e], intent.raw_question) for s, e, _ in spans),
        periods=tuple(p for _, _, found in spans for p in found),
        options=tuple(options),
    )


def _year_back(period: Period) -> Period:
    return Period(period.period_type, f"{period.year - 1}{period.period[4:]}")


def _option(intent: ParsedIntent, spans: list[tuple[int, int, tuple[Period, ...]]]) -> NarrowingOption:
    """The question again with each span's words in place of its periods' (`第四季度` → `2024Q4`;
    a stretch of several, `前三季度` → `2024年前三季度`), so that it names its year. It carries no
    scope: the question says the period, and a follow-up's option (`2024Q4呢`) must still be read
    as a follow-up, which a scope would prevent."""
    text = intent.normalized
    spoken = []
    for start, end, found in spans:
        if len(found) == 1:
            spoken.append(found[0].label)
        else:
            words = _as_written(text[start:end], intent.raw_question)
            cjk = re.search(r"[\u3400-\u9fff]", words) is not None
            spoken.append(f"{found[0].year}年{words}" if cjk else f"{words} {found[0].year}")
    label = ("、" if intent.language != "en" else ", ").join(spoken)
    replacements = [(start, end, words) for (start, end, _), words in zip(spans, spoken, strict=True)]
    return NarrowingOption(label, _rewritten(intent, replacements), {})


def _rewritten(intent: ParsedIntent, replacements: list[tuple[int, int, str]]) -> str:
    """The question as the analyst wrote it with each span of the normalised text replaced; the
    normalised text when a span's words cannot be found in it (a script converted)."""
    written = unicodedata.normalize("NFKC", intent.raw_question)
    text = intent.normalized
    located, at = [], 0
    for start, end, new in replacements:
        pattern = r"\s?".join(re.escape(ch) for ch in text[start:end] if not ch.isspace())
        found = re.compile(pattern, re.IGNORECASE).search(written, at)
        if found is None:
            return _replaced(text, replacements)
        located.append((found.start(), found.end(), new))
        at = found.end()
    return _replaced(written, located)


def _replaced(text: str, replacements: list[tuple[int, int, str]]) -> str:
    pieces, at = [], 0
    for start, end, new in replacements:
        pieces += [text[at:start], new]
        at = end
    return "".join([*pieces, text[at:]])
