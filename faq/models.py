"""Vetted answers to recurring non-numeric questions, served before any store, retriever or LLM."""

from __future__ import annotations

from typing import Any

from django.db import models

from core.model.types import SENSITIVITIES


class FAQItem(models.Model):
    question = models.CharField(max_length=500, unique=True)
    aliases = models.JSONField(default=list, blank=True, help_text="Other wordings of the question.")
    answer = models.TextField()
    source = models.CharField(max_length=255, help_text="Where the answer comes from (document, policy, owner).")
    version = models.PositiveIntegerField(default=1)
    enabled = models.BooleanField(default=True)
    valid_from = models.DateField(null=True, blank=True)
    valid_until = models.DateField(null=True, blank=True)
    sensitivity = models.CharField(max_length=12, choices=[(s, s) for s in SENSITIVITIES], default="INTERNAL")
    owner = models.CharField(max_length=100, blank=True)
    hit_count = models.PositiveIntegerField(default=0, editable=False)
    last_hit_at = models.DateTimeField(null=True, blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question"]
        verbose_name = "FAQ item"

    def __str__(self) -> str:
        return self.question

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if not isinstance(self.aliases, list) or not all(isinstance(a, str) for a in self.aliases):
            raise ValidationError({"aliases": "A list of strings."})
        if self.valid_from and self.valid_until and self.valid_from > self.valid_until:
            raise ValidationError({"valid_until": "The validity window ends before it starts."})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.aliases = [a.strip() for a in self.aliases if isinstance(a, str) and a.strip()]
        super().save(*args, **kwargs)
