"""Say it once: an answer panel shows one headline sentence, then its card or
chart, then one collapsible table of the inputs with their sources; no figure is repeated outside
that table, and none is lost."""

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
from agent.say_once import figures_in, shown_figures, text_once


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
        "最高的是 甲（8,640.1 百万元）。",
        "排名（从高到低）：",  # its heading stays with the line not covered under it
        "未找到：丙（无该数据）",  # nothing shows it elsewhere
        "数据：",
        "· 乙 FY2025 营业利润：1,932.4 百万元（另 77.7）",  # 77.7 is shown nowhere else
    ]
    assert text_once(text, set(), ["公式"]) == text  # no views: the text says it all


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
def test_each_figure_appears_once_outside_the_collapsible_inputs(web: Client, question: str) -> None:
    panel = _panel(web, question)
    headline = re.search(r'<div class="text">(.*?)</div>', panel, re.S)
    assert headline is not None and "<br>" not in headline.group(1)  # one sentence
    views = _without_details(panel.replace(headline.group(0), ""))
    counts = Counter(figures_in(_words(views)))
    assert counts and all(n == 1 for n in counts.values()), counts
    # nothing is lost: every figure the channel wrote is in the panel, collapsed or not
    written = ConversationTurn.objects.latest("pk").sections["structured"]
    assert set(figures_in(written)) <= set(figures_in(_words(panel)))


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
