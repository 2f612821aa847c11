"""An answer built from a RESTRICTED passage or document says so to the cleared analyst (the
source's `sensitivity` in the JSON, a label on the page), and the uncleared analyst never
receives the source at all."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from agent.models import ConversationTurn
from agent.page.panel import panel_build
from core.model.facts import RESTRICTED
from documents.models import Document
from facts.selectors import glossary_snapshot

pytestmark = pytest.mark.django_db

QUESTIONS = ("哪些文件提到了东南亚扩张", "东南亚扩张计划的主要风险是什么")


def _asked(demo: dict[str, Any], user: str, question: str) -> dict[str, Any]:
    client = APIClient()
    client.force_authenticate(demo["users"][user])
    response = client.post("/v1/ask", {"question": question}, format="json")
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_restricted_source_is_marked_for_the_cleared_and_absent_for_the_others(demo, question) -> None:
    secret = set(Document.objects.filter(sensitivity=RESTRICTED).values_list("name", flat=True))
    assert secret, "the demo holds a RESTRICTED document"
    cleared = _asked(demo, "analyst_cleared", question)["sources"]
    marked = [s for s in cleared if s["doc"] in secret]
    assert marked and all(s["sensitivity"] == RESTRICTED for s in marked)
    assert all("sensitivity" not in s for s in cleared if s["doc"] not in secret)  # the SPEC's keys otherwise
    assert not [s for s in _asked(demo, "analyst", question)["sources"] if s["doc"] in secret]


def test_the_page_labels_an_answer_that_cites_a_restricted_document(demo) -> None:
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    client.post("/ask", {"question": QUESTIONS[0]})
    client.post("/ask", {"question": "哪些文件提到了存储芯片"})
    glossary = glossary_snapshot()
    restricted, plain = (panel_build(t, glossary) for t in ConversationTurn.objects.order_by("position"))
    assert restricted.sensitivity == RESTRICTED and plain.sensitivity is None
    page = client.get("/").content.decode()
    assert page.count('class="badge sensitivity restricted"') == 1
