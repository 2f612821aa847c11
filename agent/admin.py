"""Curator reports over the trace (the glossary-gap report and the feedback report), and the
stored conversations, read-only.

The words asked are in the trace only while `RAGSPINE_LOG_QUESTIONS` is on, and then only team
leads (`agent.view_question_text`) read them; everyone else reads the trace without them, and a
stored question stays unread once the setting is off again (docs/operations.md)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, pgettext

from common.access import user_cleared
from facts.concepts import metrics_of_concept
from facts.models import Channel, Entity, Metric
from facts.selectors import glossary_snapshot
from facts.services import alias_create, metric_create

from .models import Conversation, ConversationTurn, GlossaryGapDismissal, QueryLog
from .selectors import query_log_list
from .services import gap_dismiss

TARGETS = {"entity": Entity, "metric": Metric, "channel": Channel}
NARRATIVE_ROUTES = ("narrative", "find_documents")
QUESTION_TEXT = "agent.view_question_text"


def question_text_shown(request: HttpRequest) -> bool:
    """Whether this curator reads the words asked: a team lead, while questions are logged."""
    return bool(settings.RAGSPINE["LOG_QUESTIONS"]) and request.user.has_perm(QUESTION_TEXT)


@admin.register(QueryLog)
class QueryLogAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The trace, read-only: codes, counts and timings (never answers or values); the words asked
    for team leads only (`question_text_shown`), in the list, on a trace's page and in search."""

    list_display = ["created_at", "user", "route", "answer_kind", "clarification_mode", "routing_mode", "feedback"]
    list_filter = ["route", "answer_kind", "clarification_mode", "feedback"]
    change_list_template = "admin/agent/querylog/change_list.html"
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[QueryLog]:
        return query_log_list(cleared=user_cleared(request.user))

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = list(super().get_list_display(request))
        return [*shown[:2], "question_text", *shown[2:]] if question_text_shown(request) else shown

    def get_search_fields(self, request: HttpRequest) -> Any:
        return ["question"] if question_text_shown(request) else []

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        excluded = list(super().get_exclude(request, obj) or [])
        return excluded if question_text_shown(request) else [*excluded, "question"]

    @admin.display(description=gettext_lazy("Question asked"))
    def question_text(self, log: QueryLog) -> str:
        return log.question or "—"

    def get_urls(self) -> list[Any]:
        return [
            path("gaps/", self.admin_site.admin_view(self.gaps_view), name="agent_querylog_gaps"),
            path("feedback/", self.admin_site.admin_view(self.feedback_view), name="agent_querylog_feedback"),
            *super().get_urls(),
        ]

    def gaps_view(self, request: HttpRequest) -> HttpResponse:
        """Terms analysts used that the glossary did not know, most frequent first: those asked for
        a figure apart from those asked in a narrative question (a topic, not a missing metric).
        For each: add it as an alias (nothing preselected; the metrics of the same concept
        first), create a metric from it, or dismiss it."""
        if request.method == "POST":
            return self._gap_act(request)
        since = timezone.now() - timedelta(days=int(request.GET.get("days", 90) or 90))
        counts: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        for route, terms in (
            self.get_queryset(request)
            .filter(created_at__gte=since)
            .exclude(unrecognized_terms=[])
            .values_list("route", "unrecognized_terms")
        ):
            counts[route in NARRATIVE_ROUTES].update(terms or [])
        glossary = glossary_snapshot()
        dismissed = set(GlossaryGapDismissal.objects.values_list("term", flat=True))

        def rows(counted: Counter[str]) -> list[dict[str, Any]]:
            return [
                {"term": term, "count": n, "closest": metrics_of_concept(term, glossary)[:5]}
                for term, n in counted.most_common(200)
                if term not in dismissed and glossary.matcher.lookup(term) is None
            ]

        targets = {
            "metric": sorted((code, info.name) for code, info in glossary.metrics.items()),
            "entity": [(e.code, e.name) for e in glossary.in_scope_entities()[:500]],
            "channel": sorted((code, info.name) for code, info in glossary.channels.items()),
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Glossary gaps"),
            "rows": rows(counts[False]),
            "narrative_rows": rows(counts[True]),
            "targets": targets,
            "units": sorted(glossary.units),
        }
        return TemplateResponse(request, "admin/agent/gaps.html", context)

    def _gap_act(self, request: HttpRequest) -> HttpResponse:
        term = request.POST.get("term", "").strip()[:64]
        action = request.POST.get("action", "alias")
        if not term:
            messages.error(request, gettext("No term was given."))
        elif action == "dismiss":
            gap_dismiss(term=term, user=request.user)
            messages.success(request, gettext("'%(term)s' dismissed: the report no longer lists it.") % {"term": term})
        elif action == "metric":
            self._metric_create(request, term)
        else:
            self._alias_add(request, term)
        return redirect("admin:agent_querylog_gaps")

    def _metric_create(self, request: HttpRequest, term: str) -> None:
        code = request.POST.get("code", "").strip()
        unit = request.POST.get("unit", "").strip()
        if not code or not unit:
            messages.error(request, gettext("A new metric needs a code and a unit."))
            return
        try:
            metric_create(code=code, name=term, unit=unit, alias=term)
        except ValidationError as error:
            messages.error(request, pgettext("list separator", "; ").join(error.messages))
            return
        said = gettext("Metric '%(term)s' (%(code)s, %(unit)s) created, with '%(term)s' as its alias.")
        messages.success(request, said % {"term": term, "code": code, "unit": unit})

    def _alias_add(self, request: HttpRequest, term: str) -> None:
        kind, _, code = request.POST.get("target", "").partition(":")
        model = TARGETS.get(kind)
        target = model.objects.filter(code=code).first() if model else None
        if target is None:
            messages.error(request, gettext("Choose the metric, entity or channel the term names."))
            return
        try:
            alias_create(kind=kind, text=term, code=code)
        except ValidationError as error:
            messages.error(request, pgettext("list separator", "; ").join(error.messages))
            return
        said = gettext("Alias '%(term)s' → %(target)s added; the next question uses it.")
        messages.success(request, said % {"term": term, "target": target})

    def feedback_view(self, request: HttpRequest) -> HttpResponse:
        logs = self.get_queryset(request).exclude(feedback=None)
        by_route: dict[str, dict[str, int]] = {}
        for route, vote in logs.values_list("route", "feedback"):
            entry = by_route.setdefault(route, {"up": 0, "down": 0})
            entry["up" if vote > 0 else "down"] += 1
        recent = logs.exclude(feedback_reason="").order_by("-created_at")[:50]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Feedback"),
            "by_route": sorted(by_route.items()),
            "recent": recent,
        }
        return TemplateResponse(request, "admin/agent/feedback.html", context)


class ConversationTurnInline(admin.TabularInline):  # type: ignore[type-arg]
    """A conversation's turns as the trace shows questions: codes only (the answered slots and
    operation, the request id that links the trace, the vote), never the question's words, the
    answer or its figures. Turns a cleared user asked are shown only to cleared curators."""

    model = ConversationTurn
    fields = ["position", "created_at", "intent", "request_id", "feedback"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ConversationTurn]:
        turns = super().get_queryset(request)
        return turns if user_cleared(request.user) else turns.exclude(asker_cleared=True)


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["external_id", "user", "created_at", "updated_at", "turns_total"]
    list_filter = ["updated_at"]
    search_fields = ["external_id", "user__username"]
    readonly_fields = ["user", "external_id", "created_at", "updated_at", "turns_total"]
    inlines = [ConversationTurnInline]
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
