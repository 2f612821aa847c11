"""The places a converted figure is shown to (`converted_places`) and the half-up display."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.engine.display import (
    RATE_DECIMALS,
    SCALED_EXACT_PLACES,
    converted_places,
    decimal_round,
    number_display,
    places_of,
)

D = Decimal


@pytest.mark.parametrize(
    ("value", "given", "shift", "rated", "shown"),
    [
        ("1284.506", 1, 2, False, "1,284.506"),  # 128,450.6 百万元 in 亿元: 0.1 百万元 is 0.001 亿元
        ("128.4506", 1, 3, False, "128.4506"),  # in CNY bn: every stored digit, four places
        ("8740260.0", 1, -2, False, "8,740,260.0"),  # in 万元: the point moves, the digits stay
        ("58.32", 0, 2, False, "58.32"),  # 5,832 万人 in millions
        ("1284.5", 1, 2, False, "1,284.5"),  # an exact value needs no padding zeros
        ("1175.30103432", 2, 6, False, "1,175.30"),  # 元 with 分 in 百万元: two places
        ("-55.23614748", 2, 6, False, "-55.24"),
        ("3362.212", 1, 0, True, "3,362.2"),  # through a rate: the input's one place
        ("1175.05", 1, 0, True, "1,175.1"),  # half-up
        ("18082.97435031111861925275220317031", 1, 0, True, "18,083.0"),
        ("33.80888025452600163302080693752288", 1, 2, True, "33.81"),  # rate and scale: two at most
        ("-0.004", 1, 2, True, "0.00"),  # a rounded zero has no minus sign
    ],
)
def test_a_converted_figure_is_shown_to_its_given_precision(
    value: str, given: int, shift: int, rated: bool, shown: str
) -> None:
    exact = D(value)
    assert number_display(exact, converted_places(exact, given, shift, rated=rated)) == shown


_EXACT = st.decimals(min_value=-(10**12), max_value=10**12, places=12, allow_nan=False, allow_infinity=False)
_GIVEN = st.integers(min_value=0, max_value=6)
_SHIFT = st.integers(min_value=-9, max_value=9)


@given(value=_EXACT, given_places=_GIVEN, shift=_SHIFT, rated=st.booleans())
def test_the_display_rounds_the_exact_value_half_up_to_the_rule(
    value: Decimal, given_places: int, shift: int, rated: bool
) -> None:
    before = value.as_tuple()
    places = converted_places(value, given_places, shift, rated=rated)
    shown = number_display(value, places)
    assert value.as_tuple() == before  # the exact value is unchanged
    assert 0 <= places <= places_of(value)  # never more places than the exact value has
    carried = given_places + max(shift, 0)
    if rated:
        assert places == min(carried, RATE_DECIMALS, places_of(value))
    elif carried <= SCALED_EXACT_PLACES:
        assert places == min(carried, places_of(value))
    else:
        assert places == min(RATE_DECIMALS, places_of(value))
    read = D(shown.replace(",", ""))
    assert read == decimal_round(value, places)
    assert abs(read - value) <= D(5).scaleb(-places - 1)  # half a unit of the last place shown
    halfway = abs(read - value) == D(5).scaleb(-places - 1)
    if halfway and not value.is_zero():
        assert abs(read) > abs(value)  # a tie rounds away from zero: half-up, not half-even


@given(value=_EXACT, shift=st.integers(min_value=0, max_value=4))
def test_a_scale_word_alone_shows_every_stored_digit_within_four_places(value: Decimal, shift: int) -> None:
    stored = decimal_round(value, SCALED_EXACT_PLACES - shift)  # a fact stored to so many places
    converted = stored.scaleb(-shift)  # the same figure in a unit 10^shift larger, exactly
    places = converted_places(converted, places_of(stored), shift, rated=False)
    assert D(number_display(converted, places).replace(",", "")) == converted
