"""Curator admin for the glossary and the fact table (issue C extends it)."""

from __future__ import annotations

from django.contrib import admin

from .models import Alias, Channel, CompanyProfile, Entity, FactMetric, Metric, Unit


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
class FactMetricAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = [
        "entity",
        "metric",
        "period_label",
        "channel",
        "value",
        "unit",
        "source_doc",
        "locator",
        "sensitivity",
        "review_status",
    ]
    list_filter = ["review_status", "sensitivity", "period_type"]
    search_fields = ["entity__code", "metric__code", "source_doc"]
    readonly_fields = ["ingested_at"]
    list_select_related = False
    show_full_result_count = False
