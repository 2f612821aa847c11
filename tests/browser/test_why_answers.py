"""A why in real Chromium: the analyst asks why a figure moved and reads its decomposition as a
table and a bar chart per dimension, in the question's language.

Screenshots are taken only when `RAGSPINE_SCREENSHOTS` names a folder (`1` means docs/screenshots/):
why-channels.png, why-channels-en.png and why-margin.png.
"""

from __future__ import annotations

import pytest

from tests.browser.support import ANALYST, ask, page_open, shot, static_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _rows(figure) -> list[list[str]]:
    rows = figure.locator("table.decomposition-rows tbody tr")
    return [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]


def test_a_why_shows_its_parts_as_a_table_and_a_chart(browser, site) -> None:
    context, page = page_open(browser, site, 1280, user=ANALYST)
    static_form(page)
    turns = page.locator("article.turn")

    ask(page, "香港收入为什么下降")
    figure = turns.nth(0).locator("figure.decomposition")
    assert figure.count() == 1 and "按渠道" in figure.locator("figcaption").inner_text()
    assert _rows(figure) == [["门店", "-2,604.7", "151.9%"], ["线上", "+890.4", "-51.9%"]]
    assert figure.locator("text.label").all_text_contents() == ["门店", "线上"]
    assert figure.locator("rect.bar.negative").count() == 1 and figure.locator("rect.bar").count() == 2
    assert "各行合计恰等于总变动" in figure.inner_text()
    text = turns.nth(0).inner_text()
    assert "同比下降 6.66%" in text and "以下拆分只含事实库中您有权查看的数据。" in text
    assert turns.nth(0).locator("figure.chart").count() == 0  # no plain bar per fact beside it
    shot(turns.nth(0), "why-channels.png")

    ask(page, "What drove Hong Kong revenue down in 2025?")
    english = turns.nth(1).locator("figure.decomposition")
    assert "By channel" in english.locator("figcaption").inner_text()
    assert english.locator("thead th").all_inner_texts() == ["Part", "Change", "Share of the change"]
    assert [row[1:] for row in _rows(english)] == [["-2,604.7", "151.9%"], ["+890.4", "-51.9%"]]
    assert "The documents (in Chinese) say:" in turns.nth(1).inner_text()
    shot(turns.nth(1), "why-channels-en.png")

    ask(page, "集团2025年毛利率为什么下降")
    margin = turns.nth(2).locator("figure.decomposition")
    assert "（权重：各部分营业收入占比）" in margin.locator("figcaption").inner_text()
    rows = _rows(margin)
    assert rows[0] == ["ACME中国内地", "-1.55 个百分点", "+0.30 个百分点", "-1.26 个百分点"]
    assert rows[-1][0] == "未归入以上部分" and rows[-1][-1] == "-0.22 个百分点"
    shot(turns.nth(2), "why-margin.png")
    context.close()
