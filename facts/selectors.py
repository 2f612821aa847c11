"""Reads of the glossary and the fact table. RESTRICTED rows are filtered here, in the query."""

from __future__ import annotations

import threading

from django.db import connection
from django.db.models import QuerySet

from common.access import visible_to
from core.glossary import (
    AliasRecord,
    ChannelInfo,
    EntityInfo,
    GlossarySnapshot,
    MetricInfo,
    UnitInfo,
    glossary_build,
)
from core.types import FactRecord, Period, SubTask

from .models import Alias, Channel, CompanyProfile, Entity, FactMetric, GlossaryState, Metric, Unit

_lock = threading.Lock()
_cached: tuple[str, GlossarySnapshot] | None = None


def glossary_token() -> str:
    """The glossary's version stamp: one primary-key read, done before every question."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version, token FROM {GlossaryState._meta.db_table} WHERE id = 1")
        state = cursor.fetchone()
    return f"{state[0]}:{state[1]}" if state else "0:"


def glossary_snapshot() -> GlossarySnapshot:
    """The current glossary, rebuilt only when its version stamp has changed."""
    global _cached
    token = glossary_token()
    cached = _cached
    if cached is not None and cached[0] == token:
        return cached[1]
    with _lock:
        if _cached is not None and _cached[0] == token:
            return _cached[1]
        snapshot = glossary_load(version=int(token.split(":")[0]))
        _cached = (token, snapshot)
        return snapshot


def glossary_load(*, version: int = 0) -> GlossarySnapshot:
    entities = [
        EntityInfo(code, name, kind, parent, geography)
        for code, name, kind, parent, geography in Entity.objects.values_list(
            "code", "name", "kind", "parent_id", "geography"
        )
    ]
    metrics = [
        MetricInfo(*row) for row in Metric.objects.values_list("code", "name", "unit_id", "description", "formula")
    ]
    channels = [ChannelInfo(*row) for row in Channel.objects.values_list("code", "name")]
    units = [UnitInfo(*row) for row in Unit.objects.values_list("code", "name_zh", "name_en")]
    aliases = []
    for kind, text, entity, metric, channel in Alias.objects.order_by("pk").values_list(
        "kind", "text", "entity__code", "metric__code", "channel__code"
    ):
        aliases.append(AliasRecord(kind, text, entity or metric or channel))
    profile = CompanyProfile.objects.filter(pk=1).values_list("home_company_name", flat=True).first()
    return glossary_build(
        entities=entities,
        metrics=metrics,
        channels=channels,
        units=units,
        aliases=aliases,
        home_company_name=profile,
        version=version,
    )


def fact_list(*, cleared: bool) -> QuerySet[FactMetric]:
    """Approved facts the caller may see."""
    return visible_to(FactMetric.objects.filter(review_status=FactMetric.Review.APPROVED), cleared=cleared)


_FACT_COLUMNS = (
    "metric_id",
    "entity_id",
    "period_type",
    "period",
    "channel_id",
    "value",
    "unit_id",
    "source_doc",
    "locator",
    "document_id",
    "valid_as_of",
    "sensitivity",
)


def fact_record(row: tuple) -> FactRecord:  # type: ignore[type-arg]
    metric, entity, period_type, period, channel, value, unit, doc, locator, document_id, as_of, sensitivity = row
    return FactRecord(
        metric=metric,
        entity=entity,
        period=Period(period_type, period),
        channel=channel,
        value=value,
        unit=unit,
        source_doc=doc,
        locator=locator,
        document_id=document_id,
        valid_as_of=as_of,
        sensitivity=sensitivity,
    )


def fact_get(task: SubTask, *, cleared: bool) -> FactRecord | None:
    row = (
        fact_list(cleared=cleared)
        .filter(
            metric_id=task.metric,
            entity_id=task.entity,
            period_type=task.period.period_type,
            period=task.period.period,
            channel_id=task.channel,
        )
        .values_list(*_FACT_COLUMNS)
        .first()
    )
    return fact_record(row) if row else None


class OrmFactStore:
    """The `FactStore` port over the ORM."""

    def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None:
        return fact_get(task, cleared=cleared)
