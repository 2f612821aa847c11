"""The analyst UI without a browser: plain posts, htmx fragments, escaping, follow-ups, export, feedback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from agent.models import ConversationTurn, QueryLog
from agent.page.forms import AskForm
from core.model.registry import KIND_BADGES, ROUTE_BADGES
from documents.models import Document
from documents.services import document_ingest

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(demo) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    return client


def test_every_badge_in_the_registry_has_its_tone_in_the_stylesheet() -> None:
    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "app.css").read_text(encoding="utf-8")
    badges = [*ROUTE_BADGES.values(), *(b for b in KIND_BADGES.values() if b is not None)]
    assert all(f".{badge.css_class} " in css for badge in badges)


def test_route_and_kind_badges_come_from_the_registry(web: Client) -> None:
    body = web.post("/ask", {"question": "哪些文件提到了存储芯片"}, HTTP_HX_REQUEST="true").content.decode()
    assert '<span class="badge tone-documents"' in body and ">找文件</span>" in body
    body = web.post("/ask", {"question": "中国内地2025年ROE是多少"}, HTTP_HX_REQUEST="true").content.decode()
    assert '<span class="badge tone-refused">未作答</span>' in body


def test_the_ask_page_needs_login(demo) -> None:
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_plain_form_post_works_without_javascript(web: Client) -> None:
    response = web.post("/ask", {"question": "中国内地FY2025的营收是多少"})
    assert response.status_code == 302 and response["Location"] == "/#turn-0"
    page = web.get("/").content.decode()
    assert "96,120.3" in page and "<html" in page and "ACME_FY2025_Annual_Results.pptx" in page


def test_htmx_gets_only_the_new_turn(web: Client) -> None:
    response = web.post("/ask", {"question": "中国内地FY2025的营收是多少"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<article class="turn" id="turn-0"') and "<html" not in body
    assert "96,120.3" in body and "<details" in body and 'id="recent" hx-swap-oob="true"' in body


def test_assumptions_show_a_banner_with_narrowing_buttons_that_carry_the_scope(web: Client) -> None:
    body = web.post("/ask", {"question": "营收是多少"}, HTTP_HX_REQUEST="true").content.decode()
    assert "【假设】" in body and 'name="scope_entity" value="ACME_HK"' in body
    assert body.count("【假设】") == 1 and '<div class="text">ACME集团 FY2025 营业收入' in body
    narrowed = web.post("/ask", {"question": "营收是多少", "scope_entity": "ACME_HK"}, HTTP_HX_REQUEST="true")
    assert "24,015.8" in narrowed.content.decode()


def test_follow_ups_inherit_the_missing_slots(web: Client) -> None:
    web.post("/ask", {"question": "中国内地FY2025的营收是多少"})
    body = web.post("/ask", {"question": "那香港呢？"}, HTTP_HX_REQUEST="true").content.decode()
    assert "【沿用上一问】" in body and "24,015.8" in body
    body = web.post("/ask", {"question": "2024年呢？"}, HTTP_HX_REQUEST="true").content.decode()
    assert "25,730.1" in body  # Hong Kong revenue FY2024: entity and metric inherited


def test_hostile_question_and_document_text_are_escaped(web: Client) -> None:
    document_ingest(name="evil.md", data="# x\n## y\n<script>alert(1)</script>恶意脚本测试。\n".encode())
    body = web.post(
        "/ask", {"question": "<script>alert('x')</script>恶意脚本测试"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<script>alert" not in body and "&lt;script&gt;" in body


def test_empty_and_overlong_questions_get_a_clear_error(web: Client) -> None:
    response = web.post("/ask", {"question": "  "}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "请输入问题" in response.content.decode()
    response = web.post("/ask", {"question": "字" * 2001})
    assert response.status_code == 400 and "问题太长了" in response.content.decode()


@pytest.mark.parametrize(
    ("question", "error"),
    [
        ("", "请输入问题。"),
        ("  ", "请输入问题。"),
        ("\u200b\u200d", "请输入问题。"),
        ("字" * 2001, "问题太长了（最多 2,000 字）。"),
    ],
)
def test_the_ask_form_refuses_what_is_no_question(question: str, error: str) -> None:
    form = AskForm({"question": question})
    assert not form.is_valid() and form.errors["question"] == [error]


def test_the_ask_form_keeps_only_the_scope_slots_given() -> None:
    form = AskForm({"question": " 营收是多少 ", "scope_entity": " ACME_HK ", "scope_period": ""})
    assert form.is_valid() and form.cleaned_data["question"] == "营收是多少"
    assert form.scope == {"entity": "ACME_HK"}


def test_facts_export_as_csv(web: Client) -> None:
    web.post("/ask", {"question": "集团2024年和2025年营收对比"})
    response = web.get("/turns/0/facts.csv")
    lines = response.content.decode("utf-8-sig").splitlines()
    assert response["Content-Type"].startswith("text/csv")
    assert lines[0].startswith("entity,metric,period") and "ACME_GROUP,REVENUE,FY2024,TOTAL,118340.2,CNY_M" in lines[1]
    assert web.get("/turns/9/facts.csv").status_code == 404


def test_feedback_is_stored_on_the_trace(web: Client) -> None:
    web.post("/ask", {"question": "营收是多少"})
    response = web.post("/turns/0/feedback", {"vote": "down", "reason": "想看季度数"}, HTTP_HX_REQUEST="true")
    assert "谢谢" in response.content.decode()
    log = QueryLog.objects.latest("created_at")
    assert (log.feedback, log.feedback_reason) == (-1, "想看季度数")


def test_a_chart_appears_when_an_answer_spans_periods(web: Client) -> None:
    body = web.post("/ask", {"question": "集团2024年和2025年营收对比"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<svg" in body and "FY2024" in body


def test_restricted_documents_are_404_for_the_uncleared(demo) -> None:
    secret = Document.objects.get(name="东南亚扩张计划_内部.docx")
    analyst, cleared = Client(), Client()
    analyst.force_login(demo["users"]["analyst"])
    cleared.force_login(demo["users"]["analyst_cleared"])
    assert analyst.get(f"/documents/{secret.pk}/").status_code == 404
    page = cleared.get(f"/documents/{secret.pk}/")
    assert page.status_code == 200 and "蓝鲸" in page.content.decode()


def test_recent_questions_are_listed(web: Client) -> None:
    web.post("/ask", {"question": "营收是多少"})
    web.post("/ask", {"question": "香港的毛利率"})
    aside = web.get("/").content.decode().split("<aside", 1)[1]
    assert aside.index("香港的毛利率") < aside.index("营收是多少")
    # each links to its stored answer, which re-opens as it was: no question is asked again
    links = re.findall(r'href="(/conversations/[^"]+/turns/(\d+))"', aside)
    assert [int(n) for _, n in links] == [1, 0]
    asked = ConversationTurn.objects.count()
    opened = web.get(links[1][0])
    assert opened.status_code == 302 and opened["Location"].endswith("#turn-0")
    assert ConversationTurn.objects.count() == asked
    other = Client()
    other.force_login(get_user_model().objects.exclude(pk=web.session["_auth_user_id"]).first())
    assert other.get(links[1][0]).status_code == 404  # another user's conversation is not theirs to open


def test_the_ask_form_can_stream_the_checked_answer_then_the_turn(web: Client) -> None:
    response = web.post("/ask", {"question": "香港收入为什么下降"}, HTTP_ACCEPT="text/event-stream")
    assert response["Content-Type"].startswith("text/event-stream")
    text = b"".join(response.streaming_content).decode()
    names = [line.removeprefix("event: ") for line in text.splitlines() if line.startswith("event: ")]
    assert names[0] == "meta" and "delta" in names and names[-1] == "turn"
    html = __import__("json").loads(text.rsplit("event: turn\ndata: ", 1)[1])["html"]
    assert '<article class="turn" id="turn-0"' in html and "24,015.8" in html
    assert web.get("/").content.decode().count('id="turn-0"') == 1  # the turn was kept in the conversation
