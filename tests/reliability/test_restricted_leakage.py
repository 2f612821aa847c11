"""Invariant 5, over every output at once: for a user without clearance, RESTRICTED facts,
chunks, FAQ items and document names never appear anywhere RAGSpine writes.

Each surface runs twice. For the uncleared user it must show nothing RESTRICTED; for a cleared
user (the control) it must show something RESTRICTED, which proves the surface can carry the
data and that the probe would catch a leak.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from agent.models import QueryLog
from agent.services import question_ask
from documents.jobs import ingest_job_create
from documents.models import Document, IngestJob
from facts.roles import roles_ensure
from tests.clients import client_for
from tests.leakage import QUESTIONS, SEARCHES, restricted_rows, secrets_in
from tests.scripted import ScriptedProvider, prose

pytestmark = pytest.mark.django_db


@dataclass
class Exposure:
    """What one surface showed: its text and the primary keys it named."""

    text: str = ""
    chunk_ids: set[int] = field(default_factory=set)
    fact_ids: set[int] = field(default_factory=set)
    faq_ids: set[int] = field(default_factory=set)
    document_ids: set[int] = field(default_factory=set)

    def add(self, text: str) -> None:
        self.text += "\n" + text


@dataclass
class World:
    analyst: Any
    curator: Any
    cleared: bool
    restricted: dict[str, set[int]]


@pytest.fixture
def world_for(demo: dict[str, Any]) -> Callable[[bool], World]:
    users = demo["users"]
    _, curators = roles_ensure()
    uncleared_curator = get_user_model().objects.create_user("curator_uncleared", is_staff=True)
    uncleared_curator.groups.add(curators)
    restricted = restricted_rows()

    def build(cleared: bool) -> World:
        if cleared:
            return World(users["analyst_cleared"], users["curator"], True, restricted)
        return World(users["analyst"], uncleared_curator, False, restricted)

    return build


def _session(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ask_api(world: World) -> Exposure:
    seen = Exposure()
    client = client_for(world.analyst)
    for question in QUESTIONS:
        body = client.post("/v1/ask", {"question": question}, format="json").json()
        seen.add(json.dumps({k: v for k, v in body.items() if k != "question"}, ensure_ascii=False))
        seen.document_ids |= {s["document_id"] for s in body["sources"] if s.get("document_id")}
    return seen


def ask_stream_api(world: World) -> Exposure:
    seen = Exposure()
    client = client_for(world.analyst)
    for question in QUESTIONS[:3]:
        response = client.post("/v1/ask/stream", {"question": question}, format="json")
        seen.add(b"".join(response.streaming_content).decode().replace(f'"question": "{question}"', ""))
    return seen


def ui_pages_and_csv(world: World) -> Exposure:
    seen = Exposure()
    browser = _session(world.analyst)
    for question in QUESTIONS:
        browser.post("/ask", {"question": question}, HTTP_HX_REQUEST="true")
    page = browser.get("/").content.decode()
    seen.add(page)
    for index in range(len(QUESTIONS)):
        seen.add(browser.get(f"/turns/{index}/facts.csv").content.decode("utf-8-sig"))
    return seen


def document_pages(world: World) -> Exposure:
    seen = Exposure()
    browser = _session(world.analyst)
    for document in Document.objects.all():
        response = browser.get(f"/documents/{document.pk}/")
        if response.status_code == 200:
            seen.document_ids.add(document.pk)
            seen.add(response.content.decode())
    return seen


def search_api(world: World) -> Exposure:
    seen = Exposure()
    client = client_for(world.analyst)
    for query in SEARCHES:
        for mode in ("bm25", "vector", "hybrid"):
            response = client.get("/v1/search", {"q": query, "mode": mode, "k": 50})
            seen.add(json.dumps(response.json(), ensure_ascii=False))
            if response.status_code == 200:
                seen.chunk_ids |= {hit["chunk_id"] for hit in response.json()}
    return seen


def facts_api(world: World) -> Exposure:
    seen = Exposure()
    client = client_for(world.analyst)
    for query in ({"limit": 500}, {"entity": "ACME_SEA"}, {"metric": "NET_PROFIT", "limit": 500}):
        body = client.get("/v1/facts", query).json()
        seen.add(json.dumps(body, ensure_ascii=False))
    return seen


def faq_api(world: World) -> Exposure:
    seen = Exposure()
    client = client_for(world.analyst)
    body = client.get("/v1/faq").json()
    seen.add(json.dumps(body, ensure_ascii=False))
    seen.faq_ids |= {item["id"] for item in body}
    for pk in world.restricted["faq_ids"]:
        response = client.get(f"/v1/faq/{pk}")
        if response.status_code == 200:
            seen.faq_ids.add(pk)
            seen.add(json.dumps(response.json(), ensure_ascii=False))
    return seen


def jobs_api(world: World) -> Exposure:
    """A RESTRICTED upload by another curator, read back through `GET /v1/jobs/{id}`."""
    seen = Exposure()
    uploader = get_user_model().objects.create_user("uploader", is_staff=True)
    uploader.groups.add(roles_ensure()[1])
    data = "# 越南门店\n\n越南一家区域连锁的尽职调查纪要。\n".encode()
    job = ingest_job_create(
        name="东南亚扩张计划_内部_附录.md", data=data, sensitivity="RESTRICTED", created_by=uploader
    )
    assert IngestJob.objects.get(pk=job.pk).status == "done"
    response = client_for(world.curator).get(f"/v1/jobs/{job.pk}")
    if response.status_code == 200:
        seen.add(json.dumps(response.json(), ensure_ascii=False))
    return seen


ADMIN_PAGES = (
    "/admin/facts/factmetric/?q=ACME_SEA",
    "/admin/facts/factmetric/",
    "/admin/documents/document/",
    "/admin/documents/document/?q=东南亚",
    "/admin/documents/ingestjob/",
    "/admin/faq/faqitem/",
    "/admin/faq/faqitem/test/?question=蓝鲸项目进展如何",
    "/admin/agent/querylog/",
    "/admin/agent/querylog/gaps/",
)


def admin_pages(world: World, settings: Any) -> Exposure:
    """Django admin for a curator; the cleared analyst's traced question names RESTRICTED matters."""
    settings.RAGSPINE = {**settings.RAGSPINE, "LOG_QUESTIONS": True}
    question_ask("蓝鲸项目的尽职调查结论是什么", user=get_user_model().objects.get(username="analyst_cleared"))
    uploader = get_user_model().objects.get(username="curator")
    ingest_job_create(
        name="东南亚扩张计划_内部_纪要.md",
        data="# 纪要\n\n越南门店。\n".encode(),
        sensitivity="RESTRICTED",
        created_by=uploader,
    )
    seen = Exposure()
    browser = _session(world.curator)
    for page in ADMIN_PAGES:
        response = browser.get(page)
        assert response.status_code == 200, page
        seen.add(response.content.decode())
    pages = [
        *(f"/admin/facts/factmetric/{pk}/change/" for pk in world.restricted["fact_ids"]),
        *(f"/admin/documents/document/{pk}/change/" for pk in world.restricted["document_ids"]),
        *(f"/admin/faq/faqitem/{pk}/change/" for pk in world.restricted["faq_ids"]),
    ]
    for page in pages:
        response = browser.get(page, follow=True)
        seen.add(response.content.decode())
    return seen


def prompts_to_the_model(world: World, settings: Any) -> Exposure:
    """Every prompt RAGSpine sends: LLM routing, query rewriting, reranking and synthesis."""
    settings.RAGSPINE = {**settings.RAGSPINE, "LLM_ROUTING": True, "RERANK": True}
    seen = Exposure()
    for question in QUESTIONS:
        provider = ScriptedProvider(*[prose("见资料 [1]。") for _ in range(8)])
        question_ask(question, user=world.analyst, provider=provider)
        seen.add(json.dumps(provider.requests, ensure_ascii=False).replace(question, ""))
    assert seen.text.count('"system"') >= len(QUESTIONS), "too few prompts were sent to prove anything"
    return seen


def traces(world: World) -> Exposure:
    seen = Exposure()
    for question in QUESTIONS:
        question_ask(question, user=world.analyst)
    for log in QueryLog.objects.filter(user=world.analyst):
        seen.chunk_ids |= {int(pk) for pk, _ in log.chunk_scores}
        if log.faq_id:
            seen.faq_ids.add(log.faq_id)
    return seen


def ask_command(world: World) -> Exposure:
    seen = Exposure()
    for question in QUESTIONS:
        out = StringIO()
        call_command("ask", question, "--user", world.analyst.username, "--json", stdout=out)
        body = json.loads(out.getvalue())
        seen.add(json.dumps({k: v for k, v in body.items() if k != "question"}, ensure_ascii=False))
    return seen


SURFACES: dict[str, Callable[..., Exposure]] = {
    "ask API": ask_api,
    "ask stream API": ask_stream_api,
    "UI answers and CSV exports": ui_pages_and_csv,
    "document pages": document_pages,
    "search API": search_api,
    "facts API": facts_api,
    "FAQ API": faq_api,
    "jobs API": jobs_api,
    "admin": admin_pages,
    "prompts to the model": prompts_to_the_model,
    "traces": traces,
    "ask command": ask_command,
}


def _leaks(seen: Exposure, world: World) -> list[str]:
    found = [f"text {secret!r}" for secret in secrets_in(seen.text)]
    for kind in ("chunk_ids", "fact_ids", "faq_ids", "document_ids"):
        found += [f"{kind} {pk}" for pk in sorted(getattr(seen, kind) & world.restricted[kind])]
    return found


def _observe(name: str, world: World, settings: Any) -> Exposure:
    surface = SURFACES[name]
    return surface(world, settings) if surface in (admin_pages, prompts_to_the_model) else surface(world)


@pytest.mark.parametrize("name", SURFACES)
def test_nothing_restricted_reaches_an_uncleared_user(name: str, world_for: Any, settings: Any) -> None:
    world = world_for(False)
    assert _leaks(_observe(name, world, settings), world) == []


@pytest.mark.parametrize("name", SURFACES)
def test_the_same_surface_does_show_it_to_a_cleared_user(name: str, world_for: Any, settings: Any) -> None:
    world = world_for(True)
    assert _leaks(_observe(name, world, settings), world), f"{name} never carries RESTRICTED data: the probe is blind"
