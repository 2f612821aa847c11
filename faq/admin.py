"""Curator admin for FAQ items, with a "test this question" page."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext, gettext_lazy

from common.access import ClearanceFilteredAdmin
from core.gates.faq import (
    DISABLED,
    EXCLUDED_REAL_TIME,
    EXCLUDED_STRUCTURED,
    NO_MATCH,
    OUTSIDE_WINDOW,
    RESTRICTED_ITEM,
    faq_decide,
)
from core.gates.security import security_screen
from core.parse.intent import parse_intent
from facts.selectors import glossary_snapshot

from .models import FAQItem
from .selectors import OrmFaqLookup

SECURITY_REFUSED = "security gate: out of scope (refused before any FAQ lookup)"
# Why a question would not be answered from the FAQ, in the curator's language.
REASONS_SAID = {
    SECURITY_REFUSED: gettext_lazy("security gate: out of scope (refused before any FAQ lookup)"),
    EXCLUDED_STRUCTURED: gettext_lazy("structured question or a filled slot"),
    EXCLUDED_REAL_TIME: gettext_lazy("real-time cue"),
    NO_MATCH: gettext_lazy("no FAQ item matches this wording"),
    DISABLED: gettext_lazy("the matching item is disabled"),
    OUTSIDE_WINDOW: gettext_lazy("the matching item is outside its validity window"),
    RESTRICTED_ITEM: gettext_lazy("the matching item is RESTRICTED (never served as a cached answer)"),
}


@admin.register(FAQItem)
class FAQItemAdmin(ClearanceFilteredAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = [
        "question",
        "version",
        "enabled",
        "valid_from",
        "valid_until",
        "sensitivity",
        "hit_count",
        "last_hit_at",
    ]
    list_filter = ["enabled", "sensitivity"]
    search_fields = ["question", "answer", "source"]
    readonly_fields = ["hit_count", "last_hit_at", "updated_at"]
    change_list_template = "admin/faq/change_list.html"

    def get_urls(self) -> list[Any]:
        return [path("test/", self.admin_site.admin_view(self.test_view), name="faq_faqitem_test"), *super().get_urls()]

    def test_view(self, request: HttpRequest) -> HttpResponse:
        """Would this question be answered from the FAQ, and if not, which exclusion applies?"""
        question = request.GET.get("question", "").strip()[:2000]
        try:
            reference = (
                date.fromisoformat(request.GET.get("reference_date", ""))
                if request.GET.get("reference_date")
                else date.today()
            )
        except ValueError:
            reference = date.today()
        outcome: dict[str, Any] | None = None
        if question:
            glossary = glossary_snapshot()
            intent = parse_intent(question, glossary, reference)
            verdict = security_screen(raw_question=question, glossary=glossary, language=intent.language)
            if verdict.refused:
                outcome = {"hit": False, "reason": REASONS_SAID[SECURITY_REFUSED]}
            else:
                decision = faq_decide(intent, OrmFaqLookup(), reference_date=reference)
                reason = REASONS_SAID.get(decision.reason, decision.reason)
                outcome = {"hit": decision.candidate is not None, "item": decision.candidate, "reason": reason}
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Would the FAQ answer this question?"),
            "question": question,
            "reference_date": reference.isoformat(),
            "outcome": outcome,
        }
        return TemplateResponse(request, "admin/faq/test.html", context)
