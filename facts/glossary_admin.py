"""Curator admin for the glossary: entities, metrics (with a "try it" preview of a metric's
formula over real facts), channels, units, aliases and the company profile."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path

from common.access import user_cleared
from core.engine import UNIT_PCT, CannotCompute, number_display
from core.language.periods import period_parse
from core.model.types import FactRecord, Period, SubTask

from .models import Alias, Channel, CompanyProfile, Entity, Metric, Unit
from .selectors import FormulaPreview, formula_preview, glossary_snapshot
from .services import ALIAS_TARGETS, alias_conflict, alias_create, facts_sign_apply, metric_formula_problems


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


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name", "kind", "parent", "geography", "year_end_month", "currency"]
    list_filter = ["kind", "year_end_month", "currency"]
    search_fields = ["code", "name", "aliases__text"]
    inlines = [AliasInline]


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
    try_entity = forms.CharField(label="实体 · entity", max_length=255, help_text="code, name or alias")
    try_period = forms.CharField(label="期间 · period", max_length=64, help_text="FY2025, 2025H1, 2025Q3, 2025年 …")
    try_channel = forms.CharField(
        label="渠道 · channel", max_length=255, required=False, help_text="code, name or alias; blank: TOTAL"
    )

    def clean_try_entity(self) -> str:
        return _glossary_code("entity", self.cleaned_data["try_entity"])

    def clean_try_period(self) -> Period:
        text = self.cleaned_data["try_period"]
        period = period_parse(text, date.today())
        if period is None:
            raise ValidationError(f"'{text}' is not one period; write FY2025, 2025H1 or 2025Q3.")
        return period

    def clean_try_channel(self) -> str:
        text = self.cleaned_data["try_channel"]
        return _glossary_code("channel", text) if text else "TOTAL"


def _glossary_code(kind: str, text: str) -> str:
    code = glossary_snapshot().resolve(kind, text)
    if code is None:
        raise ValidationError(f"No {kind} in the glossary is called '{text}' (code, name or alias).")
    return code


def _label(form: forms.Form, key: str) -> str:
    field = form.fields.get(key)
    return str(field.label or key) if field is not None else "input"


def _preview_shown(preview: FormulaPreview) -> dict[str, Any]:
    """The preview in words: names from the glossary, values with their units, facts with lineage."""
    glossary = glossary_snapshot()

    def key(metric: str, entity: str, period: Period, channel: str) -> dict[str, str]:
        return {
            "metric": glossary.display("metric", metric, "zh"),
            "code": metric,
            "entity": glossary.display("entity", entity, "zh"),
            "period": period.label,
            "channel": glossary.display("channel", channel, "zh"),
        }

    def amount(value: str, unit: str) -> str:
        return value if unit == UNIT_PCT else f"{value} {glossary.unit_display(unit, 'zh')}".strip()

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
    else:
        shown["value"] = amount(outcome.display, outcome.unit)
    if preview.stored is not None:
        shown["stored"] = fact(preview.stored)
    return shown


@admin.register(Metric)
class MetricAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
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
            self.message_user(
                request,
                f"符号约定已改为 {obj.sign}，已按原表数值换算 {converted} 条事实 · "
                f"Sign convention set to {obj.sign}: {converted} fact(s) converted from their printed figures.",
                messages.SUCCESS,
            )

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
            raise Http404("No such metric.")
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
                code=metric.code, formula=data["formula"], unit=unit, task=task, cleared=user_cleared(request.user)
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": metric,
            "title": f"试算公式 · Try the formula of {metric.code}",
            "form": form,
            "problems": [f"{_label(form, k)}: {m}" for k, ms in form.errors.items() for m in ms],
            "preview": preview,
            **(_preview_shown(preview) if preview is not None else {}),
        }
        template = "admin/facts/metric/try.html"
        return TemplateResponse(request, f"{template}#formula-preview" if request.htmx else template, context)  # type: ignore[attr-defined]


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name"]
    inlines = [AliasInline]


@admin.register(Unit)
class UnitAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name_zh", "name_en"]


@admin.register(Alias)
class AliasAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
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
