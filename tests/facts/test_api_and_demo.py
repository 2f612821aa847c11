from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from agent.golden import unexplained_digits
from agent.models import Conversation

pytestmark = pytest.mark.django_db
GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "golden.jsonl"
COMPUTED = GOLDEN.with_name("computed.jsonl")
PHRASING = GOLDEN.with_name("phrasing.jsonl")
TRENDS = GOLDEN.with_name("trends.jsonl")
BASELINES = Path(__file__).resolve().parents[2] / "eval"
# The sets this project writes for its issues sit in the repository's own golden/.
UNITS_PERIODS = Path(__file__).resolve().parents[2] / "golden" / "units_periods.jsonl"
WHY = UNITS_PERIODS.with_name("why.jsonl")


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


@pytest.mark.parametrize(
    ("golden", "baseline", "must_pass"),
    [
        (GOLDEN, "baseline.json", ("num-", "ref-", "ask-", "clr-", "rst-")),
        (COMPUTED, "baseline-computed.json", ("conv-",)),
        (PHRASING, "baseline-phrasing.json", ("p-",)),
        (TRENDS, "baseline-trends.json", ("t-",)),
        (UNITS_PERIODS, "baseline-units_periods.json", ("up-",)),
        (WHY, "baseline-why.json", ("why-", "doc-", "off-")),
    ],
    ids=["golden", "computed", "phrasing", "trends", "units_periods", "why"],
)
def test_evaluate_holds_the_baseline_on_the_golden_set(
    demo, golden: Path, baseline: str, must_pass: tuple[str, ...]
) -> None:
    out = StringIO()
    call_command("evaluate", "--golden", str(golden), "--json", stdout=out)  # the default baseline of each set
    report = json.loads(out.getvalue())
    assert report["regressions"] == []
    stored = json.loads((BASELINES / baseline).read_text(encoding="utf-8"))
    assert stored["passed"] and set(stored["passed"]) <= set(report["passed"])
    for prefix in must_pass:
        failing = [case for case in report["failed"] if case.startswith(prefix)]
        assert failing == [], failing
    assert report["fabrication_count"] == 0
    assert not Conversation.objects.exists()  # the `before` conversations are removed


def test_evaluate_never_writes_a_baseline_below_the_stored_one(demo, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    held = {"gates": {"pass_rate": 1.0}, "fabrication_count": 0, "passed": ["a-case-that-no-longer-passes"]}
    baseline.write_text(json.dumps(held))
    with pytest.raises(CommandError, match="regression"):
        call_command(
            "evaluate",
            *("--golden", str(COMPUTED), "--baseline", str(baseline), "--write-baseline"),
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert json.loads(baseline.read_text()) == held
    fresh = tmp_path / "fresh.json"
    call_command("evaluate", "--golden", str(COMPUTED), "--baseline", str(fresh), "--write-baseline", stdout=StringIO())
    assert {"conv-01", "conv-02"} <= set(json.loads(fresh.read_text())["passed"])


def test_evaluate_reports_a_conversation_case_without_a_user_and_a_malformed_case(demo, tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"id": "conv-x", "question": "那香港呢？", "before": ["集团2025年营收是多少"], "expect": {}}) + "\n"
    )
    out = StringIO()
    call_command("evaluate", "--golden", str(cases), "--json", stdout=out)
    assert json.loads(out.getvalue())["failed"]["conv-x"] == [
        "a case with 'before' needs a user: a conversation belongs to one"
    ]
    cases.write_text(json.dumps({"id": "bad", "question": "q", "before": "集团2025年营收是多少"}) + "\n")
    with pytest.raises(CommandError, match=r"cases\.jsonl:1: 'before' must be a list of questions"):
        call_command("evaluate", "--golden", str(cases), stdout=StringIO())


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
