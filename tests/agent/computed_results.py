"""Turns whose result carries computed values, produced by the real pipeline and the real engine.

Until the pipeline fills `computed` itself, a turn is built like this: `answer_question` answers
the question (the level answer), the engine computes the outcome over the same store, and the
result dict gets the outcome's inputs as its found facts and sources, its `computed` items
(`computed_as_dicts`; rank items also carry `ranked_value` and `ranked_display` from the
ranking's rows) and the `query_metric` results of every key looked up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

from agent.serialize import result_as_dict, sections_as_dict
from core.compute import Label, Outcome, Ranking, computed_as_dicts
from core.glossary import GlossarySnapshot
from core.orchestrator import answer_question
from core.ports import FactStore
from core.provider import MockProvider
from core.tools import task_run
from core.types import FactRecord, Source, SubTask

REFERENCE = date(2026, 3, 15)
Build = Callable[[Callable[[SubTask], FactRecord | None], Label], Outcome]


def computed_turn(
    question: str,
    build: Build,
    *,
    store: FactStore,
    glossary: GlossarySnapshot,
    cleared: bool = True,
    looked_up: list[SubTask] | None = None,
) -> dict[str, Any]:
    """A stored turn (as the UI keeps it) for `question` with `build`'s outcome in its result.

    `looked_up` names every key the computation asked for (a ranking's candidates); their
    `query_metric` results become the result's `tool_results`, so keys without the figure show
    up as `not_found`.
    """
    base = answer_question(
        question, glossary=glossary, store=store, provider=MockProvider(), cleared=cleared, reference_date=REFERENCE
    )
    outcome = build(lambda task: store.fact_get(task, cleared=cleared), glossary.display)
    assert not hasattr(outcome, "reason"), f"the engine refused: {outcome}"
    facts = tuple(outcome.inputs)
    agent = replace(
        base,
        answer_kind="answer",
        facts=facts,
        sources=tuple(Source("fact", f.source_doc, f.locator, f.document_id) for f in facts),
        computed=outcome.computed,
        ranking=outcome if isinstance(outcome, Ranking) else None,
    )
    result = result_as_dict(agent)
    items = computed_as_dicts(outcome, base.language)
    if isinstance(outcome, Ranking):
        for item, row in zip(items, outcome.rows, strict=True):
            item["ranked_value"] = f"{row.value:f}"
            item["ranked_display"] = row.display
    result["computed"] = items
    keys = looked_up or [SubTask(f.metric, f.entity, f.period, f.channel) for f in facts]
    result["tool_results"] = [task_run(store, key, cleared=cleared)[0] for key in keys]
    return {"question": question, "note": None, "result": result, "sections": sections_as_dict(agent)}
