"""Say it once: an answer panel shows each part's headline once, then its card, chart or table,
then one collapsible table of the inputs with their sources; no figure is repeated among the
views outside that table, and none is lost."""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from typing import Any

import pytest
from django.test import Client

from agent.models import ConversationTurn
from agent.page.say_once import figures_in, shown_figures, text_once


def test_figures_are_numbers_with_a_separator_a_point_or_a_percent() -> None:
    line = "2. ACME香港 FY2025 第4张幻灯片 · 表1：+1,932.4 百万元，增长 8.5%，共 3 项，-1,085.2"
    assert figures_in(line) == ["1,932.4", "8.5%", "-1,085.2"]


def test_the_text_keeps_its_headline_and_what_no_view_shows() -> None:
    text = "\n".join(
        [
            "最高的是 甲（8,640.1 百万元）。",
            "排名（从高到低）：",
            "1. 甲 8,640.1 百万元",
            "2. 乙 1,932.4 百万元",
            "未找到：丙（无该数据）",
            "公式：按 FY2025 营业利润 从高到低排序（2 项参与排名）",
            "数据：",
            "· 甲 FY2025 营业利润：8,640.1 百万元",
            "· 乙 FY2025 营业利润：1,932.4 百万元（另 77.7）",
        ]
    )
    shown = shown_figures(["8,640.1", "1,932.4"])
    assert text_once(text, shown, ["公式"]).split("\n") == [
        "最高的是 甲（8,640.1 百万元）。",  # a headline: kept
        "未找到：丙（无该数据）",  # a headline of its own; the ranking's heading went with its lines
        "数据：",  # a heading stays with the line not covered under it
        "· 乙 FY2025 营业利润：1,932.4 百万元（另 77.7）",  # 77.7 is shown nowhere else
    ]
    assert text_once(text, set(), ["公式"]) == text  # no views: the text says it all


def test_every_part_keeps_its_headline_once_and_a_series_leads_with_what_it_found() -> None:
    text = "\n".join(
        [
            "无法计算：甲 FY2021 营业收入同比增长率。缺少计算所需的数据：甲营业收入 FY2020。",
            "甲 FY2024 营业收入：118,340.2 百万元",
            "甲 FY2025 营业收入：128,450.6 百万元",
            "对比：FY2025 较 FY2024 +10,110.4 百万元（+8.5%）",
            "甲 2025H2 营业收入（推算）为 67,245.8 百万元。",
            "公式：营业收入 FY2025 − 营业收入 2025H1",
            "甲 2025H2 营业收入（推算）为 67,245.8 百万元。",
            "公式：营业收入 2025Q3 + 营业收入 2025Q4",
        ]
    )
    shown = shown_figures(["118,340.2", "128,450.6", "10,110.4", "8.5%", "67,245.8"])
    assert text_once(text, shown, ["公式"], later=["FY2021"]).split("\n") == [
        "甲 FY2024 营业收入：118,340.2 百万元",
        "甲 FY2025 营业收入：128,450.6 百万元",
        "对比：FY2025 较 FY2024 +10,110.4 百万元（+8.5%）",
        "甲 2025H2 营业收入（推算）为 67,245.8 百万元。",  # two derivations that agree: said once
        "无法计算：甲 FY2021 营业收入同比增长率。缺少计算所需的数据：甲营业收入 FY2020。",  # after what was found
    ]


@pytest.fixture
def web(demo: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst_cleared"])
    return client


def _without_details(part: str) -> str:
    """`part` with every `<details>` block (nested ones too) cut out."""
    out, depth, at = [], 0, 0
    for match in re.finditer(r"<details\b[^>]*>|</details>", part):
        if match.group(0).startswith("<details"):
            if depth == 0:
                out.append(part[at : match.start()])
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                at = match.end()
    out.append(part[at:] if depth == 0 else "")
    return "".join(out)


def _panel(client: Client, question: str) -> str:
    body = client.post("/ask", {"question": question}, HTTP_HX_REQUEST="true").content.decode()
    return body[body.index('<div class="answer') : body.index('<div class="actions">')]


def _words(part: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", part))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "question",
    [
        "2025年各地区营业利润排名",  # ranking
        "Rank the regions by operating profit in 2025",  # ranking, in English
        "集团2024年和2025年营收对比",  # comparison
        "集团FY2021到FY2025营收及每年增长",  # series
        "集团2025年营收同比增长多少",  # a computed card
    ],
)
def test_each_part_is_said_once_and_each_figure_once_among_the_views(web: Client, question: str) -> None:
    panel = _panel(web, question)
    headline = re.search(r'<div class="text">(.*?)</div>', panel, re.S)
    assert headline is not None
    said = [html.unescape(line).strip() for line in headline.group(1).split("<br>") if line.strip()]
    assert said and len(said) == len(set(said))  # no line twice
    # a chart labels its points and bars with their values: the tables and cards say each once
    views = re.sub(r"<svg\b.*?</svg>", "", _without_details(panel.replace(headline.group(0), "")), flags=re.S)
    counts = Counter(figures_in(_words(views)))
    assert (counts or "<svg" in panel) and all(n == 1 for n in counts.values()), counts
    # every part's headline is in the text; nothing is lost: every figure the channel wrote is in
    # the panel, collapsed or not
    written = ConversationTurn.objects.latest("pk").sections["structured"].split("\n")
    details = re.compile(r"^(?:·|\d+\.\s|公式|Formula|数据|Inputs)")
    headlines = [line for line in written if line and not details.match(line) and not line.endswith(("：", ":"))]
    text = _words(headline.group(1))
    assert all(figure in figures_in(text) for line in headlines for figure in figures_in(line))
    assert set(figures_in("\n".join(written))) <= set(figures_in(_words(panel)))


@pytest.mark.django_db
def test_the_inputs_table_holds_each_fact_with_its_source_and_the_csv_keeps_everything(web: Client) -> None:
    panel = _panel(web, "2025年各地区营业利润排名")
    inputs = panel[panel.index('<details class="answer-inputs">') :]
    for figure, slide in (("8,640.1", "3"), ("1,932.4", "4"), ("-1,085.2", "5")):
        row = next(r for r in inputs.split("<tr>") if f'<td class="num">{figure}</td>' in r)
        assert f"第{slide}张幻灯片" in row and 'href="/documents/' in row and 'class="dispute"' in row
    assert 'class="sources"' not in panel  # a fact's source row is in the inputs table, not repeated
    rows = list(csv.reader(io.StringIO(web.get("/turns/0/facts.csv").content.decode("utf-8-sig"))))
    flat = " ".join(" ".join(r) for r in rows)
    for value in ("8640.1", "1932.4", "-1085.2"):
        assert value in flat
