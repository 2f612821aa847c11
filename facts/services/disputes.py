"""Disputes: an analyst says a figure is wrong (`dispute_file`); it waits in the curators' review
queue beside the fact until a curator settles it (`disputes_settle`): corrects the figure, confirms
it or rejects the fact, and every open dispute on that fact records the outcome, who settled it,
when, the curator's note and the figure before and after, for the analyst to read."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from core.model.sign import sign_apply

from ..models import FactDispute, FactMetric
from ..selectors import fact_list
from .fact_rows import facts_review
from .fact_signs import metric_sign

NOTE_LIMIT = 2000
RESOLUTION_LIMIT = FactDispute._meta.get_field("resolution").max_length or 255
# What a curator may do with a disputed figure; each is the status its disputes take.
OUTCOMES = (FactDispute.Status.CORRECTED, FactDispute.Status.CONFIRMED, FactDispute.Status.REJECTED)


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
    """Mark the open ones among `disputes` resolved by `user`, saying no outcome (the dispute
    list's bulk action); how many were."""
    return disputes.filter(status=FactDispute.Status.OPEN).update(
        status=FactDispute.Status.RESOLVED, resolved_by=user, resolved_at=timezone.now(), resolution=resolution[:255]
    )


@transaction.atomic
def disputes_settle(
    *,
    disputes: QuerySet[FactDispute],
    fact_id: int,
    outcome: str,
    user: Any,
    resolution: str = "",
    value: Decimal | None = None,
) -> tuple[FactMetric, list[FactDispute]]:
    """Settle every open dispute among `disputes` (those the caller may see) on fact `fact_id`
    with one `outcome` (`OUTCOMES`), all or nothing; the fact and the disputes settled.

    `corrected`: the fact takes `value`, the figure as its source prints it, stored under its
    metric's sign convention as a document's cell would be. `confirmed`: the fact stays as it is.
    `rejected`: the fact is rejected and answers no more questions. Refused (`ValidationError`,
    nothing written) for an unknown outcome, a correction without a new figure, or a fact with no
    open dispute the caller may see (another curator settled it, or it is hidden from them)."""
    if outcome not in OUTCOMES:
        raise ValidationError(gettext("Choose what to do with the figure: correct it, confirm it or reject it."))
    settled = list(
        disputes.select_for_update(of=("self",)).filter(fact_id=fact_id, status=FactDispute.Status.OPEN).order_by("pk")
    )
    if not settled:
        raise ValidationError(gettext("No open dispute on this figure: another curator may have settled it."))
    fact = FactMetric.objects.select_for_update().get(pk=fact_id)
    before, corrected = fact.value, None
    if outcome == FactDispute.Status.CORRECTED:
        if value is None:
            raise ValidationError(gettext("Give the right figure to correct it."))
        fact.value, fact.printed_value = sign_apply(value, metric_sign(fact.metric_id))
        if fact.value == before:
            raise ValidationError(gettext("That is the figure already; confirm it instead."))
        fact.full_clean(validate_constraints=False)
        fact.save(update_fields=["value", "printed_value"])
        corrected = fact.value
    elif outcome == FactDispute.Status.REJECTED:
        facts_review(facts=FactMetric.objects.filter(pk=fact.pk), status=FactMetric.Review.REJECTED)
        fact.review_status, fact.reviewed = FactMetric.Review.REJECTED, True
    now, resolution = timezone.now(), resolution.strip()[:RESOLUTION_LIMIT]
    for dispute in settled:
        dispute.status, dispute.resolved_by, dispute.resolved_at = outcome, user, now
        dispute.resolution, dispute.value_disputed, dispute.value_corrected = resolution, before, corrected
        dispute.full_clean()
    FactDispute.objects.bulk_update(
        settled, ["status", "resolved_by", "resolved_at", "resolution", "value_disputed", "value_corrected"]
    )
    return fact, settled
