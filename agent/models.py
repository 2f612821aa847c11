"""The trace: one `QueryLog` row per question, holding codes, counts and timings only;
and the conversations follow-ups continue: `Conversation` and its `ConversationTurn`s."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy


class QueryLog(models.Model):
    request_id = models.CharField(verbose_name=pgettext_lazy("field", "request ID"), max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=pgettext_lazy("field", "user"),
    )
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "asked at"), auto_now_add=True, db_index=True)
    route = models.CharField(verbose_name=pgettext_lazy("field", "route"), max_length=16)
    routing_mode = models.CharField(verbose_name=pgettext_lazy("field", "routing mode"), max_length=16)
    clarification_mode = models.CharField(verbose_name=pgettext_lazy("field", "clarification mode"), max_length=24)
    answer_kind = models.CharField(verbose_name=pgettext_lazy("field", "answer kind"), max_length=16)
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
    unrecognized_terms = models.JSONField(verbose_name=pgettext_lazy("field", "unrecognised terms"), default=list)
    question = models.TextField(verbose_name=pgettext_lazy("field", "question"), null=True, blank=True)
    asker_cleared = models.BooleanField(default=False)  # hidden from uncleared curators
    feedback = models.SmallIntegerField(
        verbose_name=pgettext_lazy("field", "feedback"), null=True, blank=True, choices=[(1, "👍"), (-1, "👎")]
    )
    feedback_reason = models.CharField(
        verbose_name=pgettext_lazy("field", "feedback reason"), max_length=500, blank=True
    )

    class Meta:
        verbose_name = gettext_lazy("question log")
        verbose_name_plural = gettext_lazy("question logs")
        ordering = ["-created_at"]
        # Team leads read the words asked (`question`), kept only with `RAGSPINE_LOG_QUESTIONS`;
        # granted per user, as the RESTRICTED clearance is (docs/operations.md).
        permissions = [("view_question_text", "Can read the question text in the query log (team lead)")]

    def __str__(self) -> str:
        return f"{self.request_id} {self.route} {self.answer_kind}"


class Conversation(models.Model):
    """A user's conversation: the turns a follow-up may continue (`conversation_id` in `/v1/ask`).

    `external_id` is the client's name for it (or one the UI generated); it is unique per user,
    so the same name used by two users names two conversations, and neither can read the other.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="conversations",
        verbose_name=pgettext_lazy("field", "user"),
    )
    external_id = models.CharField(verbose_name=pgettext_lazy("field", "conversation ID"), max_length=64)
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "created at"), auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "updated at"), auto_now=True, db_index=True)
    turns_total = models.PositiveIntegerField(
        verbose_name=pgettext_lazy("field", "turns"), default=0
    )  # the next turn's position

    class Meta:
        verbose_name = gettext_lazy("conversation")
        verbose_name_plural = gettext_lazy("conversations")
        constraints = [
            models.UniqueConstraint(fields=["user", "external_id"], name="conversation_external_id_per_user")
        ]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"{self.user} · {self.external_id}"


class ConversationTurn(models.Model):
    """One question and its answer in a conversation.

    `intent` is the answered intent (slots with the assumptions filled in, and the operation) a
    follow-up may inherit, null when the turn cannot be continued (a refusal by the gate, an
    ask-first question, a degraded answer). `result` is the `/v1/ask` answer and `sections` its
    parts, as the UI shows them. `asker_cleared`: answered with RESTRICTED clearance, so shown
    only while the user still has it.
    """

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveIntegerField(verbose_name=pgettext_lazy("field", "position"))
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "created at"), auto_now_add=True)
    question = models.TextField()
    intent = models.JSONField(verbose_name=pgettext_lazy("field", "intent"), null=True, blank=True)
    result = models.JSONField(default=dict)
    sections = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    request_id = models.CharField(verbose_name=pgettext_lazy("field", "request ID"), max_length=64)
    asker_cleared = models.BooleanField(default=False)
    feedback = models.SmallIntegerField(
        verbose_name=pgettext_lazy("field", "feedback"), null=True, blank=True, choices=[(1, "👍"), (-1, "👎")]
    )

    class Meta:
        verbose_name = gettext_lazy("turn")
        verbose_name_plural = gettext_lazy("turns")
        constraints = [models.UniqueConstraint(fields=["conversation", "position"], name="turn_position_unique")]
        ordering = ["conversation", "position"]

    def __str__(self) -> str:
        return f"{self.conversation.external_id} #{self.position}"


class GlossaryGapDismissal(models.Model):
    """A term a curator dismissed from the glossary-gap report (a name nobody will ask for again,
    a typo): it is no longer listed, whoever asks it."""

    term = models.CharField(max_length=64, unique=True)
    dismissed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = gettext_lazy("dismissed glossary gap")
        verbose_name_plural = gettext_lazy("dismissed glossary gaps")

    def __str__(self) -> str:
        return self.term
