"""Currency conversion with a curated rate: exact Decimal arithmetic, an inverse pair divides, the
rate type follows the metric's aggregation, and a quote for another pair is refused."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.formula import PRECISION
from core.engine.fx import fx_convert, rate_type_for
from core.glossary import AGGREGATIONS
from core.model.fx import RATE_AVERAGE, RATE_CLOSING, RATE_TYPES, FxQuote
from core.model.period import Period

FY2025 = Period("FY", "2025")


def usd_cny(rate: str | Decimal = "7.1", rate_type: str = RATE_AVERAGE) -> FxQuote:
    return FxQuote("USD", "CNY", D(rate), rate_type, FY2025, "PBOC", date(2025, 12, 31))


def test_the_pair_as_stored_multiplies_exactly() -> None:
    assert str(fx_convert(D("12.50"), "USD", "CNY", usd_cny())) == "88.750"
    assert fx_convert(D("-3"), "USD", "CNY", usd_cny("7.1234")) == D("-21.3702")


def test_the_inverse_pair_divides_and_is_exact_when_the_quotient_terminates() -> None:
    assert str(fx_convert(D("88.750"), "CNY", "USD", usd_cny())) == "12.50"
    assert str(fx_convert(D("1"), "CNY", "USD", usd_cny("8"))) == "0.125"
    assert str(fx_convert(D("71"), "CNY", "USD", usd_cny())) == "10"  # not 1E+1


def test_a_quotient_that_does_not_terminate_is_rounded_to_the_engines_precision() -> None:
    converted = fx_convert(D("1"), "CNY", "USD", usd_cny())
    assert converted == D("0.1408450704225352112676056338028169")
    assert len(converted.as_tuple().digits) == PRECISION


def test_figures_longer_than_the_engines_precision_stay_exact() -> None:
    big = D("123456789012345678901234567890123456789.123456789")
    assert Fraction(fx_convert(big, "USD", "CNY", usd_cny("7.123456789"))) == Fraction(big) * Fraction("7.123456789")
    assert Fraction(fx_convert(big, "CNY", "USD", usd_cny("0.0625"))) == Fraction(big) / Fraction("0.0625")


def test_a_quote_for_another_pair_is_refused() -> None:
    with pytest.raises(ValueError, match="USD/CNY rate does not convert EUR to CNY"):
        fx_convert(D("1"), "EUR", "CNY", usd_cny())
    with pytest.raises(ValueError, match="does not convert USD to USD"):
        fx_convert(D("1"), "USD", "USD", usd_cny())


def test_a_value_that_is_not_a_finite_decimal_is_refused() -> None:
    with pytest.raises(ValueError, match="finite Decimal"):
        fx_convert(D("NaN"), "USD", "CNY", usd_cny())
    with pytest.raises(ValueError, match="finite Decimal"):
        fx_convert(1.5, "USD", "CNY", usd_cny())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"base_currency": "usd"}, "three capitals"),
        ({"quote_currency": "USD"}, "to itself"),
        ({"rate": D("0")}, "positive"),
        ({"rate": D("-7.1")}, "positive"),
        ({"rate": D("Infinity")}, "positive"),
        ({"rate": 7.1}, "positive"),
        ({"rate_type": "spot"}, "average, closing"),
    ],
)
def test_a_quote_holds_a_positive_rate_between_two_currencies(fields: dict[str, object], problem: str) -> None:
    values: dict[str, object] = {
        "base_currency": "USD",
        "quote_currency": "CNY",
        "rate": D("7.1"),
        "rate_type": RATE_AVERAGE,
        "period": FY2025,
        "source": "PBOC",
    }
    with pytest.raises(ValueError, match=problem):
        FxQuote(**{**values, **fields})  # type: ignore[arg-type]


def test_flows_take_the_average_rate_and_balances_the_closing_rate() -> None:
    assert rate_type_for("sum") == RATE_AVERAGE
    assert rate_type_for("end") == RATE_CLOSING
    assert rate_type_for("none") is None  # a ratio has no currency
    assert {rate_type_for(a) for a in AGGREGATIONS} == {*RATE_TYPES, None}  # every aggregation has its answer
    with pytest.raises(ValueError, match="aggregation must be one of"):
        rate_type_for("")


_values = st.decimals(min_value=D("-1e15"), max_value=D("1e15"), places=6, allow_nan=False, allow_infinity=False)
_rates = st.decimals(min_value=D("0.000001"), max_value=D("100000"), places=6, allow_nan=False, allow_infinity=False)


@settings(derandomize=True, database=None, max_examples=300, deadline=None)
@given(_values, _rates)
def test_converting_is_exact_and_converting_back_gives_the_original(value: Decimal, rate: Decimal) -> None:
    quote = usd_cny(rate)
    converted = fx_convert(value, "USD", "CNY", quote)
    assert Fraction(converted) == Fraction(value) * Fraction(rate)  # the product, exactly
    assert fx_convert(converted, "CNY", "USD", quote) == value  # its quotient terminates: exactly back


@settings(derandomize=True, database=None, max_examples=300, deadline=None)
@given(_values, _rates)
def test_an_inverse_is_exact_or_within_half_a_unit_of_its_last_digit(value: Decimal, rate: Decimal) -> None:
    converted = fx_convert(value, "CNY", "USD", usd_cny(rate))
    exact = Fraction(value) / Fraction(rate)
    if Fraction(converted) != exact:  # rounded: only a quotient that does not terminate is
        assert len(converted.as_tuple().digits) == PRECISION
        exponent = converted.as_tuple().exponent
        assert isinstance(exponent, int)
        assert abs(Fraction(converted) - exact) <= Fraction(10) ** exponent / 2
        assert (exact.denominator // _two_five_part(exact.denominator)) != 1


def _two_five_part(n: int) -> int:
    part = 1
    for prime in (2, 5):
        while n % prime == 0:
            n //= prime
            part *= prime
    return part
