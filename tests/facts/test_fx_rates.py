"""The curated FX table: the model's rules, `import_fx` (all or nothing, row-numbered, idempotent),
the `FxRates` adapter (the pair or its inverse, never another type or period) and the curator's
admin pages. Run on SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import Client

from core.engine.fx import fx_convert
from core.model.fx import FxQuote
from core.model.period import Period
from core.ports import FxRates
from facts.models import FxRate
from facts.selectors import OrmFxRates
from facts.services import FxRateDraft, fx_rate_put
from tests.factories import curator_make

pytestmark = pytest.mark.django_db

HEADER = "base,quote,period,rate,rate_type,as_of,source\n"


def write(tmp_path: Path, body: str, header: str = HEADER) -> Path:
    path = tmp_path / "fx.csv"
    path.write_text(header + body, encoding="utf-8")
    return path


def run(path: Path) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_fx", str(path), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def refused(path: Path) -> tuple[str, str]:
    err = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("import_fx", str(path), stdout=StringIO(), stderr=err)
    return str(raised.value), err.getvalue()


def rate(base: str, quote: str, period: str = "2025", rate_type: str = "average", period_type: str = "FY") -> FxRate:
    return FxRate.objects.get(
        base_currency=base, quote_currency=quote, rate_type=rate_type, period_type=period_type, period=period
    )


# -- import_fx ------------------------------------------------------------------------------------
def test_rows_are_stored_exactly_with_their_period_type_date_and_source(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "USD,CNY,FY2025,7.1840,average,2025-12-31,PBOC annual average\n"
        "usd,cny,2025年,7.2993,Closing,,\n"
        "EUR,CNY,2025H1,7.7521,average,2025-06-30,ECB\n"
        "HKD,CNY,2025Q4,0.91234567890123456789,closing,,\n",
    )
    out, _ = run(path)
    assert "fx rates: 4 created, 0 updated, 0 unchanged" in out
    average = rate("USD", "CNY")
    assert str(average.rate) == "7.1840"  # the scale kept, on both backends
    assert (average.as_of, average.source, average.period_label) == (
        date(2025, 12, 31),
        "PBOC annual average",
        "FY2025",
    )
    closing = rate("USD", "CNY", rate_type="closing")
    assert closing.rate == Decimal("7.2993") and closing.source == "fx.csv"  # blank source: the file
    assert rate("EUR", "CNY", "2025H1", period_type="HY").period_label == "2025H1"
    assert str(rate("HKD", "CNY", "2025Q4", "closing", "QUARTER").rate) == "0.91234567890123456789"


def test_importing_again_is_idempotent_and_counts_what_changed(tmp_path: Path) -> None:
    body = "USD,CNY,FY2025,7.1840,average,2025-12-31,PBOC\nEUR,CNY,FY2025,7.8,average,,ECB\n"
    path = write(tmp_path, body)
    assert "2 created, 0 updated, 0 unchanged" in run(path)[0]
    assert "0 created, 0 updated, 2 unchanged" in run(path)[0]
    assert FxRate.objects.count() == 2
    path.write_text(HEADER + body.replace("7.8,", "7.81,") + "GBP,CNY,FY2025,9.1,average,,BoE\n", encoding="utf-8")
    assert "1 created, 1 updated, 1 unchanged" in run(path)[0]
    assert rate("EUR", "CNY").rate == Decimal("7.81")
    assert FxRate.objects.count() == 3


def test_a_bad_row_3_aborts_the_import_names_row_3_and_writes_nothing(tmp_path: Path) -> None:
    fx_rate_put(draft=FxRateDraft("USD", "CNY", Period("FY", "2024"), Decimal("7.1"), "average", "PBOC"))
    path = write(
        tmp_path,
        "USD,CNY,FY2025,7.18,average,,PBOC\n"  # row 2: good
        "EUR,CNY,FY2025,-7.8,average,,ECB\n"  # row 3: bad
        "USD,CNY,FY2024,7.2,average,,PBOC\n",  # row 4: good, an update
    )
    message, err = refused(path)
    assert "1 error(s); nothing was imported" in message
    assert "row 3: rate '-7.8' is not positive" in err
    assert "row 2" not in err and "row 4" not in err
    assert list(FxRate.objects.values_list("period", "rate")) == [("2024", Decimal("7.1"))]


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("US$,CNY,FY2025,7.1,average,,", "row 2: base 'US$' is not an ISO 4217 currency code"),
        ("USD,RENMINBI,FY2025,7.1,average,,", "row 2: quote 'RENMINBI' is not an ISO 4217 currency code"),
        ("USD,USD,FY2025,1,average,,", "row 2: base and quote are both USD"),
        ("USD,CNY,FY2025,0,average,,", "row 2: rate '0' is not positive"),
        ("USD,CNY,FY2025,-0.5,average,,", "row 2: rate '-0.5' is not positive"),
        ("USD,CNY,FY2025,seven,average,,", "row 2: rate 'seven' is not a decimal number"),
        ('USD,CNY,FY2025,"7,1",average,,', "row 2: rate '7,1' is not a decimal number"),
        ("USD,CNY,FY2025,,average,,", "row 2: rate '' is not a decimal number"),
        ("USD,CNY,FY2025,NaN,average,,", "row 2: rate 'NaN' is not a finite number"),
        ("USD,CNY,FY2025,7.1,spot,,", "row 2: rate_type 'spot' is not one of average, closing"),
        ("USD,CNY,FY2025,7.1,,,", "row 2: rate_type '' is not one of average, closing"),
        ("USD,CNY,someday,7.1,average,,", "row 2: period 'someday' is not a period (FY2025, 2025H1, 2025Q4 …)"),
        ("USD,CNY,去年,7.1,average,,", "row 2: period '去年' is not a period"),  # relative: not stored
        ("USD,CNY,2025-12-31,7.1,average,,", "row 2: period '2025-12-31' is not a period"),
        ("USD,CNY,FY2025,7.1,average,31/12/2025,", "row 2: as_of '31/12/2025' is not a date (YYYY-MM-DD)"),
        ("USD,CNY,FY2025,7.1,average,,PBOC,extra", "row 2: more values than the header has columns"),
    ],
)
def test_each_kind_of_bad_cell_is_named_with_its_row(tmp_path: Path, row: str, problem: str) -> None:
    message, err = refused(write(tmp_path, row + "\n"))
    assert "nothing was imported" in message
    assert problem in err
    assert not FxRate.objects.exists()


def test_every_problem_of_a_row_is_named_at_once(tmp_path: Path) -> None:
    _, err = refused(write(tmp_path, "US,CNY,someday,abc,spot,,\n"))
    assert err.count("row 2:") == 1
    for problem in ("base 'US'", "rate 'abc'", "rate_type 'spot'", "period 'someday'"):
        assert problem in err


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    _, err = refused(write(tmp_path, "USD,CNY,FY2025,7.1\n", header="base,quote,period,rate\n"))
    assert "header: missing column(s) rate_type" in err


def test_a_pair_twice_either_way_round_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "USD,CNY,FY2025,7.1,average,,\nUSD,CNY,FY2025,7.2,closing,,\nCNY,USD,FY2025,0.14,average,,\n",
    )
    _, err = refused(path)
    assert "row 4: CNY/USD average FY2025 is also on row 2" in err
    assert not FxRate.objects.exists()


def test_an_inverse_already_stored_is_refused_with_the_rate_that_holds_it(tmp_path: Path) -> None:
    fx_rate_put(draft=FxRateDraft("USD", "CNY", Period("FY", "2025"), Decimal("7.1"), "average", "PBOC"))
    _, err = refused(write(tmp_path, "EUR,CNY,FY2025,7.8,average,,\nCNY,USD,FY2025,0.14,average,,\n"))
    assert "row 3: USD/CNY already holds the average rate for FY2025: 7.1 from PBOC" in err
    assert "CNY/USD is its inverse" in err
    assert list(FxRate.objects.values_list("base_currency", "quote_currency")) == [("USD", "CNY")]


def test_a_file_that_is_not_csv_or_not_there_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_fx", str(tmp_path / "missing.csv"), stdout=StringIO(), stderr=StringIO())
    xlsx = tmp_path / "fx.xlsx"
    xlsx.write_bytes(b"PK")
    with pytest.raises(CommandError, match=r"reads \.csv files"):
        call_command("import_fx", str(xlsx), stdout=StringIO(), stderr=StringIO())


# -- the model and the service ---------------------------------------------------------------------
def test_the_model_refuses_a_rate_that_breaks_a_rule() -> None:
    bad = FxRate(
        base_currency="usd", quote_currency="USD", rate=Decimal("0"), rate_type="average",
        period_type="HY", period="2025", source="x",
    )  # fmt: skip
    with pytest.raises(ValidationError) as raised:
        bad.full_clean()
    errors = raised.value.message_dict
    assert set(errors) >= {"base_currency", "rate", "period"}
    assert "'2025' is not a HY period" in errors["period"][0]


def test_the_database_refuses_a_second_rate_for_a_key() -> None:
    from django.db import IntegrityError, transaction

    draft = FxRateDraft("USD", "CNY", Period("QUARTER", "2025Q4"), Decimal("7.1"), "closing", "PBOC")
    fx_rate_put(draft=draft)
    with pytest.raises(IntegrityError), transaction.atomic():
        FxRate.objects.create(
            base_currency="USD", quote_currency="CNY", rate=Decimal("7.2"), rate_type="closing",
            period_type="QUARTER", period="2025Q4", source="other",
        )  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        FxRate.objects.create(
            base_currency="EUR", quote_currency="EUR", rate=Decimal("1"), rate_type="closing",
            period_type="QUARTER", period="2025Q4", source="other",
        )  # fmt: skip


def test_the_service_reports_what_it_did() -> None:
    draft = FxRateDraft("USD", "CNY", Period("FY", "2025"), Decimal("7.10"), "average", "PBOC", date(2025, 12, 31))
    assert fx_rate_put(draft=draft)[1] == "created"
    assert fx_rate_put(draft=draft)[1] == "unchanged"
    assert fx_rate_put(draft=replace(draft, rate=Decimal("7.1")))[1] == "updated"  # the scale is what is stored
    assert str(rate("USD", "CNY").rate) == "7.1"
    assert fx_rate_put(draft=replace(draft, rate=Decimal("7.1"), as_of=None))[1] == "updated"
    assert fx_rate_put(draft=replace(draft, rate=Decimal("7.1"), as_of=None, source="SAFE"))[1] == "updated"
    assert FxRate.objects.count() == 1


# -- the adapter ------------------------------------------------------------------------------------
def test_the_adapter_gives_the_pair_its_inverse_and_nothing_else() -> None:
    fx_rate_put(
        draft=FxRateDraft("USD", "CNY", Period("FY", "2025"), Decimal("7.1840"), "average", "PBOC", date(2025, 12, 31))
    )
    fx_rate_put(draft=FxRateDraft("USD", "CNY", Period("FY", "2025"), Decimal("7.2993"), "closing", "PBOC"))
    rates: FxRates = OrmFxRates()
    quote = rates.rate("USD", "CNY", "FY", "2025", "average")
    assert quote == FxQuote(
        "USD", "CNY", Decimal("7.1840"), "average", Period("FY", "2025"), "PBOC", date(2025, 12, 31)
    )
    assert quote is not None and str(quote.rate) == "7.1840" and quote.period.label == "FY2025"
    inverse = rates.rate("CNY", "USD", "FY", "2025", "average")
    assert inverse == quote  # the stored pair: its currencies say it is the inverse
    assert fx_convert(Decimal("71.840"), "CNY", "USD", inverse) == Decimal("10")
    assert rates.rate("USD", "CNY", "FY", "2025", "closing").rate == Decimal("7.2993")  # type: ignore[union-attr]
    assert rates.rate("USD", "CNY", "FY", "2024", "average") is None  # no other period's rate
    assert rates.rate("USD", "CNY", "HY", "2025H1", "average") is None
    assert rates.rate("USD", "EUR", "FY", "2025", "average") is None
    assert rates.rate("USD", "USD", "FY", "2025", "average") is None


# -- the admin --------------------------------------------------------------------------------------
@pytest.fixture
def curator() -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(curator_make())
    return client


def test_a_curator_sees_the_rates_in_chinese_or_english(curator: Client) -> None:
    fx_rate_put(draft=FxRateDraft("USD", "CNY", Period("HY", "2025H1"), Decimal("7.1840"), "average", "PBOC"))
    page = curator.get("/admin/facts/fxrate/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "外汇汇率" in text and "基准货币" in text and "2025H1" in text and "7.1840" in text
    english = curator.get("/admin/facts/fxrate/", headers={"accept-language": "en"}).content.decode()
    assert "FX rates" in english and "base currency" in english.lower() and "外汇汇率" not in english
    assert curator.get("/admin/facts/fxrate/add/").status_code == 200


def test_a_curator_adds_a_rate_with_its_period_as_written(curator: Client) -> None:
    form = {
        "base_currency": "usd",
        "quote_currency": "CNY",
        "rate": "7.10",
        "rate_type": "closing",
        "period": "2025Q4",
        "as_of": "2025-12-31",
        "source": "PBOC",
    }
    response = curator.post("/admin/facts/fxrate/add/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    stored = rate("USD", "CNY", "2025Q4", "closing", "QUARTER")
    assert str(stored.rate) == "7.10" and stored.as_of == date(2025, 12, 31)
    page = curator.get(f"/admin/facts/fxrate/{stored.pk}/change/").content.decode()
    assert 'value="2025Q4"' in page


def test_the_admin_says_what_is_wrong_instead_of_saving(curator: Client) -> None:
    fx_rate_put(draft=FxRateDraft("USD", "CNY", Period("FY", "2025"), Decimal("7.1"), "average", "PBOC"))
    form = {"base_currency": "CNY", "quote_currency": "USD", "rate": "0.14", "rate_type": "average", "source": "x"}
    page = curator.post("/admin/facts/fxrate/add/", {**form, "period": "FY2025"}).content.decode()
    assert "USD/CNY already holds the average rate for FY2025" in page
    page = curator.post("/admin/facts/fxrate/add/", {**form, "period": "去年", "rate": "-1"}).content.decode()
    assert "is not one period" in page and "A rate is positive" in page
    assert FxRate.objects.count() == 1
