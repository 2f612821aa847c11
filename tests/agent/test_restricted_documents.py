"""A fact is as sensitive as its document, on every surface.

The demo's `ACME_HK REVENUE FY2025` fact stays INTERNAL on its own row but is moved into a
RESTRICTED board pack: to an uncleared analyst it must behave exactly as if it did not exist
, through `/v1/facts`, `/v1/ask` (a level, a growth and a ranking), the CSV export and
the document page; a cleared analyst still gets it, which proves each probe can see it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.model.facts import INTERNAL, RESTRICTED
from documents.models import Document
from facts.models import FactMetric
from tests.factories import document_make

pytestmark = pytest.mark.django_db

ASK = {"reference_date": "2026-03-15"}
BOARD_PACK = "ACME香港_董事会资料_内部.xlsx"
# What only the moved fact shows: its value as stored and as rendered, and its document's name.
SECRETS = ("24015.8", "24,015.8", BOARD_PACK)


@pytest.fixture
def board_pack(demo: dict[str, Any]) -> Document:
    secret = document_make(BOARD_PACK, sensitivity=RESTRICTED)
    moved = FactMetric.objects.filter(
        entity_id="ACME_HK", metric_id="REVENUE", period_type="FY", period="2025", channel_id="TOTAL"
    ).update(document=secret, source_doc=BOARD_PACK, locator="sheet=董事会!C4")
    assert moved == 1
    assert FactMetric.objects.get(document=secret).sensitivity == INTERNAL  # the row itself is not RESTRICTED
    return secret


def ask(client: APIClient, question: str) -> dict[str, Any]:
    response = client.post("/v1/ask", {"question": question, **ASK}, format="json")
    assert response.status_code == 200
    return response.json()


def leaks(shown: Any, secret: Document) -> list[str]:
    """The secrets in a response body (JSON) or a page or file (text), and any link to the document."""
    text = shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False)
    found = [s for s in SECRETS if s in text]
    if re.search(rf'"document_id": {secret.pk}\b', text):
        found.append(f"document_id {secret.pk}")
    return found


def test_the_facts_api_hides_it_from_the_uncleared(board_pack, analyst: APIClient, cleared: APIClient) -> None:
    query = {"entity": "ACME_HK", "metric": "REVENUE", "period": "FY2025", "channel": "TOTAL"}
    hidden = analyst.get("/v1/facts", query).json()
    assert hidden["count"] == 0 and leaks(hidden["results"], board_pack) == []
    every = analyst.get("/v1/facts", {"limit": 500}).json()
    assert every["count"] == 70 and leaks(every["results"], board_pack) == []  # 71 before it moved
    shown = cleared.get("/v1/facts", query).json()
    assert shown["count"] == 1
    row = shown["results"][0]
    assert (row["value"], row["source"]["document_id"], row["sensitivity"]) == ("24015.8", board_pack.pk, RESTRICTED)


def test_a_level_answer_refuses_as_if_the_fact_did_not_exist(
    board_pack, analyst: APIClient, cleared: APIClient
) -> None:
    hidden = ask(analyst, "香港2025年营收是多少")
    assert hidden["answer_kind"] == "refusal" and hidden["facts"] == [] and "查不到" in hidden["answer"]
    assert leaks(hidden, board_pack) == []
    shown = ask(cleared, "香港2025年营收是多少")
    assert [f["value"] for f in shown["facts"]] == ["24015.8"]
    assert shown["facts"][0]["source"] == {
        "doc": BOARD_PACK,
        "locator": "sheet=董事会!C4",
        "document_id": board_pack.pk,
    }


def test_a_growth_is_not_computed_from_it(board_pack, analyst: APIClient, cleared: APIClient) -> None:
    hidden = ask(analyst, "香港2025年营收同比增长多少")
    assert hidden["computed"] == [] and "24015.8" not in [f["value"] for f in hidden["facts"]]
    assert leaks(hidden, board_pack) == []
    shown = ask(cleared, "香港2025年营收同比增长多少")
    assert [c["display"] for c in shown["computed"]] == ["-6.66%", "-1,714.3"]


def test_a_ranking_lists_it_as_missing(board_pack, analyst: APIClient, cleared: APIClient) -> None:
    hidden = ask(analyst, "2025年哪个地区营收最高")
    assert [f["entity"] for f in hidden["facts"]] == ["ACME_CN", "ACME_SEA"]
    assert "ACME香港" in hidden["answer"] and leaks(hidden, board_pack) == []
    shown = ask(cleared, "2025年哪个地区营收最高")
    assert [f["entity"] for f in shown["facts"]] == ["ACME_CN", "ACME_HK", "ACME_SEA"]


def test_the_csv_export_leaves_it_out(board_pack, demo: dict[str, Any]) -> None:
    exported = {}
    for username in ("analyst", "analyst_cleared"):
        browser = Client()
        browser.force_login(demo["users"][username])
        browser.post("/ask", {"question": "香港2024年和2025年营收对比", **ASK})
        browser.post("/ask", {"question": "香港2025年营收同比增长多少", **ASK})
        exported[username] = "\n".join(
            browser.get(f"/turns/{index}/facts.csv").content.decode("utf-8-sig") for index in (0, 1)
        )
    assert leaks(exported["analyst"], board_pack) == []
    assert "ACME_HK,REVENUE,FY2024,TOTAL,25730.1" in exported["analyst"]
    assert leaks(exported["analyst_cleared"], board_pack) == list(SECRETS[::2])  # the value and the document


def test_its_document_page_is_404_for_the_uncleared(board_pack, demo: dict[str, Any]) -> None:
    analyst, cleared = Client(), Client()
    analyst.force_login(demo["users"]["analyst"])
    cleared.force_login(demo["users"]["analyst_cleared"])
    assert analyst.get(f"/documents/{board_pack.pk}/").status_code == 404
    page = cleared.get(f"/documents/{board_pack.pk}/")
    assert page.status_code == 200 and BOARD_PACK in page.content.decode()
