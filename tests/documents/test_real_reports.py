"""Two real annual reports of listed companies, read from `../shared/bench/reports/`
(never copied into the repository): a 156-page digital PDF and an HTML conversion of a filed
report. Each is ingested through the product's own path after its glossary is imported; the
approved facts of its company and fiscal year are compared with the contest's fact table
(`gold.json`), and the questions an analyst would ask are asked through `/v1/ask`."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from documents.models import Document
from documents.services import document_ingest
from facts.models import FactMetric as Fact

REPORTS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports"
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not (REPORTS / "gold.json").exists(), reason="the shared real reports are not checked out here"),
]
# Exact figures of the 122 gold cells today: the ratchet. The rest wait in review or are not
# printed as such (a zero category the report leaves out, a sum of two printed rows).
EXACT_AT_LEAST = 116


@pytest.fixture
def reports(db: Any) -> list[dict[str, Any]]:
    call_command("import_glossary", str(REPORTS / "glossary.csv"), stdout=StringIO())
    docs = json.loads((REPORTS / "gold.json").read_text(encoding="utf-8"))["docs"]
    for doc in docs:
        document_ingest(name=doc["doc"], data=(REPORTS / doc["doc"]).read_bytes())
    return docs


def _approved(doc: dict[str, Any]) -> dict[str, list[Decimal]]:
    found: dict[str, list[Decimal]] = {}
    facts = Fact.objects.filter(
        review_status="approved",
        document__name=doc["doc"],
        entity__code=doc["entity"],
        period_type="FY",
        period=doc["year"],
        channel__code="TOTAL",
    )
    for metric, value in facts.values_list("metric__code", "value"):
        found.setdefault(metric, []).append(value)
    return found


def test_real_reports_give_their_facts_exactly_and_nothing_wrong(reports: list[dict[str, Any]]) -> None:
    exact = wrong = 0
    for doc in reports:
        document = Document.objects.get(name=doc["doc"])
        assert (document.issuer, document.report_type, document.report_period) == (
            doc["entity"],
            "annual",
            f"FY{doc['year']}",
        )
        approved = _approved(doc)
        for metric, value in doc["gold"].items():
            values = approved.get(metric, [])
            if values == [Decimal(value)]:
                exact += 1
            elif values:
                wrong += 1
        # No figure of this report is approved under another company.
        others = Fact.objects.filter(document=document, review_status="approved").exclude(entity__code=doc["entity"])
        assert not others.exists()
    assert wrong == 0
    assert exact >= EXACT_AT_LEAST, f"{exact} of 122 gold cells exact"


def test_an_analyst_asks_the_real_reports(reports: list[dict[str, Any]]) -> None:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("reader"))

    def ask(question: str) -> dict[str, Any]:
        response = client.post("/v1/ask", {"question": question, "reference_date": "2020-06-30"}, format="json")
        assert response.status_code == 200
        return response.json()

    revenue = ask("四方科技2019年营业收入是多少")
    assert [f["value"] for f in revenue["facts"]] == ["1175301034.32"]
    cash = ask("海翔药业2019年经营活动产生的现金流量净额是多少")
    assert [f["value"] for f in cash["facts"]] == ["612399095.31"]
    growth = ask("四方科技2019年净利润同比增长多少")
    assert "-28.95%" in growth["answer"] or "28.95%" in growth["answer"]
    business = ask("海翔药业2019年的主营业务是什么")
    cited = {s["doc"] for s in business["sources"]}
    assert cited == {"haixiang_2019_annual_report.html"}
