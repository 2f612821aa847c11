"""A new curator clears a real annual report in Chromium.

On a fresh install (the glossary of `../shared/bench/reports/` imported, a curator made with
`create_user`), the curator logs in to admin, uploads `sifang_2019_annual_report.pdf`, confirms its
company and year on the document page, clears the review queue's groups of the headline figures
with the queue's own actions, and makes 总资产 (which the glossary lacks) a metric from its row
label. Every click, fill, select, upload and typed address is counted: the eight headline figures
must take fewer than 20. Then `/v1/ask` answers four of them with the report's figures, as `gold.json`
gives them, and their page locators.

Uploads run in the request here (the test settings run tasks immediately); with the worker they
run in the background and the job list shows them when done.

Screenshots (`RAGSPINE_SCREENSHOTS=1`): curator-document.png, curator-review-queue.png (before
clearing), curator-review-queue-label.png (the label 资产总计 with its forms) and
curator-review-queue-cleared.png (after).
"""

from __future__ import annotations

import json
import re
import urllib.request
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from facts.models import FactMetric, Metric
from tests.browser.curator_actions import Actions
from tests.browser.support import shot
from tests.factories import migration_seeds

REPORTS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports"
REPORT = REPORTS / "sifang_2019_annual_report.pdf"
CURATOR, PASSWORD = "wang", "curator-browser-password"
# The headline figures as the glossary names them; 总资产 is the one the curator adds.
HEADLINE = [
    "营业收入",
    "营业总收入",
    "净利润",
    "归属母公司所有者净利润",
    "经营活动产生的现金流量净额",
    "研发费用",
    "职工人数",
]
TOTAL_ASSETS = "总资产"
ASKED = ["营业收入", "净利润", "经营活动产生的现金流量净额", "研发费用"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fresh_install(live_server):
    if not REPORT.exists():
        pytest.skip(f"{REPORT} is absent: the shared bench reports are not on this machine")
    migration_seeds()
    call_command("import_glossary", str(REPORTS / "glossary.csv"), stdout=StringIO())
    call_command("create_user", CURATOR, "--role", "curator", "--cleared", "--password", PASSWORD, stdout=StringIO())
    return live_server.url


def _gold() -> dict[str, str]:
    docs = json.loads((REPORTS / "gold.json").read_text(encoding="utf-8"))["docs"]
    (entry,) = [d for d in docs if d["doc"] == REPORT.name]
    return {"entity": entry["entity"], "name": entry["name"], "year": entry["year"], **entry["gold"]}


def _approved(code: str, entity: str, year: str) -> FactMetric | None:
    return FactMetric.objects.filter(
        metric_id=code, entity_id=entity, period_type="FY", period=year, channel_id="TOTAL", review_status="approved"
    ).first()


def _ask(site: str, token: str, question: str) -> dict:
    request = urllib.request.Request(
        f"{site}/v1/ask",
        data=json.dumps({"question": question}).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def test_a_new_curator_clears_the_headline_figures_of_a_real_report(browser, fresh_install) -> None:
    site, gold = fresh_install, _gold()
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(90_000)  # the upload reads a 156-page PDF inside the request
    act = Actions(page)

    act.goto(f"{site}/admin/")
    act.fill("#id_username", CURATOR)
    act.fill("#id_password", PASSWORD)
    act.click("input[type=submit], button[type=submit]")
    act.click("#content-main a[href$='/documents/document/add/']")  # 文档 Documents › 增加
    act.upload("input[type=file]", REPORT)
    act.click("form input[type=submit][value='上传']")
    page.wait_for_url(re.compile(r"/admin/documents/ingestjob/"))
    assert "已完成" in page.locator("#result_list").inner_text()  # done, in the curator's language

    # The job names its document; the document page shows what the report says it is.
    act.click(page.locator("#result_list a", has_text=REPORT.name).last)
    page.wait_for_url(re.compile(r"/admin/documents/document/\d+/change/"))
    issuer = page.locator("#id_issuer option:checked").inner_text()
    assert gold["entity"] in issuer and gold["name"] in issuer
    assert page.locator("#id_report_type").input_value() == "annual"
    assert page.locator("#id_report_period").input_value() == f"FY{gold['year']}"
    shot(page, "curator-document.png")

    # Candidates beside a figure already approved for their key: the parent company's statements,
    # the same figure printed again elsewhere. The approved figures stand; the rest goes, at once.
    act.click(page.get_by_role("link", name=re.compile("同键已有批准值")))
    queue = page.locator("#review-queue")
    assert queue.locator("tr.candidate").count() > 0
    shot(page, "curator-review-queue.png")
    act.click(page.get_by_role("button", name=re.compile("驳回本页全部")))
    assert "驳回" in page.locator("ul.messagelist").inner_text()
    for name in HEADLINE:
        code = Metric.objects.get(name=name).code
        waiting = FactMetric.objects.filter(metric_id=code, period=gold["year"], review_status="pending")
        assert not waiting.exists(), f"{name}: {list(waiting.values_list('locator', flat=True))}"

    # 总资产 is printed as 资产总计 and the glossary has no such metric: make one from the label.
    act.select("#id_key", value="")
    act.fill("#id_q", "资产总计")
    act.click(page.get_by_role("button", name="筛选"))
    shot(page, "curator-review-queue-label.png")
    new_metric = page.locator(".label-metric").first  # a label's forms act on every period of it
    act.fill(new_metric.locator("input[name=code]"), "TOTAL_ASSETS")
    act.fill(new_metric.locator("input[name=name]"), TOTAL_ASSETS)
    act.fill(new_metric.locator("input[name=aggregation]"), "end")
    act.click(new_metric.locator("button[type=submit]"))
    assert "总资产" in page.locator("ul.messagelist").inner_text()
    group = page.locator("tbody.review-group", has_text=f"FY{gold['year']}").first
    statement = page.locator("td.statement", has_text=re.compile("^合并$"))
    consolidated = group.locator("tr.candidate").filter(has=statement).first
    act.click(consolidated.get_by_role("button", name=re.compile("批准此条")))
    shot(page, "curator-review-queue-cleared.png")

    print(f"\ncurator actions for the eight headline figures: {act.count}")
    assert act.count < 20

    # The eight figures are approved for the issuer and year the document page showed.
    entity, year = gold["entity"], gold["year"]
    for name in [*HEADLINE, TOTAL_ASSETS]:
        code = Metric.objects.get(name=name).code
        fact = _approved(code, entity, year)
        assert fact is not None, f"{name} ({code}) is not approved"
        assert "page=" in fact.locator
        if code in gold:
            assert fact.value == Decimal(gold[code]), name
    total_assets = _approved(Metric.objects.get(name=TOTAL_ASSETS).code, entity, year)
    current, non_current = (Metric.objects.get(name=n).code for n in ("流动资产合计", "非流动资产合计"))
    assert total_assets.value == Decimal(gold[current]) + Decimal(gold[non_current])

    # An analyst's integration asks through the API, with the curator's token.
    token = Token.objects.create(user=get_user_model().objects.get(username=CURATOR)).key
    for name in ASKED:
        answer = _ask(site, token, f"{gold['name']}{year}年{name}是多少")
        code = Metric.objects.get(name=name).code
        (fact,) = [f for f in answer["facts"] if f["metric"] == code and f["period"] == f"FY{year}"]
        assert Decimal(fact["value"]) == Decimal(gold[code]), (name, answer["answer"])
        assert re.match(r"page=\d+,", fact["source"]["locator"]), fact["source"]
        assert f"{Decimal(gold[code]):,}" in answer["answer"]
    context.close()
