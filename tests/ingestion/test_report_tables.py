"""Tables as annual reports print them: period headers, scale and currency, rows in
context, labels as printed. Each test is a layout seen in published reports."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.glossary import AliasRecord, ChannelInfo, EntityInfo, GlossarySnapshot, MetricInfo, UnitInfo, glossary_build
from ingestion.headers import fiscal_year
from ingestion.ir import ExtractedDocument, Table
from ingestion.scales import unit_code, unit_parse
from ingestion.tables import FactCandidate, document_facts, table_read

METRICS = {
    "REVENUE": ("Revenue", "AS_PRINTED"),
    "NET_INCOME": ("Net income", "AS_PRINTED"),
    "SALES_USD": ("Sales in dollars", "USD_M"),
    "COGS": ("Cost of sales", "CNY_M"),
    "GROSS_MARGIN": ("Gross margin (%)", "PCT"),
    "CURRENT_YEAR": ("Current year1", "AS_PRINTED"),
    "RSU_GRANTED": ("RSUs Granted", "AS_PRINTED"),
    "PSU_GRANTED": ("PSUs Granted", "AS_PRINTED"),
    "EPS": ("Basic earnings per share", "AS_PRINTED"),
    "STORES": ("Stores", "COUNT"),
    "PPE": ("Computer equipment", "AS_PRINTED"),
    "DISCOUNT_RATE": ("Discount rate", "PCT"),
}


def _glossary(*, year_end_month: int | None = None, currency: str = "") -> GlossarySnapshot:
    return glossary_build(
        entities=[EntityInfo("CO", "Example Co", "subsidiary", year_end_month=year_end_month, currency=currency)],
        metrics=[MetricInfo(code, name, unit) for code, (name, unit) in METRICS.items()],
        channels=[ChannelInfo("TOTAL", "合计"), ChannelInfo("DOMESTIC", "Domestic")],
        units=[UnitInfo(code, code, code) for code in ("PCT", "COUNT", "USD_M", "CNY_M", "AS_PRINTED")],
        aliases=[
            AliasRecord("entity", "Example Co", "CO"),
            AliasRecord("channel", "Domestic", "DOMESTIC"),
            *(AliasRecord("metric", name, code) for code, (name, _) in METRICS.items()),
        ],
        home_company_name="Home",
    )


def read(rows: list[list[str]], *, lead: str = "", title: str = "", **glossary: object) -> list[FactCandidate]:
    table = Table("table=1", title, rows, lead=lead)
    return table_read(
        table, glossary=_glossary(**glossary), document_name="r.docx", sensitivity="INTERNAL", default_entity="CO"
    ).candidates  # type: ignore[arg-type]


def cells(facts: list[FactCandidate]) -> set[tuple[str, str, str, str, str]]:
    return {(f.metric, f.period_label, str(f.value), f.unit, f.status) for f in facts}


# -- 1. period headers as printed ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "label"),
    [
        ("December 31, 2019", "FY2019"),
        ("30 June 2019", "FY2019"),
        ("Dec 29, 2018", "FY2018"),
        ("Jan 3, 2020", "FY2019"),  # a 52/53-week year closing in the first days of January
        ("Fiscal 2019", "FY2019"),
        ("Fiscal Year 2019", "FY2019"),
        ("FY19", "FY2019"),
        ("F19", "FY2019"),
        ("2019/20", "FY2020"),
        ("2 0 1 8", "FY2018"),
        ("2018 (4)", "FY2018"),
        ("2019¹", "FY2019"),
        ("2019 RESTATED3", "FY2019"),
        ("December31, 2019", "FY2019"),
        ("53 WEEKS F19", "FY2019"),
    ],
)
def test_period_headers_as_printed(header: str, label: str) -> None:
    (fact,) = read([["(in millions)", header], ["Revenue", "1,452.4"]])
    assert (fact.period_label, fact.status) == (label, "approved"), fact.reason


def test_a_caption_above_the_years_completes_them() -> None:
    rows = [["", "Years Ended September 30,", "", ""], ["", "2019", "2018", "2017"], ["Revenue", "3.0", "2.0", "1.0"]]
    got = read(rows, lead="Sales by contract type (in millions):")
    assert {(f.period_label, str(f.value), f.status) for f in got} == {
        ("FY2019", "3.0", "approved"),
        ("FY2018", "2.0", "approved"),
        ("FY2017", "1.0", "approved"),
    }


def test_a_group_caption_with_a_scale_does_not_hide_the_years() -> None:
    rows = [["", "Appropriation of earnings (in thousand NT dollars)", ""], ["", "2018", "2019"], ["Revenue", "7", "9"]]
    assert cells(read(rows)) == {
        ("REVENUE", "FY2018", "7", "TWD_K", "approved"),
        ("REVENUE", "FY2019", "9", "TWD_K", "approved"),
    }


@pytest.mark.parametrize(
    "header", ["Change", "%", "% change", "Note", "2019 vs 2018", "Change (%)", "FY2020E", "Budget 2020"]
)
def test_columns_that_hold_no_period_figures(header: str) -> None:
    got = read([["($ in millions)", "2019", header], ["Revenue", "5.0", "3.0"]])
    assert cells(got) == {("REVENUE", "FY2019", "5.0", "AMT_M", "approved")}


def test_a_company_year_end_maps_dates_and_refuses_other_dates() -> None:
    rows = [["(in millions)", "30 June 2019", "31 December 2018"], ["Revenue", "1", "2"]]
    by_period = {f.value: f for f in read(rows, year_end_month=6)}
    assert (by_period[Decimal(1)].period_label, by_period[Decimal(1)].status) == ("FY2019", "approved")
    assert by_period[Decimal(2)].status == "pending" and "not a fiscal year end" in by_period[Decimal(2)].reason
    december = read([["(in millions)", "Jan 3, 2020"], ["Revenue", "1"]], year_end_month=12)
    assert [(f.period_label, f.status) for f in december] == [("FY2019", "approved")]


def test_fiscal_year_rule() -> None:
    from datetime import date

    assert fiscal_year(date(2020, 1, 3)) == 2019
    assert fiscal_year(date(2019, 6, 30)) == 2019
    assert fiscal_year(date(2019, 6, 29), 6) == 2019  # the last Saturday of June
    assert fiscal_year(date(2019, 7, 5), 6) == 2019
    assert fiscal_year(date(2019, 9, 30), 6) is None
    assert fiscal_year(date(2019, 12, 28), 12) == 2019


# -- 2. scale and currency are stored, never lost -------------------------------------------------


@pytest.mark.parametrize(
    ("where", "unit"),
    [
        ({"corner": "(in thousands)"}, "AMT_K"),
        ({"corner": "(In Millions)"}, "AMT_M"),
        ({"corner": "$'000"}, "AMT_K"),
        ({"corner": "US$'000"}, "USD_K"),
        ({"corner": "€m"}, "EUR_M"),
        ({"corner": "£m"}, "GBP_M"),
        ({"corner": "USDm"}, "USD_M"),
        ({"corner": "RMB'000"}, "CNY_K"),
        ({"corner": "千元"}, "CNY_K"),
        ({"corner": "万元"}, "CNY_10K"),
        ({"corner": "人民币百万元"}, "CNY_M"),
        ({"corner": "亿元"}, "CNY_100M"),
        ({"header": "2019 €m"}, "EUR_M"),
        ({"header": "2019 $'000"}, "AMT_K"),
        ({"title": "Revenue by segment (in millions of euros)"}, "EUR_M"),
        ({"lead": "Deferred charges consisted of the following (in thousands):"}, "AMT_K"),
        ({"lead": "AMERICAN TOWER NOTES (Tabular amounts in millions, unless otherwise disclosed)"}, "AMT_M"),
    ],
)
def test_scale_and_currency_are_read_and_stored(where: dict[str, str], unit: str) -> None:
    header = where.get("header", "2019")
    rows = [[where.get("corner", ""), header], ["Revenue", "1,234.5"]]
    (fact,) = read(rows, lead=where.get("lead", ""), title=where.get("title", ""))
    assert (str(fact.value), fact.unit, fact.status) == ("1234.5", unit, "approved"), fact.reason


def test_a_figure_in_the_sentence_before_is_not_a_scale() -> None:
    (fact,) = read([["", "2019"], ["Revenue", "$130"]], lead="Revenue grew by $6.2 million to a record.")
    assert fact.status == "pending" and "no scale stated" in fact.reason and fact.value == Decimal(130)


def test_a_bare_dollar_takes_the_company_currency() -> None:
    (fact,) = read([["($ in millions)", "2019"], ["Revenue", "$1.5"]], currency="AUD")
    assert (fact.unit, fact.status) == ("AUD_M", "approved")
    (unknown,) = read([["($ in millions)", "2019"], ["Revenue", "$1.5"]])
    assert unknown.unit == "AMT_M"  # never a guessed currency


def test_a_metric_scale_converts_exactly_and_the_locator_names_the_printed_cell() -> None:
    rows = [["(in thousands)", "2019"], ["Sales in dollars", "$1,234,567"]]
    (fact,) = read(rows, currency="USD")
    assert (fact.value, fact.unit, fact.status) == (Decimal("1234.567"), "USD_M", "approved")
    assert fact.locator == "table=1,row=Sales in dollars,col=2019"
    (yuan,) = read([["单位：千元", "2019"], ["Cost of sales", "1,234,567"]])
    assert (yuan.value, yuan.unit) == (Decimal("1234.567"), "CNY_M")


def test_another_currency_than_the_metrics_waits_for_review() -> None:
    (fact,) = read([["€m", "2019"], ["Sales in dollars", "12"]])
    assert fact.status == "pending" and "printed in EUR" in fact.reason


def test_per_share_figures_keep_their_own_scale() -> None:
    rows = [
        ["(in millions, except per share amounts)", "2019"],
        ["Revenue", "5,000"],
        ["Basic earnings per share", "1.23"],
    ]
    assert cells(read(rows)) == {
        ("REVENUE", "FY2019", "5000", "AMT_M", "approved"),
        ("EPS", "FY2019", "1.23", "AMT", "approved"),
    }


def test_counts_and_percentages_ignore_the_money_scale() -> None:
    rows = [["($ in millions)", "2019"], ["Stores", "120"], ["Gross margin (%)", "29.7"]]
    assert cells(read(rows)) == {
        ("STORES", "FY2019", "120", "COUNT", "approved"),
        ("GROSS_MARGIN", "FY2019", "29.7", "PCT", "approved"),
    }
    # `(in thousands)` with no currency may count the stores too: that waits for review.
    (stores,) = read([["(in thousands)", "2019"], ["Stores", "1.2"]])
    assert stores.status == "pending" and "is STORES counted in it" in stores.reason
    (scaled,) = read([["($ in millions)", "2019"], ["Stores (thousands)", "1.2"]])
    assert (scaled.value, scaled.unit, scaled.status) == (Decimal("1200.0"), "COUNT", "approved")


def test_unit_codes_carry_currency_and_scale() -> None:
    assert unit_code("USD", Decimal(1000)) == "USD_K" and unit_code("", Decimal(10) ** 6) == "AMT_M"
    assert unit_parse("CNY_100M") == ("CNY", Decimal(10) ** 8) and unit_parse("AMT") == ("", Decimal(1))
    assert unit_parse("PCT") is None and unit_code("EUR", Decimal(7)) is None


# -- 3. rows in context -----------------------------------------------------------------------------


def test_section_headings_qualify_repeated_labels() -> None:
    rows = [["(in thousands)", "2019"], ["RSUs", ""], ["Granted", "10"], ["PSUs:", ""], ["Granted", "20"]]
    assert cells(read(rows)) == {
        ("RSU_GRANTED", "FY2019", "10", "AMT_K", "approved"),
        ("PSU_GRANTED", "FY2019", "20", "AMT_K", "approved"),
    }


def test_a_bare_total_never_takes_the_metric_above() -> None:
    rows = [["(in thousands)", "2019"], ["Revenue", "10"], ["Total", "30"]]
    by_value = {f.value: f for f in read(rows)}
    total = by_value[Decimal(30)]
    assert total.status == "pending" and total.metric != "REVENUE" and "total row" in total.reason


def test_only_an_explicit_marker_makes_a_sub_row() -> None:
    rows = [["(in millions)", "2019"], ["Revenue", "10"], ["of which Domestic", "4"], ["Domestic", "6"]]
    got = {(f.metric, f.channel, str(f.value), f.status) for f in read(rows)}
    assert ("REVENUE", "DOMESTIC", "4", "approved") in got
    assert ("REVENUE", "DOMESTIC", "6", "approved") not in got


def test_an_attribute_column_is_not_part_of_the_label() -> None:
    rows = [
        ["(in thousands)", "Useful life (in years)", "2019", "2018"],
        ["Computer equipment", "3-5", "14,689", "14,058"],
    ]
    assert cells(read(rows)) == {
        ("PPE", "FY2019", "14689", "AMT_K", "approved"),
        ("PPE", "FY2018", "14058", "AMT_K", "approved"),
    }


def test_column_groups_are_channels_or_wait_for_review() -> None:
    named = [["", "Domestic", "International"], ["", "2019", "2019"], ["Discount rate", "4.00%", "1.90%"]]
    got = {(f.channel, str(f.value), f.status) for f in read(named)}
    assert ("DOMESTIC", "4.00", "approved") in got
    assert all(status == "pending" for channel, _, status in got if channel != "DOMESTIC")
    assert all("add their groups as channels" in f.reason for f in read(named) if f.channel != "DOMESTIC")


# -- 4. labels as printed ---------------------------------------------------------------------------


def test_the_whole_raw_label_is_tried_first() -> None:
    rows = [["(in millions)", "2019"], ["Gross margin (%)", "29.7"], ["Current year1", "12"]]
    assert cells(read(rows)) == {
        ("GROSS_MARGIN", "FY2019", "29.7", "PCT", "approved"),
        ("CURRENT_YEAR", "FY2019", "12", "AMT_M", "approved"),
    }


# -- 5. the review queue sees everything ------------------------------------------------------------


def test_conflicting_cells_stay_with_the_conflict_as_reason() -> None:
    table = Table("table=1", "", [["(in millions)", "2019"], ["Revenue", "10"], ["Revenue", "11"]])
    document = ExtractedDocument("r.docx", "", "", [table], [], 0)
    got = document_facts(document, glossary=_glossary(), sensitivity="INTERNAL", default_entity="CO").candidates
    assert sorted(str(f.value) for f in got) == ["10", "11"]
    assert all(f.status == "pending" and "conflicting values" in f.reason for f in got)


def test_a_table_without_facts_gives_a_warning() -> None:
    table = Table("table=1", "", [["", "Less than 1 year", "1-3 years"], ["Leases", "1", "2"]])
    document = ExtractedDocument("r.docx", "", "", [table], [], 0)
    result = document_facts(document, glossary=_glossary(), sensitivity="INTERNAL", default_entity="CO")
    assert result.candidates == [] and [w.line for w in result.warnings] == [
        "table=1: no facts read (no row or column of periods (years, dates or fiscal years) was found)"
    ]
    assert [(w.code, w.place) for w in result.warnings] == [("table.no_period_axis", "table=1")]


def test_dates_under_a_quarters_caption_are_not_fiscal_years() -> None:
    rows = [["Quarters Ended", "July 27, 2019", "October 27, 2018"], ["Revenue", "$13,428", "$13,072"]]
    assert read(rows, lead="Quarterly data (in millions):") == []


def test_a_second_header_row_starts_a_new_block() -> None:
    rows = [
        ["(In Millions)", "Dec 29, 2018", "Acquisitions", "Dec 28, 2019"],
        ["Revenue", "5,424", "1,758", "7,155"],
        ["(In Millions)", "Dec 30, 2017", "Acquisitions", "Dec 29, 2018"],
        ["Net income", "5,421", "3", "5,424"],
    ]
    assert cells(read(rows)) == {
        ("REVENUE", "FY2018", "5424", "AMT_M", "approved"),
        ("REVENUE", "FY2019", "7155", "AMT_M", "approved"),
        ("NET_INCOME", "FY2017", "5421", "AMT_M", "approved"),
        ("NET_INCOME", "FY2018", "5424", "AMT_M", "approved"),
    }


def test_a_repeated_label_outside_its_heading_waits_for_review() -> None:
    rows = [["(in thousands)", "2019"], ["Revenue", "10"], ["Deferred", ""], ["Revenue", "12"]]
    got = read(rows)
    assert {f.status for f in got} == {"pending"} and all("heads 2 rows" in f.reason for f in got)


def test_an_unlabelled_row_never_takes_a_metric_from_the_title() -> None:
    rows = [["(in thousands)", "2019"], ["Revenue", "10"], ["", "25"]]
    by_value = {f.value: f for f in read(rows, title="Revenue")}
    assert by_value[Decimal(25)].status == "pending" and by_value[Decimal(10)].status == "approved"


def test_a_measure_caption_under_the_years_is_no_annotation() -> None:
    rows = [
        ["", "2019", "2018"],
        ["", "(As percentage of net revenues)", "(As percentage of net revenues)"],
        ["Revenue", "70%", "65%"],
    ]
    assert read(rows, lead="Revenue by channel (in millions):") == []


def test_a_figures_own_percent_sign_in_a_label_is_no_unit() -> None:
    rows = [["£m", "2019"], ["Net income at the domestic tax rate of 19.0% (2018: 19.0%)", "8.2"]]
    got = table_read(
        Table("table=1", "", rows),
        glossary=_glossary_with("Net income at the domestic tax rate of 19.0% (2018: 19.0%)"),
        document_name="r.docx",
        sensitivity="INTERNAL",
        default_entity="CO",
    ).candidates
    assert [(str(f.value), f.unit, f.status) for f in got] == [("8.2", "GBP_M", "approved")]


def _glossary_with(label: str) -> GlossarySnapshot:
    return glossary_build(
        entities=[EntityInfo("CO", "Example Co", "subsidiary")],
        metrics=[MetricInfo("TAXED", label, "AS_PRINTED")],
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo(code, code, code) for code in ("PCT", "AS_PRINTED")],
        aliases=[AliasRecord("entity", "Example Co", "CO"), AliasRecord("metric", label, "TAXED")],
        home_company_name="Home",
    )


# -- what an attacker tried (each approved a wrong figure before) -----------------------------------

M = ["(in millions)", "2019", "2018"]


@pytest.mark.parametrize(
    ("rows", "title", "lead"),
    [
        ([["", "Six Months Ended June 30,", ""], ["", "2019", "2018"], ["Revenue", "1,234", "1,100"]], "", ""),
        ([["Nine months ended September 30,", "2019", "2018"], ["Revenue", "1,234", "1,100"]], "", ""),
        ([["(in millions)", "2019", "2018"], ["Revenue", "1,234", "1,100"]], "Three months ended March 31", ""),
        ([M[:], ["Revenue", "1,234", "1,100"]], "", "Results for the six months ended June 30 (in millions):"),
        ([["(in millions)", "Consensus 2020"], ["Revenue", "1,234"]], "", ""),
        ([["(in millions)", "2019 Non-GAAP"], ["Revenue", "1,234"]], "", ""),
        ([["(in millions)", "June 30, 2019", "December 31, 2018"], ["Revenue", "1,234", "1,100"]], "", ""),
        ([["(in millions)", "2020", "2021", "Thereafter"], ["Revenue", "100", "90", "500"]], "", ""),
        ([M[:], ["Revenue", "1,234¹", "1,100"]], "", ""),
        ([M[:], ["Revenue", "1,234 1,100", "12,34"]], "", ""),
        ([M[:], ["Discontinued operations:", "", ""], ["Net income", "20", "10"]], "", ""),
        ([M[:], ["Revenue (% of total)", "45", "40"]], "", ""),
        ([["", "2019", "2018"], ["Revenue", "5", "6"]], "", "We operate in thousands of communities:"),
    ],
)
def test_nothing_wrong_is_approved(rows: list[list[str]], title: str, lead: str) -> None:
    approved = [f for f in read(rows, title=title, lead=lead) if f.status == "approved"]
    assert all(str(f.value) in {"1234", "1100"} for f in approved if f.metric == "REVENUE") and not [
        f for f in approved if f.metric != "REVENUE" or f.period_label not in {"FY2019", "FY2018"}
    ], [(f.metric, f.period_label, f.value, f.unit) for f in approved]
    assert not any(f.unit == "PCT" or f.unit == "AMT_K" for f in approved)


def test_the_wrong_cases_above_give_no_fact_at_all_or_wait() -> None:
    for rows in ([["", "Six Months Ended June 30,", ""], ["", "2019", "2018"], ["Revenue", "1,234", "1,100"]],):
        assert [f for f in read(rows) if f.status == "approved"] == []


def test_exceptions_to_a_scale_are_kept() -> None:
    rows = [
        ["(in thousands, except share and per share data)", "2019"],
        ["Revenue", "5,000"],
        ["Net income per share:", ""],
        ["Basic earnings per share", "1.23"],
    ]
    assert cells(read(rows)) == {
        ("REVENUE", "FY2019", "5000", "AMT_K", "approved"),
        ("EPS", "FY2019", "1.23", "AMT", "approved"),
    }


def test_a_nearer_currency_wins_and_the_company_currency_is_checked() -> None:
    (fact,) = read([["单位：千元 币种：美元", "2019"], ["Revenue", "1,234"]])
    assert fact.unit == "USD_K"
    (cogs,) = read([["(in thousands)", "2019"], ["Cost of sales", "1,234"]], currency="USD")
    assert cogs.status == "pending" and "printed in USD" in cogs.reason


def test_a_second_panel_under_bare_years_is_read_under_them() -> None:
    rows = [M[:], ["Revenue", "5", "4"], ["", "2017", "2016"], ["Net income", "100", "90"]]
    assert {(f.metric, f.period_label, str(f.value)) for f in read(rows) if f.status == "approved"} == {
        ("REVENUE", "FY2019", "5"),
        ("REVENUE", "FY2018", "4"),
        ("NET_INCOME", "FY2017", "100"),
        ("NET_INCOME", "FY2016", "90"),
    }


def test_a_heading_naming_a_channel_reads_under_it() -> None:
    rows = [M[:], ["Domestic:", "", ""], ["Revenue", "500", "450"]]
    assert {(f.channel, f.status) for f in read(rows)} == {("DOMESTIC", "approved")}


def test_a_margin_in_a_table_that_excepts_percentages_waits() -> None:
    (fact,) = read([["(in millions, except percentages)", "2019"], ["Gross margin (%)", "35.2"]])
    assert (fact.unit, fact.status) == ("PCT", "approved")
    rows = [["(in millions, except percentages)", "2019"], ["Current year1", "35.2"]]
    assert [f.status for f in read(rows)] == ["approved"]  # no margin, rate or yield: the table's scale
    glossary_rows = [["(in millions, except percentages)", "2019"], ["Discount rate", "3.5"]]
    assert [(f.unit, f.status) for f in read(glossary_rows)] == [("PCT", "approved")]  # a PCT metric


def test_a_currency_in_the_title_names_no_company() -> None:
    glossary = glossary_build(
        entities=[EntityInfo("HK", "Hong Kong", "subsidiary"), EntityInfo("CO", "Example Co", "subsidiary")],
        metrics=[MetricInfo("REVENUE", "Revenue", "AS_PRINTED")],
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo("AS_PRINTED", "", "")],
        aliases=[AliasRecord("entity", "HK", "HK"), AliasRecord("metric", "Revenue", "REVENUE")],
        home_company_name="Home",
    )
    table = Table("table=1", "Amounts in HK$ million", [["", "2019"], ["Revenue", "400"]])
    (fact,) = table_read(
        table, glossary=glossary, document_name="r.docx", sensitivity="INTERNAL", default_entity="CO"
    ).candidates
    assert (fact.entity, fact.unit, fact.status) == ("CO", "HKD_M", "approved")


def test_a_metric_row_of_year_like_figures_is_no_header() -> None:
    assert read([["Stores", "2045", "1998"], ["Revenue", "1,234", "1,100"]]) == []


def test_totals_of_unrelated_tables_are_no_conflict_but_a_metric_printed_twice_is() -> None:
    """A row the glossary names no metric for (a bare `Total`, a label naming none) holds no key
    of the fact table: the totals of two unrelated tables are two figures, not one in doubt."""
    leases = Table("table=1", "", [["(in millions)", "2019"], ["Revenue", "10"], ["Total", "30"]])
    payables = Table("table=2", "", [["(in millions)", "2019"], ["Cost of sales", "7"], ["Total", "45"]])
    again = Table("table=3", "", [["(in millions)", "2019"], ["Revenue", "11"], ["Domestic", "5"]])
    document = ExtractedDocument("r.docx", "", "", [leases, payables, again], [], 0)
    got = document_facts(document, glossary=_glossary(), sensitivity="INTERNAL", default_entity="CO").candidates
    totals = [f for f in got if f.value in (Decimal(30), Decimal(45))]
    assert len(totals) == 2 and all(f.metric == "" and f.status == "pending" for f in totals)
    assert not any("conflicting values" in f.reason for f in totals), [f.reason for f in totals]
    revenue = [f for f in got if f.metric == "REVENUE" and f.channel == "TOTAL"]
    assert sorted(str(f.value) for f in revenue) == ["10", "11"]
    assert all("conflicting values" in f.reason for f in revenue)
