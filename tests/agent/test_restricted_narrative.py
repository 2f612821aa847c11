"""Invariant 5 on the narrative channel: RESTRICTED text behaves as absent for an uncleared user."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from agent.services import question_ask
from tests.scripted import ScriptedProvider, prose

pytestmark = pytest.mark.django_db
SECRET_DOC = "东南亚扩张计划_内部.docx"
SECRETS = ("蓝鲸", "12亿美元", "14.03", SECRET_DOC)


@pytest.mark.parametrize(
    "question", ["东南亚扩张有什么计划", "蓝鲸项目进展如何", "哪些文件提到了东南亚扩张", "东南亚净利润为什么亏损"]
)
def test_uncleared_answers_and_sources_never_show_restricted_text(analyst: APIClient, question: str) -> None:
    body = analyst.post("/v1/ask", {"question": question}, format="json").json()
    dumped = str({key: value for key, value in body.items() if key != "question"}).replace(question, "")
    assert not any(secret in dumped for secret in SECRETS), question


def test_cleared_users_do_see_it(cleared: APIClient) -> None:
    body = cleared.post("/v1/ask", {"question": "东南亚扩张有什么计划"}, format="json").json()
    assert SECRET_DOC in {s["doc"] for s in body["sources"]}


def test_prompts_to_a_model_never_carry_restricted_text(demo) -> None:
    provider = ScriptedProvider(prose("东南亚仍在投入期 [1]。"), prose("无"))
    question_ask("东南亚扩张有什么计划", user=demo["users"]["analyst"], provider=provider)
    assert provider.requests, "the synthesis prompt was not sent"
    prompts = str(provider.requests)
    assert not any(secret in prompts for secret in SECRETS)
    cleared_provider = ScriptedProvider(prose("见资料 [1]。"))
    question_ask("东南亚扩张有什么计划", user=demo["users"]["analyst_cleared"], provider=cleared_provider)
    assert SECRET_DOC in str(cleared_provider.requests)


def test_composite_answers_keep_facts_and_cite_documents(analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "香港收入为什么下降"}, format="json").json()
    assert body["route"] == "composite" and body["facts"][0]["value"] == "24015.8"
    structured, narrative = body["answer"].split("\n\n归因分析：\n")
    assert "24,015.8" in structured
    assert {"fact", "chunk"} == {s["kind"] for s in body["sources"]}
    assert all(line.endswith("）") for line in narrative.splitlines())
    assert body["guard"]["numbers_unsupported"] == 0


def test_find_documents_lists_documents_with_locators(analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "哪些文件提到了存储芯片"}, format="json").json()
    assert body["route"] == "find_documents" and body["answer_kind"] == "answer"
    assert body["sources"][0]["kind"] == "document"
    assert "供应链与原材料成本说明.md" in {s["doc"] for s in body["sources"]}
    assert all(re.match(r"^(section|page|slide|sheet|table)=", s["locator"]) for s in body["sources"])
