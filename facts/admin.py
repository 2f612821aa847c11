"""Curator admin for the glossary and the fact table (issue C extends it)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from common.access import ClearanceFilteredAdmin

from .models import Alias, Channel, CompanyProfile, Entity, FactMetric, Metric, Unit
from .services import facts_review


class AliasInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Alias
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
    list_display = ["text", "kind", "entity", "metric", "channel"]
    list_filter = ["kind"]
    search_fields = ["text"]


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
