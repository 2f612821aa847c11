"""Disputes: an analyst says a figure is wrong; a curator resolves it beside the fact."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from ..models import FactDispute
from ..selectors import fact_list

NOTE_LIMIT = 2000


class DisputeError(ValueError):
    """A dispute that cannot be filed; the message is safe to show."""


def dispute_file(*, fact_id: int, note: str, user: Any, cleared: bool) -> FactDispute | None:
    """File `user`'s note against the approved fact `fact_id`; None when the caller may not see
    that fact (or it does not exist: the two are one answer). Raises `DisputeError` for a note
    that is empty or too long."""
    note = (note or "").strip()
    if not note:
        raise DisputeError("Say what is wrong with the figure (the note is empty).")
    if len(note) > NOTE_LIMIT:
        raise DisputeError(f"The note is longer than {NOTE_LIMIT} characters.")
    fact = fact_list(cleared=cleared).filter(pk=fact_id).first()
    if fact is None:
        return None
    return FactDispute.objects.create(fact=fact, note=note, created_by=user if user.is_authenticated else None)


def disputes_resolve(*, disputes: QuerySet[FactDispute], user: Any, resolution: str = "") -> int:
    """Mark the open ones among `disputes` resolved by `user`; how many were."""
    return disputes.filter(status=FactDispute.Status.OPEN).update(
        status=FactDispute.Status.RESOLVED, resolved_by=user, resolved_at=timezone.now(), resolution=resolution[:255]
    )
