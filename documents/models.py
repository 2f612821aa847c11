"""Source documents: every fact and chunk points back at the document it came from."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

from core.model.facts import SENSITIVITIES
from ingestion.context import REPORT_TYPES


class Document(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("document status", "pending")
        PROCESSING = "processing", pgettext_lazy("document status", "processing")
        READY = "ready", pgettext_lazy("document status", "ready")
        FAILED = "failed", pgettext_lazy("document status", "failed")

    name = models.CharField(verbose_name=pgettext_lazy("field", "name"), max_length=255, unique=True)
    sha256 = models.CharField(verbose_name=pgettext_lazy("field", "SHA-256"), max_length=64, blank=True, db_index=True)
    media_type = models.CharField(verbose_name=pgettext_lazy("field", "media type"), max_length=127, blank=True)
    size_bytes = models.PositiveBigIntegerField(verbose_name=pgettext_lazy("field", "size (bytes)"), default=0)
    sensitivity = models.CharField(
        verbose_name=pgettext_lazy("field", "sensitivity"),
        max_length=12,
        choices=[(s, s) for s in SENSITIVITIES],
        default="INTERNAL",
        db_index=True,
    )
    status = models.CharField(
        verbose_name=pgettext_lazy("field", "status"), max_length=12, choices=Status.choices, default=Status.PENDING
    )
    error = models.TextField(verbose_name=pgettext_lazy("field", "error"), blank=True)
    # What ingestion could not read but did not refuse the file for: extraction warnings, and
    # one per table that yielded no fact (`IngestWarning.as_dict`: code, English text, place, count).
    warnings = models.JSONField(verbose_name=pgettext_lazy("field", "warnings"), default=list, blank=True)
    # What the document says of itself: who issued it (an entity code; blank when it
    # does not say), which report it is, for which period (`FY2019`, `2019H1`, `2019Q3`), and
    # where each was read, for curators to confirm.
    issuer = models.CharField(verbose_name=pgettext_lazy("field", "issuer"), max_length=64, blank=True, db_index=True)
    report_type = models.CharField(
        verbose_name=pgettext_lazy("field", "report type"),
        max_length=12,
        blank=True,
        choices=[(t, t) for t in REPORT_TYPES],
    )
    report_period = models.CharField(verbose_name=pgettext_lazy("field", "report period"), max_length=16, blank=True)
    context_evidence = models.TextField(verbose_name=pgettext_lazy("field", "where the context was read"), blank=True)
    # An issuer the glossary does not hold, as the document introduces it (`IssuerProposal.as_dict`:
    # names, stock code, a proposed code, year-end month, currency); empty once an entity is its issuer.
    issuer_proposed = models.JSONField(default=dict, blank=True)
    # What a curator set by hand (`issuer`, `report_type`, `period`, and `by`: who): it wins over
    # what the document says, at this ingestion and every later one.
    context_set = models.JSONField(default=dict, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=pgettext_lazy("field", "uploaded by"),
    )
    uploaded_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "uploaded at"), auto_now_add=True)

    class Meta:
        verbose_name = gettext_lazy("document")
        verbose_name_plural = gettext_lazy("documents")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class DocumentFile(models.Model):
    """The bytes a document was last ingested from, so it can be read again with the current
    glossary or a curator's context (kept apart so listing documents never loads them)."""

    document = models.OneToOneField(Document, primary_key=True, on_delete=models.CASCADE, related_name="file")
    data = models.BinaryField(editable=False)


class IngestJob(models.Model):
    """One upload, or one document read again, on its way through the background pipeline."""

    # A job is RESTRICTED when its upload was declared so or its document was classified so.
    RESTRICTED_LOOKUPS = ("sensitivity", "document__sensitivity")

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("job status", "queued")
        RUNNING = "running", pgettext_lazy("job status", "running")
        DONE = "done", pgettext_lazy("job status", "done")
        FAILED = "failed", pgettext_lazy("job status", "failed")

    class Kind(models.TextChoices):
        UPLOAD = "upload", pgettext_lazy("job kind", "upload")
        # a stored document read again (`document`), with `context`
        REREAD = "reread", pgettext_lazy("job kind", "read again")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(
        verbose_name=pgettext_lazy("field", "kind"), max_length=8, choices=Kind.choices, default=Kind.UPLOAD
    )
    name = models.CharField(verbose_name=pgettext_lazy("field", "name"), max_length=255)
    data = models.BinaryField(editable=False)
    sensitivity = models.CharField(verbose_name=pgettext_lazy("field", "sensitivity"), max_length=12, blank=True)
    # The document context the uploader gave (blank: read from the document).
    issuer = models.CharField(verbose_name=pgettext_lazy("field", "issuer"), max_length=64, blank=True)
    report_type = models.CharField(verbose_name=pgettext_lazy("field", "report type"), max_length=12, blank=True)
    report_period = models.CharField(verbose_name=pgettext_lazy("field", "report period"), max_length=16, blank=True)
    # A re-read's curator context (`ContextChoice`: the fields given, who, the fields cleared).
    context = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        verbose_name=pgettext_lazy("field", "status"), max_length=10, choices=Status.choices, default=Status.QUEUED
    )
    progress = models.PositiveSmallIntegerField(verbose_name=pgettext_lazy("field", "progress"), default=0)
    message = models.TextField(
        verbose_name=pgettext_lazy("field", "message"), blank=True
    )  # in English, for the API and logs
    # A done job's outcome (`DocumentOutcome.as_dict`): counts and warnings with their codes,
    # said in the curator's language when shown.
    outcome = models.JSONField(default=dict, blank=True)
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=pgettext_lazy("field", "document")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=pgettext_lazy("field", "created by"),
    )
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "created at"), auto_now_add=True)
    finished_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "finished at"), null=True, blank=True)
    # Which worker runs the job, so a job whose worker died can be found and queued again.
    attempts = models.PositiveSmallIntegerField(verbose_name=pgettext_lazy("field", "attempts"), default=0)
    task_id = models.CharField(verbose_name=pgettext_lazy("field", "task ID"), max_length=64, blank=True)
    worker = models.CharField(verbose_name=pgettext_lazy("field", "worker"), max_length=255, blank=True)  # host:pid
    started_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "started at"), null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("ingest job")
        verbose_name_plural = gettext_lazy("ingest jobs")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"
