"""The whole app wired to a hostile OpenAI-compatible model.

The model never calls a tool and writes invented figures into every reply, in every form the
grounding check must see through; LLM routing and reranking are on, so it is asked at every
step it can be. No answer, over the API or the stream, may show one of its figures.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.clients import client_for
from tests.providers import stub_servers as stubs
from tests.providers.hostile import HOSTILE_QUESTIONS, HOSTILE_REPLY, invented_in, streamed_text

pytestmark = pytest.mark.django_db


def test_the_hostile_reply_holds_every_invented_form() -> None:
    assert len(invented_in(HOSTILE_REPLY)) == 10


def test_no_invented_figure_reaches_an_answer_over_the_api(hostile: stubs.StubServer, demo: dict[str, Any]) -> None:
    client = client_for(demo["users"]["analyst"])
    removed = 0
    for question in HOSTILE_QUESTIONS:
        body = client.post("/v1/ask", {"question": question}, format="json").json()
        assert invented_in(body["answer"]) == [], (question, body["answer"])
        removed += body["guard"]["numbers_unsupported"]
    bodies = json.dumps(hostile.bodies(), ensure_ascii=False)
    assert '"tools"' in bodies and "按与问题的相关性" in bodies, "the model was not asked at every step"
    assert removed >= 8, "the grounding check removed too little for the model to have been heard"


def test_no_invented_figure_reaches_an_answer_over_the_stream(hostile: stubs.StubServer, demo: dict[str, Any]) -> None:
    client = client_for(demo["users"]["analyst"])
    for question in HOSTILE_QUESTIONS:
        response = client.post("/v1/ask/stream", {"question": question}, format="json")
        text = streamed_text(b"".join(response.streaming_content).decode())
        assert text, question
        assert invented_in(text) == [], (question, text)
