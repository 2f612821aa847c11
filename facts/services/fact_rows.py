"""Writes to the fact table: the review queue, and the facts an ingested document produced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from ingestion.tables import FactCandidate

from ..models import FactMetric
from .glossary import unit_ensure


@transaction.atomic
def facts_review(*, facts: Any, status: str) -> int:
    """Approve or reject facts (the review queue); only approved facts answer questions.

    A row still missing its metric or entity cannot be approved: add the alias it suggests
    (glossary-gap report) and re-ingest the document, or reject it.
    """
    facts = facts.exclude(review_status=status)
    if status == "approved":
        facts = facts.filter(metric__isnull=False, entity__isnull=False, unit__isnull=False)
    return int(facts.update(review_status=status))


@transaction.atomic
def facts_replace(*, document_id: int, source_doc: str, candidates: Sequence[FactCandidate]) -> dict[str, int]:
    """Replace the facts a document produced. Approved cells upsert on the natural key (and
    take over the lineage); pending cells wait in the review queue unless a row already holds
    their key."""
    FactMetric.objects.filter(document_id=document_id).delete()
    counts = {"approved": 0, "pending": 0, "conflicts": 0}
    for candidate in candidates:
        if candidate.unit:
            unit_ensure(candidate.unit)
        key = {
            "metric_id": candidate.metric or None,
            "entity_id": candidate.entity or None,
            "period_type": candidate.period_type,
            "period": candidate.period,
            "channel_id": candidate.channel or "TOTAL",
        }
        values = {
            "value": candidate.value,
            "unit_id": candidate.unit or None,
            "source_doc": source_doc,
            "locator": candidate.locator[:255],
            "document_id": document_id,
            "sensitivity": candidate.sensitivity,
            "suggested_alias": candidate.suggested_alias[:255],
            "review_note": candidate.reason[:255],
        }
        approved = candidate.status == "approved" and key["metric_id"] and key["entity_id"]
        holder = FactMetric.objects.filter(**key).first() if key["metric_id"] and key["entity_id"] else None
        if approved:
            if holder is None:
                FactMetric.objects.create(**key, **values, review_status="approved")
            else:
                for attribute, value in {**values, "review_status": "approved"}.items():
                    setattr(holder, attribute, value)
                holder.save()
            counts["approved"] += 1
        elif holder is not None:
            counts["conflicts"] += 1
        else:
            FactMetric.objects.create(**key, **values, review_status="pending")
            counts["pending"] += 1
    return counts


@transaction.atomic
def facts_delete(*, document_id: int) -> int:
    """Delete the facts a document produced, with the document (whose deletion alone would keep them)."""
    deleted, _ = FactMetric.objects.filter(document_id=document_id).delete()
    return deleted
