""" "This figure is wrong", end to end in Chromium: the analyst files a dispute from an answer's
inputs table, a curator finds it counted on the admin index and waiting in the review queue beside
its fact, corrects the figure there, and the analyst sees the outcome under "my reports", on the
answer reopened and on the question asked again.

Screenshots (`RAGSPINE_SCREENSHOTS=1`): dispute-review-queue.png, dispute-my-reports.png.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tests.browser.support import ANALYST, PASSWORD, ask, page_open, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "集团2024年营收是多少"
NOTE = "年报第 12 页是 118,430.2"


def test_an_analyst_disputes_a_figure_a_curator_corrects_it_and_the_analyst_hears_back(browser, site) -> None:
    analyst_context, analyst = page_open(browser, site, 1280, user=ANALYST)
    ask(analyst, QUESTION)
    turn = analyst.locator("article.turn").last
    turn.locator("details.answer-inputs > summary").click()
    row = turn.locator("table.facts tbody tr", has_text="118,340.2")
    row.locator("details.dispute > summary").click()
    row.locator("textarea[name=note]").fill(NOTE)
    row.locator("details.dispute button[type=submit]").click()
    done = row.locator(".dispute-done")
    done.wait_for()
    assert done.locator('a[href="/reports"]').count() == 1

    curator = get_user_model().objects.get(username="curator")
    curator.set_password(PASSWORD)
    curator.save()
    admin_context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    admin = admin_context.new_page()
    admin.goto(f"{site}/admin/login/?next=/admin/")
    admin.fill("#id_username", "curator")
    admin.fill("#id_password", PASSWORD)
    admin.click("input[type=submit]")
    admin.wait_for_url(f"{site}/admin/")
    entry = admin.locator("#facts-opendisputes")
    assert re.search(r"\b1\b", entry.inner_text())
    entry.locator("a").click()
    admin.wait_for_load_state()
    group = admin.locator("#disputes tbody.dispute-group")
    assert group.count() == 1
    assert NOTE in group.inner_text() and ANALYST in group.inner_text() and "118340.2" in group.inner_text()
    shot(admin.locator("#disputes"), "dispute-review-queue.png")
    group.locator("input[name=value]").fill("118430.2")
    group.locator("input[name=resolution]").fill("已按年报更正")
    group.locator('button[name=outcome][value="corrected"]').click()
    admin.wait_for_load_state()
    assert admin.locator("#disputes tbody.dispute-group").count() == 0
    admin.goto(f"{site}/admin/")
    assert re.search(r"\b0\b", admin.locator("#facts-opendisputes").inner_text())

    analyst.locator('header nav a[href="/reports"]').click()
    analyst.wait_for_url(f"{site}/reports")
    report = analyst.locator("tr.report").first
    assert report.locator(".dispute-status.corrected").count() == 1
    assert NOTE in report.inner_text() and "已按年报更正" in report.inner_text() and "118,430.2" in report.inner_text()
    shot(analyst, "dispute-my-reports.png")

    analyst.goto(f"{site}/")  # the conversation reopened: the figure answered carries the outcome
    reopened = analyst.locator("article.turn").last
    reopened.locator("details.answer-inputs > summary").click()
    assert reopened.locator(".dispute-status.corrected").count() == 1
    ask(analyst, QUESTION)
    again = analyst.locator("article.turn").last
    again.locator("details.answer-inputs > summary").click()
    assert "118,430.2" in again.inner_text() and again.locator(".dispute-status.corrected").count() == 1
    admin_context.close()
    analyst_context.close()
