"""The analyst's language: the page's chrome follows the UI language (the
header's switch), an answer's panel follows its question's language, both through the catalogues."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from agent.page.labels import answer_language, panel_labels


@pytest.fixture
def web(demo: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    return client


def _headers(body: str) -> list[str]:
    inputs = body[body.rindex('<details class="answer-inputs">') :]
    return re.findall(r"<th[^>]*>([^<]+)</th>", inputs[: inputs.index("</thead>")])


def test_the_panel_labels_come_from_the_catalogues_in_the_answers_language() -> None:
    with answer_language("en"):
        english = panel_labels()
    with answer_language("zh"):
        chinese = panel_labels()
    assert english["entity"] == "Entity" and chinese["entity"] == "实体"
    assert english["inputs"].format(count=2) == "Figures and sources (2)"
    assert chinese["inputs"].format(count=2) == "数据与来源（2 项）"
    assert sum(chinese[key] == english[key] for key in english) == 0  # every one translated


@pytest.mark.django_db
def test_an_english_ui_keeps_a_chinese_questions_answer_in_chinese(web: Client) -> None:
    web.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    web.post("/ask", {"question": "2025年各地区营业利润排名"})
    web.post("/ask", {"question": "Rank the regions by operating profit in 2025"})
    body = web.get("/").content.decode()
    assert '<html lang="en"' in body and ">Recent questions</h2>" in body  # the chrome
    first, second = body.split('<article class="turn"')[1:3]
    assert _headers(first) == ["实体", "期间", "指标", "渠道", "数值", "单位", "来源"]
    assert ">数据</span>" in first and "ACME中国内地" in first
    assert _headers(second) == ["Entity", "Period", "Metric", "Channel", "Value", "Unit", "Source"]
    assert ">Data</span>" in second and "<td>mainland China</td>" in second and "<td>operating profit</td>" in second
    strings = json.loads(re.search(r'<script id="page-strings" type="application/json">(.*?)</script>', body).group(1))
    assert strings["looking"] == "Looking it up…"  # the script's words follow the UI


@pytest.mark.django_db
def test_a_chinese_ui_answers_an_english_question_in_english(web: Client) -> None:
    web.post("/ask", {"question": "Rank the regions by operating profit in 2025"})
    body = web.get("/").content.decode()
    assert ">最近的问题</h2>" in body  # the chrome stays Chinese
    assert _headers(body) == ["Entity", "Period", "Metric", "Channel", "Value", "Unit", "Source"]
    assert ">Export CSV</a>" in body and ">This figure is wrong</summary>" in body
    strings = json.loads(re.search(r'<script id="page-strings" type="application/json">(.*?)</script>', body).group(1))
    assert strings["looking"] == "正在查询…"


@pytest.mark.django_db
def test_a_series_speaks_its_questions_language_under_either_ui(web: Client) -> None:
    web.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    web.post("/ask", {"question": "集团FY2021到FY2025营收及每年增长"})
    body = web.get("/").content.decode()
    series = body[body.index('<section class="series"') :]
    assert '<th scope="col">期间</th>' in series and "缺失 1 期：FY2021" in series
    assert ">Recent questions</h2>" in body


@pytest.mark.django_db
def test_the_language_switch_names_each_language_in_itself(web: Client) -> None:
    assert 'data-language="en">English</a>' in web.get("/").content.decode()
    web.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert 'data-language="zh-hans">简体中文</a>' in web.get("/").content.decode()
