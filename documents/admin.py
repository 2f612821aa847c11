"""Curator admin: documents (upload through the background pipeline, set their context, re-ingest,
delete) and jobs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import ActionLocation
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy

from common.access import ClearanceFilteredAdmin, user_cleared, visible_to
from core.model.facts import SENSITIVITIES
from facts.models import Entity, FactMetric
from facts.selectors import document_review_counts, facts_visible
from ingestion.context import REPORT_TYPES, IssuerProposal
from ingestion.formats import EXTENSIONS, format_of
from retrieval.embedders import embedder_build
from retrieval.models import Chunk
from retrieval.selectors import chunks_unembedded, vectors_pending
from retrieval.tasks import chunks_embed_run

from .company_admin import company_create_view
from .jobs import document_jobs_open, ingest_job_create, reread_job_create
from .models import Document, DocumentFile, IngestJob
from .services import ContextChoice, IngestError, context_set_merge, document_delete
from .warning_groups import job_message_shown, outcome_summary, warnings_grouped

_NO_FILE = gettext_lazy(
    "The document's file was not kept (it was imported before files were), so it cannot be read again: upload it again."
)
JOBS_REFRESH = 5  # seconds between reloads of the job list while a job is unfinished
_CONTEXT_FIELDS = {"issuer": "issuer", "report_type": "report_type", "report_period": "period"}
_REPORT_TYPE_NAMES = {
    "annual": gettext_lazy("annual report"),
    "half_year": gettext_lazy("half-year report"),
    "quarterly": gettext_lazy("quarterly report"),
}
_AS_READ = gettext_lazy("as the document says")
_REPORT_TYPE_CHOICES = [(t, _REPORT_TYPE_NAMES.get(t, t)) for t in REPORT_TYPES]


def _entity_choices() -> list[tuple[str, str]]:
    return [("", _AS_READ)] + [(code, f"{code} {name}") for code, name in Entity.objects.values_list("code", "name")]


def _context_check(choice: ContextChoice, stored: dict[str, str]) -> None:
    try:
        context_set_merge(stored=stored, choice=choice, entities=set(Entity.objects.values_list("code", flat=True)))
    except IngestError as error:
        raise forms.ValidationError(str(error)) from None


class UploadForm(forms.Form):
    files = forms.FileField(
        widget=forms.ClearableFileInput(attrs={"allow_multiple_selected": True}), label=gettext_lazy("Files")
    )
    sensitivity = forms.ChoiceField(
        label=gettext_lazy("Sensitivity"),
        choices=[("", gettext_lazy("decide automatically"))] + [(s, s) for s in SENSITIVITIES],
        required=False,
    )
    issuer = forms.ChoiceField(label=gettext_lazy("Issuer"), required=False)
    report_type = forms.ChoiceField(
        label=gettext_lazy("Report type"), choices=[("", _AS_READ), *_REPORT_TYPE_CHOICES], required=False
    )
    report_period = forms.CharField(
        label=gettext_lazy("Report period"),
        required=False,
        max_length=16,
        help_text=gettext_lazy("FY2019, 2019H1, 2019Q3"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["issuer"].choices = _entity_choices()  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        _context_check(ContextChoice(**{_CONTEXT_FIELDS[f]: data.get(f) or "" for f in _CONTEXT_FIELDS}), {})
        return data


class DocumentForm(forms.ModelForm):  # type: ignore[type-arg]
    """The document page: the context is the curator's to set; a change reads the document again."""

    issuer = forms.ChoiceField(label=gettext_lazy("Issuer"), required=False)
    report_type = forms.ChoiceField(
        label=gettext_lazy("Report type"), choices=[("", _AS_READ), *_REPORT_TYPE_CHOICES], required=False
    )
    report_period = forms.CharField(
        label=gettext_lazy("Report period"),
        required=False,
        help_text=gettext_lazy("FY2019, 2019H1, 2019Q3; a change reads the document again with it"),
    )

    class Meta:
        model = Document
        fields = ["sensitivity", "issuer", "report_type", "report_period"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = _entity_choices()
        if self.instance.issuer and self.instance.issuer not in dict(choices):
            choices.append(
                (self.instance.issuer, gettext("%(code)s (not in the glossary)") % {"code": self.instance.issuer})
            )
        self.fields["issuer"].choices = choices  # type: ignore[attr-defined]

    def context_choice(self, by: str = "") -> ContextChoice | None:
        """The context fields the curator changed: set by hand, or cleared when left blank."""
        changed = [f for f in _CONTEXT_FIELDS if f in self.changed_data]
        if not changed:
            return None
        given = {_CONTEXT_FIELDS[f]: (self.cleaned_data.get(f) or "").strip() for f in changed}
        cleared = frozenset(field for field, value in given.items() if not value)
        return ContextChoice(**given, by=by, cleared=cleared)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        choice = self.context_choice()
        if choice is not None and self.instance.pk:
            _context_check(choice, self.instance.context_set)
            if not DocumentFile.objects.filter(document=self.instance).exists():
                raise forms.ValidationError(_NO_FILE)
        return data


@admin.register(Document)
class DocumentAdmin(ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = [
        "name", "media_type", "sensitivity", "status", "issuer", "report_type", "report_period", "chunk_count",
        "vector_count", "fact_count", "warning_summary", "uploaded_at",
    ]  # fmt: skip
    list_filter = ["status", "sensitivity", "report_type"]
    search_fields = ["name", "issuer"]
    form = DocumentForm
    readonly_fields = [
        "name", "sha256", "media_type", "size_bytes", "status", "error", "warning_list", "context_evidence",
        "uploaded_by", "uploaded_at",
    ]  # fmt: skip
    fields = [
        "name",
        "sensitivity",
        "status",
        "error",
        "warning_list",
        "issuer",
        "report_type",
        "report_period",
        "context_evidence",
        "media_type",
        "size_bytes",
        "sha256",
        "uploaded_by",
        "uploaded_at",
    ]
    actions = ["delete_with_facts", "embed_again", "reingest"]

    @admin.display(description=gettext_lazy("chunks"))
    def chunk_count(self, document: Document) -> int:
        return document.chunks.count()

    @admin.display(description=gettext_lazy("vectors"))
    def vector_count(self, document: Document) -> str:
        """Chunks embedded by the configured embedder, of all the document's chunks."""
        embedder = embedder_build()
        if not embedder.enabled:
            return "—"
        total = document.chunks.filter(active=True).count()
        return f"{total - chunks_unembedded(embedder.signature, document_id=document.pk).count()} / {total}"

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        embedder = embedder_build()
        if embedder.enabled and request.method == "GET":
            visible = visible_to(Chunk.objects.filter(active=True), cleared=user_cleared(request.user))
            total = visible.count()
            pending = vectors_pending(cleared=user_cleared(request.user))
            named = {"embedder": embedder.signature, "done": total - pending, "total": total, "pending": pending}
            line = gettext("Vectors (%(embedder)s): %(done)s of %(total)s chunks embedded.") % named
            if pending:
                line += (
                    " "
                    + gettext(
                        "The other %(pending)s are being embedded in the background; until then they are found by "
                        "keywords (BM25), so none is missed."
                    )
                    % named
                )
            messages.info(request, line)
        return super().changelist_view(request, extra_context)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        """Each document with the number of its facts this curator may see, in the list's query: a
        count of every fact would give away that a RESTRICTED one exists."""
        facts = facts_visible(FactMetric.objects.filter(document=OuterRef("pk")), cleared=user_cleared(request.user))
        counted = facts.order_by().values("document").annotate(n=Count("pk")).values("n")
        return super().get_queryset(request).annotate(visible_fact_count=Coalesce(Subquery(counted), 0))

    @admin.display(description=gettext_lazy("facts"), ordering="visible_fact_count")
    def fact_count(self, document: Document) -> int:
        return document.visible_fact_count  # type: ignore[attr-defined]

    @admin.display(description=gettext_lazy("warnings"))
    def warning_summary(self, document: Document) -> str:
        """The most pressing kind and how many in all; the change form groups them."""
        if not document.warnings:
            return ""
        groups = warnings_grouped(document.warnings)
        first = groups[0]
        said = gettext("%(count)s × %(kind)s (%(total)s in all, %(kinds)s kinds)")
        return said % {
            "count": first.count,
            "kind": first.kind_shown(),
            "total": len(document.warnings),
            "kinds": len(groups),
        }

    @admin.display(description=gettext_lazy("warnings"))
    def warning_list(self, document: Document) -> str:
        """One line per kind, financial statements first: how many, why (in the curator's language)
        and where."""
        groups = warnings_grouped(document.warnings)
        rows = ((g.count, g.kind_shown(), g.places_shown) for g in groups)
        return format_html_join(mark_safe("<br>"), "<b>{} ×</b> {} <small>{}</small>", rows) or "—"

    def get_actions(
        self, request: HttpRequest, action_location: ActionLocation = ActionLocation.CHANGE_LIST
    ) -> dict[str, Any]:
        actions = super().get_actions(request, action_location)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(
        description=gettext_lazy("Delete the selected documents (with their facts and chunks)"), permissions=["delete"]
    )
    def delete_with_facts(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            document_delete(document=document)
        self.message_user(request, pgettext("documents", "Deleted."))

    @admin.action(
        description=gettext_lazy("Queue the selected documents' chunks without vectors to be embedded (background)"),
        permissions=["change"],
    )
    def embed_again(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        if not embedder_build().enabled:
            said = gettext("No embedding model is configured (RAGSPINE_EMBEDDER): nothing to embed.")
            self.message_user(request, said, level=messages.WARNING)
            return
        count = 0
        for document in queryset:
            chunks_embed_run.enqueue(document.pk)
            count += 1
        said = ngettext(
            "Queued to be embedded: %(count)s document.", "Queued to be embedded: %(count)s documents.", count
        )
        self.message_user(request, said % {"count": count})

    @admin.action(
        description=gettext_lazy("Read the selected documents again with the current glossary (reviews are kept)"),
        permissions=["change"],
    )
    def reingest(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            self._reingest(request, document)

    def _reingest(self, request: HttpRequest, document: Document, context: ContextChoice | None = None) -> None:
        """Queue the re-read for the background worker: no request waits on extraction."""
        if not DocumentFile.objects.filter(document=document).exists():
            said = gettext("%(document)s was not read: %(why)s") % {"document": document.name, "why": _NO_FILE}
            self.message_user(request, said, level=messages.ERROR)
            return
        reread_job_create(document=document, context=context, created_by=request.user)
        jobs = reverse("admin:documents_ingestjob_changelist")
        self.message_user(
            request,
            format_html(
                gettext(
                    "{document} is queued to be read again with the current glossary; its page shows the progress "
                    'and <a href="{jobs}">Ingest jobs</a> the outcome.'
                ),
                document=document.name,
                jobs=jobs,
            ),
        )

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        """The context fields are written by the re-ingest they start, not by the form."""
        choice = form.context_choice(by=request.user.get_username()) if change else None
        if choice is not None:
            stored = Document.objects.get(pk=obj.pk)
            for field in _CONTEXT_FIELDS:
                setattr(obj, field, getattr(stored, field))
        super().save_model(request, obj, form, change)
        if choice is not None:
            self._reingest(request, obj, choice)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The page tops with the document's facts as a work list, each count a link into the
        review queue (what this curator may see)."""
        document = self.get_object(request, object_id)
        if document is not None:
            counts = document_review_counts(document_id=document.pk, cleared=user_cleared(request.user))
            queue = f"{reverse('admin:facts_factmetric_review')}?document={document.pk}"
            running = list(document_jobs_open(document))
            offer = bool(document.issuer_proposed) and not document.issuer and not running
            if offer and request.user.has_perm("facts.add_entity"):
                extra_context = {
                    **(extra_context or {}),
                    "proposal": IssuerProposal.from_dict(document.issuer_proposed),
                }
            extra_context = {
                **(extra_context or {}),
                "review": {**counts, "queue": queue},
                "jobs_open": running,
                "refresh_seconds": JOBS_REFRESH if running else 0,
            }
        return super().change_view(request, object_id, form_url, extra_context)

    def reingest_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        document = self.get_object(request, object_id)
        if request.method != "POST" or document is None or not self.has_change_permission(request, document):
            return redirect("admin:documents_document_changelist")
        self._reingest(request, document)
        return redirect("admin:documents_document_change", document.pk)

    def company_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Add the report's issuer to the glossary (`company_admin`), for a curator who may add entities."""
        document = self.get_object(request, object_id)
        allowed = request.user.has_perm("facts.add_entity") and request.user.has_perm("facts.add_alias")
        if document is None or not allowed or not self.has_change_permission(request, document):
            return redirect("admin:documents_document_changelist")
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "original": document}
        return company_create_view(request, document, context)

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_delete(document=obj)

    def get_urls(self) -> list[Any]:
        return [
            path("upload/", self.admin_site.admin_view(self.upload_view), name="documents_document_upload"),
            path(
                "<path:object_id>/company/",
                self.admin_site.admin_view(self.company_view),
                name="documents_document_company",
            ),
            path(
                "<path:object_id>/reingest/",
                self.admin_site.admin_view(self.reingest_view),
                name="documents_document_reingest",
            ),
            *super().get_urls(),
        ]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        return redirect("admin:documents_document_upload")

    def upload_view(self, request: HttpRequest) -> HttpResponse:
        """Files are queued for the background worker; progress and errors show under Ingest jobs."""
        if not self.has_add_permission(request):
            return redirect("admin:index")
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            queued = 0
            for upload in request.FILES.getlist("files"):
                if format_of(upload.name) is None:
                    said = gettext("%(name)s: not a format read here (%(formats)s)")
                    messages.error(request, said % {"name": upload.name, "formats": ", ".join(EXTENSIONS)})
                    continue
                ingest_job_create(
                    name=upload.name,
                    data=upload.read(),
                    sensitivity=form.cleaned_data["sensitivity"],
                    created_by=request.user,
                    issuer=form.cleaned_data["issuer"],
                    report_type=form.cleaned_data["report_type"],
                    report_period=form.cleaned_data["report_period"].strip(),
                )
                queued += 1
            if queued:
                said = ngettext("Queued to be read: %(count)s file.", "Queued to be read: %(count)s files.", queued)
                messages.success(request, said % {"count": queued})
            return redirect("admin:documents_ingestjob_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Upload documents"),
            "form": form,
            "formats": pgettext("list separator", ", ").join(extension.removeprefix(".") for extension in EXTENSIONS),
            "accept": ",".join(EXTENSIONS),
        }
        return TemplateResponse(request, "admin/documents/upload.html", context)


@admin.register(IngestJob)
class IngestJobAdmin(ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = [
        "name", "status", "progress", "attempts", "message_shown", "document_link", "created_by", "created_at",
        "finished_at",
    ]  # fmt: skip
    list_filter = ["status"]
    restricted_lookups = IngestJob.RESTRICTED_LOOKUPS
    fields = [
        "name",
        "status",
        "progress",
        "attempts",
        "message_shown",
        "document",
        "context_asked",
        "sensitivity",
        "worker",
        "task_id",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]
    readonly_fields = fields

    @admin.display(description=pgettext_lazy("ingest job", "Outcome"))
    def message_shown(self, job: IngestJob) -> str:
        """A done job's outcome, else its message, in the curator's language."""
        return outcome_summary(job.outcome) if job.outcome else job_message_shown(job.message)

    @admin.display(description=gettext_lazy("Document"), ordering="document__name")
    def document_link(self, job: IngestJob) -> str:
        """The document the job wrote, opening its page (context, review links, warnings)."""
        if job.document_id is None:
            return "—"
        url = reverse("admin:documents_document_change", args=[job.document_id])
        return format_html('<a href="{}">{}</a>', url, job.document)

    @admin.display(description=gettext_lazy("Set on upload"))
    def context_asked(self, job: IngestJob) -> str:
        """The issuer, report type and period given with the upload; blank ones are read from
        the document (shown on the document's page)."""
        fields = UploadForm.base_fields
        asked = [
            f"{fields[name].label} {value}"
            for name, value in (
                ("issuer", job.issuer),
                ("report_type", _REPORT_TYPE_NAMES.get(job.report_type, job.report_type)),
                ("report_period", job.report_period),
            )
            if value
        ]
        return pgettext("list separator", ", ").join(asked) or gettext("none: read from the document")

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """While a job this curator may see is queued or running, the list reloads itself."""
        unfinished = self.get_queryset(request).filter(status__in=[IngestJob.Status.QUEUED, IngestJob.Status.RUNNING])
        extra_context = {**(extra_context or {}), "refresh_seconds": JOBS_REFRESH if unfinished.exists() else 0}
        return super().changelist_view(request, extra_context)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
