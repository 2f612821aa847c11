"""Curator admin for the glossary: entities, metrics (with a "try it" preview of a metric's
formula over real facts), channels, units, aliases and the company profile, and the glossary CSV's
import (a preview, then confirm) and export."""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_permission_codename
from django.core import signing
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from common.access import user_cleared
from core.engine import UNIT_PCT, CannotCompute, number_display
from core.language.periods import period_parse
from core.model.facts import FactRecord, SubTask
from core.model.period import Period

from .models import Alias, Channel, CompanyProfile, Entity, Metric, Unit
from .selectors import FormulaPreview, formula_preview, glossary_snapshot
from .services import (
    ALIAS_TARGETS,
    GlossaryPlanChanged,
    GlossaryReport,
    GlossaryRows,
    ImportAborted,
    alias_conflict,
    alias_create,
    facts_sign_apply,
    glossary_export,
    glossary_import,
    glossary_rows_parse,
    metric_formula_problems,
)


class AliasForm(forms.ModelForm):  # type: ignore[type-arg]
    """Refuses a text that already names another entity, metric or channel."""

    class Meta:
        model = Alias
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        # An inline form's target is its parent (the formset's foreign-key field), maybe unsaved.
        kind, target = next(((k, cleaned[k]) for k in ALIAS_TARGETS if cleaned.get(k) is not None), ("", None))
        if target is not None and cleaned.get("text"):
            problem = alias_conflict(text=cleaned["text"], kind=kind, code=target.code, exclude_pk=self.instance.pk)
            if problem:
                self.add_error("text", problem)
        return cleaned


class AliasInlineFormSet(BaseInlineFormSet):  # type: ignore[type-arg]
    def save_new(self, form: forms.ModelForm, commit: bool = True) -> Alias:  # type: ignore[type-arg]
        return alias_create(kind=self.fk.name, text=form.cleaned_data["text"], code=self.instance.code)


class AliasInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Alias
    form = AliasForm
    formset = AliasInlineFormSet
    fields = ["text"]
    extra = 1


# A file's base64 in the confirm form must stay under DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB by default).
GLOSSARY_UPLOAD_MAX_BYTES = 1024 * 1024
GLOSSARY_PREVIEW_MAX_AGE = 3600  # seconds
_CONFIRM_SALT = "facts.glossary_admin.import_confirm"
_GLOSSARY_MODELS: tuple[type[Model], ...] = (Entity, Metric, Channel, Alias)


def _import_allowed(user: Any) -> bool:
    """An import adds and changes entities, metrics, channels and aliases: the user must be allowed all."""
    return all(
        user.has_perm(f"facts.{get_permission_codename(action, model._meta)}")
        for model in _GLOSSARY_MODELS
        for action in ("add", "change")
    )


def _export_allowed(user: Any) -> bool:
    """The user may view (or change) entities, metrics, channels and aliases."""
    return all(
        any(user.has_perm(f"facts.{get_permission_codename(action, model._meta)}") for action in ("view", "change"))
        for model in _GLOSSARY_MODELS
    )


@dataclass(frozen=True)
class GlossaryUpload:
    """An uploaded glossary CSV: its bytes (carried to the confirm step) and its numbered rows."""

    content: bytes
    rows: GlossaryRows


def _upload_read(content: bytes) -> GlossaryUpload:
    """The upload with its rows, or a `ValidationError` saying why the file cannot be read."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationError(
            gettext("The file is not UTF-8 text. Save it as “CSV UTF-8” and upload it again.")
        ) from None
    if "\x00" in text:
        raise ValidationError(gettext("The file holds NUL characters: it is not a CSV text file."))
    if not text.strip():
        raise ValidationError(gettext("The file is empty."))
    try:
        rows = glossary_rows_parse(text)
    except ImportAborted as aborted:
        raise ValidationError(aborted.errors) from None
    except csv.Error as error:
        raise ValidationError(gettext("The file cannot be read as CSV: %(error)s") % {"error": error}) from None
    if not rows:
        raise ValidationError(gettext("The file has a header but no rows."))
    return GlossaryUpload(content, rows)


class GlossaryUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Glossary CSV file"), widget=forms.FileInput(attrs={"accept": ".csv,text/csv"})
    )

    def clean_file(self) -> GlossaryUpload:
        upload = self.cleaned_data["file"]
        if upload.size > GLOSSARY_UPLOAD_MAX_BYTES:
            raise ValidationError(
                gettext("The file is %(size)s, over the %(limit)s the admin imports. Split it, or use %(command)s.")
                % {
                    "size": filesizeformat(upload.size),
                    "limit": filesizeformat(GLOSSARY_UPLOAD_MAX_BYTES),
                    "command": "manage.py import_glossary",
                }
            )
        return _upload_read(upload.read())


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class GlossaryConfirmForm(forms.Form):
    """A previewed file, carried to the confirm step: its bytes in base64 (a hidden field keeps them
    byte for byte) and a signed token of their hash and the preview's `GlossaryReport.digest`."""

    content = forms.CharField(widget=forms.HiddenInput)
    token = forms.CharField(widget=forms.HiddenInput)

    @classmethod
    def for_preview(cls, *, upload: GlossaryUpload, report: GlossaryReport) -> GlossaryConfirmForm:
        token = signing.TimestampSigner(salt=_CONFIRM_SALT).sign(f"{_sha256(upload.content)}:{report.digest}")
        return cls(initial={"content": base64.b64encode(upload.content).decode("ascii"), "token": token})

    def clean(self) -> dict[str, Any]:
        """Adds `upload` and `digest`: the file exactly as previewed and what the preview showed."""
        cleaned = super().clean()
        if self.errors:
            raise ValidationError(gettext("The preview was not sent back whole. Upload the file again."))
        altered = ValidationError(gettext("The preview was altered after it was made. Upload the file again."))
        try:
            content = base64.b64decode(cleaned["content"], validate=True)
            signed = signing.TimestampSigner(salt=_CONFIRM_SALT).unsign(
                cleaned["token"], max_age=GLOSSARY_PREVIEW_MAX_AGE
            )
        except signing.SignatureExpired:
            raise ValidationError(gettext("The preview is more than an hour old. Upload the file again.")) from None
        except (binascii.Error, signing.BadSignature):
            raise altered from None
        content_hash, _, digest = signed.partition(":")
        if content_hash != _sha256(content):
            raise altered
        cleaned["upload"] = _upload_read(content)
        cleaned["digest"] = digest
        return cleaned


def _tally(report: GlossaryReport) -> dict[str, int]:
    """Codes created, updated and unchanged, aliases added and facts converted, as the rows say."""
    actions = Counter({(row.kind, row.code): row.action for row in report.rows}.values())
    return {
        "created": actions["created"],
        "updated": actions["updated"],
        "unchanged": actions["unchanged"],
        "aliases_added": sum(row.alias_added for row in report.rows),
        "facts_converted": report.facts_converted,
    }


class GlossaryCsvAdmin:
    """Mixed into the entity admin: the glossary CSV's import (upload, preview, confirm) and export,
    listed in the facts app on the admin index and sidebar."""

    admin_site: admin.AdminSite
    model: type[Entity]

    def glossary_csv_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("glossary/import/", view(self.glossary_import_view), name="facts_glossary_import"),
            path(
                "glossary/import/confirm/",
                view(require_POST(self.glossary_import_confirm)),
                name="facts_glossary_import_confirm",
            ),
            path("glossary/export/", view(require_GET(self.glossary_export_view)), name="facts_glossary_export"),
        ]

    def index_entries(self, request: HttpRequest) -> list[dict[str, Any]]:
        """The import and the export, each for a user allowed it (`ragspine_site.admin_site`)."""
        entries = []
        if _import_allowed(request.user):
            entries.append(_index_entry(gettext("Import glossary CSV"), "import", view_only=False))
        if _export_allowed(request.user):
            entries.append(_index_entry(gettext("Export glossary CSV"), "export", view_only=True))
        return entries

    def glossary_import_view(self, request: HttpRequest) -> HttpResponse:
        """The upload form; a file posted to it is previewed, row by row, and nothing is written."""
        if not _import_allowed(request.user):
            raise PermissionDenied
        form = GlossaryUploadForm(request.POST, request.FILES) if request.method == "POST" else GlossaryUploadForm()
        if form.is_valid():
            upload: GlossaryUpload = form.cleaned_data["file"]
            try:
                report = glossary_import(rows=upload.rows, dry_run=True)
            except ImportAborted as aborted:
                return self._glossary_refused(request, aborted)
            return self._glossary_preview(request, upload, report)
        return self._glossary_page(request, "import", {"form": form})

    def glossary_import_confirm(self, request: HttpRequest) -> HttpResponse:
        """The previewed file imported, if the import does exactly what the preview showed;
        otherwise nothing is written and the page says what the import would do now."""
        if not _import_allowed(request.user):
            raise PermissionDenied
        form = GlossaryConfirmForm(request.POST)
        if not form.is_valid():
            return self._glossary_page(
                request, "import", {"form": GlossaryUploadForm(), "problems": form.non_field_errors()}
            )
        upload: GlossaryUpload = form.cleaned_data["upload"]
        changed = gettext(
            "The glossary changed after the preview, so nothing was imported. This is what the import would do now."
        )
        try:
            report = glossary_import(rows=upload.rows, expected=form.cleaned_data["digest"])
        except GlossaryPlanChanged as plan_changed:
            return self._glossary_preview(request, upload, plan_changed.report, notice=changed)
        except ImportAborted as aborted:
            return self._glossary_refused(request, aborted, notice=changed)
        messages.success(request, _imported_message(report))
        return redirect("admin:facts_entity_changelist")

    def glossary_export_view(self, request: HttpRequest) -> HttpResponse:
        """The glossary as a CSV download (UTF-8 with a BOM, which spreadsheets need), as the import reads it."""
        if not _export_allowed(request.user):
            raise PermissionDenied
        response = HttpResponse(glossary_export().encode("utf-8-sig"), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="glossary-{timezone.localdate():%Y-%m-%d}.csv"'
        return response

    def _glossary_preview(
        self, request: HttpRequest, upload: GlossaryUpload, report: GlossaryReport, notice: str = ""
    ) -> HttpResponse:
        tally = _tally(report)
        changes = tally["created"] or tally["updated"] or tally["aliases_added"]
        confirm = GlossaryConfirmForm.for_preview(upload=upload, report=report) if changes else None
        context = {"rows": report.rows, "tally": tally, "confirm": confirm, "notice": notice}
        return self._glossary_page(request, "preview", context)

    def _glossary_refused(self, request: HttpRequest, aborted: ImportAborted, notice: str = "") -> HttpResponse:
        context = {
            "errors": aborted.errors,
            "error_total": aborted.total_errors,
            "errors_unshown": aborted.total_errors - len(aborted.errors),
            "notice": notice,
        }
        return self._glossary_page(request, "preview", context)

    def _glossary_page(self, request: HttpRequest, template: str, context: dict[str, Any]) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Import glossary CSV"),
            "export_allowed": _export_allowed(request.user),
            **context,
        }
        return TemplateResponse(request, f"admin/facts/glossary/{template}.html", context)


def _index_entry(name: str, page: str, *, view_only: bool) -> dict[str, Any]:
    """An entry shaped like the app list's own, for the `import` or the `export` page."""
    return {
        "name": name,
        "object_name": f"Glossary{page.capitalize()}",
        "admin_url": reverse(f"admin:facts_glossary_{page}"),
        "add_url": None,
        "view_only": view_only,
        "perms": {"view": True, "change": not view_only},
    }


def _imported_message(report: GlossaryReport) -> str:
    tally = _tally(report)
    message = (
        gettext(
            "Glossary imported: %(created)d code(s) created, %(updated)d updated, %(aliases_added)d alias(es) added."
        )
        % tally
    )
    if tally["facts_converted"]:
        message += " " + gettext("%(facts_converted)d fact(s) converted to a new sign convention.") % tally
    return message


class GlossaryCsvLinks:
    """Mixed into the glossary's change lists: links to import and export the glossary CSV."""

    change_list_template = "admin/facts/glossary/change_list.html"

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        links = {
            "glossary_import_allowed": _import_allowed(request.user),
            "glossary_export_allowed": _export_allowed(request.user),
        }
        return super().changelist_view(request, {**(extra_context or {}), **links})  # type: ignore[misc]


@admin.register(Entity)
class EntityAdmin(GlossaryCsvLinks, GlossaryCsvAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name", "kind", "parent", "geography", "year_end_month", "currency"]
    list_filter = ["kind", "year_end_month", "currency"]
    search_fields = ["code", "name", "aliases__text"]
    inlines = [AliasInline]

    def get_urls(self) -> list[Any]:
        return [*self.glossary_csv_urls(), *super().get_urls()]


class MetricForm(forms.ModelForm):  # type: ignore[type-arg]
    """Refuses a formula that does not work with the glossary's other formulas."""

    class Meta:
        model = Metric
        fields = "__all__"
        widgets = {"formula": forms.TextInput(attrs={"size": 80, "spellcheck": "false"})}

    def clean_formula(self) -> str:
        return str(self.cleaned_data.get("formula") or "").strip()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        code = cleaned.get("code")
        if code and "formula" in cleaned:
            for problem in metric_formula_problems(
                code=code, formula=cleaned["formula"], replacing=self.instance.code or None
            ):
                self.add_error("formula", problem)
        return cleaned


class FormulaTryForm(forms.Form):
    """The key a formula is tried on (entity, period, channel), each as a curator would write it."""

    use_required_attribute = False  # its inputs sit inside the metric's change form

    formula = forms.CharField(required=False, widget=forms.TextInput(attrs={"size": 80, "spellcheck": "false"}))
    unit = forms.ModelChoiceField(Unit.objects.all(), to_field_name="code", required=False)
    try_entity = forms.CharField(
        label=gettext_lazy("Entity"), max_length=255, help_text=gettext_lazy("code, name or alias")
    )
    try_period = forms.CharField(
        label=gettext_lazy("Period"), max_length=64, help_text=gettext_lazy("FY2025, 2025H1, 2025Q3 …")
    )
    try_channel = forms.CharField(
        label=gettext_lazy("Channel"),
        max_length=255,
        required=False,
        help_text=gettext_lazy("code, name or alias; blank: TOTAL"),
    )

    def clean_try_entity(self) -> str:
        return _glossary_code("entity", self.cleaned_data["try_entity"])

    def clean_try_period(self) -> Period:
        text = self.cleaned_data["try_period"]
        period = period_parse(text, date.today())
        if period is None:
            raise ValidationError(
                gettext("'%(text)s' is not one period; write FY2025, 2025H1 or 2025Q3.") % {"text": text}
            )
        return period

    def clean_try_channel(self) -> str:
        text = self.cleaned_data["try_channel"]
        return _glossary_code("channel", text) if text else "TOTAL"


_UNKNOWN = {
    "entity": gettext_lazy("No entity in the glossary is called '%(text)s' (code, name or alias)."),
    "channel": gettext_lazy("No channel in the glossary is called '%(text)s' (code, name or alias)."),
}


def _glossary_code(kind: str, text: str) -> str:
    code = glossary_snapshot().resolve(kind, text)
    if code is None:
        raise ValidationError(str(_UNKNOWN[kind]) % {"text": text})
    return code


def _label(form: forms.Form, key: str) -> str:
    field = form.fields.get(key)
    return str(field.label or key) if field is not None else gettext("input")


def _language() -> str:
    """The glossary's language for the admin's: its English names in English, else Chinese."""
    return "en" if (get_language() or "").startswith("en") else "zh"


def _preview_shown(preview: FormulaPreview) -> dict[str, Any]:
    """The preview in words, in the curator's language: names from the glossary, values with their
    units, facts with lineage, and the engine's formula or reason."""
    glossary = glossary_snapshot()
    language = _language()

    def key(metric: str, entity: str, period: Period, channel: str) -> dict[str, str]:
        return {
            "metric": glossary.display("metric", metric, language),
            "code": metric,
            "entity": glossary.display("entity", entity, language),
            "period": period.label,
            "channel": glossary.display("channel", channel, language),
        }

    def amount(value: str, unit: str) -> str:
        return value if unit == UNIT_PCT else f"{value} {glossary.unit_display(unit, language)}".strip()

    def fact(f: FactRecord) -> dict[str, str]:
        value = number_display(f.value) + ("%" if f.unit == UNIT_PCT else "")
        return {
            **key(f.metric, f.entity, f.period, f.channel),
            "value": amount(value, f.unit),
            "source": f.source_doc,
            "locator": f.locator,
            "sensitivity": f.sensitivity,
        }

    outcome = preview.outcome
    if outcome is None:
        return {}
    shown: dict[str, Any] = {"inputs": [fact(f) for f in outcome.inputs]}
    if isinstance(outcome, CannotCompute):
        shown["missing"] = [key(t.metric, t.entity, t.period, t.channel) for t in outcome.missing]
        shown["pending"] = [fact(f) for f in preview.pending]
        shown["reason"] = outcome.reason.text(language)
    else:
        shown["value"] = amount(outcome.display, outcome.unit)
        shown["formula_words"] = outcome.formula_words(language)
    if preview.stored is not None:
        shown["stored"] = fact(preview.stored)
    return shown


@admin.register(Metric)
class MetricAdmin(GlossaryCsvLinks, admin.ModelAdmin):  # type: ignore[type-arg]
    form = MetricForm
    list_display = ["code", "name", "unit", "aggregation", "sign", "formula"]
    list_filter = ["sign"]
    search_fields = ["code", "name", "formula", "aliases__text"]
    inlines = [AliasInline]
    change_form_template = "admin/facts/metric/change_form.html"

    def save_model(self, request: HttpRequest, obj: Metric, form: forms.ModelForm, change: bool) -> None:  # type: ignore[type-arg]
        """A changed sign convention converts the metric's facts in the same transaction, from the
        figures they were printed with, and says how many."""
        super().save_model(request, obj, form, change)
        if change and "sign" in form.changed_data:
            converted = facts_sign_apply(metric_code=obj.code, sign=obj.sign)
            said = gettext("Sign convention set to %(sign)s: %(count)s fact(s) converted from their printed figures.")
            self.message_user(request, said % {"sign": obj.sign, "count": converted}, messages.SUCCESS)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = {**(extra_context or {}), "try_form": FormulaTryForm()}
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[Any]:
        try_it = path("<path:object_id>/try/", self.admin_site.admin_view(self.try_view), name="facts_metric_try")
        return [try_it, *super().get_urls()]

    def try_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The formula as typed (unsaved) computed on one key from the facts this curator may see;
        with `HX-Request`, only the `formula-preview` fragment."""
        metric = self.get_object(request, unquote(object_id))
        if metric is None:
            raise Http404(gettext("No such metric."))
        if not self.has_view_or_change_permission(request, metric):
            raise PermissionDenied
        saved = {"formula": metric.formula, "unit": metric.unit_id}
        bound = any(key in request.GET for key in ("formula", "try_entity", "try_period"))
        form = FormulaTryForm({**saved, **request.GET.dict()} if bound else None, initial=saved)
        preview = None
        if form.is_valid():
            data = form.cleaned_data
            unit = data["unit"].code if data["unit"] else metric.unit_id
            task = SubTask(metric.code, data["try_entity"], data["try_period"], data["try_channel"])
            preview = formula_preview(
                code=metric.code,
                formula=data["formula"],
                unit=unit,
                task=task,
                cleared=user_cleared(request.user),
                language=_language(),
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": metric,
            "title": gettext("Try the formula of %(code)s") % {"code": metric.code},
            "form": form,
            "problems": [f"{_label(form, k)}: {m}" for k, ms in form.errors.items() for m in ms],
            "preview": preview,
            **(_preview_shown(preview) if preview is not None else {}),
        }
        template = "admin/facts/metric/try.html"
        return TemplateResponse(request, f"{template}#formula-preview" if request.htmx else template, context)  # type: ignore[attr-defined]


@admin.register(Channel)
class ChannelAdmin(GlossaryCsvLinks, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name"]
    inlines = [AliasInline]


@admin.register(Unit)
class UnitAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name_zh", "name_en"]


@admin.register(Alias)
class AliasAdmin(GlossaryCsvLinks, admin.ModelAdmin):  # type: ignore[type-arg]
    form = AliasForm
    list_display = ["text", "kind", "entity", "metric", "channel"]
    list_filter = ["kind"]
    search_fields = ["text"]

    def save_model(self, request: HttpRequest, obj: Alias, form: forms.ModelForm, change: bool) -> None:  # type: ignore[type-arg]
        if change:
            super().save_model(request, obj, form, change)
            return
        kind = next(k for k in ALIAS_TARGETS if form.cleaned_data.get(k) is not None)
        obj.pk = alias_create(kind=kind, text=obj.text, code=form.cleaned_data[kind].code).pk
        obj.refresh_from_db()  # the admin's log entry and redirect name the row `alias_create` wrote


@admin.register(CompanyProfile)
class CompanyProfileAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["home_company_name"]
