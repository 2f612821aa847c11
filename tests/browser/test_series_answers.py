"""Series answers in real Chromium: the analyst types a range question into the page's form and
reads the series table (every period in order, a missing one named) under its line chart, in
Chinese and in English, on a desktop and on a phone.

Screenshots are taken only when `RAGSPINE_SCREENSHOTS` names a folder (`1` means docs/screenshots/):
series-zh.png, series-en.png and series-phone.png.
"""

from __future__ import annotations

import pytest

from tests.browser.support import ask, page_open, shots_folder, static_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ZH = "集团2021至2025年各年营收，每年增长多少"
EN = "Southeast Asia revenue growth for each year from 2022 to 2025"


def shot(page, target, name: str, margin: int = 12) -> None:
    """Screenshot `target` with a margin of the page around it, when screenshots are asked for."""
    folder = shots_folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    box = target.bounding_box()  # in the viewport: the clip of a full-page shot is in the page
    scroll_x, scroll_y = page.evaluate("[window.scrollX, window.scrollY]")
    width = page.viewport_size["width"]
    left = max(box["x"] - margin, 0)
    clip = {
        "x": left + scroll_x,
        "y": box["y"] + scroll_y - margin,
        "width": min(box["width"] + 2 * margin, width - left),
    }
    clip["height"] = box["height"] + 2 * margin
    page.screenshot(path=str(folder / name), clip=clip, full_page=True)


def rows_of(series) -> list[list[str]]:
    """The series table's rows as their cells' text, top first."""
    return [
        [cell.strip() for cell in row.locator("th, td").all_inner_texts()]
        for row in series.locator("table.series-table tr.series-row").all()
    ]


def line_of(series) -> dict:
    chart = series.locator("svg.line-chart")
    return {
        "segments": chart.locator("polyline.line").count(),
        "points": chart.locator("circle.point").count(),
        "periods": chart.locator("text.period").all_text_contents(),
        "gaps": chart.locator("g.gap text").all_text_contents(),
        "box": chart.bounding_box(),
    }


def test_a_series_gets_its_table_and_line_in_chinese_and_english(browser, cleared_site) -> None:
    context, page = page_open(browser, cleared_site, 1280)
    turns = page.locator("article.turn")

    ask(page, ZH)
    zh = turns.nth(0).locator("section.series")
    rows = rows_of(zh)
    assert [r[0] for r in rows] == ["FY2021", "FY2022", "FY2023", "FY2024", "FY2025"]
    assert rows[0][1] == "缺失" and "事实表中没有这一期的数据" in rows[0][-1]
    assert rows[1][1] == "98,215.4" and rows[1][2] == "—"  # no growth without FY2021
    assert rows[2][1:4] == ["106,872.9", "+8.81%", "+8,657.5"]
    assert rows[4][1:4] == ["128,450.6", "+8.54%", "+10,110.4"]
    assert "ACME_5yr_Summary.xlsx" in rows[2][-1] and "打开文档" in rows[2][-1]
    headers = zh.locator("thead th").all_inner_texts()
    assert headers == ["期间", "数值（百万元）", "增长率", "变动额（百万元）", "来源"]
    assert "缺失 1 期：FY2021" in zh.inner_text()
    line = line_of(zh)
    assert line["segments"] == 1 and line["points"] == 4 and line["gaps"] == ["缺失"]
    assert line["periods"] == ["FY2021", "FY2022", "FY2023", "FY2024", "FY2025"]
    assert turns.nth(0).locator("figure.chart, figure.ranking").count() == 0  # no bar chart for a series
    assert turns.nth(0).locator(".computed-card").count() == 0  # the steps sit in the table
    link = zh.locator("td.series-source a").first
    assert link.get_attribute("href").startswith("/documents/")

    ask(page, EN)
    en = turns.nth(1).locator("section.series")
    rows = rows_of(en)
    assert [r[0] for r in rows] == ["FY2022", "FY2023", "FY2024", "FY2025"]
    assert rows[0][1] == "missing" and "no figure in the fact table" in rows[0][-1]
    assert rows[2][1:4] == ["5,207.5", "+55.61%", "+1,861.0"]
    headers = en.locator("thead th").all_inner_texts()
    assert headers == ["Period", "Value (CNY m)", "Growth", "Change (CNY m)", "Source"]
    assert "1 missing: FY2022" in en.inner_text() and "Open document" in en.inner_text()
    line = line_of(en)
    assert line["points"] == 3 and line["gaps"] == ["missing"]
    panel = turns.nth(1).locator(".answer")
    assert "Export CSV" in panel.inner_text() and panel.locator(".sources").count() == 0  # each row has its source
    assert "来源" not in en.inner_text() and "缺失" not in en.inner_text()

    static_form(page)
    shot(page, turns.nth(0).locator("section.series"), "series-zh.png")
    shot(page, turns.nth(1).locator("section.series"), "series-en.png")
    context.close()


def test_a_series_fits_a_phone(browser, cleared_site) -> None:
    context, page = page_open(browser, cleared_site, 390)
    ask(page, ZH)
    series = page.locator("article.turn").nth(0).locator("section.series")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    chart = series.locator("svg.line-chart")
    assert chart.bounding_box()["width"] <= 390
    label = chart.locator("text.period").first.bounding_box()
    assert label["height"] >= 9  # the chart's text stays readable once scaled down
    static_form(page)
    rows = rows_of(series)
    assert [r[0] for r in rows] == ["FY2021", "FY2022", "FY2023", "FY2024", "FY2025"]
    sources = series.locator("tr.series-source-row")
    assert sources.nth(2).is_visible() and "ACME_5yr_Summary.xlsx" in sources.nth(2).inner_text()
    assert not series.locator("td.series-source").first.is_visible()  # one line a row, its source below
    table, wrap = series.locator("table.series-table"), series.locator(".table-wrap")
    assert table.bounding_box()["width"] <= wrap.bounding_box()["width"] + 0.5  # no sideways scrolling
    shot(page, series, "series-phone.png")
    context.close()
