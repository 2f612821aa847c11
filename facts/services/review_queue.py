"""Writes of the review queue's group actions (issue R): approve one candidate of a key and reject
the other candidates of that key (`fact_choose`), correct the metric, company or period of
candidates (`facts_key_set`), and add a row label as a metric alias, which re-reads the candidates
waiting with that label (`label_alias_add`).

Each takes `candidates`, the pending rows its caller may see, and writes all or nothing.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.glossary import alias_key
from core.types import Period

from ..models import Alias, Entity, FactMetric, Metric
from .glossary import alias_create

_KEY_FIELDS = ("entity_id", "metric_id", "period_type", "period", "channel_id")
_LABEL_REASON = re.compile(r"^(unknown row label '.*'|empty row label|the row label names no metric)$")


@transaction.atomic
def fact_choose(*, candidates: Any, fact_id: int) -> tuple[FactMetric, list[FactMetric]]:
    """Approve candidate `fact_id` and reject the other candidates of its key; the approved fact
    and the rejected ones. Refused (`ValidationError`, nothing written) while the candidate lacks
    its metric, entity or unit, or while an approved fact already holds its key: a curator rejects
    an approved fact on purpose, never as a side effect."""
    fact = (
        candidates.select_for_update(of=("self",)).filter(pk=fact_id, review_status=FactMetric.Review.PENDING).first()
    )
    if fact is None:
        raise ValidationError("该候选已不在待审核队列中 · The candidate no longer waits for review.")
    others = list(
        candidates.filter(review_status=FactMetric.Review.PENDING, **{f: getattr(fact, f) for f in _KEY_FIELDS})
        .exclude(pk=fact.pk)
        .order_by("pk")
    )
    fact.review_status, fact.reviewed = FactMetric.Review.APPROVED, True
    fact.full_clean(validate_constraints=False)  # `clean` says what is missing or which fact holds the key
    FactMetric.objects.filter(pk__in=[o.pk for o in others]).update(
        review_status=FactMetric.Review.REJECTED, reviewed=True
    )
    fact.save(update_fields=["review_status", "reviewed"])
    for other in others:
        other.review_status, other.reviewed = FactMetric.Review.REJECTED, True
    return fact, others


@transaction.atomic
def facts_key_set(
    *, candidates: Any, fact_ids: list[int], metric: Metric | None, entity: Entity | None, period: Period | None
) -> list[FactMetric]:
    """Set the metric, the entity and/or the period of candidates (a whole group or some of it);
    they stay pending, for a curator to approve. A metric set by hand answers a label problem,
    which leaves the note."""
    facts = list(
        candidates.select_for_update(of=("self",)).filter(pk__in=fact_ids, review_status=FactMetric.Review.PENDING)
    )
    if len(facts) != len(set(fact_ids)) or not facts:
        raise ValidationError("所选候选已不全在待审核队列中 · Some selected candidates no longer wait for review.")
    if metric is None and entity is None and period is None:
        raise ValidationError("请填写指标、公司或期间 · Give a metric, a company or a period.")
    for fact in facts:
        if metric is not None:
            fact.metric = metric
            fact.review_note = _label_reasons_dropped(fact.review_note)
        if entity is not None:
            fact.entity = entity
        if period is not None:
            fact.period_type, fact.period = period.period_type, period.period
        fact.full_clean(validate_constraints=False)
    FactMetric.objects.bulk_update(facts, ["metric", "entity", "period_type", "period", "review_note"])
    return facts


@transaction.atomic
def label_alias_add(*, candidates: Any, text: str, metric_code: str) -> tuple[Alias, list[FactMetric]]:
    """Add `text` (a row label the glossary did not know) as an alias of metric `metric_code`, and
    give that metric to every waiting candidate whose suggested alias is that label (as the
    glossary compares aliases: `营业收入：` is `营业收入:`). They stay pending, their label reason
    dropped, for a curator to approve in one click: their value and unit were read without the
    metric, so a person looks once before they answer questions."""
    alias = alias_create(kind="metric", text=text, code=metric_code)
    key = alias_key(text)
    waiting = (
        candidates.select_for_update(of=("self",))
        .filter(review_status=FactMetric.Review.PENDING)
        .exclude(suggested_alias="")
    )
    facts = [fact for fact in waiting if alias_key(fact.suggested_alias) == key]
    for fact in facts:
        fact.metric_id = metric_code
        fact.review_note = _label_reasons_dropped(fact.review_note)
    FactMetric.objects.bulk_update(facts, ["metric", "review_note"])
    return alias, facts


def _label_reasons_dropped(note: str) -> str:
    return "; ".join(part for part in note.split("; ") if part and not _LABEL_REASON.match(part))
