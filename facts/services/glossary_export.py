"""The glossary as the CSV `import_glossary` reads (`glossary_export`): importing it into an empty
glossary gives the same entities, metrics, channels and aliases back."""

from __future__ import annotations

import csv
import io
from collections import defaultdict

from ..models import Alias, Channel, Entity, Metric

GLOSSARY_COLUMNS = (
    "kind",
    "code",
    "name",
    "alias",
    "unit",
    "entity_kind",
    "parent",
    "formula",
    "aggregation",
    "sign",
    "year_end_month",
    "currency",
)


def glossary_export() -> str:
    """Every entity, metric and channel with each of its aliases, one row per alias (a code without
    aliases gets one row with a blank alias), in `GLOSSARY_COLUMNS`."""
    aliases: dict[tuple[str, str], list[str]] = defaultdict(list)
    targets = Alias.objects.order_by("pk").values_list("kind", "text", "entity__code", "metric__code", "channel__code")
    for kind, text, *codes in targets:
        aliases[(kind, next(code for code in codes if code))].append(text)
    handle = io.StringIO()
    writer = csv.DictWriter(handle, fieldnames=GLOSSARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for code_row in _code_rows():
        for text in aliases.get((code_row["kind"], code_row["code"])) or [""]:
            writer.writerow({**code_row, "alias": text})
    return handle.getvalue()


def _code_rows() -> list[dict[str, str]]:
    """One row per code, alias left out: entities, then metrics, then channels, each by code."""
    entities = [
        {
            "kind": "entity",
            "code": e.code,
            "name": e.name,
            "entity_kind": e.kind,
            "parent": e.parent_id or "",
            "year_end_month": str(e.year_end_month or ""),
            "currency": e.currency,
        }
        for e in Entity.objects.order_by("code")
    ]
    metrics = [
        {
            "kind": "metric",
            "code": m.code,
            "name": m.name,
            "unit": m.unit_id,
            "formula": m.formula,
            "aggregation": m.aggregation,
            "sign": m.sign,
        }
        for m in Metric.objects.order_by("code")
    ]
    channels = [{"kind": "channel", "code": c.code, "name": c.name} for c in Channel.objects.order_by("code")]
    return entities + metrics + channels
