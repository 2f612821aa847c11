"""Answers and source lists say where a figure is in words; the machine locator stays in the JSON
and in a tooltip."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(demo: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    return client


def test_an_answer_names_its_sources_in_words(web: Client) -> None:
    body = html.unescape(
        web.post("/ask", {"question": "集团2024年和2025年营收对比"}, HTTP_HX_REQUEST="true").content.decode()
    )
    words = re.sub(r"<[^>]+>", "", body)
    assert "ACME_5yr_Summary.xlsx · ACME集团 · D3 (营业收入, FY2024)" in words
    assert "ACME_FY2025_Annual_Results.pptx · 第2张幻灯片 · 表1 · 营业收入 / FY2025" in words
    assert 'title="sheet=ACME集团!D3"' in body and 'title="slide=2,table=1,row=营业收入,col=FY2025"' in body
    text = body.split('<div class="text">', 1)[1].split("</div>", 1)[0]
    assert "sheet=" not in text and "slide=" not in text  # the answer text carries no machine locator


def test_the_json_keeps_the_machine_locator(demo: dict[str, Any]) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(demo["users"]["analyst"])
    answer = client.post("/v1/ask", {"question": "集团2024年营收是多少"}, format="json").json()
    assert answer["facts"][0]["source"]["locator"] == "sheet=ACME集团!D3"
