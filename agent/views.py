"""The analyst UI: ask, follow up, narrow, inspect sources, export and give feedback.

Every view works as a plain form post and link without JavaScript; with htmx the same views
return only the partial that changed (`request.htmx`).
"""

from __future__ import annotations

import csv
import json
import uuid
from dataclasses import replace
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from common.access import user_cleared
from core.model.sign import printed_differs, printed_display
from core.model.types import KIND_BADGES, ROUTE_BADGES, AnswerSections, Badge
from core.pipeline import ScopeError
from documents.locators import locator_human, locators_in_words
from documents.selectors import document_list
from documents.viewer import cell_grid, document_format
from facts.selectors import fact_list, glossary_snapshot
from facts.services.disputes import DisputeError, dispute_file
from ingestion.ir import locator_place
from retrieval.selectors import chunk_list

from .answer_labels import answer_language, badge_in, panel_labels
from .api import answer_events
from .bootstrap import ask
from .charts import chart_bars
from .computed_view import computed_cards, turn_language
from .export import answer_export
from .forms import AskForm
from .models import Conversation, ConversationTurn, QueryLog
from .say_once import shown_figures, text_once
from .selectors import conversation_get, recent_questions, turn_get, turn_list
from .series import answer_series
from .series_view import series_view
from .services import turn_feedback_set
from .why_view import figures_of


class HtmxHttpRequest(HttpRequest):
    """A request as the views see it: the middleware has added `htmx` and `request_id`."""

    htmx: HtmxDetails
    request_id: str


CONVERSATION = "ragspine_conversation"  # the session keeps only the page's conversation id

EXAMPLES = [
    "中国内地FY2025的营收是多少",
    "营收是多少",
    "香港收入为什么下降",
    "集团2024年和2025年营收对比",
    "哪些文件提到了存储芯片",
]


def _printed_shown(fact: dict[str, Any]) -> str:
    """A fact's figure as the report printed it (`(1,577)`), when its metric's sign convention
    stored the amount; "" otherwise (and for answers stored before facts kept it)."""
    if fact.get("printed_value") is None:
        return ""
    printed = Decimal(fact["printed_value"])
    return printed_display(printed) if printed_differs(Decimal(fact["value"]), printed) else ""


def _turn_view(turn: ConversationTurn) -> dict[str, Any]:
    """What a template needs to show one turn."""
    glossary = glossary_snapshot()
    result = turn.result
    shown = {"question": turn.question, "result": result}
    language = turn_language(shown)
    facts = []
    for fact in result["facts"]:
        facts.append(
            {
                **fact,
                "entity_name": glossary.display("entity", fact["entity"], language),
                "metric_name": glossary.display("metric", fact["metric"], language),
                "channel_name": glossary.display("channel", fact["channel"], language),
                "unit_name": glossary.unit_display(fact["unit"], language),
                "shown": f"{Decimal(fact['value']):,f}",
                "printed": _printed_shown(fact),
            }
        )
        facts[-1]["what"] = f"{facts[-1]['metric_name']}, {fact['period']}"
    sources = []
    for source in result["sources"]:
        cell = next(
            (f for f in facts if source["kind"] == "fact" and f["source"]["locator"] == source["locator"]), None
        )
        sources.append({**source, "cell": cell, "what": f"{cell['metric_name']}, {cell['period']}" if cell else ""})
    # the answer text names each source in words; the machine locator stays in the JSON
    places = {s["locator"]: locator_human(s["locator"], language=language, what=s["what"]) for s in sources}
    for fact in facts:
        what = f"{fact['metric_name']}, {fact['period']}"
        places.setdefault(
            fact["source"]["locator"], locator_human(fact["source"]["locator"], language=language, what=what)
        )
    series = answer_series(result)
    if series is not None:
        # the growth per step sits in the series' table; the other computed values keep their cards
        rest = [item for i, item in enumerate(result.get("computed") or []) if i not in series.steps]
        shown_cards = {"question": turn.question, "result": {**result, "computed": rest}}
    else:
        shown_cards = shown
    computed = computed_cards(shown_cards, glossary)
    series_shown = series_view(shown, series, glossary) if series is not None else None
    # the facts of a why's parts are drawn by its decomposition, not as one bar per fact
    parted = bool(computed and computed["decompositions"])
    chart = chart_bars(result["facts"], glossary, language) if series is None and not parted else None
    figures = _figures_shown(facts, computed, series_shown, chart)
    formula_labels = [computed["labels"]["formula"]] if computed else []
    sections = AnswerSections(**turn.sections)
    sections = replace(
        sections,
        structured=text_once(locators_in_words(sections.structured, places), figures, formula_labels),
        narrative=locators_in_words(sections.narrative, places),
    )
    # The panel's inputs table (or the series' table) lists every fact with its source; a card
    # lists its inputs itself only when one is missing there.
    for card in [*(computed or {}).get("cards", []), (computed or {}).get("ranking") or {}]:
        if card:
            card["inputs_elsewhere"] = all(i["fact"] for i in card["inputs"])
    # the panel speaks the answer's language (its question's), whatever the UI's is
    with answer_language(language):
        labels = panel_labels()
        route_badge = badge_in(ROUTE_BADGES.get(result["route"]), result["route"]) or Badge(result["route"], "data")
        kind_badge = badge_in(KIND_BADGES.get(result["answer_kind"]), result["answer_kind"])
    return {
        "index": turn.position,
        "question": turn.question,
        "note": turn.note,
        "result": result,
        "sections": sections,
        "facts": facts,
        # a fact's source sits in the inputs table (or its series row); the list keeps the rest
        "sources": [s for s in sources if s["cell"] is None],
        "inputs_label": labels["inputs"].format(count=len(facts)),
        "chart": chart,
        "computed": computed,
        "series": series_shown,
        "route_badge": route_badge,
        "kind_badge": kind_badge,
        "language": language,
        "labels": labels,
        "feedback": turn.feedback,
    }


def _figures_shown(
    facts: list[dict[str, Any]],
    computed: dict[str, Any] | None,
    series: dict[str, Any] | None,
    chart: dict[str, Any] | None,
) -> set[str]:
    """The figures the panel's card, chart and tables show, which its text need not repeat."""
    texts = [f["shown"] for f in facts]
    if computed:
        for card in computed["cards"]:
            texts += [figure["display"] for figure in (card["main"], *card["alongside"])]
        if computed["ranking"]:
            texts += [row["display"] for row in computed["ranking"]["rows"]]
        texts += figures_of(computed["decompositions"])
    if series:
        texts += [v for row in series["rows"] for v in (row["shown"], row["rate"], row["change"])]
    if chart:
        texts += [bar["value"] for bar in chart["bars"]]
    return shown_figures(texts)


def _page_strings() -> dict[str, str]:
    """The words the page's script shows, in the UI's language (rendered with `json_script`)."""
    return {
        "looking": gettext("Looking it up…"),
        "broken": gettext("The connection broke; please try again."),
    }


def _conversation(request: HttpRequest) -> Conversation | None:
    """The page's conversation, if the session names one that exists."""
    external_id = request.session.get(CONVERSATION)
    return conversation_get(user=request.user, external_id=external_id) if external_id else None


def _turns(request: HttpRequest) -> list[dict[str, Any]]:
    cleared = user_cleared(request.user)
    return [_turn_view(t) for t in turn_list(conversation=_conversation(request), cleared=cleared)]


def _recent(request: HttpRequest) -> list[str]:
    return recent_questions(user=request.user, cleared=user_cleared(request.user))


def _turn_of(request: HttpRequest, index: int) -> ConversationTurn:
    turn = turn_get(conversation=_conversation(request), position=index, cleared=user_cleared(request.user))
    if turn is None:
        raise Http404("no such answer")
    return turn


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "agent/ask.html",
        {"turns": _turns(request), "recent": _recent(request), "examples": EXAMPLES, "page_strings": _page_strings()},
    )


@require_POST
@login_required
def ask_view(request: HtmxHttpRequest) -> HttpResponse:
    form = AskForm(request.POST)
    if not form.is_valid():
        return _ask_refused(request, form, form.errors["question"][0])
    question, scope = form.cleaned_data["question"], form.scope
    external_id = request.session.get(CONVERSATION) or uuid.uuid4().hex
    request.session[CONVERSATION] = external_id
    try:
        result = ask(
            question, user=request.user, scope=scope, request_id=request.request_id, conversation_id=external_id
        )
    except ScopeError:
        return _ask_refused(request, form, gettext("This narrowing option has expired; please ask again."))
    conversation = conversation_get(user=request.user, external_id=external_id)
    turn = turn_list(conversation=conversation, cleared=True).get(request_id=result.request_id)
    if "text/event-stream" in request.headers.get("Accept", ""):
        return _turn_stream(request, turn)
    if request.htmx:
        context = {"turn": _turn_view(turn), "recent": _recent(request), "oob": True}
        return render(request, "agent/ask.html#new-turn", context)
    return redirect(_turn_url(turn.position))


def _ask_refused(request: HtmxHttpRequest, form: AskForm, error: str) -> HttpResponse:
    """The error next to the form (htmx), or the page again with the question kept in the box."""
    if request.htmx:
        return render(request, "agent/ask.html#form-error", {"error": error}, status=422)
    context = {
        "turns": _turns(request),
        "error": error,
        "question": form.question_as_typed,
        "recent": _recent(request),
        "page_strings": _page_strings(),
    }
    return render(request, "agent/ask.html", context, status=400)


def _turn_url(index: int) -> str:
    return f"{reverse('home')}#turn-{index}"


def _turn_stream(request: HttpRequest, turn: ConversationTurn) -> StreamingHttpResponse:
    """The answer's checked text as `delta` events, then the rendered turn (`turn`)."""
    context = {"turn": _turn_view(turn), "recent": _recent(request), "oob": False}
    html = render_to_string("agent/ask.html#new-turn", context, request=request)
    request.session.save()
    events = [e for e in answer_events(turn.result, AnswerSections(**turn.sections)) if not e.startswith("event: done")]
    events.append(f"event: turn\ndata: {json.dumps({'html': html}, ensure_ascii=False)}\n\n")
    response = StreamingHttpResponse(iter(events), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_POST
@login_required
def conversation_new(request: HttpRequest) -> HttpResponse:
    """A fresh conversation for the page; the old one stays stored, and the next question starts
    the new one."""
    request.session.pop(CONVERSATION, None)
    return redirect("home")


@require_POST
@login_required
def feedback(request: HtmxHttpRequest, index: int) -> HttpResponse:
    turn = _turn_of(request, index)
    vote = 1 if request.POST.get("vote") == "up" else -1
    reason = request.POST.get("reason", "").strip()[:500]
    QueryLog.objects.filter(request_id=turn.request_id, user=request.user).update(feedback=vote, feedback_reason=reason)
    turn_feedback_set(turn, vote)
    if request.htmx:
        return render(request, "agent/ask.html#feedback", {"turn": _turn_view(turn)})
    return redirect(_turn_url(index))


@require_GET
@login_required
def facts_csv(request: HttpRequest, index: int) -> HttpResponse:
    turn = _turn_of(request, index)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="ragspine-answer-{index + 1}.csv"'
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerows(answer_export(turn.result))
    return response


@require_GET
@login_required
def document_view(request: HttpRequest, document_id: int) -> HttpResponse:
    """A document's text, chunk by chunk with locators, and a cited cell in its table, highlighted
    (`?at=<locator>`). RESTRICTED documents 404 for the uncleared; a cell holding a fact hidden
    from the caller is masked."""
    cleared = user_cleared(request.user)
    document = get_object_or_404(document_list(cleared=cleared), pk=document_id)
    chunks = list(chunk_list(document_id=document.pk, cleared=cleared))
    focus = request.GET.get("at", "")
    grid = cell_grid(document, focus, cleared=cleared) if focus else None
    place = locator_place(focus) if grid is not None else ""
    return render(
        request,
        "agent/document.html",
        {
            "document": document,
            "format": document_format(document.name),
            "chunks": chunks,
            "focus": focus,
            "grid": grid,
            "place_chunks": [chunk for chunk in chunks if place and locator_place(chunk.locator) == place],
        },
    )


@require_POST
@login_required
def dispute(request: HtmxHttpRequest) -> HttpResponse:
    """ "This figure is wrong": the analyst's note on the fact at a document's locator, into the
    curator's review queue. A fact the analyst may not see is a 404, as a missing one."""
    cleared = user_cleared(request.user)
    try:
        document_id = int(request.POST.get("document_id", ""))
    except ValueError:
        raise Http404("No such fact.") from None
    fact = fact_list(cleared=cleared).filter(document_id=document_id, locator=request.POST.get("locator", "")).first()
    if fact is None:
        raise Http404("No such fact.")
    try:
        dispute_file(fact_id=fact.pk, note=request.POST.get("note", ""), user=request.user, cleared=cleared)
    except DisputeError as error:
        return HttpResponse(f'<p class="dispute-error" role="alert">{escape(str(error))}</p>', status=422)
    if request.htmx:
        done = gettext("Sent to the curators.")
        return HttpResponse(f'<p class="dispute-done" role="status">{escape(done)}</p>')
    turn = request.POST.get("turn", "")
    return redirect(_turn_url(int(turn)) if turn.isdigit() else "/")


@require_GET
def language_set(request: HttpRequest, code: str) -> HttpResponse:
    """The header's language switch: a plain link (no form, so no JavaScript and no button), which
    keeps the choice in the language cookie `LocaleMiddleware` reads, then goes back."""
    if code not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    back = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = "/"
    response = redirect(back)
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response
