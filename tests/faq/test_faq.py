"""The FAQ short-circuit: hits, and every exclusion one by one."""

from __future__ import annotations

import json
from datetime import date
from io import StringIO
from pathlib import Path
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from faq.models import FAQItem

pytestmark = pytest.mark.django_db


def ask(client: APIClient, question: str, reference_date: str = "2026-03-15") -> dict:
    return client.post("/v1/ask", {"question": question, "reference_date": reference_date}, format="json").json()


@pytest.mark.parametrize(
    "question",
    [
        "财年是怎么定义的",
        "财年是怎么定义的？",
        "  財年是怎麼定義的 ",
        "fiscal year definition",
        "FISCAL  YEAR DEFINITION!",
    ],
)
def test_a_hit_on_the_question_or_an_alias_after_normalisation(analyst: APIClient, question: str) -> None:
    item = FAQItem.objects.get(question="财年是怎么定义的")
    body = ask(analyst, question)
    assert body["route"] == "faq" and body["answer"] == item.answer
    assert body["faq"] == {"id": item.pk, "version": 3}
    assert body["sources"] == [
        {
            "kind": "faq",
            "doc": "财务制度手册 v3.2 · 第1章",
            "locator": f"faq={item.pk},version=3",
            "document_id": None,
            "snippet": "",
        }
    ]
    item.refresh_from_db()
    assert item.hit_count == 1 and item.last_hit_at is not None


def test_a_hit_touches_no_store_retriever_or_provider(analyst: APIClient) -> None:
    with (
        mock.patch("facts.selectors.fact_get") as store,
        mock.patch("retrieval.selectors.chunk_search") as search,
        mock.patch("core.routes.lookup.provider.MockProvider.create_message") as llm,
    ):
        assert ask(analyst, "财年是怎么定义的")["route"] == "faq"
    assert not store.called and not search.called and not llm.called


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("最新的财年是怎么定义的", "real-time cue"),
        ("财年是怎么定义的（现在）", "real-time cue"),
        ("ＬＡＴＥＳＴ fiscal year definition", "full-width real-time cue"),
        ("2025年财年是怎么定义的", "a period slot"),
        ("香港财年是怎么定义的", "an entity slot"),
    ],
)
def test_questions_that_need_the_full_agent_fall_through(analyst: APIClient, question: str, why: str) -> None:
    FAQItem.objects.filter(question="财年是怎么定义的").update(aliases=["财年口径", question])
    assert ask(analyst, question)["route"] != "faq", why


def test_disabled_expired_and_not_yet_valid_items_are_misses(analyst: APIClient) -> None:
    assert ask(analyst, "差旅报销标准是什么")["route"] != "faq"  # disabled
    assert ask(analyst, "年报什么时候发布")["route"] != "faq"  # valid until 2025-12-31
    assert ask(analyst, "年报什么时候发布", reference_date="2025-12-31")["route"] == "faq"  # inclusive
    assert ask(analyst, "如何申请数据权限", reference_date="2024-12-31")["route"] != "faq"  # valid from 2025-01-01
    assert ask(analyst, "如何申请数据权限", reference_date="2025-01-01")["route"] == "faq"


def test_restricted_items_are_never_served_as_cached_answers(analyst: APIClient, cleared: APIClient) -> None:
    for client in (analyst, cleared):
        body = ask(client, "蓝鲸项目进展如何")
        assert body["route"] != "faq"
    assert "尽职调查" not in ask(analyst, "蓝鲸项目进展如何")["answer"]


def test_a_lowercase_restricted_in_an_import_is_still_restricted(demo, tmp_path: Path) -> None:
    path = tmp_path / "faq.csv"
    path.write_text(
        "question,aliases,answer,source,sensitivity\n内部项目代号是什么,,代号保密。,制度,restricted\n", encoding="utf-8"
    )
    call_command("import_faq", str(path), stdout=StringIO())
    assert FAQItem.objects.get(question="内部项目代号是什么").sensitivity == "RESTRICTED"


def test_import_faq_is_atomic_with_row_numbers(demo, tmp_path: Path) -> None:
    path = tmp_path / "faq.json"
    path.write_text(
        json.dumps(
            [
                {"question": "新问题", "answer": "答", "source": "s"},
                {"question": "坏问题", "answer": "答", "source": "s", "valid_from": "2026-13-01"},
            ]
        )
    )
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_faq", str(path), stdout=StringIO(), stderr=err)
    assert "row 2" in err.getvalue() and not FAQItem.objects.filter(question="新问题").exists()


def test_faq_changes_take_effect_on_the_next_question(analyst: APIClient) -> None:
    item = FAQItem.objects.get(question="公司主要做什么业务")
    assert ask(analyst, "这家公司是做什么的")["route"] != "faq"
    item.aliases = [*item.aliases, "这家公司是做什么的"]
    item.save()
    assert ask(analyst, "这家公司是做什么的")["route"] == "faq"


def test_similarity_matching_is_off_by_default_and_has_a_threshold(analyst: APIClient, settings) -> None:
    assert ask(analyst, "请问财年是怎么定义")["route"] != "faq"
    settings.RAGSPINE = {**settings.RAGSPINE, "FAQ_SIMILARITY": 0.6}
    assert ask(analyst, "请问财年是怎么定义")["route"] == "faq"
    settings.RAGSPINE = {**settings.RAGSPINE, "FAQ_SIMILARITY": 0.99}
    assert ask(analyst, "请问财年是怎么定义")["route"] != "faq"


def test_the_admin_tester_names_the_exclusion(demo, client) -> None:
    client.force_login(demo["users"]["curator"])
    url = "/admin/faq/faqitem/test/"
    for question, expected in [
        ("财年是怎么定义的", "命中"),
        ("最新的财年是怎么定义的", "实时性"),
        ("差旅报销标准是什么", "已停用"),
        ("年报什么时候发布", "有效期"),
        ("蓝鲸项目进展如何", "RESTRICTED"),
        ("营收是多少", "结构化问题"),
        ("竞安的财年是怎么定义的", "安全闸门"),
    ]:
        page = client.get(url, {"question": question, "reference_date": date(2026, 3, 15).isoformat()})
        assert page.status_code == 200 and expected in page.content.decode(), question


def test_analysts_cannot_reach_admin(demo, client) -> None:
    client.force_login(demo["users"]["analyst"])
    assert client.get("/admin/faq/faqitem/").status_code == 302
    client.force_login(demo["users"]["curator"])
    assert client.get("/admin/faq/faqitem/").status_code == 200
