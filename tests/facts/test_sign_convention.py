"""A metric's sign convention (SPEC §15): `as_printed` (the default: a fact stores the figure as
the report prints it) or `positive` (a fact stores the amount, for an outflow printed `(1,577)` in
one report and `1,577` in another), curated in the glossary CSV and in admin, read into the
snapshot; the printed figure stays in the fact's lineage (`printed_value`), shown in admin, the
facts API and the answer's source. Ingested and imported facts follow it; changing it converts the
metric's facts at once, from their printed figures."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from benchmarks.us_reports import gold_facts_csv
from facts.models import FactMetric, Metric
from facts.selectors import glossary_snapshot
from facts.services import ImportAborted, facts_replace, facts_review, glossary_import, glossary_rows_read
from facts.services.review_queue import facts_key_set, label_alias_add
from tests.clients import client_for
from tests.factories import candidate_make, curator_make, document_make, entity_make, metric_make
from tests.facts.support import change_url, post_data

pytestmark = pytest.mark.django_db

HEADER = "kind,code,name,alias,unit,entity_kind,parent,formula,aggregation,sign\n"
CAPEX = {"entity_id": "ACME_HK", "metric_id": "CAPEX", "period_type": "FY", "period": "2025", "channel_id": "TOTAL"}
US = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports" / "us"


def _glossary(tmp_path: Path, body: str, header: str = HEADER):  # type: ignore[no-untyped-def]
    path = tmp_path / "glossary.csv"
    path.write_text(header + body, encoding="utf-8")
    return glossary_import(rows=glossary_rows_read(path))


def _sign_set(code: str, sign: str):  # type: ignore[no-untyped-def]
    """Metric `code`'s convention as a glossary import sets it: a row with only its code and sign."""
    return glossary_import(rows=[(2, {"kind": "metric", "code": code, "name": "", "alias": "", "sign": sign})])


@pytest.fixture
def capex() -> Metric:
    entity_make()
    metric_make()
    return metric_make("CAPEX", "资本开支")


def _capex_rows() -> list[tuple[Decimal, Decimal | None, str]]:
    return [(f.value, f.printed_value, f.review_status) for f in FactMetric.objects.filter(**CAPEX).order_by("pk")]


# -- the glossary CSV and the snapshot ----------------------------------------------------------------
def test_the_csv_sets_a_metrics_sign_and_a_blank_cell_keeps_it(tmp_path: Path) -> None:
    _glossary(
        tmp_path,
        "metric,CAPEX,资本开支,capex,CNY_M,,,,,positive\nmetric,REVENUE,营业收入,营收,CNY_M,,,,,\n"
        "metric,DIVIDENDS_PAID,Dividends paid,dividends paid,CNY_M,,,,, As_Printed \n",
    )
    assert dict(Metric.objects.values_list("code", "sign")) == {
        "CAPEX": "positive",
        "REVENUE": "as_printed",  # blank: the default
        "DIVIDENDS_PAID": "as_printed",
    }
    _glossary(tmp_path, "metric,CAPEX,资本开支,资本支出,CNY_M,,,,,\n")  # blank: keeps what the glossary holds
    _glossary(tmp_path, "metric,CAPEX,资本开支,capital expenditure,CNY_M\n", header="kind,code,name,alias,unit\n")
    assert Metric.objects.get(code="CAPEX").sign == "positive"
    snapshot = glossary_snapshot()
    assert (snapshot.metrics["CAPEX"].sign, snapshot.metrics["REVENUE"].sign) == ("positive", "as_printed")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "metric,CAPEX,资本开支,capex,CNY_M,,,,,negative\n",
            "row 3: metric CAPEX: sign must be as_printed (the value as the report prints it) or positive "
            "(the amount, for an outflow such as capex), not 'negative'",
        ),
        ("entity,ACME_HK,ACME香港,香港,,subsidiary,,,,positive\n", "row 3: only a metric has a sign convention"),
        (
            "metric,CAPEX,资本开支,capex,CNY_M,,,,,positive\nmetric,CAPEX,资本开支,资本支出,CNY_M,,,,,as_printed\n",
            "row 4: metric CAPEX is with sign both 'positive' and 'as_printed'",
        ),
    ],
)
def test_a_bad_sign_is_refused_with_its_row_and_nothing_is_written(tmp_path: Path, row: str, message: str) -> None:
    with pytest.raises(ImportAborted) as aborted:
        _glossary(tmp_path, "metric,REVENUE,营业收入,营收,CNY_M,,,,,\n" + row)
    assert any(error.startswith(message) for error in aborted.value.errors), aborted.value.errors
    assert not Metric.objects.exists()  # the good row is not written either


def test_the_metrics_api_says_each_metrics_sign(capex: Metric) -> None:
    _sign_set("CAPEX", "positive")
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("reader"))
    metrics = {m["code"]: m for m in client.get("/v1/glossary/metrics").json()}
    assert (metrics["CAPEX"]["sign"], metrics["REVENUE"]["sign"]) == ("positive", "as_printed")


# -- facts from a document -------------------------------------------------------------------------------
def test_an_ingested_outflow_of_a_positive_metric_stores_the_amount_and_keeps_the_printed_figure(
    capex: Metric,
) -> None:
    _sign_set("CAPEX", "positive")
    report = document_make()
    counts = facts_replace(
        document_id=report.pk,
        source_doc=report.name,
        candidates=[
            candidate_make(metric="CAPEX", value=Decimal("-1577.0"), locator="sheet=CF!B9"),
            candidate_make(value=Decimal("-12.5"), locator="sheet=CF!B2"),  # an as_printed metric: as printed
        ],
    )
    assert counts == {"approved": 2, "pending": 0, "conflicts": 0}
    fact = FactMetric.objects.get(**CAPEX)
    assert (str(fact.value), str(fact.printed_value), fact.locator) == ("1577.0", "-1577.0", "sheet=CF!B9")
    revenue = FactMetric.objects.get(metric_id="REVENUE")
    assert (revenue.value, revenue.printed_value) == (Decimal("-12.5"), None)


def test_two_reports_that_print_an_outflow_with_either_sign_agree(capex: Metric) -> None:
    """`(1,577)` on one report's cash-flow statement, `1,577` under "Purchases of …" on another:
    one amount, so the second takes the key over instead of waiting as a conflict."""
    _sign_set("CAPEX", "positive")
    first, second = document_make("first.xlsx"), document_make("second.xlsx")
    facts_replace(
        document_id=first.pk, source_doc=first.name, candidates=[candidate_make(metric="CAPEX", value=Decimal("-1577"))]
    )
    counts = facts_replace(
        document_id=second.pk,
        source_doc=second.name,
        candidates=[candidate_make(metric="CAPEX", value=Decimal("1577"), locator="page=4,row=Purchases of PP&E")],
    )
    assert counts == {"approved": 1, "pending": 0, "conflicts": 0}
    assert _capex_rows() == [(Decimal("1577"), Decimal("1577"), "approved")]
    assert FactMetric.objects.get(**CAPEX).document_id == second.pk


def test_a_curators_decision_on_a_positive_metrics_cell_survives_re_ingestion(capex: Metric) -> None:
    _sign_set("CAPEX", "positive")
    report = document_make()
    cell = candidate_make(metric="CAPEX", value=Decimal("-1577"))
    facts_replace(document_id=report.pk, source_doc=report.name, candidates=[cell])
    facts_review(facts=FactMetric.objects.filter(**CAPEX), status="rejected")
    facts_replace(document_id=report.pk, source_doc=report.name, candidates=[cell])
    assert _capex_rows() == [(Decimal("1577"), Decimal("-1577"), "rejected")]


def test_a_row_label_given_a_positive_metric_in_the_review_queue_takes_its_sign(capex: Metric) -> None:
    _sign_set("CAPEX", "positive")
    report = document_make()
    waiting = candidate_make(
        metric="",
        value=Decimal("-1577"),
        status="pending",
        suggested_alias="Purchases of property and equipment",
        reason="unknown row label 'Purchases of property and equipment'",
    )
    facts_replace(document_id=report.pk, source_doc=report.name, candidates=[waiting])
    assert FactMetric.objects.get().printed_value is None  # no metric yet: as printed
    label_alias_add(
        candidates=FactMetric.objects.all(), text="Purchases of property and equipment", metric_code="CAPEX"
    )
    assert _capex_rows() == [(Decimal("1577"), Decimal("-1577"), "pending")]


def test_a_metric_set_by_hand_on_candidates_puts_them_under_its_sign(capex: Metric) -> None:
    _sign_set("CAPEX", "positive")
    report = document_make()
    waiting = candidate_make(
        metric="", value=Decimal("-1577"), status="pending", reason="the row label names no metric"
    )
    facts_replace(document_id=report.pk, source_doc=report.name, candidates=[waiting])
    fact = FactMetric.objects.get()
    facts_key_set(candidates=FactMetric.objects.all(), fact_ids=[fact.pk], metric=capex, entity=None, period=None)
    assert _capex_rows() == [(Decimal("1577"), Decimal("-1577"), "pending")]
    facts_key_set(
        candidates=FactMetric.objects.all(), fact_ids=[fact.pk], metric=Metric.objects.get(code="REVENUE"),
        entity=None, period=None,
    )  # fmt: skip
    moved = FactMetric.objects.get()
    assert (moved.metric_id, moved.value, moved.printed_value) == ("REVENUE", Decimal("-1577"), None)


# -- facts imported by CSV -------------------------------------------------------------------------------
def test_imported_facts_of_a_positive_metric_store_the_amount_with_the_printed_value(
    capex: Metric, tmp_path: Path
) -> None:
    _sign_set("CAPEX", "positive")
    path = tmp_path / "facts.csv"
    path.write_text(
        "entity,metric,period,value,unit\n"
        'ACME_HK,CAPEX,FY2025,"(1,577.0)",CNY_M\n'
        'ACME_HK,CAPEX,FY2024,"1,402",CNY_M\n'
        "ACME_HK,REVENUE,FY2025,-3,CNY_M\n",
        encoding="utf-8",
    )
    out = StringIO()
    call_command("import_facts", str(path), "--no-progress", stdout=out, stderr=out)
    assert "3 created" in out.getvalue()
    rows = {
        (f.metric_id, f.period): (str(f.value), None if f.printed_value is None else str(f.printed_value))
        for f in FactMetric.objects.all()
    }
    assert rows == {
        ("CAPEX", "2025"): ("1577.0", "-1577.0"),
        ("CAPEX", "2024"): ("1402", "1402"),
        ("REVENUE", "2025"): ("-3", None),
    }
    out = StringIO()
    call_command("import_facts", str(path), "--no-progress", stdout=out, stderr=out)
    assert "0 created, 0 updated, 3 unchanged" in out.getvalue()


# -- changing a metric's convention -----------------------------------------------------------------------
def _three_capex_rows() -> None:
    """An approved, a pending and a rejected CAPEX fact, all printed negative, stored as printed."""
    report = document_make()
    facts_replace(
        document_id=report.pk,
        source_doc=report.name,
        candidates=[
            candidate_make(metric="CAPEX", value=Decimal("-1577")),
            candidate_make(metric="CAPEX", value=Decimal("-1600"), locator="sheet=CF!C9"),  # a conflict: pending
            candidate_make(metric="CAPEX", value=Decimal("-9"), locator="sheet=CF!D9", status="pending"),
        ],
    )
    facts_review(facts=FactMetric.objects.filter(**CAPEX, value=Decimal("-9")), status="rejected")


def test_changing_the_sign_in_admin_converts_the_metrics_facts_and_changing_it_back_restores_them(
    capex: Metric, client: Client
) -> None:
    _three_capex_rows()
    client.force_login(curator_make())
    url = change_url("CAPEX")
    page = client.post(url, post_data(client.get(url), sign="positive"))
    assert page.status_code == 302
    assert Metric.objects.get(code="CAPEX").sign == "positive"
    assert glossary_snapshot().metrics["CAPEX"].sign == "positive"
    assert _capex_rows() == [
        (Decimal("1577"), Decimal("-1577"), "approved"),
        (Decimal("1600"), Decimal("-1600"), "pending"),
        (Decimal("9"), Decimal("-9"), "rejected"),
    ]
    said = [str(m) for m in get_messages(page.wsgi_request)]
    assert any("已按原表数值换算 3 条事实" in m for m in said), said
    page = client.post(url, post_data(client.get(url), sign="as_printed"))
    assert page.status_code == 302
    assert _capex_rows() == [
        (Decimal("-1577"), None, "approved"),
        (Decimal("-1600"), None, "pending"),
        (Decimal("-9"), None, "rejected"),
    ]
    # a save that leaves the sign alone converts nothing
    page = client.post(url, post_data(client.get(url), name="资本性支出"))
    assert not any("converted" in str(m) for m in get_messages(page.wsgi_request))


def test_changing_the_sign_in_the_csv_converts_the_metrics_facts(capex: Metric, tmp_path: Path) -> None:
    _three_capex_rows()
    path = tmp_path / "glossary.csv"
    path.write_text(HEADER + "metric,CAPEX,资本开支,capex,CNY_M,,,,,positive\n", encoding="utf-8")
    out = StringIO()
    call_command("import_glossary", str(path), stdout=out)
    assert "3 fact(s) converted to a new sign" in out.getvalue()
    assert [row[:2] for row in _capex_rows()] == [
        (Decimal("1577"), Decimal("-1577")),
        (Decimal("1600"), Decimal("-1600")),
        (Decimal("9"), Decimal("-9")),
    ]
    assert _sign_set("CAPEX", "positive").facts_converted == 0  # the same sign again: nothing to convert


def test_the_metric_admin_lists_the_sign_and_the_fact_admin_shows_the_printed_figure(
    capex: Metric, client: Client
) -> None:
    _sign_set("CAPEX", "positive")
    report = document_make()
    facts_replace(
        document_id=report.pk,
        source_doc=report.name,
        candidates=[candidate_make(metric="CAPEX", value=Decimal("-1577"))],
    )
    client.force_login(curator_make())
    assert "positive" in client.get("/admin/facts/metric/").content.decode()
    fact = FactMetric.objects.get(**CAPEX)
    listed = client.get("/admin/facts/factmetric/").content.decode()
    assert "(1,577)" in listed
    assert "-1577" in client.get(f"/admin/facts/factmetric/{fact.pk}/change/").content.decode()


# -- where an analyst sees it: the facts API and the answer ------------------------------------------------
@pytest.fixture
def printed_capex(demo: dict[str, Any], tmp_path: Path) -> None:
    """The demo data with CAPEX `positive` and the group's FY2023 capex imported as printed, `(5,000.5)`."""
    _sign_set("CAPEX", "positive")
    path = tmp_path / "capex.csv"
    path.write_text(
        'entity,metric,period,value,unit,source_doc,locator\nACME_GROUP,CAPEX,FY2023,"(5,000.5)",CNY_M,'
        'ACME_FY2023_Cash_Flows.pdf,"page=7,row=Purchases of property"\n',
        encoding="utf-8",
    )
    call_command("import_facts", str(path), "--no-progress", stdout=StringIO())


def test_the_facts_api_gives_the_printed_value_beside_the_value(printed_capex: None, analyst: APIClient) -> None:
    rows = analyst.get("/v1/facts", {"metric": "CAPEX", "entity": "ACME_GROUP"}).json()["results"]
    by_period = {row["period"]: (row["value"], row["printed_value"]) for row in rows}
    assert by_period["FY2023"] == ("5000.5", "-5000.5")
    assert by_period["FY2025"] == ("6420.0", "6420.0")  # converted when the sign was set: printed positive


def test_the_answer_gives_the_printed_figure_in_its_source(printed_capex: None, analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "ACME集团2023年资本开支是多少"}, format="json").json()
    assert body["answer_kind"] == "answer"
    assert "5,000.5 百万元" in body["answer"] and "-5,000.5" not in body["answer"]
    assert "page=7,row=Purchases of property · 原表列示 (5,000.5)" in body["answer"]
    (fact,) = body["facts"]
    assert (fact["value"], fact["printed_value"]) == ("5000.5", "-5000.5")
    assert body["sources"][0]["snippet"].endswith("· printed (5,000.5)")
    english = analyst.post("/v1/ask", {"question": "What was ACME Group's capex in 2023?"}, format="json").json()
    assert "· printed (5,000.5))" in english["answer"]


def test_the_answer_panel_shows_the_printed_figure_beside_the_source(printed_capex: None, demo: dict[str, Any]) -> None:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    page = client.post("/ask", {"question": "ACME集团2023年资本开支是多少"}, headers={"HX-Request": "true"})
    assert page.status_code == 200
    assert '<span class="printed">原表列示 (5,000.5)</span>' in page.content.decode()


# -- the question side, end to end: the four US 10-K filings with capex `positive` --------------------------
@pytest.fixture
def us_desk(db: Any, tmp_path: Path) -> APIClient:
    """The US reports' glossary with capex `positive` and a curated free cash flow, and their gold
    line items (capex printed negative) imported."""
    call_command("import_glossary", str(US / "glossary.csv"), stdout=StringIO())
    _glossary(
        tmp_path,
        "metric,CAPEX,Capital expenditures,,USD_M,,,,,positive\n"
        "metric,FCF,Free cash flow,free cash flow,USD_M,,,CFO - CAPEX,,\n",
    )
    path = gold_facts_csv(tmp_path / "us_facts.csv")
    call_command("import_facts", str(path), "--no-progress", stdout=StringIO())
    return client_for(get_user_model().objects.create_user("us_analyst"))


def _ask(client: APIClient, question: str) -> dict[str, Any]:
    response = client.post("/v1/ask", {"question": question, "reference_date": "2020-06-30"}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        (
            "According to the information provided in the statement of cash flows, what is the FY2019 free cash "
            "flow (FCF) for Apple? FCF here is defined as: (cash from operations - capex). Answer in USD millions.",
            "58,896",
        ),
        ("What was Apple's FY2019 free cash flow?", "58,896"),  # the curated formula CFO - CAPEX
        ("甲骨文2019财年资本开支占营收的百分比是多少？", "4.20%"),
    ],
)
def test_a_computed_question_over_a_positive_capex_gets_the_right_sign(
    us_desk: APIClient, question: str, shown: str
) -> None:
    stored = FactMetric.objects.get(entity_id="AAPL", metric_id="CAPEX", period="2019")
    assert (stored.value, stored.printed_value) == (Decimal("10495"), Decimal("-10495"))
    body = _ask(us_desk, question)
    assert body["answer_kind"] == "answer", body["answer"]
    assert shown in body["answer"] and f"-{shown}" not in body["answer"], body["answer"]
    capex = next(f for f in body["facts"] if f["metric"] == "CAPEX")
    assert capex["printed_value"].startswith("-") and not capex["value"].startswith("-")
