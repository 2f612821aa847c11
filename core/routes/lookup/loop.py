"""The lookup route's tool loop: a model is offered `query_metric` with the parsed slots, and
each call it makes is normalised through the glossary and run against the fact store.

Takes the question, one sub-task and the ports; returns every call executed, each with its
result and the fact it found. The model's prose is never kept (invariant 1): `task_results`
keeps only the calls for the task asked, and when the model looked nothing up for it, the
agent runs `query_metric` itself. A `ProviderError` propagates to the caller, which answers
with a fixed message (invariant 7).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from datetime import date
from typing import Any, Protocol

from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.ports import FactStore, LLMProvider
from core.routes.lookup.provider import slots_message
from core.routes.lookup.tools import (
    TOOL_NAME,
    UNRECOGNIZED,
    arguments_normalize,
    task_run,
    tool_schema_anthropic,
    tool_schema_openai,
)

MAX_TOOL_ITERATIONS = 5
SYSTEM_PROMPT = (
    "You answer questions about a company's figures. Always call the query_metric tool with the "
    "slots given after 'slots:'. Never state a figure the tool did not return; if the tool says "
    "not_found, say that the figure is not available."
)

# One call the model made: the sub-task it named (None when it named no fact), its result, its fact.
Executed = tuple[SubTask | None, dict[str, Any], FactRecord | None]


class Meter(Protocol):
    """Where the loop reports what the provider cost: tokens and seconds."""

    def add_usage(self, usage: Mapping[str, int]) -> None: ...

    def add_provider_time(self, seconds: float) -> None: ...


def tool_loop(
    question: str,
    task: SubTask,
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    provider: LLMProvider,
    cleared: bool,
    reference: date,
    meter: Meter,
) -> list[Executed]:
    """Offer the model `query_metric` up to `MAX_TOOL_ITERATIONS` times; every call it makes is run."""
    shape = getattr(provider, "tool_format", "anthropic")
    tools = [tool_schema_openai(glossary) if shape == "openai" else tool_schema_anthropic(glossary)]
    slots = {"metric": task.metric, "entity": task.entity, "period": task.period.label, "channel": task.channel}
    messages: list[dict[str, Any]] = [{"role": "user", "content": slots_message(question, slots)}]
    executed: list[Executed] = []
    for _ in range(MAX_TOOL_ITERATIONS):
        began = time.perf_counter()
        try:
            response = provider.create_message(system=SYSTEM_PROMPT, messages=messages, tools=tools)
        finally:
            meter.add_provider_time(time.perf_counter() - began)
        meter.add_usage(response.usage)
        if not response.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": response.text,
                "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls],
            }
        )
        for call in response.tool_calls:
            normalized: SubTask | dict[str, Any]
            if call.name != TOOL_NAME:
                normalized = {"status": UNRECOGNIZED, "param": "tool", "raw": str(call.name)[:64]}
            elif not isinstance(call.arguments, dict):
                normalized = {"status": UNRECOGNIZED, "param": "arguments", "raw": str(call.arguments)[:64]}
            else:
                normalized = arguments_normalize(call.arguments, glossary, reference)
            if isinstance(normalized, SubTask):
                outcome, fact = task_run(store, normalized, cleared=cleared)
                executed.append((normalized, outcome, fact))
            else:
                outcome = normalized
                executed.append((None, outcome, None))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(outcome)})
    return executed


def task_results(
    executed: list[Executed], task: SubTask, store: FactStore, *, cleared: bool
) -> tuple[list[Executed], list[tuple[dict[str, Any], FactRecord | None]]]:
    """The calls kept for `task`, and the results and facts for it alone.

    A call for another fact is not this task's result: its `found` would hide from the guard
    that the task's own figure is missing. Unrecognised calls name no fact and stay. When the
    model answered without looking the figure up, the agent looks it up itself.
    """
    kept = [(t, r, f) for t, r, f in executed if t is None or t == task]
    relevant = [(r, f) for t, r, f in kept if t == task]
    if not relevant:
        own, fact = task_run(store, task, cleared=cleared)
        kept.append((task, own, fact))
        relevant = [(own, fact)]
    return kept, relevant
