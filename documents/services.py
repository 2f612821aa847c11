"""Office files and text in, facts (with cell-level locators) and chunks out: one document at a
time, all or nothing, idempotent by sha256. The pipeline writes the `Document`; the chunks and
the facts are written by their owners' services (`retrieval`, `facts`). What was read without
refusing the file but needs a curator's eye (extraction warnings, a table that yielded no fact)
is kept as the document's `warnings`, the same in every format. What the document says of itself
(`ingestion.context`: issuer, report type, period, and where each was read) is stored on it, and
its tables that name no entity take the issuer."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from core.language.periods import period_from_parts
from core.model.facts import SENSITIVITIES
from core.model.period import Period
from facts.selectors import glossary_snapshot
from facts.services import facts_delete, facts_replace
from ingestion.context import REPORT_TYPES, document_context
from ingestion.context.report import fits
from ingestion.extract import extract
from ingestion.ir import YEAR_END_PROPOSED, ExtractionError, IngestWarning
from ingestion.tables import document_facts
from retrieval.services import chunks_delete, chunks_prepare, chunks_replace
from retrieval.tasks import embedding_schedule

from .models import Document, DocumentFile
from .warning_groups import outcome_summary, warnings_read

Progress = Callable[[int], None]
_PERIOD_LABEL = re.compile(r"^\s*(?:FY(?P<fy>[0-9]{4})|(?P<year>[0-9]{4})(?P<part>H[12]|Q[1-4]))\s*$", re.IGNORECASE)
_TYPE_OF_PERIOD = {"FY": "annual", "HY": "half_year", "QUARTER": "quarterly"}
_FRONT_MATTER = re.compile(r"^\s*sensitivity\s*[:：]\s*(PUBLIC|INTERNAL|RESTRICTED)\s*$", re.IGNORECASE | re.MULTILINE)


def _hint_pattern(cjk: list[str], ascii_words: list[str]) -> re.Pattern[str]:
    """CJK hints anywhere; ASCII hints as whole words, so `press` is not found in `express`.

    Only an ASCII letter continues a word: `_`, `-`, `.`, digits and CJK bound it, as they do
    in file names (`press_release.md`, `confidential-plan.docx`, `2025public.md`).
    """
    words = "|".join(ascii_words)
    return re.compile("|".join([*cjk, rf"(?<![a-z])(?:{words})(?![a-z])"]), re.IGNORECASE)


# Strongest first: a document that carries hints of several levels takes the strictest.
_HINTS = (
    ("RESTRICTED", _hint_pattern(["严格保密", "绝密", "机密"], ["restricted", "confidential", "strictly"])),
    ("INTERNAL", _hint_pattern(["内部"], ["internal"])),
    ("PUBLIC", _hint_pattern(["公开", "行业周报"], ["public", "press"])),
)
# A hint right after a negation (`非公开`, `不得对外公开`, `not for public`, `non-confidential`)
# says the opposite of the hint. "Not public" still says "internal at least"; a negated
# RESTRICTED or INTERNAL hint says nothing about the level.
_NEGATION_BEFORE = re.compile(
    r"(?:(?:非|不|未|勿|禁止|严禁)[得宜可予能应]?(?:对外|向外)?(?:予以)?"
    r"|(?<![a-z])(?:not|non|never)(?:[\s_-]+(?:for|to|be|made|the|general))*[\s_-]*)$",
    re.IGNORECASE,
)
_NEGATED_LEVEL = {"PUBLIC": "INTERNAL"}


class IngestError(Exception):
    """A document that cannot be ingested; nothing of it was written."""


@dataclass(frozen=True)
class ContextChoice:
    """What a curator says of a document (blank: not said), and who said it; it wins over what
    the document says and is added to what was set by hand before. `cleared`: fields set by
    hand before that go back to what the document says."""

    issuer: str = ""
    report_type: str = ""
    period: str = ""
    by: str = ""
    cleared: frozenset[str] = frozenset()

    def given(self) -> dict[str, str]:
        said = {"issuer": self.issuer, "report_type": self.report_type, "period": self.period}
        return {key: value.strip() for key, value in said.items() if value and value.strip()}

    def as_dict(self) -> dict[str, Any]:
        """What a queued re-read keeps (`context_choice_read` reads it back)."""
        return {**self.given(), "by": self.by, "cleared": sorted(self.cleared)}


def context_choice_read(stored: dict[str, Any]) -> ContextChoice:
    """A `ContextChoice` from `ContextChoice.as_dict`."""
    said = {key: str(stored.get(key) or "") for key in ("issuer", "report_type", "period", "by")}
    return ContextChoice(**said, cleared=frozenset(str(field) for field in stored.get("cleared") or ()))


def _year_end_proposed(read: Any, issuer: str | None, glossary: Any) -> list[IngestWarning]:
    """The cover's `For the fiscal year ended May 31, 2019`, when the glossary sets no year-end
    month for the issuer: proposed to a curator, never applied (dated columns are read by the
    date's year until it is set)."""
    info = glossary.entities.get(issuer or "")
    day = read.year_end
    if info is None or info.year_end_month is not None or day is None:
        return []
    text = (
        f"the cover says {issuer}'s fiscal year ended {day:%B} {day.day}, {day.year}: "
        f"set its year-end month ({day:%B}, {day.month}) in the glossary"
    )
    return [IngestWarning(YEAR_END_PROPOSED, text, place="cover")]


def period_label_parse(text: str) -> Period:
    """`FY2019`, `2019H1` or `2019Q3`, or an `IngestError` that says so."""
    found = _PERIOD_LABEL.match(text)
    period = None
    if found and found.group("fy"):
        period = period_from_parts("FY", found.group("fy"))
    elif found:
        part = found.group("part").upper()
        period = period_from_parts("HY" if part.startswith("H") else "QUARTER", found.group("year") + part)
    if period is None:
        raise IngestError(f"period «{text}» is not one of FY2019, 2019H1, 2019Q3")
    return period


def context_set_merge(*, stored: dict[str, str], choice: ContextChoice | None, entities: Any) -> dict[str, str]:
    """What is set by hand after `choice`, checked: a known entity code, a report type, a period
    label that fits it. `entities`: the glossary's entity codes."""
    hand = {key: value for key, value in stored.items() if choice is None or key not in choice.cleared}
    if choice is not None and choice.given():
        hand.update(choice.given(), by=choice.by or "a curator")
    if not hand.keys() - {"by"}:
        hand = {}
    issuer = hand.get("issuer")
    if issuer is not None and issuer not in entities:
        raise IngestError(f"unknown entity code «{issuer}»: add it to the glossary or pick one of its entities")
    report_type = hand.get("report_type")
    if report_type is not None and report_type not in REPORT_TYPES:
        raise IngestError(f"report type «{report_type}» is not one of {', '.join(REPORT_TYPES)}")
    if "period" in hand:
        period = period_label_parse(hand["period"])
        hand["period"] = period.label
        if not fits(report_type, period):
            raise IngestError(f"period {period.label} is not the period of a {report_type} report")
    return hand


@dataclass
class DocumentOutcome:
    document: Document
    status: str  # created | replaced | unchanged
    chunks: int = 0
    facts: dict[str, int] = field(default_factory=lambda: {"approved": 0, "pending": 0, "conflicts": 0})
    warnings: list[IngestWarning] = field(default_factory=list)

    def summary(self, language: str = "en") -> str:
        """One line for the CLI and the job status (in English unless `language` says), the
        warnings counted by kind."""
        return outcome_summary(self.as_dict(), language)

    def as_dict(self) -> dict[str, Any]:
        """What a job keeps of its outcome, to say it later in its reader's language."""
        return {
            "document": self.document.name,
            "status": self.status,
            "chunks": self.chunks,
            "facts": dict(self.facts),
            "sensitivity": self.document.sensitivity,
            "warnings": [w.as_dict() for w in self.warnings],
        }


def document_ingest(
    *,
    name: str,
    data: bytes,
    sensitivity: str | None = None,
    uploaded_by: Any = None,
    progress: Progress | None = None,
    context: ContextChoice | None = None,
    force: bool = False,
) -> DocumentOutcome:
    """Extract, then write the document, its chunks and its facts in one transaction (or nothing).

    The document's context is what a curator set by hand (`context`, added to what was set
    before), else what the document says. Unchanged bytes are skipped unless `force` or a
    context is given. The bytes are kept (`DocumentFile`) so the document can be read again.

    The chunks' embedding is queued for the background worker once the transaction commits
    (`retrieval.tasks`): ingestion never waits for an embedder, and never fails because of one.
    """
    step = progress or (lambda percent: None)
    if not name or len(name) > 255 or "/" in name or "\x00" in name:
        raise IngestError("a document name is 1 to 255 characters, without '/'")
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Document.objects.filter(name=name).first()
    fresh = context is None and not force
    if fresh and existing is not None and existing.sha256 == sha256 and existing.status == Document.Status.READY:
        step(100)
        return DocumentOutcome(
            existing, "unchanged", existing.chunks.count(), _fact_counts(existing), warnings_read(existing.warnings)
        )
    try:
        extracted = extract(name, data, max_pages=settings.RAGSPINE["MAX_PAGES"])
    except ExtractionError as error:
        raise IngestError(str(error)) from None
    step(40)
    # The title and one line per paragraph, as in a text file: a `sensitivity:` paragraph is
    # read as the front-matter line, and a hint in the title counts as one in the body.
    text = "\n".join([extracted.title, *(block.text for block in extracted.blocks[:40])])
    level = sensitivity_classify(name=name, text=text, explicit=sensitivity)
    glossary = glossary_snapshot()
    hand = context_set_merge(
        stored=existing.context_set if existing else {}, choice=context, entities=glossary.entities
    )
    read = document_context(extracted, glossary)
    issuer_code, report_type, period, evidence = _context_apply(read, hand)
    # A table that names no entity is the issuer's; a competitor's report lends its tables no
    # entity, so its figures wait for review instead of being approved under an external code.
    # Headers printed relative to the report (`本期`, `上年`) are read against its period.
    issuer = issuer_code if not glossary.is_external(issuer_code) else None
    # A table that yields no fact is a warning, not a refusal, in every format; a file with no
    # text and no table at all was refused by `extract`.
    found = document_facts(extracted, glossary=glossary, sensitivity=level, default_entity=issuer, report_period=period)
    warnings = [*extracted.warnings, *_year_end_proposed(read, issuer, glossary), *found.warnings]
    step(60)
    chunks = chunks_prepare(title=extracted.title, blocks=extracted.blocks, user_words=glossary.alias_texts())
    with transaction.atomic():
        existing = Document.objects.filter(name=name).first()
        document = existing or Document(name=name)
        document.sha256, document.media_type, document.size_bytes = sha256, extracted.media_type, len(data)
        document.sensitivity, document.status, document.error = level, Document.Status.READY, ""
        document.warnings = [w.as_dict() for w in warnings]
        document.issuer, document.report_type = issuer_code or "", report_type or ""
        document.report_period = period.label if period else ""
        document.context_evidence, document.context_set = evidence, hand
        proposed = read.proposed if not issuer_code else None
        document.issuer_proposed = proposed.as_dict() if proposed is not None else {}
        if uploaded_by is not None and getattr(uploaded_by, "is_authenticated", False):
            document.uploaded_by = uploaded_by
        document.full_clean()
        document.save()
        DocumentFile.objects.update_or_create(document=document, defaults={"data": data})
        stored = chunks_replace(document=document, chunks=chunks, sensitivity=level)
        embedding_schedule(document.pk)
        counts = facts_replace(document_id=document.pk, source_doc=document.name, candidates=found.candidates)
    step(100)
    return DocumentOutcome(document, "replaced" if existing else "created", stored, counts, warnings)


def _context_apply(read: Any, hand: dict[str, str]) -> tuple[str | None, str | None, Period | None, str]:
    """Issuer, report type, period and evidence: set by hand, else read from the document."""
    period = period_label_parse(hand["period"]) if "period" in hand else read.period
    report_type = hand.get("report_type") or (_TYPE_OF_PERIOD[period.period_type] if "period" in hand else None)
    if report_type is None:
        report_type = read.report_type if fits(read.report_type, period) else None
    if not fits(report_type, period):
        period = None  # the report type set by hand; the period read is of another kind of report
    by = hand.get("by") or "a curator"
    said = [f"{field} {hand[field]}: set by {by}" for field in ("issuer", "report_type", "period") if field in hand]
    evidence = "; ".join([*said, f"read: {read.evidence}"] if said and read.evidence else [*said, read.evidence])
    return hand.get("issuer") or read.issuer, report_type, period, evidence.strip("; ")


def document_reingest(
    *, document: Document, context: ContextChoice | None = None, progress: Progress | None = None
) -> DocumentOutcome:
    """Read a document again from its stored bytes, with the current glossary and what a curator
    set by hand (`context`); all or nothing. A cell's reviewed decision stays while it gives the
    same value (`facts_replace`). Run by the background worker (`documents.jobs.reread_job_create`)."""
    data = DocumentFile.objects.filter(document=document).values_list("data", flat=True).first()
    if data is None:
        raise IngestError(f"{document.name}: its file is not stored (ingested before files were kept); upload it again")
    return document_ingest(
        name=document.name,
        data=bytes(data),
        sensitivity=document.sensitivity,
        context=context,
        force=True,
        progress=progress,
    )


def _fact_counts(document: Document) -> dict[str, int]:
    facts = document.facts.all()
    return {
        "approved": facts.filter(review_status="approved").count(),
        "pending": facts.filter(review_status="pending").count(),
        "conflicts": 0,
    }


@transaction.atomic
def document_delete(*, document: Document) -> None:
    """A document goes with the facts and chunks it produced."""
    facts_delete(document_id=document.pk)
    chunks_delete(document=document)
    document.delete()


def sensitivity_classify(*, name: str, text: str, explicit: str | None = None, default: str = "INTERNAL") -> str:
    """Explicit metadata, then a `sensitivity:` line, then the strictest hint in the name or body.

    A RESTRICTED hint anywhere wins over every other hint, then INTERNAL, then PUBLIC; with no
    hint, `default`.
    """
    if explicit:
        value = explicit.upper()
        if value not in SENSITIVITIES:
            raise IngestError(f"sensitivity must be one of {', '.join(SENSITIVITIES)}")
        return value
    body = text[:2000]
    declared = _FRONT_MATTER.search(body)
    if declared:
        return declared.group(1).upper()
    hinted = _levels_hinted(name) | _levels_hinted(body)
    return next((level for level, _ in _HINTS if level in hinted), default)


def _levels_hinted(probe: str) -> set[str]:
    levels: set[str] = set()
    for level, pattern in _HINTS:
        for hit in pattern.finditer(probe):
            negated = _NEGATION_BEFORE.search(probe, max(0, hit.start() - 24), hit.start())
            said = _NEGATED_LEVEL.get(level) if negated else level
            if said:
                levels.add(said)
    return levels
