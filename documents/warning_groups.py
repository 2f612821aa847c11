"""A document's warnings and an ingestion's outcome as a curator reads them: grouped by
kind, with counts, in the curator's language.

Ingestion gives one warning per table or file, each with a stable `code` (`table.no_period_axis`,
`pdf.undecodable_lines`, …) and its English words; a 150-page report has hundreds. The code is
named here by a msgid (`WARNING_KINDS`, translated in the catalogues); a code this module does not
know is shown in the words ingestion gave. `warnings_grouped` gives one group per kind with how many and where,
the kinds about a financial statement first, then the most frequent; `warnings_summary` and
`outcome_summary` say it in one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext, ngettext_lazy, pgettext

from ingestion.ir import PDF_EMPTY_PASSWORD, PDF_UNDECODABLE_LINES, YEAR_END_PROPOSED, IngestWarning

SHOWN_PLACES = 12
SUMMARY_PLACES = 3


@dataclass(frozen=True)
class WarningKind:
    words: Any  # a lazy msgid; `%(count)s`: what the kind counts, summed over its warnings
    statement: bool = False  # about a financial statement: listed first

    def said(self, count: int) -> str:
        """The kind in the active language."""
        return str(self.words % {"count": count})


WARNING_KINDS: dict[str, WarningKind] = {
    "table.equity_changes": WarningKind(
        gettext_lazy("a statement of changes in equity: its columns are equity components, not periods"),
        statement=True,
    ),
    "table.no_period_axis": WarningKind(
        gettext_lazy("no row or column of periods (years, dates or fiscal years) was found")
    ),
    "table.due_schedule": WarningKind(gettext_lazy("a schedule of amounts due by year: its years are due dates")),
    "table.sub_annual": WarningKind(
        gettext_lazy("its columns are quarters, halves or year-to-date, which a year alone does not name")
    ),
    "table.no_period_column": WarningKind(gettext_lazy("no column header names a period")),
    YEAR_END_PROPOSED: WarningKind(
        gettext_lazy(
            "the cover names the fiscal year's end and the glossary sets no year-end month: set it for the company"
        ),
        statement=True,
    ),
    "table.no_value_cell": WarningKind(gettext_lazy("no value cell under a period column")),
    PDF_EMPTY_PASSWORD: WarningKind(
        gettext_lazy("the PDF is encrypted with an empty user password (permissions only); read as usual")
    ),
    PDF_UNDECODABLE_LINES: WarningKind(
        ngettext_lazy(
            "%(count)s line of text could not be decoded (fonts without a Unicode mapping)",
            "%(count)s lines of text could not be decoded (fonts without a Unicode mapping)",
            "count",
        )
    ),
}
# Outcome statuses as `DocumentOutcome` writes them.
_STATUS = {
    "created": gettext_noop("created"),
    "replaced": gettext_noop("replaced"),
    "unchanged": gettext_noop("unchanged"),
}


@contextmanager
def _said_in(language: str | None) -> Iterator[None]:
    """`language` (`en`, or any Chinese tag for the default) for the block; None: the active one."""
    if language is None:
        yield
        return
    with translation.override("en" if language.startswith("en") else "zh-hans"):
        yield


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
        """The kind in the curator's language (the active one unless `language` says)."""
        kind = WARNING_KINDS.get(self.code)
        if kind is None:
            return self.text
        with _said_in(language):
            return kind.said(self.counted)

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
    """`242 warnings: 166 × no row or column of periods… (table=1; …); …` in the curator's language
    ("" for none)."""
    if not warnings:
        return ""
    with _said_in(language):
        kinds = pgettext("list separator", "; ").join(
            f"{g.count} × {g.kind_shown()}" + (f" ({g.places_listed(SUMMARY_PLACES)})" if g.places else "")
            for g in warnings_grouped(warnings)
        )
        said = ngettext("%(count)s warning: %(kinds)s", "%(count)s warnings: %(kinds)s", len(warnings))
        return said % {"count": len(warnings), "kinds": kinds}


def outcome_summary(outcome: Mapping[str, Any], language: str | None = None) -> str:
    """An ingestion's outcome (`DocumentOutcome.as_dict`) in one line, in the curator's language."""
    facts = outcome.get("facts", {})
    conflicts = facts.get("conflicts", 0)
    status = outcome.get("status", "")
    warnings = outcome.get("warnings", [])
    with _said_in(language):
        line = gettext(
            "%(document)s: %(status)s, %(chunks)s chunk(s), %(approved)s fact(s), %(pending)s pending for "
            "review%(conflicts)s, %(sensitivity)s"
        ) % {
            "document": outcome.get("document", ""),
            "status": gettext(_STATUS[status]) if status in _STATUS else status,
            "chunks": outcome.get("chunks", 0),
            "approved": facts.get("approved", 0),
            "pending": facts.get("pending", 0),
            "conflicts": gettext(", %(count)s conflicting") % {"count": conflicts} if conflicts else "",
            "sensitivity": outcome.get("sensitivity", ""),
        }
        if not warnings:
            return line
        return pgettext("list separator", "; ").join([line, warnings_summary(warnings)])


# What the worker writes in `IngestJob.message`, in English (the API and the logs read it): said
# again in the curator's language when shown. A message of no known form is shown as written.
JOB_DELETED = gettext_noop("the document was deleted before it could be read again; nothing was written")
JOB_DATABASE_REFUSED = gettext_noop("The database refused the write; nothing was saved (see the server log).")
JOB_RETRYING = gettext_noop("retrying: attempt %(attempts)s stopped")
JOB_WORKER_GONE = gettext_noop("the worker stopped during ingestion %(attempts)s times; nothing was written")
# What ingestion says of a file it refuses (`ingestion.extract` and the readers, `services`), as it
# writes it; a test reads every refusal the readers can give and finds its form here.
INGEST_REFUSALS = (
    gettext_noop("%(name)s: the file is damaged (not a readable zip package)."),
    gettext_noop("%(name)s: unpacks to more than %(size)s; the file is refused as too large."),
    gettext_noop("%(name)s: mislabelled: the content is %(what)s, not a PDF."),
    gettext_noop("%(name)s: mislabelled: the content is an Office file, not a PDF."),
    gettext_noop("%(name)s: not a PDF (no %%PDF header); the file is damaged or mislabelled."),
    gettext_noop("%(name)s: mislabelled: the content is a PDF, not %(ext)s."),
    gettext_noop("%(name)s: not a valid %(format)s; the file is damaged."),
    gettext_noop("%(name)s: mislabelled: a zip archive that is not an Office document (no [Content_Types].xml)."),
    gettext_noop("%(name)s: mislabelled: the content is a %(label)s (%(found)s), not %(ext)s."),
    gettext_noop("%(name)s: mislabelled: the content is %(what)s, not an HTML page."),
    gettext_noop("%(name)s: mislabelled: binary content in a %(ext)s text file."),
    gettext_noop("%(name)s: unsupported file type '%(ext)s'; supported: %(supported)s."),
    gettext_noop("%(name)s: the file is empty."),
    gettext_noop("%(name)s: %(size)s exceeds the size limit of %(limit)s."),
    gettext_noop(
        "%(name)s: the file could not be read as %(ext)s (%(error)s); it is damaged or not a valid %(format)s file."
    ),
    gettext_noop("%(name)s: the file contains no text or tables."),
    gettext_noop("%(name)s: the PDF is password-protected (encrypted); remove the password and upload it again."),
    gettext_noop("%(name)s: the PDF could not be read (%(error)s); the file is damaged."),
    gettext_noop("%(name)s: the PDF has no pages."),
    gettext_noop("%(name)s: %(count)s pages exceed the limit of %(limit)s."),
    gettext_noop(
        "%(name)s: no readable text: the PDF's fonts have no Unicode mapping (or it is scanned); OCR is not supported."
    ),
    gettext_noop("%(name)s: mislabelled: binary content in an HTML file."),
    gettext_noop(
        "%(name)s: the text is neither UTF-8 nor GB18030 (GBK), and no <meta charset> names its encoding; "
        "save it as UTF-8 and upload again."
    ),
    gettext_noop("%(name)s: mislabelled: the content is not HTML (no HTML tags)."),
    gettext_noop(
        "%(name)s: its tables expand to more than %(count)s cells (merged cells included); "
        "the file is refused as too large."
    ),
    gettext_noop("%(name)s: more than %(count)s filled cells; the workbook is too large."),
    gettext_noop("sheet %(sheet)s: the used range is too large to read as a table."),
    gettext_noop("%(name)s: %(count)s sheets exceed the limit of %(limit)s."),
    gettext_noop("%(name)s: the text is not UTF-8; save it as UTF-8 and upload again."),
    gettext_noop("%(name)s: %(count)s slides exceed the limit of %(limit)s."),
    gettext_noop("period «%(period)s» is not one of FY2019, 2019H1, 2019Q3"),
    gettext_noop("unknown entity code «%(code)s»: add it to the glossary or pick one of its entities"),
    gettext_noop("report type «%(type)s» is not one of %(types)s"),
    gettext_noop("period %(period)s is not the period of a %(type)s report"),
    gettext_noop("a document name is 1 to 255 characters, without '/'"),
    gettext_noop("%(name)s: its file is not stored (ingested before files were kept); upload it again"),
    gettext_noop("%(name)s: the file is password-protected (encrypted); remove the password and upload it again."),
    gettext_noop(
        "%(name)s: this is a legacy binary Office file (%(legacy)s), not %(ext)s; "
        "save it as %(format)s and upload again."
    ),
    gettext_noop("sensitivity must be one of %(levels)s"),
)
JOB_MESSAGES = (JOB_DELETED, JOB_DATABASE_REFUSED, JOB_RETRYING, JOB_WORKER_GONE, *INGEST_REFUSALS)


def _job_pattern(msgid: str) -> re.Pattern[str]:
    """The messages `msgid` writes: each `%(name)s` any text, named; `%%` a percent sign."""
    parts = re.split(r"%\((\w+)\)s", msgid)
    return re.compile(
        "".join(
            re.escape(part.replace("%%", "%")) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        + "$",
        re.S,
    )


# The most particular form first: a message some form with fewer blanks says whole is that one's.
_JOB_PATTERNS = tuple(
    (_job_pattern(msgid), msgid) for msgid in sorted(JOB_MESSAGES, key=lambda msgid: msgid.count("%("))
)


def job_message_shown(message: str) -> str:
    """A job's message in the active language."""
    for pattern, msgid in _JOB_PATTERNS:
        if found := pattern.match(message):
            return gettext(msgid) % found.groupdict()
    return message
