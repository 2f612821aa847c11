"""A document's warnings and an ingestion's outcome as a curator reads them: grouped by
kind, with counts, in the curator's language.

Ingestion gives one warning per table or file, each with a stable `code` (`table.no_period_axis`,
`pdf.undecodable_lines`, …) and its English words; a 150-page report has hundreds. The code is
named here, in Chinese and English (`WARNING_KINDS`); a code this module does not know is shown
in the words ingestion gave. `warnings_grouped` gives one group per kind with how many and where,
the kinds about a financial statement first, then the most frequent; `warnings_summary` and
`outcome_summary` say it in one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import get_language

from ingestion.ir import PDF_EMPTY_PASSWORD, PDF_UNDECODABLE_LINES, YEAR_END_PROPOSED, IngestWarning

SHOWN_PLACES = 12
SUMMARY_PLACES = 3


@dataclass(frozen=True)
class WarningKind:
    zh: str
    en: str
    statement: bool = False  # about a financial statement: listed first


# `{count}`: what the kind counts, summed over its warnings.
WARNING_KINDS: dict[str, WarningKind] = {
    "table.equity_changes": WarningKind(
        "所有者权益变动表：各列是权益项目，不是期间",
        "a statement of changes in equity: its columns are equity components, not periods",
        statement=True,
    ),
    "table.no_period_axis": WarningKind(
        "未找到期间行或期间列（年份、日期或财年）",
        "no row or column of periods (years, dates or fiscal years) was found",
    ),
    "table.due_schedule": WarningKind(
        "按到期年份列示的金额表：年份是到期日，不是期间",
        "a schedule of amounts due by year: its years are due dates",
    ),
    "table.sub_annual": WarningKind(
        "各列为季度、半年或年初至今，仅凭年份无法确定期间",
        "its columns are quarters, halves or year-to-date, which a year alone does not name",
    ),
    "table.no_period_column": WarningKind("没有列标题指明期间", "no column header names a period"),
    YEAR_END_PROPOSED: WarningKind(
        "封面载明了财年截止日，而词表未设该公司的财年截止月份：请设置",
        "the cover names the fiscal year's end and the glossary sets no year-end month: set it for the company",
        statement=True,
    ),
    "table.no_value_cell": WarningKind("期间列下没有数值", "no value cell under a period column"),
    PDF_EMPTY_PASSWORD: WarningKind(
        "PDF 以空用户密码加密（仅限制权限），已照常读取",
        "the PDF is encrypted with an empty user password (permissions only); read as usual",
    ),
    PDF_UNDECODABLE_LINES: WarningKind(
        "{count} 行文字无法解码（字体缺少 Unicode 映射）",
        "{count} lines of text could not be decoded (fonts without a Unicode mapping)",
    ),
}
_STATUS = {"created": ("已新建", "created"), "replaced": ("已替换", "replaced"), "unchanged": ("未变", "unchanged")}


def _chinese(language: str | None) -> bool:
    return not (language or get_language() or "zh").startswith("en")


@dataclass
class WarningGroup:
    code: str
    text: str  # ingestion's English words, for a code not in `WARNING_KINDS`
    places: list[str] = field(default_factory=list)
    count: int = 0
    counted: int = 0  # what the kind counts (lines of text), summed

    @property
    def statement(self) -> bool:
        kind = WARNING_KINDS.get(self.code)
        return kind is not None and kind.statement

    def kind_shown(self, language: str | None = None) -> str:
        """The kind in the curator's language (`zh`, the default, or `en`)."""
        kind = WARNING_KINDS.get(self.code)
        if kind is None:
            return self.text
        return (kind.zh if _chinese(language) else kind.en).format(count=self.counted)

    def kind_in_english(self) -> str:
        return self.kind_shown("en")

    @property
    def places_shown(self) -> str:
        return self.places_listed(SHOWN_PLACES)

    def places_listed(self, limit: int) -> str:
        more = len(self.places) - limit
        shown = "; ".join(self.places[:limit])
        return f"{shown}; … (+{more})" if more > 0 else shown


def warnings_read(stored: Iterable[Mapping[str, Any] | IngestWarning]) -> list[IngestWarning]:
    """A document's stored warnings (`Document.warnings`) as ingestion gave them."""
    return [w if isinstance(w, IngestWarning) else IngestWarning.from_dict(dict(w)) for w in stored]


def warnings_grouped(warnings: Iterable[Mapping[str, Any] | IngestWarning]) -> list[WarningGroup]:
    groups: dict[tuple[str, str], WarningGroup] = {}
    for warning in warnings_read(warnings):
        known = warning.code in WARNING_KINDS
        group = groups.setdefault(
            (warning.code, "" if known else warning.text), WarningGroup(warning.code, warning.text)
        )
        group.count += 1
        group.counted += warning.count
        if warning.place:
            group.places.append(warning.place)
    return sorted(groups.values(), key=lambda g: (not g.statement, -g.count, g.code, g.text))


def warnings_summary(warnings: Sequence[Mapping[str, Any] | IngestWarning], language: str | None = None) -> str:
    """`242 条警告：166 × 未找到期间行或期间列… (table=1; …)；…` in the curator's language ("" for none)."""
    if not warnings:
        return ""
    chinese = _chinese(language)
    kinds = ("；" if chinese else "; ").join(
        f"{g.count} × {g.kind_shown(language)}" + (f" ({g.places_listed(SUMMARY_PLACES)})" if g.places else "")
        for g in warnings_grouped(warnings)
    )
    if chinese:
        return f"{len(warnings)} 条警告：{kinds}"
    return f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''}: {kinds}"


def outcome_summary(outcome: Mapping[str, Any], language: str | None = None) -> str:
    """An ingestion's outcome (`DocumentOutcome.as_dict`) in one line, in the curator's language."""
    facts = outcome.get("facts", {})
    approved, pending, conflicts = (facts.get(k, 0) for k in ("approved", "pending", "conflicts"))
    status, chunks, sensitivity = outcome.get("status", ""), outcome.get("chunks", 0), outcome.get("sensitivity", "")
    warnings = outcome.get("warnings", [])
    if _chinese(language):
        line = (
            f"{outcome.get('document', '')}：{_STATUS.get(status, (status,))[0]}，{chunks} 个分块，"
            f"{approved} 条已批准事实，{pending} 条待审核{f'（{conflicts} 条与已批准值冲突）' if conflicts else ''}，"
            f"{sensitivity}"
        )
        return f"{line}；{warnings_summary(warnings, language)}" if warnings else line
    line = (
        f"{outcome.get('document', '')}: {status}, {chunks} chunk(s), {approved} fact(s), "
        f"{pending} pending for review{f', {conflicts} conflicting' if conflicts else ''}, {sensitivity}"
    )
    return f"{line}; {warnings_summary(warnings, 'en')}" if warnings else line
