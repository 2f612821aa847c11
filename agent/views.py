"""The analyst UI: ask, follow up, narrow, inspect sources, export and give feedback.

Every view works as a plain form post and link without JavaScript; with htmx the same views
return only the partial that changed (`request.htmx`).
"""

from __future__ import annotations

import csv
import json
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from common.access import user_cleared
from core.orchestrator import ScopeError
from core.types import KIND_BADGES, ROUTE_BADGES, AnswerSections, Badge
from documents.selectors import document_list
from facts.selectors import glossary_snapshot
from retrieval.selectors import chunk_list

from .api import answer_events
from .bootstrap import ask
from .charts import chart_bars
from .computed_view import computed_cards
from .conversation import conversation_clear, follow_up_scope, turn_add, turns_get
from .export import answer_export
from .forms import AskForm
from .models import QueryLog
from .serialize import result_as_dict, sections_as_dict


class HtmxHttpRequest(HttpRequest):
    """A request as the views see it: the middleware has added `htmx` and `request_id`."""

    htmx: HtmxDetails
    request_id: str


EXAMPLES = [
    "中国内地FY2025的营收是多少",
    "营收是多少",
    "香港收入为什么下降",
    "集团2024年和2025年营收对比",
    "哪些文件提到了存储芯片",
]


def _turn_view(turn: dict[str, Any], index: int) -> dict[str, Any]:
    """What a template needs to show one turn."""
    glossary = glossary_snapshot()
    result = turn["result"]
    facts = []
    for fact in result["facts"]:
        facts.append(
            {
                **fact,
                "entity_name": glossary.display("entity", fact["entity"], "zh"),
                "metric_name": glossary.display("metric", fact["metric"], "zh"),
                "channel_name": glossary.display("channel", fact["channel"], "zh"),
                "unit_name": glossary.unit_display(fact["unit"], "zh"),
                "shown": f"{Decimal(fact['value']):,f}",
            }
        )
    sources = []
    for source in result["sources"]:
        cell = next(
            (f for f in facts if source["kind"] == "fact" and f["source"]["locator"] == source["locator"]), None
        )
        sources.append({**source, "cell": cell})
    return {
        "index": index,
        "question": turn["question"],
        "note": turn.get("note"),
        "result": result,
        "sections": _sections_of(turn),
        "facts": facts,
        "sources": sources,
        "chart": chart_bars(result["facts"], glossary),
        "computed": computed_cards(turn, glossary),
        "route_badge": ROUTE_BADGES.get(result["route"]) or Badge(result["route"], "data"),
        "kind_badge": KIND_BADGES.get(result["answer_kind"]),
        "feedback": turn.get("feedback"),
    }


def _sections_of(turn: dict[str, Any]) -> AnswerSections:
    if "sections" not in turn:  # kept in the session before answers had sections: shown whole
        return AnswerSections(narrative=turn["result"]["answer"])
    return AnswerSections(**turn["sections"])


def _slots_of(result: dict[str, Any]) -> dict[str, Any]:
    """The slots a turn was answered for: its first fact's, else the parsed ones plus assumptions."""
    if result["facts"]:
        fact = result["facts"][0]
        return {"intent": {k: fact[k] for k in ("metric", "entity", "period", "channel")}}
    intent = dict(result["intent"])
    assumed = result["clarification"]["assumed"]
    intent["entity"] = intent.get("entity") or assumed.get("entity")
    intent["period"] = intent.get("period") or assumed.get("period")
    return {"intent": intent}


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    turns = [_turn_view(t, i) for i, t in enumerate(turns_get(request.session))]
    return render(
        request,
        "agent/ask.html",
        {"turns": turns, "recent": request.session.get("ragspine_recent", []), "examples": EXAMPLES},
    )


@require_POST
@login_required
def ask_view(request: HtmxHttpRequest) -> HttpResponse:
    form = AskForm(request.POST)
    if not form.is_valid():
        return _ask_refused(request, form, form.errors["question"][0])
    question, scope = form.cleaned_data["question"], form.scope
    turns = turns_get(request.session)
    previous = next((_slots_of(t["result"]) for t in reversed(turns) if t["result"]["intent"].get("metric")), None)
    inherited, note = ({}, None) if scope else follow_up_scope(question, previous, glossary_snapshot(), date.today())
    try:
        result = ask(question, user=request.user, scope=scope or inherited, request_id=request.request_id)
    except ScopeError:
        return _ask_refused(request, form, "这个收窄选项已失效，请重新提问。")
    turn = {"question": question, "note": note, "result": result_as_dict(result), "sections": sections_as_dict(result)}
    index = turn_add(request.session, turn)
    if "text/event-stream" in request.headers.get("Accept", ""):
        return _turn_stream(request, turn, index)
    if request.htmx:
        context = {"turn": _turn_view(turn, index), "recent": request.session.get("ragspine_recent", []), "oob": True}
        return render(request, "agent/ask.html#new-turn", context)
    return redirect(_turn_url(index))


def _ask_refused(request: HtmxHttpRequest, form: AskForm, error: str) -> HttpResponse:
    """The error next to the form (htmx), or the page again with the question kept in the box."""
    if request.htmx:
        return render(request, "agent/ask.html#form-error", {"error": error}, status=422)
    turns = [_turn_view(t, i) for i, t in enumerate(turns_get(request.session))]
    context = {
        "turns": turns,
        "error": error,
        "question": form.question_as_typed,
        "recent": request.session.get("ragspine_recent", []),
    }
    return render(request, "agent/ask.html", context, status=400)


def _turn_url(index: int) -> str:
    return f"{reverse('home')}#turn-{index}"


def _turn_stream(request: HttpRequest, turn: dict[str, Any], index: int) -> StreamingHttpResponse:
    """The answer's checked text as `delta` events, then the rendered turn (`turn`)."""
    context = {"turn": _turn_view(turn, index), "recent": request.session.get("ragspine_recent", []), "oob": False}
    html = render_to_string("agent/ask.html#new-turn", context, request=request)
    request.session.save()
    events = [e for e in answer_events(turn["result"], _sections_of(turn)) if not e.startswith("event: done")]
    events.append(f"event: turn\ndata: {json.dumps({'html': html}, ensure_ascii=False)}\n\n")
    response = StreamingHttpResponse(iter(events), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_POST
@login_required
def conversation_new(request: HttpRequest) -> HttpResponse:
    conversation_clear(request.session)
    return redirect("home")


@require_POST
@login_required
def feedback(request: HtmxHttpRequest, index: int) -> HttpResponse:
    turns = turns_get(request.session)
    if not 0 <= index < len(turns):
        raise Http404("no such answer")
    vote = 1 if request.POST.get("vote") == "up" else -1
    reason = request.POST.get("reason", "").strip()[:500]
    QueryLog.objects.filter(request_id=turns[index]["result"]["request_id"], user=request.user).update(
        feedback=vote, feedback_reason=reason
    )
    turns[index]["feedback"] = vote
    request.session["ragspine_turns"] = turns
    if request.htmx:
        return render(request, "agent/ask.html#feedback", {"turn": _turn_view(turns[index], index)})
    return redirect(_turn_url(index))


@require_GET
@login_required
def facts_csv(request: HttpRequest, index: int) -> HttpResponse:
    turns = turns_get(request.session)
    if not 0 <= index < len(turns):
        raise Http404("no such answer")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="ragspine-answer-{index + 1}.csv"'
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerows(answer_export(turns[index]["result"]))
    return response


@require_GET
@login_required
def document_view(request: HttpRequest, document_id: int) -> HttpResponse:
    """A document's text, chunk by chunk with locators. RESTRICTED documents 404 for the uncleared."""
    cleared = user_cleared(request.user)
    document = get_object_or_404(document_list(cleared=cleared), pk=document_id)
    chunks = chunk_list(document_id=document.pk, cleared=cleared)
    return render(
        request, "agent/document.html", {"document": document, "chunks": chunks, "focus": request.GET.get("at", "")}
    )
