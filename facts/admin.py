"""Curator admin for the fact table: the fact list with its filters, disputes beside each fact,
and the review queue (`review_admin`). The glossary's pages are in `glossary_admin` and the FX
table's in `fx_admin`, registered here by import."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, Exists, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from common.access import ClearanceFilteredAdmin, user_cleared, visible_to
from core.model.sign import printed_differs, printed_display

from . import fx_admin, glossary_admin  # noqa: F401  (register the FX table's and the glossary's admin pages)
from .models import FactDispute, FactMetric
from .reasons import PARENT_STATEMENT, REASON_KINDS, reason_kind_q, reason_shown
from .review_admin import ReviewQueueAdmin
from .review_forms import STATEMENTS
from .services import facts_review
from .services.disputes import disputes_resolve


class ReasonKindFilter(admin.SimpleListFilter):
    title = gettext_lazy("Reason")
    parameter_name = "reason"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(REASON_KINDS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        return queryset.filter(reason_kind_q(self.value())) if self.value() in REASON_KINDS else queryset


class StatementFilter(admin.SimpleListFilter):
    title = gettext_lazy("Statement")
    parameter_name = "statement"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(STATEMENTS)

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

    title = gettext_lazy("Disputes")
    parameter_name = "disputed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", gettext("Open disputes"))]

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
        "entity", "metric", "period_label", "channel", "value", "printed", "unit", "source_doc", "locator",
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
        "metric", "entity", "period_type", "period", "channel", "value", "printed_value", "unit", "source_doc",
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

    @admin.display(description=gettext_lazy("Open disputes"))
    def open_disputes(self, fact: FactMetric) -> int:
        return fact.open_dispute_count  # type: ignore[attr-defined]

    @admin.display(description=gettext_lazy("printed"))
    def printed(self, fact: FactMetric) -> str:
        """The figure as the report printed it, when the metric's sign convention stored the amount."""
        printed = fact.printed_value
        return printed_display(printed) if printed is not None and printed_differs(fact.value, printed) else ""

    @admin.display(description=gettext_lazy("Reason"), ordering="review_note")
    def reason(self, fact: FactMetric) -> str:
        return format_html('<span title="{}">{}</span>', fact.review_note, reason_shown(fact.review_note))

    @admin.action(description=gettext_lazy("Approve the selected facts (they answer questions)"))
    def approve(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        outcome = facts_review(facts=queryset, status=FactMetric.Review.APPROVED)
        said = ngettext("Approved %(count)s fact.", "Approved %(count)s facts.", outcome.changed)
        self.message_user(request, said % {"count": outcome.changed})
        if outcome.held:
            self.message_user(
                request,
                gettext(
                    "%(count)s not approved: an approved fact holds the same metric, entity, period and channel, "
                    "or two of those selected share it (see the review note). Reject the wrong one first, then "
                    "approve the other."
                )
                % {"count": outcome.held},
                messages.WARNING,
            )
        if outcome.incomplete:
            self.message_user(
                request,
                gettext(
                    "%(count)s not approved: the metric, entity or unit is missing. Add the suggested alias to "
                    "the glossary and read the document again, or reject them."
                )
                % {"count": outcome.incomplete},
                messages.WARNING,
            )

    @admin.action(description=gettext_lazy("Reject the selected facts"))
    def reject(self, request: HttpRequest, queryset: QuerySet[FactMetric]) -> None:
        outcome = facts_review(facts=queryset, status=FactMetric.Review.REJECTED)
        said = ngettext("Rejected %(count)s fact.", "Rejected %(count)s facts.", outcome.changed)
        self.message_user(request, said % {"count": outcome.changed})


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

    @admin.display(description=pgettext_lazy("dispute", "Fact"))
    def fact_link(self, dispute: FactDispute) -> str:
        url = reverse("admin:facts_factmetric_change", args=[dispute.fact_id])
        fact = dispute.fact
        return format_html('<a href="{}">{} {} {}</a>', url, fact.entity_id, fact.metric_id, fact.period_label)

    @admin.display(description=gettext_lazy("Figure and source"))
    def figure(self, dispute: FactDispute) -> str:
        fact = dispute.fact
        return format_html("{} {} · {} <code>{}</code>", fact.value, fact.unit_id or "", fact.source_doc, fact.locator)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        open_count = self.get_queryset(request).filter(status=FactDispute.Status.OPEN).count()
        title = gettext("Figures reported wrong (%(count)s open)") % {"count": open_count}
        extra_context = {**(extra_context or {}), "title": title}
        return super().changelist_view(request, extra_context)

    @admin.action(description=gettext_lazy("Mark as resolved"))
    def resolve(self, request: HttpRequest, queryset: QuerySet[FactDispute]) -> None:
        count = disputes_resolve(disputes=queryset, user=request.user)
        said = ngettext("%(count)s dispute resolved.", "%(count)s disputes resolved.", count)
        self.message_user(request, said % {"count": count}, messages.SUCCESS)
