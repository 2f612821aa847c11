"""Curator admin for the glossary and the fact table, with a "try it"
preview of a metric's formula."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Exists, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from common.access import ClearanceFilteredAdmin, user_cleared, visible_to
from core.engine import UNIT_PCT, CannotCompute, number_display
from core.language.periods import period_parse
from core.model.types import FactRecord, Period, SubTask

from .models import Alias, Channel, CompanyProfile, Entity, FactDispute, FactMetric, Metric, Unit
from .reasons import PARENT_STATEMENT, REASON_KINDS, reason_kind_q, reason_shown
from .review_admin import ReviewQueueAdmin
from .selectors import FormulaPreview, formula_preview, glossary_snapshot
from .services import ALIAS_TARGETS, alias_conflict, alias_create, facts_review, metric_formula_problems
from .services.disputes import disputes_resolve


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
    list_display = ["code", "name", "unit", "aggregation", "formula"]
    search_fields = ["code", "name", "formula", "aliases__text"]
    inlines = [AliasInline]
    change_form_template = "admin/facts/metric/change_form.html"

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


class ReasonKindFilter(admin.SimpleListFilter):
    title = "原因 · reason"
    parameter_name = "reason"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(REASON_KINDS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        return queryset.filter(reason_kind_q(self.value())) if self.value() in REASON_KINDS else queryset


class StatementFilter(admin.SimpleListFilter):
    title = "报表 · statement"
    parameter_name = "statement"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("consolidated", "合并 · consolidated"), ("parent", "母公司 · parent")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        if self.value() == "parent":
            return queryset.filter(review_note__contains=PARENT_STATEMENT)
        if self.value() == "consolidated":
            return queryset.exclude(review_note__contains=PARENT_STATEMENT)
        return queryset


def _open_disputes() -> QuerySet[FactDispute]:
    return FactDispute.objects.filter(fact=OuterRef("pk"), status=FactDispute.Status.OPEN)


class DisputedFilter(admin.SimpleListFilter):
    """Facts an analyst has said are wrong, still waiting for a curator."""

    title = "反馈 · disputes"
    parameter_name = "disputed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", "有未处理的反馈 · open disputes")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        return queryset.filter(Exists(_open_disputes())) if self.value() == "open" else queryset


class VisibleDocumentFilter(admin.RelatedFieldListFilter):  # type: ignore[type-arg]
    """Only the documents the curator may open are choices: a RESTRICTED document's name is
    never listed to an uncleared curator."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        documents = visible_to(field.related_model.objects.all(), cleared=user_cleared(request.user))
        return [(document.pk, str(document)) for document in documents.order_by("name")]


class DisputeInline(admin.TabularInline):  # type: ignore[type-arg]
    model = FactDispute
    extra = 0
    can_delete = False
    fields = ["status", "note", "created_by", "created_at", "resolved_by", "resolved_at", "resolution"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(FactMetric)
class FactMetricAdmin(ReviewQueueAdmin, ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    """Facts are read-mostly: lineage is shown, not edited; pending rows wait in the review queue
    (grouped, with its group actions, at `review/`)."""

    list_display = [
        "entity", "metric", "period_label", "channel", "value", "unit", "source_doc", "locator",
        "sensitivity", "review_status", "reason", "suggested_alias", "open_disputes",
    ]  # fmt: skip
    list_filter = [
        "review_status", DisputedFilter, ReasonKindFilter, StatementFilter, "sensitivity", "period_type",
        ("document", VisibleDocumentFilter),
    ]  # fmt: skip
    search_fields = [
        "entity__code", "entity__name", "metric__code", "metric__name", "source_doc", "suggested_alias", "review_note",
    ]  # fmt: skip
    readonly_fields = [
        "metric", "entity", "period_type", "period", "channel", "value", "unit", "source_doc",
        "locator", "document", "valid_as_of", "suggested_alias", "ingested_at",
    ]  # fmt: skip
    actions = ["approve", "reject"]
    inlines = [DisputeInline]  # analysts' "this figure is wrong", beside the fact
    change_list_template = "admin/facts/factmetric/change_list.html"  # links the grouped review queue
    # Newest rows first, read backwards along the primary key: the natural key's index holds
    # approved rows only, so ordering the whole table by it would sort every row.
    ordering = ["-pk"]
    restricted_lookups = FactMetric.SENSITIVITY_LOOKUPS
    list_select_related = False
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        return [*self.review_urls(), *super().get_urls()]

    def get_queryset(self, request: HttpRequest) -> QuerySet[FactMetric]:
        # A subquery per listed row (the page's, not the table's): a join and GROUP BY would
        # count the whole fact table before the list takes its newest rows.
        counted = _open_disputes().order_by().values("fact").annotate(n=Count("pk")).values("n")
        return (
            super()
            .get_queryset(request)
            .annotate(open_dispute_count=Coalesce(Subquery(counted, output_field=IntegerField()), 0))
        )

    @admin.display(description="未处理的反馈 · open disputes")
    def open_disputes(self, fact: FactMetric) -> int:
        return fact.open_dispute_count  # type: ignore[attr-defined]

    @admin.display(description="原因 · reason", ordering="review_note")
    def reason(self, fact: FactMetric) -> str:
        return format_html('<span title="{}">{}</span>', fact.review_note, reason_shown(fact.review_note))

    @admin.action(description="批准所选事实（进入问答）")
    def approve(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        outcome = facts_review(facts=queryset, status=FactMetric.Review.APPROVED)
        self.message_user(request, f"已批准 {outcome.changed} 条事实。")
        if outcome.held:
            self.message_user(
                request,
                f"{outcome.held} 条未批准：同一指标、实体、期间和渠道已有已批准的事实，或所选事实中有两条同键"
                "（见审核备注）。请先驳回其中错误的一条，再批准另一条。",
                messages.WARNING,
            )
        if outcome.incomplete:
            self.message_user(
                request,
                f"{outcome.incomplete} 条未批准：缺少指标、实体或单位。"
                "请先在术语表中添加建议的别名并重新导入文档，或驳回。",
                messages.WARNING,
            )

    @admin.action(description="驳回所选事实")
    def reject(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        outcome = facts_review(facts=queryset, status=FactMetric.Review.REJECTED)
        self.message_user(request, f"已驳回 {outcome.changed} 条事实。")


@admin.register(FactDispute)
class FactDisputeAdmin(ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    """Analysts' "this figure is wrong", beside the fact they are about; the list's count of open
    ones is the curator's to-do."""

    list_display = ["created_at", "status", "fact_link", "figure", "note", "created_by", "resolved_by"]
    list_filter = ["status", ("fact__document", VisibleDocumentFilter)]
    search_fields = ["note", "fact__source_doc", "fact__locator", "fact__metric__code", "fact__entity__code"]
    readonly_fields = ["fact", "note", "created_by", "created_at", "resolved_by", "resolved_at"]
    list_select_related = ["fact", "created_by", "resolved_by"]
    actions = ["resolve"]
    restricted_lookups = FactDispute.SENSITIVITY_LOOKUPS

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="事实 · fact")
    def fact_link(self, dispute: FactDispute) -> str:
        url = reverse("admin:facts_factmetric_change", args=[dispute.fact_id])
        fact = dispute.fact
        return format_html('<a href="{}">{} {} {}</a>', url, fact.entity_id, fact.metric_id, fact.period_label)

    @admin.display(description="数值与来源 · figure")
    def figure(self, dispute: FactDispute) -> str:
        fact = dispute.fact
        return format_html("{} {} · {} <code>{}</code>", fact.value, fact.unit_id or "", fact.source_doc, fact.locator)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        open_count = self.get_queryset(request).filter(status=FactDispute.Status.OPEN).count()
        extra_context = {**(extra_context or {}), "title": f"数字有误的反馈 · disputes ({open_count} open)"}
        return super().changelist_view(request, extra_context)

    @admin.action(description="标记为已处理 · resolve")
    def resolve(self, request: HttpRequest, queryset: QuerySet[FactDispute]) -> None:
        count = disputes_resolve(disputes=queryset, user=request.user)
        self.message_user(request, f"{count} dispute(s) resolved.", messages.SUCCESS)
