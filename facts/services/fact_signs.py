"""Writes of a metric's sign convention (`core.model.sign`) to its facts.

A fact of a `positive` metric stores the amount and keeps the figure as printed
(`printed_value`); a fact of an `as_printed` metric stores the printed figure and keeps nothing
beside it. When a curator changes a metric's convention (admin, or the glossary CSV), its facts
are converted at once from the figures they were printed with, so the next question reads them
under the new convention and a second change undoes the first.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from core.model.sign import SIGN_AS_PRINTED, sign_reapply

from ..models import FactMetric, Metric

_BATCH = 2000


def metric_sign(code: str | None) -> str:
    """Metric `code`'s sign convention; `as_printed` for no metric (a row label not read yet)."""
    if not code:
        return SIGN_AS_PRINTED
    return Metric.objects.filter(code=code).values_list("sign", flat=True).first() or SIGN_AS_PRINTED


def metric_signs(codes: set[str]) -> dict[str, str]:
    """The sign convention of each of `codes` the glossary holds, in one query."""
    return dict(Metric.objects.filter(code__in=codes).values_list("code", "sign"))


def fact_sign_apply(fact: FactMetric, sign: str) -> bool:
    """Put `fact` (unsaved) under convention `sign`, from the figure it was printed with; whether
    its value or its printed value changed."""
    value, printed = sign_reapply(fact.value, fact.printed_value, sign)
    if _same(value, fact.value) and _same(printed, fact.printed_value):
        return False
    fact.value, fact.printed_value = value, printed
    return True


@transaction.atomic
def facts_sign_apply(*, metric_code: str, sign: str) -> int:
    """Every fact of metric `metric_code` (approved, pending and rejected alike) stored under
    convention `sign`, from the figure it was printed with; how many rows changed. Read and
    written in batches along the primary key, so memory stays bounded by the batch."""
    changed, after = 0, 0
    while True:
        batch = list(
            FactMetric.objects.filter(metric_id=metric_code, pk__gt=after)
            .order_by("pk")
            .only("pk", "value", "printed_value")[:_BATCH]
        )
        if not batch:
            return changed
        after = batch[-1].pk
        converted = [fact for fact in batch if fact_sign_apply(fact, sign)]
        FactMetric.objects.bulk_update(converted, ["value", "printed_value"], batch_size=500)
        changed += len(converted)


def _same(a: Decimal | None, b: Decimal | None) -> bool:
    """Equal with the same scale (`1577.0` is not `1577`): what the column would store."""
    if a is None or b is None:
        return a is b
    return a == b and a.as_tuple().exponent == b.as_tuple().exponent
