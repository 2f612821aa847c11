"""The structured route: a figure, a list of figures, or a computation over them, every number
from a fact row (invariant 1).

`structured_route` picks the way by what the intent holds: a formula the question defines
(`defined_answer`), parts asked one after another (each run like a list, with no LLM), an
operation (growth, share, ranking … by the engine, `computed_answer`), several sub-tasks, a
formula metric or a level asked rounded (`levels_answer`), or one figure looked up through the
tool loop. Looked up, the answer is rebuilt from the tool results, never the model's prose (the
anti-fabrication guard); a half or a year not stored may be derived from its quarters. Then the
figures are put in the unit the question asks (`scaled_answer`), and the assumption note leads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from core.glossary import GlossarySnapshot
from core.model.clarification import ClarificationResult
from core.model.facts import FactRecord, SubTask
from core.model.intent import ParsedIntent
from core.model.registry import KIND_ANSWER, KIND_DEGRADED, KIND_REFUSAL
from core.model.result import AnswerSections
from core.parse.intent import FigureChecked, figure_checked
from core.ports import ProviderError
from core.routes import render
from core.routes.computed import ComputedAnswer, computed_answer, levels_answer, part_intent, subtasks_of
from core.routes.computed.defined import defined_answer
from core.routes.computed.scaled import fx_rate_for, scaled_answer
from core.routes.lookup import render as lookup_render
from core.routes.lookup.loop import task_results, tool_loop
from core.routes.lookup.tools import NOT_FOUND, UNRECOGNIZED, task_pending
from core.routes.lookup.verdict import verdict_line
from core.routes.outcome import RouteAnswer, fact_source
from core.routes.request import RouteRequest


def structured_route(request: RouteRequest, intent: ParsedIntent, clarification: ClarificationResult) -> RouteAnswer:
    answer = _answered(request, intent)
    if intent.unit_asked is not None and answer.kind == KIND_ANSWER:
        answer = _in_unit_asked(answer, intent, request)
    request.lap("structured")
    if clarification.assumption_note and answer.kind != KIND_DEGRADED:
        answer = replace(answer, sections=replace(answer.sections, assumption_note=clarification.assumption_note))
    return answer


def computed_route_answer(answer: ComputedAnswer) -> RouteAnswer:
    """A computed or listed answer as the route's answer, a fact source per input."""
    return RouteAnswer(
        AnswerSections(structured=answer.text),
        answer.kind,
        answer.facts,
        answer.tool_results,
        tuple(fact_source(f) for f in answer.facts),
        computed=answer.computed,
        ranking=answer.ranking,
    )


def _answered(request: RouteRequest, intent: ParsedIntent) -> RouteAnswer:
    glossary, store, cleared = request.glossary, request.store, request.cleared
    if intent.definition is not None:
        return computed_route_answer(defined_answer(intent, glossary=glossary, store=store, cleared=cleared))
    if intent.parts:
        return _parts_joined([_part_answered(request, part_intent(intent, part)) for part in intent.parts])
    if intent.operation is not None:
        return computed_route_answer(computed_answer(intent, glossary=glossary, store=store, cleared=cleared))
    tasks = subtasks_of(intent)
    if len(tasks) > 1 or intent.decimals is not None or any(t.metric in glossary.formula_metrics for t in tasks):
        # Listed sub-tasks, formula metrics and a level asked rounded run deterministically, with no LLM.
        return _levels(request, intent, tasks)
    return _looked_up(request, intent, tasks[0])


def _part_answered(request: RouteRequest, intent: ParsedIntent) -> RouteAnswer:
    """One part of a question, run deterministically like any list of sub-tasks (no LLM)."""
    if intent.operation is not None:
        glossary, store, cleared = request.glossary, request.store, request.cleared
        return computed_route_answer(computed_answer(intent, glossary=glossary, store=store, cleared=cleared))
    return _levels(request, intent, subtasks_of(intent))


def _levels(request: RouteRequest, intent: ParsedIntent, tasks: Sequence[SubTask]) -> RouteAnswer:
    answer = levels_answer(
        list(tasks),
        glossary=request.glossary,
        store=request.store,
        cleared=request.cleared,
        language=intent.language,
        decimals=intent.decimals,
    )
    return computed_route_answer(answer)


def _parts_joined(parts: list[RouteAnswer]) -> RouteAnswer:
    """The answers to a question's parts, one after another, each with its own facts and sources."""
    answered = [p for p in parts if p.kind == KIND_ANSWER]
    return RouteAnswer(
        AnswerSections(structured="\n".join(p.sections.structured for p in parts if p.sections.structured)),
        KIND_ANSWER if answered else parts[0].kind,
        tuple(f for p in parts for f in p.facts),
        tuple(r for p in parts for r in p.tool_results),
        tuple(s for p in parts for s in p.sources),
        computed=tuple(c for p in parts for c in p.computed),
    )


def _looked_up(request: RouteRequest, intent: ParsedIntent, task: SubTask) -> RouteAnswer:
    """One figure through the tool loop; a model that fails gives a fixed message, no number."""
    glossary, store, cleared = request.glossary, request.store, request.cleared
    try:
        executed = tool_loop(
            intent.raw_question,
            task,
            glossary=glossary,
            store=store,
            provider=request.provider,
            cleared=cleared,
            reference=request.reference,
            meter=request,
        )
    except ProviderError:
        return RouteAnswer(AnswerSections(structured=render.DEGRADED_STRUCTURED[intent.language]), KIND_DEGRADED)
    tool_results, relevant = task_results(executed, task, store, cleared=cleared)
    if not any(f is not None for _, f in relevant) and task.period.period_type in ("FY", "HY"):
        # a half or a year not stored may be derived (FY − H1, Q3 + Q4 …), with its formula and inputs
        derived = levels_answer([task], glossary=glossary, store=store, cleared=cleared, language=intent.language)
        if derived.computed:
            return computed_route_answer(derived)
    return _guarded(
        [r for r, _ in relevant],
        [f for _, f in relevant if f is not None],
        [r for _, r, _ in tool_results],
        task,
        glossary,
        intent.language,
        pending=lambda: task_pending(store, task, cleared=cleared),
        checked=figure_checked(intent.raw_question),
    )


def _guarded(
    relevant: list[dict[str, Any]],
    facts: list[FactRecord],
    all_results: list[dict[str, Any]],
    task: SubTask,
    glossary: GlossarySnapshot,
    language: str,
    *,
    pending: Callable[[], int] = lambda: 0,
    checked: FigureChecked | None = None,
) -> RouteAnswer:
    """The anti-fabrication guard: the answer is rebuilt from tool results, never model prose.
    `pending` counts the task's candidates awaiting review; it is read only when not found. A
    figure the question checks (`是不是13万亿`) puts the verdict before the fact line, stating
    only the asked figure and the fact's value (`verdict_line`); with no fact, no verdict."""
    if facts:
        line = lookup_render.fact_line(facts[0], glossary, language)
        verdict = verdict_line(checked, facts[0], glossary, language) if checked is not None else None
        sections = AnswerSections(structured=f"{verdict}\n{line}" if verdict else line)
        return RouteAnswer(sections, KIND_ANSWER, (facts[0],), tuple(all_results), (fact_source(facts[0]),))
    if any(r.get("status") == NOT_FOUND for r in relevant):
        text = lookup_render.not_found_line(task, glossary, language, pending())
        return RouteAnswer(AnswerSections(structured=text), KIND_REFUSAL, (), tuple(all_results))
    unrecognized = [r for r in relevant if r.get("status") == UNRECOGNIZED]
    text = (
        lookup_render.unrecognized_line(unrecognized[0], language)
        if unrecognized
        else lookup_render.not_found_line(task, glossary, language, pending())
    )
    return RouteAnswer(AnswerSections(structured=text), KIND_REFUSAL, (), tuple(all_results))


def _in_unit_asked(answer: RouteAnswer, intent: ParsedIntent, request: RouteRequest) -> RouteAnswer:
    """The answer with its money figures in the unit the question asks (`scaled_answer`), a
    currency converted only with a curated rate (`fx_rate_for`)."""
    assert intent.unit_asked is not None
    glossary = request.glossary
    scaled = scaled_answer(
        answer.sections.structured,
        answer.kind,
        answer.facts,
        answer.computed,
        intent.unit_asked,
        glossary,
        intent.language,
        decimals=intent.decimals,
        rate_for=fx_rate_for(request.fx, glossary),
    )
    sections = replace(answer.sections, structured=scaled.text)
    if scaled.kind == KIND_REFUSAL:
        return RouteAnswer(sections, KIND_REFUSAL, tool_results=answer.tool_results)
    return replace(answer, sections=sections, computed=answer.computed + scaled.computed)
