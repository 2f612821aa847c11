from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from core.golden import unexplained_digits

pytestmark = pytest.mark.django_db
GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "golden.jsonl"


def test_facts_api_filters_by_alias_and_hides_restricted(analyst: APIClient, cleared: APIClient) -> None:
    assert analyst.get("/v1/facts", {"entity": "香港", "metric": "营收", "period": "FY2025"}).json()["count"] == 3
    body = analyst.get("/v1/facts", {"entity": "香港", "metric": "营收", "period": "FY2025", "channel": "合计"}).json()
    assert body["count"] == 1
    assert body["results"][0]["value"] == "24015.8"
    assert body["results"][0]["source"]["doc"] == "ACME_FY2025_Annual_Results.pptx"
    hidden = analyst.get("/v1/facts", {"entity": "ACME_SEA", "metric": "NET_PROFIT"}).json()
    shown = cleared.get("/v1/facts", {"entity": "ACME_SEA", "metric": "NET_PROFIT"}).json()
    assert hidden["count"] == 0 and shown["count"] == 1
    every = analyst.get("/v1/facts", {"limit": 500}).json()
    assert every["count"] == 71 and all(r["sensitivity"] != "RESTRICTED" for r in every["results"])
    assert analyst.get("/v1/facts", {"entity": "Atlantis"}).status_code == 400


def test_load_demo_is_idempotent_and_prints_passwords_once(demo) -> None:
    assert demo["out"].count("password:") == 3
    again = StringIO()
    call_command("load_demo", stdout=again)
    assert "password:" not in again.getvalue() and again.getvalue().count(": unchanged,") == 11
    users = demo["users"]
    assert users["analyst_cleared"].has_perm("facts.can_view_restricted")
    assert not users["analyst"].has_perm("facts.can_view_restricted")
    assert users["curator"].is_staff and not users["analyst"].is_staff


def test_drf_create_token_gives_a_working_token(demo) -> None:
    out = StringIO()
    call_command("drf_create_token", "analyst", stdout=out)
    token = out.getvalue().split()[2]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert (
        client.post("/v1/ask", {"question": "HK revenue 2025"}, format="json").json()["facts"][0]["value"] == "24015.8"
    )


def test_ask_command_prints_the_api_json(demo) -> None:
    out = StringIO()
    call_command("ask", "中国内地FY2025的营收是多少", "--json", "--user", "analyst", stdout=out)
    body = json.loads(out.getvalue())
    assert body["facts"][0]["value"] == "96120.3" and body["route"] == "structured"
    with pytest.raises(CommandError):
        call_command("ask", "营收", "--reference-date", "yesterday")
    with pytest.raises(CommandError, match=r"scope\.entity"):
        call_command("ask", "营收", "--scope", "entity=Atlantis", stdout=StringIO())
    narrowed = StringIO()
    call_command("ask", "营收是多少", "--scope", "entity=香港", "--scope", "period=FY2024", stdout=narrowed)
    assert "25,730.1" in narrowed.getvalue()


def test_evaluate_holds_the_baseline_on_the_golden_set(demo) -> None:
    out = StringIO()
    call_command("evaluate", "--golden", str(GOLDEN), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["regressions"] == []
    for prefix in ("num-", "ref-", "ask-", "clr-", "rst-"):
        failing = [case for case in report["failed"] if case.startswith(prefix)]
        assert failing == [], failing
    assert report["fabrication_count"] == 0


def test_evaluate_fails_when_a_gate_falls_below_the_baseline(demo, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(
        json.dumps({"gates": {"pass_rate": 1.0}, "fabrication_count": 0, "passed": ["a-case-that-no-longer-passes"]})
    )
    with pytest.raises(CommandError, match="regression"):
        call_command(
            "evaluate", "--golden", str(GOLDEN), "--baseline", str(baseline), stdout=StringIO(), stderr=StringIO()
        )


@pytest.mark.parametrize(
    ("answer", "question", "digits"),
    [
        ("查不到：营业收入 / ACME集团 / FY2026（渠道 合计）", "集团2026年营收是多少", ""),
        ("ACME集团 FY2025 营业收入：128,450.6 百万元", "营收是多少", "1284506"),
        ("超出范围", "竞安2025年营收是多少", ""),
    ],
)
def test_fabricated_number_detector(answer: str, question: str, digits: str) -> None:
    assert unexplained_digits(answer, question) == digits
