"""Every glossary write bumps the version stamp, so the next question sees it (no restart)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save

from .models import Alias, Channel, CompanyProfile, Entity, Metric, Unit
from .services import glossary_changed

GLOSSARY_MODELS = (Alias, Channel, CompanyProfile, Entity, Metric, Unit)


def _bump(sender: Any, **kwargs: Any) -> None:
    glossary_changed()


for model in GLOSSARY_MODELS:
    post_save.connect(_bump, sender=model, dispatch_uid=f"glossary-save-{model.__name__}")
    post_delete.connect(_bump, sender=model, dispatch_uid=f"glossary-delete-{model.__name__}")
