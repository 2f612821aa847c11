"""Asking back for a period: a stretch of time no period type holds (`前三季度` under an operation,
`3月`, `Q5`), offered as the periods whose answer holds a figure; and a series said without a
range (`历年`, `哪一年最高`, `quarterly`), offered as ranges counted back from the latest complete
period. Each option asks the same question again, so choosing it answers; none shows a figure."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from datetime import date

from core.language.periods import latest_complete_fiscal_year, series_unbounded
from core.model.types import CLARIFY_ASK_FIRST, ClarificationResult, NarrowingOption, ParsedIntent, Period

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
