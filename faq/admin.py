"""Curator admin for FAQ items, with a "test this question" page."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path

from common.access import ClearanceFilteredAdmin
from core.gates.security import security_screen
from core.parse.intent import parse_intent
from facts.selectors import glossary_snapshot

from .models import FAQItem
from .selectors import faq_decide


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
                outcome = {"hit": False, "reason": "security gate: out of scope (refused before any FAQ lookup)"}
            else:
                decision = faq_decide(intent, reference_date=reference)
                outcome = {"hit": decision.item is not None, "item": decision.item, "reason": decision.reason}
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "测试问题是否命中 FAQ",
            "question": question,
            "reference_date": reference.isoformat(),
            "outcome": outcome,
        }
        return TemplateResponse(request, "admin/faq/test.html", context)
