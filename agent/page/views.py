"""The analyst UI: ask, follow up, narrow, inspect sources, export and give feedback.

Every view works as a plain form post and link without JavaScript; with htmx the same views
return only the partial that changed (`request.htmx`).
"""

from __future__ import annotations

import csv
import json
import uuid

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from agent.api import answer_events
from agent.models import Conversation, ConversationTurn
from agent.selectors import RecentQuestion, conversation_get, recent_questions, turn_get, turn_list
from agent.serialize import answer_from_json
from agent.services import question_ask, turn_feedback_record
from common.access import user_cleared
from core.pipeline import ScopeError
from documents.selectors import document_list
from documents.viewer import cell_grid, document_format
from facts.models import FactDispute
from facts.selectors import disputes_filed, fact_list, glossary_snapshot
from facts.services.disputes import DisputeError, dispute_file
from ingestion.ir import locator_place
from retrieval.selectors import chunk_list

from .export import answer_export
from .forms import AskForm
from .panel import FigurePlace, Panel, dispute_rows, disputes_latest, panel_build


class HtmxHttpRequest(HttpRequest):
    """A request as the views see it: the middleware has added `htmx` and `request_id`."""

    htmx: HtmxDetails
    request_id: str


CONVERSATION = "ragspine_conversation"  # the session keeps only the page's conversation id
DISPUTES_MARKED = 500  # the analyst's newest disputes whose outcome an answer's figures show

EXAMPLES = [
    "中国内地FY2025的营收是多少",
    "营收是多少",
    "香港收入为什么下降",
    "集团2024年和2025年营收对比",
    "哪些文件提到了存储芯片",
]


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


def _turns(request: HttpRequest) -> list[Panel]:
    cleared, glossary, disputes = user_cleared(request.user), glossary_snapshot(), _disputes(request)
    turns = turn_list(conversation=_conversation(request), cleared=cleared)
    return [panel_build(t, glossary, disputes) for t in turns]


def _panel(request: HttpRequest, turn: ConversationTurn) -> Panel:
    return panel_build(turn, glossary_snapshot(), _disputes(request))


def _disputes(request: HttpRequest) -> dict[FigurePlace, FactDispute]:
    """The analyst's latest dispute on each figure they may still see, for the answers to show."""
    filed = disputes_filed(user=request.user, cleared=user_cleared(request.user))
    return disputes_latest(filed[:DISPUTES_MARKED])


def _questions_logged() -> bool:
    """The page says so while the trace keeps the words asked (`RAGSPINE_LOG_QUESTIONS`)."""
    return bool(settings.RAGSPINE["LOG_QUESTIONS"])


def _recent(request: HttpRequest) -> list[RecentQuestion]:
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
        {
            "turns": _turns(request),
            "recent": _recent(request),
            "examples": EXAMPLES,
            "page_strings": _page_strings(),
            "questions_logged": _questions_logged(),
        },
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
        turn = question_ask(
            question, user=request.user, scope=scope, request_id=request.request_id, conversation_id=external_id
        ).turn
    except ScopeError:
        return _ask_refused(request, form, gettext("This narrowing option has expired; please ask again."))
    assert turn is not None  # a signed-in user's question with a conversation is stored
    if "text/event-stream" in request.headers.get("Accept", ""):
        return _turn_stream(request, turn)
    if request.htmx:
        context = {"turn": _panel(request, turn), "recent": _recent(request), "oob": True}
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
        "questions_logged": _questions_logged(),
    }
    return render(request, "agent/ask.html", context, status=400)


def _turn_url(index: int) -> str:
    return f"{reverse('home')}#turn-{index}"


def _turn_stream(request: HttpRequest, turn: ConversationTurn) -> StreamingHttpResponse:
    """The panel's text as `delta` events, then the rendered turn (`turn`): what streams is what
    the panel shows."""
    panel = _panel(request, turn)
    context = {"turn": panel, "recent": _recent(request), "oob": False}
    html = render_to_string("agent/ask.html#new-turn", context, request=request)
    request.session.save()
    events = [e for e in answer_events(turn.result, panel.sections) if not e.startswith("event: done")]
    events.append(f"event: turn\ndata: {json.dumps({'html': html}, ensure_ascii=False)}\n\n")
    response = StreamingHttpResponse(iter(events), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
@login_required
def turn_open(request: HttpRequest, conversation: str, index: int) -> HttpResponse:
    """A stored answer as it was (a recent question's link): its conversation becomes the
    page's, and the page opens at the turn. Another user's conversation, or a turn the user may
    no longer see, is a 404."""
    found = conversation_get(user=request.user, external_id=conversation)
    if found is None or turn_get(conversation=found, position=index, cleared=user_cleared(request.user)) is None:
        raise Http404("no such answer")
    request.session[CONVERSATION] = conversation
    return redirect(_turn_url(index))


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
    turn_feedback_record(turn=turn, user=request.user, vote=vote, reason=reason)
    if request.htmx:
        return render(request, "agent/ask.html#feedback", {"turn": _panel(request, turn)})
    return redirect(_turn_url(index))


@require_GET
@login_required
def facts_csv(request: HttpRequest, index: int) -> HttpResponse:
    turn = _turn_of(request, index)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="ragspine-answer-{index + 1}.csv"'
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerows(answer_export(answer_from_json(turn.result)))
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
    curators' review queue beside the fact; its outcome shows on the figure and under "my
    reports". A fact the analyst may not see is a 404, as a missing one."""
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
        link = format_html('<a href="{}">{}</a>', reverse("reports"), gettext("My reports"))
        said = gettext(
            "Sent to the curators’ review queue. Its outcome will show beside this figure and in %(reports)s."
        )
        return HttpResponse(f'<p class="dispute-done" role="status">{escape(said) % {"reports": link}}</p>')
    turn = request.POST.get("turn", "")
    return redirect(_turn_url(int(turn)) if turn.isdigit() else "/")


@require_GET
@login_required
def reports(request: HttpRequest) -> HttpResponse:
    """ "My reports": the figures the analyst said are wrong, newest first, each with its status
    and the curator's resolution; a figure they may no longer see is not listed."""
    filed = disputes_filed(user=request.user, cleared=user_cleared(request.user))
    return render(request, "agent/reports.html", {"reports": dispute_rows(filed, glossary_snapshot())})


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
