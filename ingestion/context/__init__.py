"""A document's own context: who issued it, which report it is, for when.

Takes an `ExtractedDocument` and the glossary snapshot; returns a `DocumentContext`: `issuer`
(an entity code of the glossary, or None), `report_type` (annual | half_year | quarterly, or
None), `period` (`FY2019`, `2019H1`, `2019Q3`, or None) and `evidence`, which says where each was
read, for curators. Read only where reports print them, as classes of the mandated layouts:

- **Labelled fields**, in a line (`公司代码：603339 公司简称：四方科技`, `编制单位：…` above a
  statement) or a table (`公司的中文名称 | …` side by side, `股票简称` over its value): the
  company's name or short name, the stock code (an alias, or the glossary code that qualifies it
  with its exchange: `603339` → `SH603339`), the preparer; `Company name`, `Stock code`,
  `Trading symbol`, and the name above `(Exact name of registrant as specified in its charter)`.
- **Title lines**: a line that is nothing but the report's title, after the issuer's name or not
  (`四方科技集团股份有限公司 2019年年度报告`, `2019年第三季度报告正文`, `Annual Report 2019`), on the
  cover or as the running header of its pages; and a company's name alone on the cover. The year
  is printed in digits or, as banks and insurers often print it, in Chinese numerals
  (`二〇一九年年度报告`, `二零二零年第一季度报告`); a dual-listed company's edition (`（A股）`) and a
  corrected one (`（修订版）`) are the same report.
- **English cover phrases**, on the cover only, since a report speaks of earlier years inside it:
  `Form 10-K` / `10-Q` / `20-F`, `annual report pursuant to section 13`, `for the fiscal year
  ended <date>`, `for the quarterly period ended <date>`, `for the six months ended <date>`.
- **The file name**, last, for whatever the document itself does not say.

A name counts only when one entity's aliases cover all of it but company-form words (股份有限公司,
Inc.): `集团` as an alias does not make `海天集团股份有限公司` the home company. A name in running
text (a customer, a subsidiary, a peer) never counts, however often it comes. The issuer is the
entity read at the most places, the earliest on a tie; the report is a title read on the cover,
else the most frequent. A dated period is read in the issuer's fiscal calendar when a curator set
its year-end month; `year_end` is the day the cover says the fiscal year ended, which proposes
that month to a curator when the glossary has none.

When no entity of the glossary is the issuer, what the document says of its issuer (names, stock
code, year-end, currency) is `proposed` for a curator to add the company in one step
(`newcomer.issuer_proposed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import PurePath

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.period import Period

from ..ir import ExtractedDocument
from .issuer import issuers_read, named_in
from .newcomer import IssuerProposal, issuer_proposed
from .places import choose, places_read
from .report import (
    ANNUAL,
    HALF_YEAR,
    QUARTERLY,
    REPORT_TYPES,
    cover_year_end,
    file_report,
    fits,
    report_label,
    reports_read,
)

__all__ = [
    "ANNUAL",
    "HALF_YEAR",
    "QUARTERLY",
    "REPORT_TYPES",
    "DocumentContext",
    "IssuerProposal",
    "document_context",
]


@dataclass(frozen=True)
class DocumentContext:
    """Who issued a document, which report it is and for which period, and where that was read."""

    issuer: str | None = None
    report_type: str | None = None
    period: Period | None = None
    evidence: str = ""
    year_end: date | None = None  # the day the cover says the fiscal year ended
    # What the document says of an issuer the glossary does not hold (`issuer` is None).
    proposed: IssuerProposal | None = None


def document_context(doc: ExtractedDocument, glossary: GlossarySnapshot) -> DocumentContext:
    places = list(places_read(doc))
    file_name = text_normalize(PurePath(doc.name).stem.replace("_", " "))
    evidence: list[str] = []
    found, where = choose(issuers_read(places, doc, glossary), cover_first=False)
    issuer = found if isinstance(found, str) else None
    if issuer is None:
        issuer, where = named_in(file_name, glossary), f"file name «{doc.name}»"
    if issuer is not None:
        evidence.append(f"issuer {issuer}: {where}")
    info = glossary.entities.get(issuer or "")
    report, where = choose(reports_read(places, info.year_end_month if info else None), cover_first=True)
    report_type, period = report if isinstance(report, tuple) else (None, None)
    if report_type is not None or period is not None:
        evidence.append(f"{report_label(report_type, period)}: {where}")
    if report_type is None or period is None:
        named_type, named_period = file_report(file_name)
        if report_type is None and fits(named_type, period):
            report_type = named_type
        if period is None and fits(report_type, named_period):
            period = named_period
        if (report_type, period) != (report or (None, None)):
            evidence.append(f"{report_label(report_type, period)}: file name «{doc.name}»")
    proposed = issuer_proposed(places, doc) if issuer is None else None
    return DocumentContext(issuer, report_type, period, "; ".join(evidence), cover_year_end(places), proposed)
