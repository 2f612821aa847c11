"""Small factories for service tests that need a row or two, not the whole demo (`load_demo`)."""

from __future__ import annotations

import importlib
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model

from documents.models import Document
from facts.models import Channel, Entity, Metric, Unit
from facts.roles import roles_ensure
from ingestion.tables import FactCandidate


def entity_make(code: str = "ACME_HK", name: str = "ACME香港", kind: str = "subsidiary") -> Entity:
    return Entity.objects.create(code=code, name=name, kind=kind)


def metric_make(code: str = "REVENUE", name: str = "营业收入", unit: str = "CNY_M") -> Metric:
    Unit.objects.get_or_create(code=unit)
    return Metric.objects.create(code=code, name=name, unit_id=unit)


def channel_make(code: str = "ONLINE", name: str = "线上") -> Channel:
    return Channel.objects.create(code=code, name=name)


def document_make(name: str = "report.xlsx", sensitivity: str = "INTERNAL") -> Document:
    return Document.objects.create(name=name, sha256="0" * 64, sensitivity=sensitivity, status="ready")


def candidate_make(**fields: Any) -> FactCandidate:
    """An approved cell of `ACME_HK REVENUE FY2025`, unless told otherwise."""
    values: dict[str, Any] = {
        "entity": "ACME_HK",
        "metric": "REVENUE",
        "period_type": "FY",
        "period": "2025",
        "channel": "TOTAL",
        "value": Decimal("24015.8"),
        "unit": "CNY_M",
        "source_doc": "report.xlsx",
        "locator": "sheet=ACME香港!B2",
        "status": "approved",
        "suggested_alias": "",
        "raw_label": "营业收入",
        **fields,
    }
    return FactCandidate(**values)


def curator_make(username: str = "curator") -> Any:
    _, curators = roles_ensure()
    user = get_user_model().objects.create_user(username=username, is_staff=True)
    user.groups.add(curators)
    return user


def migration_seeds() -> None:
    """What the migrations seed on a fresh install (units, the TOTAL channel): a transactional
    test that ran before this one flushed it with every other row."""
    from django.apps import apps

    for migration in ("0002_seed_units_and_total", "0008_unit_as_printed", "0009_seed_statement_units"):
        importlib.import_module(f"facts.migrations.{migration}").seed(apps, None)
