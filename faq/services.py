"""Writes of FAQ items: one at a time (`faq_item_create`, `faq_item_update`, `faq_item_delete`,
from `/v1/faq`), a served answer counted (`faq_hit_count`), and imports from CSV or JSON as in
demo/faq.csv (`faq_import`), all or nothing."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.model.facts import SENSITIVITIES
from facts.services import ImportAborted

from .models import FAQItem

# What a curator writes: everything but the id and what hits and saves stamp.
EDITABLE = frozenset(f.name for f in FAQItem._meta.concrete_fields if f.editable and not f.primary_key)


def _fields_checked(fields: dict[str, Any]) -> None:
    unknown = set(fields) - EDITABLE
    if unknown:
        raise TypeError(f"not a field a curator writes: {', '.join(sorted(unknown))}")


@transaction.atomic
def faq_item_create(*, question: str, answer: str, source: str, **fields: Any) -> FAQItem:
    """A new item; the other `EDITABLE` fields default as the model says. `ValidationError` says
    what is wrong, and nothing is written."""
    _fields_checked(fields)
    item = FAQItem(question=question, answer=answer, source=source, **fields)
    item.full_clean()
    item.save()
    return item


@transaction.atomic
def faq_item_update(*, item: FAQItem, **fields: Any) -> FAQItem:
    """The item with `fields` (any of `EDITABLE`) changed, the rest as stored."""
    _fields_checked(fields)
    for name, value in fields.items():
        setattr(item, name, value)
    item.full_clean()
    item.save()
    return item


@transaction.atomic
def faq_item_delete(*, item: FAQItem) -> None:
    item.delete()


def faq_hit_count(item_id: int) -> None:
    """One more answer served from the item, now (the FAQ page's hit count and last hit)."""
    FAQItem.objects.filter(pk=item_id).update(hit_count=F("hit_count") + 1, last_hit_at=timezone.now())


# -- imports ----------------------------------------------------------------------------------
def faq_rows_read(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ImportAborted([f"file: not valid JSON ({type(error).__name__})"]) from None
        if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
            raise ImportAborted(["file: expected a JSON list of objects"])
        return list(enumerate(data, start=1))
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"question", "answer", "source"} - set(reader.fieldnames or [])
        if missing:
            raise ImportAborted([f"header: missing column(s) {', '.join(sorted(missing))}"])
        return list(enumerate(reader, start=2))


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value or "true").strip().lower()
    if text in ("true", "1", "yes", "y", "是"):
        return True
    if text in ("false", "0", "no", "n", "否"):
        return False
    raise ValueError(f"enabled must be true or false, not '{value}'")


def _date(value: Any) -> date | None:
    if value in (None, ""):
        return None
    return date.fromisoformat(str(value).strip())


def _aliases(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(a).strip() for a in value if str(a).strip()]
    return [a.strip() for a in str(value or "").split("|") if a.strip()]


@transaction.atomic
def faq_import(*, rows: list[tuple[int, dict[str, Any]]]) -> dict[str, int]:
    """Upsert items by question; a bad row aborts the import with row-numbered errors."""
    errors: list[str] = []
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    for number, row in rows:
        try:
            fields = {
                "aliases": _aliases(row.get("aliases")),
                "answer": str(row.get("answer") or "").strip(),
                "source": str(row.get("source") or "").strip(),
                "version": int(row.get("version") or 1),
                "enabled": _boolean(row.get("enabled")),
                "valid_from": _date(row.get("valid_from")),
                "valid_until": _date(row.get("valid_until")),
                "sensitivity": str(row.get("sensitivity") or "INTERNAL").strip().upper(),
                "owner": str(row.get("owner") or "").strip(),
            }
            question = str(row.get("question") or "").strip()
            if not question or not fields["answer"] or not fields["source"]:
                raise ValueError("question, answer and source are required")
            if fields["sensitivity"] not in SENSITIVITIES:
                raise ValueError(f"sensitivity must be one of {', '.join(SENSITIVITIES)}")
            item = FAQItem.objects.filter(question=question).first()
            if item is None:
                item = FAQItem(question=question, **fields)
                counts["created"] += 1
            elif all(getattr(item, k) == v for k, v in fields.items()):
                counts["unchanged"] += 1
                continue
            else:
                for key, value in fields.items():
                    setattr(item, key, value)
                counts["updated"] += 1
            item.full_clean()
            item.save()
        except (ValueError, TypeError, ValidationError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            errors.append(f"row {number}: {message}")
    if errors:
        raise ImportAborted(errors[:100], len(errors))
    return counts
