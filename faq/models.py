"""Vetted answers to recurring non-numeric questions, served before any store, retriever or LLM."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

from core.model.facts import SENSITIVITIES


class FAQItem(models.Model):
    question = models.CharField(verbose_name=pgettext_lazy("field", "question"), max_length=500, unique=True)
    aliases = models.JSONField(
        verbose_name=pgettext_lazy("field", "other wordings"),
        default=list,
        blank=True,
        help_text=gettext_lazy("Other wordings of the question."),
    )
    answer = models.TextField(verbose_name=pgettext_lazy("field", "answer"))
    source = models.CharField(
        verbose_name=pgettext_lazy("field", "source"),
        max_length=255,
        help_text=gettext_lazy("Where the answer comes from (document, policy, owner)."),
    )
    version = models.PositiveIntegerField(verbose_name=pgettext_lazy("field", "version"), default=1)
    enabled = models.BooleanField(verbose_name=pgettext_lazy("field", "enabled"), default=True)
    valid_from = models.DateField(verbose_name=pgettext_lazy("field", "valid from"), null=True, blank=True)
    valid_until = models.DateField(verbose_name=pgettext_lazy("field", "valid until"), null=True, blank=True)
    sensitivity = models.CharField(
        verbose_name=pgettext_lazy("field", "sensitivity"),
        max_length=12,
        choices=[(s, s) for s in SENSITIVITIES],
        default="INTERNAL",
    )
    owner = models.CharField(verbose_name=pgettext_lazy("field", "owner"), max_length=100, blank=True)
    hit_count = models.PositiveIntegerField(verbose_name=pgettext_lazy("field", "hits"), default=0, editable=False)
    last_hit_at = models.DateTimeField(
        verbose_name=pgettext_lazy("field", "last hit at"), null=True, blank=True, editable=False
    )
    updated_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "updated at"), auto_now=True)

    class Meta:
        verbose_name = gettext_lazy("FAQ item")
        verbose_name_plural = gettext_lazy("FAQ items")
        ordering = ["question"]

    def __str__(self) -> str:
        return self.question

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if not isinstance(self.aliases, list) or not all(isinstance(a, str) for a in self.aliases):
            raise ValidationError({"aliases": gettext_lazy("A list of strings.")})
        if self.valid_from and self.valid_until and self.valid_from > self.valid_until:
            raise ValidationError({"valid_until": gettext_lazy("The validity window ends before it starts.")})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.aliases = [a.strip() for a in self.aliases if isinstance(a, str) and a.strip()]
        super().save(*args, **kwargs)
