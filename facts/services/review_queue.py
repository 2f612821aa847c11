"""Writes of the review queue's group actions: approve one candidate of a key and reject
the other candidates of that key (`fact_choose`), reject candidates (`facts_reject`), correct the
metric, company or period of candidates (`facts_key_set`), and add a row label as an alias of a
metric (`label_alias_add`) or make a new metric of it (`label_metric_create`), both of which
re-read the candidates waiting with that label.

Each takes `candidates`, the pending rows its caller may see, and writes all or nothing.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.glossary import alias_key
from core.model.period import Period

from ..models import Alias, Entity, FactMetric, Metric
from .fact_signs import fact_sign_apply, metric_sign
from .glossary import AliasExists, alias_create, metric_create

_KEY_FIELDS = ("entity_id", "metric_id", "period_type", "period", "channel_id")
# The reasons a metric given by a curator answers: the label named none, or not for sure.
_LABEL_REASON = re.compile(
    r"^(unknown row label '.*'|empty row label|the row label names no metric"
    r"|under the heading '.*', which the glossary does not name with '.*'"
    r"|'.*' heads \d+ rows of this table: name each under its heading"
    r"|a total row: the glossary does not say which metric '.*' totals)$"
)


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
def facts_reject(*, candidates: Any, fact_ids: list[int]) -> list[FactMetric]:
    """Reject the selected candidates (a group's, or every one a page shows), all or none: refused
    when one of them no longer waits, so a page read before another curator's change rejects
    nothing it did not show."""
    facts = list(
        candidates.select_for_update(of=("self",)).filter(pk__in=fact_ids, review_status=FactMetric.Review.PENDING)
    )
    if len(facts) != len(set(fact_ids)) or not facts:
        raise ValidationError("所选候选已不全在待审核队列中 · Some selected candidates no longer wait for review.")
    FactMetric.objects.filter(pk__in=[f.pk for f in facts]).update(
        review_status=FactMetric.Review.REJECTED, reviewed=True
    )
    for fact in facts:
        fact.review_status, fact.reviewed = FactMetric.Review.REJECTED, True
    return facts


@transaction.atomic
def facts_key_set(
    *, candidates: Any, fact_ids: list[int], metric: Metric | None, entity: Entity | None, period: Period | None
) -> list[FactMetric]:
    """Set the metric, the entity and/or the period of candidates (a whole group or some of it);
    they stay pending, for a curator to approve. A metric set by hand answers a label problem,
    which leaves the note, and puts the candidates under its sign convention."""
    facts = list(
        candidates.select_for_update(of=("self",)).filter(pk__in=fact_ids, review_status=FactMetric.Review.PENDING)
    )
    if len(facts) != len(set(fact_ids)) or not facts:
        raise ValidationError("所选候选已不全在待审核队列中 · Some selected candidates no longer wait for review.")
    if metric is None and entity is None and period is None:
        raise ValidationError("请填写指标、公司或期间 · Give a metric, a company or a period.")
    sign = metric_sign(metric.code) if metric is not None else ""
    for fact in facts:
        if metric is not None:
            fact.metric = metric
            fact.review_note = _label_reasons_dropped(fact.review_note)
            fact_sign_apply(fact, sign)
        if entity is not None:
            fact.entity = entity
        if period is not None:
            fact.period_type, fact.period = period.period_type, period.period
        fact.full_clean(validate_constraints=False)
    FactMetric.objects.bulk_update(
        facts, ["metric", "entity", "period_type", "period", "review_note", "value", "printed_value"]
    )
    return facts


@transaction.atomic
def label_alias_add(*, candidates: Any, text: str, metric_code: str) -> tuple[Alias, list[FactMetric]]:
    """Add `text` (a row label the glossary did not know) as an alias of metric `metric_code`, and
    give that metric to every waiting candidate whose suggested alias is that label (as the
    glossary compares aliases: `营业收入：` is `营业收入:`). They stay pending, their label reason
    dropped, for a curator to approve in one click: their value and unit were read without the
    metric, so a person looks once before they answer questions.

    An alias already there for that metric (added since the document was read, on the metric's
    page or by an import) is no error: its waiting candidates are given the metric all the same.
    An alias naming another metric is refused (`ValidationError`)."""
    try:
        alias = alias_create(kind="metric", text=text, code=metric_code)
    except AliasExists:
        alias = Alias.objects.get(key=alias_key(text))
    return alias, _label_candidates_reread(candidates, text, metric_code)


@transaction.atomic
def label_metric_create(
    *, candidates: Any, text: str, code: str, name: str, unit: str, aggregation: str = ""
) -> tuple[Metric, list[FactMetric]]:
    """Make a new metric of a row label the glossary did not know (named `name`, the label as
    its first alias) and give it to the candidates waiting with that label, as `label_alias_add`
    does. A code, name or alias that clashes is a `ValidationError`, and nothing is written."""
    metric = metric_create(code=code, name=name, unit=unit, alias=text, aggregation=aggregation)
    return metric, _label_candidates_reread(candidates, text, metric.code)


def _label_candidates_reread(candidates: Any, text: str, metric_code: str) -> list[FactMetric]:
    key = alias_key(text)
    waiting = (
        candidates.select_for_update(of=("self",))
        .filter(review_status=FactMetric.Review.PENDING)
        .exclude(suggested_alias="")
    )
    facts = [fact for fact in waiting if alias_key(fact.suggested_alias) == key]
    sign = metric_sign(metric_code)
    for fact in facts:
        fact.metric_id = metric_code
        fact.review_note = _label_reasons_dropped(fact.review_note)
        fact_sign_apply(fact, sign)  # the value was read without the metric: as printed
    FactMetric.objects.bulk_update(facts, ["metric", "review_note", "value", "printed_value"])
    return facts


def _label_reasons_dropped(note: str) -> str:
    return "; ".join(part for part in note.split("; ") if part and not _LABEL_REASON.match(part))
