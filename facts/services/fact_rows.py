"""Writes to the fact table: the review queue, and the facts an ingested document produced.

One approved fact per natural key (metric, entity, period, channel) answers questions. Any
number of pending or rejected rows may share that key: a value that disagrees with the approved
one is kept in the review queue with the disagreement as its note, never dropped, and approving
it is refused while the approved fact holds the key.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef

from core.model.sign import SIGN_AS_PRINTED, sign_apply
from ingestion.tables import FactCandidate

from ..models import FactDispute, FactMetric
from .fact_signs import metric_signs
from .glossary import unit_ensure

_KEY_FIELDS = ("metric_id", "entity_id", "period_type", "period", "channel_id")
_NOTE_LENGTH = FactMetric._meta.get_field("review_note").max_length or 255
_PK_BATCH = 500


@dataclass(frozen=True)
class ReviewOutcome:
    """What `facts_review` did: `changed` rows took the status; the others were left as they were.

    `held`: not approved because an approved fact already holds their key, or because another
    selected row has the same key (reject one first). `incomplete`: not approved because the
    metric, the entity or the unit is still missing.
    """

    changed: int
    held: int = 0
    incomplete: int = 0


@transaction.atomic
def facts_review(*, facts: Any, status: str) -> ReviewOutcome:
    """Approve or reject facts (the review queue); only approved facts answer questions.

    A row still missing its metric or entity cannot be approved: add the alias it suggests
    (glossary-gap report) and re-ingest the document, or reject it. Nor can a row whose key an
    approved fact holds, or two selected rows of one key: that would put a second figure for
    one key in front of an analyst. Reject the one that is wrong, then approve the other.
    """
    facts = facts.exclude(review_status=status)
    if status != FactMetric.Review.APPROVED:
        return ReviewOutcome(changed=int(facts.update(review_status=status, reviewed=True)))
    complete = facts.filter(metric__isnull=False, entity__isnull=False, unit__isnull=False)
    incomplete = facts.count() - complete.count()
    approved_holder = FactMetric.objects.filter(
        review_status=FactMetric.Review.APPROVED, **{field: OuterRef(field) for field in _KEY_FIELDS}
    )
    rows = list(complete.annotate(held=Exists(approved_holder)).values_list("pk", "held", *_KEY_FIELDS))
    selected_per_key = Counter(tuple(row[2:]) for row in rows)
    free = [row[0] for row in rows if not row[1] and selected_per_key[tuple(row[2:])] == 1]
    changed = 0
    for start in range(0, len(free), _PK_BATCH):
        batch = free[start : start + _PK_BATCH]
        changed += FactMetric.objects.filter(pk__in=batch).update(review_status=status, reviewed=True)
    return ReviewOutcome(changed=changed, held=len(rows) - len(free), incomplete=incomplete)


@transaction.atomic
def facts_replace(*, document_id: int, source_doc: str, candidates: Sequence[FactCandidate]) -> dict[str, int]:
    """Replace the facts a document produced; every candidate is kept.

    An approved cell whose key is free becomes the approved fact; one whose key an approved
    fact already holds with the same value and unit takes it over (with its lineage). A cell
    whose value differs from the approved one waits in the review queue with the conflict as
    its note, and so does every pending cell, whatever other rows share its key. A cell a curator
    approved or rejected (`reviewed`) keeps that decision when it gives the same value at the
    same locator again; everything else is read afresh. A cell of a metric whose sign convention
    is `positive` stores the amount and keeps the figure as printed (`printed_value`); its value
    is compared with an approved fact's and a curator's decision as stored. Counts:
    `approved`, `pending`, and `conflicts` (pending rows that disagree with an approved fact).
    """
    # A curator's decision on a cell stays with the cell while it gives the same value.
    decided = FactMetric.objects.filter(
        document_id=document_id,
        reviewed=True,
        review_status__in=[FactMetric.Review.APPROVED, FactMetric.Review.REJECTED],
    )
    decisions = {
        (locator, value): status for locator, value, status in decided.values_list("locator", "value", "review_status")
    }
    # Disputed facts are kept aside, out of their key's way, until the new rows are written.
    disputed = list(FactMetric.objects.filter(document_id=document_id, disputes__isnull=False).distinct())
    FactMetric.objects.filter(document_id=document_id).exclude(pk__in=[f.pk for f in disputed]).delete()
    FactMetric.objects.filter(pk__in=[f.pk for f in disputed]).update(review_status=FactMetric.Review.REJECTED)
    signs = metric_signs({candidate.metric for candidate in candidates if candidate.metric})
    counts = {"approved": 0, "pending": 0, "conflicts": 0}
    for candidate in candidates:
        if candidate.unit:
            unit_ensure(candidate.unit)
        value, printed = sign_apply(candidate.value, signs.get(candidate.metric, SIGN_AS_PRINTED))
        key = {
            "metric_id": candidate.metric or None,
            "entity_id": candidate.entity or None,
            "period_type": candidate.period_type,
            "period": candidate.period,
            "channel_id": candidate.channel or "TOTAL",
        }
        values = {
            "value": value,
            "printed_value": printed,
            "unit_id": candidate.unit or None,
            "source_doc": source_doc,
            "locator": candidate.locator[:255],
            "document_id": document_id,
            "sensitivity": candidate.sensitivity,
            "suggested_alias": candidate.suggested_alias[:255],
        }
        decision = decisions.get((values["locator"], value))
        if decision == FactMetric.Review.REJECTED:
            FactMetric.objects.create(**key, **values, review_status=decision, reviewed=True)
            continue
        complete = bool(key["metric_id"] and key["entity_id"])
        holder = (
            FactMetric.objects.filter(**key, review_status=FactMetric.Review.APPROVED).first() if complete else None
        )
        agrees = holder is not None and (holder.value, holder.unit_id) == (value, values["unit_id"])
        approved = candidate.status == "approved" or decision == FactMetric.Review.APPROVED
        if approved and complete and values["unit_id"] and (holder is None or agrees):
            reviewed = decision == FactMetric.Review.APPROVED
            if holder is None:
                FactMetric.objects.create(**key, **values, review_status="approved", reviewed=reviewed)
            else:
                for attribute, value in values.items():
                    setattr(holder, attribute, value)
                holder.review_note, holder.reviewed = "", holder.reviewed or reviewed
                holder.save()
            counts["approved"] += 1
            continue
        note = candidate.reason
        # A cell that claims no key (a guessed metric, a parent company's figure) is no conflict.
        if holder is not None and not agrees and candidate.claims_key:
            note = conflict_note(holder, candidate.reason)
            counts["conflicts"] += 1
        FactMetric.objects.create(**key, **values, review_note=note[:_NOTE_LENGTH], review_status="pending")
        counts["pending"] += 1
    if disputed:
        _disputes_carry(document_id, disputed)
    return counts


def _disputes_carry(document_id: int, disputed: Sequence[FactMetric]) -> None:
    """Analysts' disputes follow their cell to its new row (the same locator, metric, period and
    channel), and a curator's correction stays while the cell still prints the figure it
    corrected; the old rows go, with the disputes of a cell the document no longer has."""
    fresh: dict[tuple[object, ...], FactMetric] = {}
    for fact in FactMetric.objects.filter(document_id=document_id).exclude(pk__in=[f.pk for f in disputed]):
        cell = (fact.locator, fact.metric_id, fact.period_type, fact.period, fact.channel_id)
        if cell not in fresh or fact.review_status == FactMetric.Review.APPROVED:
            fresh[cell] = fact
    for old in disputed:
        new = fresh.get((old.locator, old.metric_id, old.period_type, old.period, old.channel_id))
        if new is None:
            continue
        correction = (
            old.disputes.filter(status=FactDispute.Status.CORRECTED, value_corrected=old.value)
            .order_by("-resolved_at")
            .first()
        )
        if correction is not None and correction.value_disputed == new.value:
            new.value, new.printed_value = old.value, old.printed_value
            new.save(update_fields=["value", "printed_value"])
        old.disputes.update(fact=new)
    FactMetric.objects.filter(pk__in=[f.pk for f in disputed]).delete()


def conflict_note(holder: FactMetric, reason: str = "") -> str:
    """`conflicts with the approved value V UNIT from DOC LOCATOR`, then `reason`, within the note's
    length. V is the stored value, whole: when it cannot fit, the note names no value at all;
    the source is shortened first, then the other reason."""
    source = f" from {holder.source_doc} {holder.locator}".rstrip()
    shown = f"conflicts with the approved value {format(holder.value, 'f')} {holder.unit_id or ''}".rstrip()
    if len(shown) > _NOTE_LENGTH // 2:
        shown = "conflicts with an approved value"
    note = _clipped(shown + source, _NOTE_LENGTH)
    if reason and len(note) + 3 < _NOTE_LENGTH:
        note = _clipped(f"{note}; {reason}", _NOTE_LENGTH)
    return note


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@transaction.atomic
def facts_delete(*, document_id: int) -> int:
    """Delete the facts a document produced, with the document (whose deletion alone would keep them)."""
    deleted, _ = FactMetric.objects.filter(document_id=document_id).delete()
    return deleted
