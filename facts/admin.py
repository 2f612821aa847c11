"""Curator admin for the glossary and the fact table (issue C extends it)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest

from common.access import ClearanceFilteredAdmin

from .models import Alias, Channel, CompanyProfile, Entity, FactMetric, Metric, Unit
from .services import ALIAS_TARGETS, alias_conflict, alias_create, facts_review


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
    list_display = ["code", "name", "kind", "parent", "geography"]
    list_filter = ["kind"]
    search_fields = ["code", "name", "aliases__text"]
    inlines = [AliasInline]


@admin.register(Metric)
class MetricAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["code", "name", "unit"]
    search_fields = ["code", "name", "aliases__text"]
    inlines = [AliasInline]


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


@admin.register(FactMetric)
class FactMetricAdmin(ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    """Facts are read-mostly: lineage is shown, not edited; pending rows wait in the review queue."""

    list_display = [
        "entity", "metric", "period_label", "channel", "value", "unit", "source_doc", "locator",
        "sensitivity", "review_status", "suggested_alias",
    ]  # fmt: skip
    list_filter = ["review_status", "sensitivity", "period_type"]
    search_fields = ["entity__code", "metric__code", "source_doc", "suggested_alias"]
    readonly_fields = [
        "metric", "entity", "period_type", "period", "channel", "value", "unit", "source_doc",
        "locator", "document", "valid_as_of", "suggested_alias", "ingested_at",
    ]  # fmt: skip
    actions = ["approve", "reject"]
    restricted_lookups = ("sensitivity", "document__sensitivity")
    list_select_related = False
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="批准所选事实（进入问答）")
    def approve(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        count = facts_review(facts=queryset, status=FactMetric.Review.APPROVED)
        self.message_user(request, f"已批准 {count} 条事实。")

    @admin.action(description="驳回所选事实")
    def reject(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        count = facts_review(facts=queryset, status=FactMetric.Review.REJECTED)
        self.message_user(request, f"已驳回 {count} 条事实。")
