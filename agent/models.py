"""The trace: one `QueryLog` row per question, holding codes, counts and timings only (SPEC §11)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class QueryLog(models.Model):
    request_id = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    route = models.CharField(max_length=16)
    routing_mode = models.CharField(max_length=16)
    clarification_mode = models.CharField(max_length=24)
    answer_kind = models.CharField(max_length=16)
    slots = models.JSONField(default=dict)
    tool_status_counts = models.JSONField(default=dict)
    fabrication_guard_triggered = models.BooleanField(default=False)
    numbers_unsupported = models.PositiveIntegerField(default=0)
    faq_id = models.PositiveIntegerField(null=True, blank=True)
    faq_version = models.PositiveIntegerField(null=True, blank=True)
    chunk_scores = models.JSONField(default=list)
    timings_ms = models.JSONField(default=dict)
    provider_seconds = models.FloatField(default=0.0)
    usage = models.JSONField(default=dict)
    unrecognized_terms = models.JSONField(default=list)
    question = models.TextField(null=True, blank=True)
    asker_cleared = models.BooleanField(default=False)  # hidden from uncleared curators
    feedback = models.SmallIntegerField(null=True, blank=True, choices=[(1, "👍"), (-1, "👎")])
    feedback_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.request_id} {self.route} {self.answer_kind}"
