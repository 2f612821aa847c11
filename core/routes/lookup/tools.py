"""The `query_metric` tool: the structured channel's only fact-producing primitive.

Takes raw arguments (from a model or from the parser) and returns exactly one of `found`,
`not_found` or `unrecognized_param`. Every argument is normalised through the glossary; an
argument the glossary does not know is named, never coerced (a typo'd channel is not TOTAL),
and a missing row is `not_found`, never interpolated. Competitors behave as unknown.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.facts import FactRecord, SubTask
from core.model.period import Period
from core.ports import FactStore

TOOL_NAME = "query_metric"
FOUND = "found"
NOT_FOUND = "not_found"
UNRECOGNIZED = "unrecognized_param"


def fact_as_dict(fact: FactRecord) -> dict[str, Any]:
    """A found fact as the tool and the answer's `facts` give it; `printed_value` (the figure as the
    report printed it) only for a fact whose metric's sign convention stores another value."""
    found = {
        "value": str(fact.value),
        "unit": fact.unit,
        "metric": fact.metric,
        "entity": fact.entity,
        "period": fact.period.label,
        "channel": fact.channel,
        "source": {"doc": fact.source_doc, "locator": fact.locator, "document_id": fact.document_id},
        "valid_as_of": fact.valid_as_of.isoformat() if fact.valid_as_of else None,
    }
    if fact.printed_value is not None:
        found["printed_value"] = str(fact.printed_value)
    return found


def task_run(store: FactStore, task: SubTask, *, cleared: bool) -> tuple[dict[str, Any], FactRecord | None]:
    """Look up one fully normalised sub-task."""
    fact = store.fact_get(task, cleared=cleared)
    if fact is None:
        normalized = {
            "metric": task.metric,
            "entity": task.entity,
            "period": task.period.label,
            "channel": task.channel,
        }
        return {"status": NOT_FOUND, "normalized": normalized}, None
    return {"status": FOUND, **fact_as_dict(fact)}, fact


def task_pending(store: FactStore, task: SubTask, *, cleared: bool) -> int:
    """The store's count of candidates awaiting review for `task` (`FactStore.pending_count`);
    0 from a store that does not implement it, as a structural fake need not."""
    count = getattr(store, "pending_count", None)
    return int(count(task, cleared=cleared)) if count is not None else 0


def arguments_normalize(
    arguments: dict[str, Any], glossary: GlossarySnapshot, reference_date: date
) -> SubTask | dict[str, Any]:
    """A `SubTask`, or the `unrecognized_param` result naming the first bad argument."""
    metric = glossary.resolve("metric", arguments.get("metric"))
    if metric is None:
        return _unrecognized("metric", arguments.get("metric"))
    entity = glossary.resolve("entity", arguments.get("entity"))
    if entity is None or glossary.is_external(entity):
        return _unrecognized("entity", arguments.get("entity"))
    raw_period = arguments.get("period")
    period: Period | None = period_parse(raw_period, reference_date) if isinstance(raw_period, str) else None
    if period is None:
        return _unrecognized("period", raw_period)
    raw_channel = arguments.get("channel", "TOTAL")
    channel = glossary.resolve("channel", raw_channel if raw_channel not in (None, "") else "TOTAL")
    if channel is None:
        return _unrecognized("channel", raw_channel)
    return SubTask(metric, entity, period, channel)


def _unrecognized(param: str, raw: object) -> dict[str, Any]:
    return {"status": UNRECOGNIZED, "param": param, "raw": "" if raw is None else str(raw)[:200]}


def tool_parameters(glossary: GlossarySnapshot) -> dict[str, Any]:
    entities = [e.code for e in glossary.in_scope_entities()[:12]]
    return {
        "type": "object",
        "properties": {
            "metric": {
                "type": "string",
                "description": "Metric code.",
                "enum": sorted(glossary.metrics),
            },
            "entity": {
                "type": "string",
                "description": "Entity code or name, e.g. " + ", ".join(entities),
            },
            "period": {
                "type": "string",
                "description": "Period label: FY2025 (fiscal year), 2025H1 (half), 2025Q4 (quarter).",
            },
            "channel": {
                "type": "string",
                "description": "Sales channel code; TOTAL when the question names none.",
                "enum": sorted(glossary.channels),
            },
        },
        "required": ["metric", "entity", "period"],
    }


TOOL_DESCRIPTION = (
    "Look up one exact value in the fact table. Returns found (value with its source), "
    "not_found, or unrecognized_param. Never estimate a value that the tool did not return."
)


def tool_schema_anthropic(glossary: GlossarySnapshot) -> dict[str, Any]:
    return {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "input_schema": tool_parameters(glossary)}


def tool_schema_openai(glossary: GlossarySnapshot) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": tool_parameters(glossary)},
    }
