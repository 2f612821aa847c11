"""Competitor text never reaches an answer, over every surface that carries one.

The questions name no competitor, so the security gate lets them through; the documents they
retrieve do discuss competitors. The control proves it: the unscreened retriever returns
passages that name them. Every surface must then show none of it: the ask API and its stream,
the UI, `manage.py ask --json`, and every prompt sent to a model (routing, rerank, synthesis).
The probe is the gate's own matcher, so a spaced or look-alike spelling counts as a mention.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from agent.services import question_ask
from core.gates.security import external_mentions
from facts.selectors import glossary_snapshot
from retrieval.selectors import OrmNarrativeRetriever
from tests.clients import client_for
from tests.scripted import ScriptedProvider, prose

pytestmark = pytest.mark.django_db

QUESTIONS = (
    "竞争对手的市场份额为什么提升",
    "千元以下平板的竞争格局怎么样",
    "哪些文件提到了存储芯片",
    "行业周报说了什么",
)


def ask_api(analyst: Any) -> str:
    client = client_for(analyst)
    bodies = [client.post("/v1/ask", {"question": q}, format="json").json() for q in QUESTIONS]
    return json.dumps([{k: v for k, v in b.items() if k != "question"} for b in bodies], ensure_ascii=False)


def ask_stream_api(analyst: Any) -> str:
    client = client_for(analyst)
    seen = ""
    for question in QUESTIONS:
        response = client.post("/v1/ask/stream", {"question": question}, format="json")
        seen += b"".join(response.streaming_content).decode().replace(question, "")
    return seen


def ui_pages(analyst: Any) -> str:
    browser = Client()
    browser.force_login(analyst)
    for question in QUESTIONS:
        browser.post("/ask", {"question": question}, HTTP_HX_REQUEST="true")
    page = browser.get("/").content.decode()
    for question in QUESTIONS:
        page = page.replace(question, "")
    return page


def ask_command(analyst: Any) -> str:
    seen = []
    for question in QUESTIONS:
        out = StringIO()
        call_command("ask", question, "--user", analyst.username, "--json", stdout=out)
        seen.append({k: v for k, v in json.loads(out.getvalue()).items() if k != "question"})
    return json.dumps(seen, ensure_ascii=False)


def prompts_to_the_model(analyst: Any, settings: Any) -> str:
    settings.RAGSPINE = {**settings.RAGSPINE, "LLM_ROUTING": True, "RERANK": True}
    seen = ""
    for question in QUESTIONS:
        provider = ScriptedProvider(*[prose("见资料 [1]。") for _ in range(8)])
        question_ask(question, user=analyst, provider=provider)
        seen += json.dumps(provider.requests, ensure_ascii=False).replace(question, "")
    # A rerank and a synthesis prompt for each question but the find_documents one.
    assert seen.count('"system"') >= 2 * (len(QUESTIONS) - 1), "too few prompts were sent to prove anything"
    return seen


SURFACES: dict[str, Callable[..., str]] = {
    "ask API": ask_api,
    "ask stream API": ask_stream_api,
    "UI answers": ui_pages,
    "ask command": ask_command,
    "prompts to the model": prompts_to_the_model,
}


def test_the_questions_name_no_competitor_but_retrieve_competitor_text(demo: dict[str, Any]) -> None:
    glossary = glossary_snapshot()
    retriever = OrmNarrativeRetriever()
    assert all(external_mentions(q, glossary) == () for q in QUESTIONS)
    raw = "".join(c.text for q in QUESTIONS for c in retriever.retrieve(q, cleared=True))
    assert external_mentions(raw, glossary), "the demo retrieves no competitor text: the suite proves nothing"


@pytest.mark.parametrize("name", SURFACES)
def test_no_competitor_text_reaches_an_answer_surface(name: str, demo: dict[str, Any], settings: Any) -> None:
    analyst = demo["users"]["analyst_cleared"]
    surface = SURFACES[name]
    seen = surface(analyst, settings) if surface is prompts_to_the_model else surface(analyst)
    assert external_mentions(seen, glossary_snapshot()) == ()
