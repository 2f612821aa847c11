"""Display strings for computed values: thousands separators, half-up rounding, no exponent.

Takes an exact `Decimal`, its unit and the decimals asked for; returns text. The exact value is
never changed: rounding happens on a copy, with `ROUND_HALF_UP` (`0.125` → `0.13`), and a
rounded zero never shows a minus sign. `PCT` values are fractions (0.0854 → `8.54%`), `PP`
values are percentage points (`-2.2 pp`); any other unit shows the bare number, to which the
caller adds the glossary's unit name. A rate reads the same everywhere: `RATE_DECIMALS` places
unless the question asks for others. A figure converted into another unit is shown to the
places `converted_places` gives (see there).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

from core.engine.formula import PRECISION
from core.model.outcome import UNIT_PCT, UNIT_PP

RATE_DECIMALS = 2
MAX_DECIMALS = 12
SCALED_EXACT_PLACES = 4  # a scale conversion is shown whole up to this many places (128.4506 CNY bn)


def decimals_check(decimals: int | None) -> None:
    if decimals is not None and not 0 <= decimals <= MAX_DECIMALS:
        raise ValueError(f"decimals must be between 0 and {MAX_DECIMALS}, not {decimals}")


def _digits(value: Decimal, decimals: int) -> int:
    return max(PRECISION, len(value.as_tuple().digits) + 2, value.adjusted() + decimals + 3)


def decimal_round(value: Decimal, decimals: int) -> Decimal:
    """`value` rounded half-up to `decimals` places (a new value; the argument is untouched)."""
    with localcontext() as ctx:
        ctx.prec = _digits(value, decimals)
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def number_display(value: Decimal, decimals: int | None = None) -> str:
    """`96,120.3`; with `decimals`, rounded half-up to that many places; never `1E+3` or `-0`."""
    shown = value if decimals is None else decimal_round(value, decimals)
    if shown.is_zero():
        shown = abs(shown)
    return f"{shown:,f}"


def percent_of(fraction: Decimal) -> Decimal:
    """A fraction in percent, exactly (0.0854 → 8.54)."""
    with localcontext() as ctx:
        ctx.prec = _digits(fraction, 2)
        return fraction.scaleb(2)


def value_display(value: Decimal, unit: str, decimals: int | None = None) -> str:
    """A computed value as shown: `PCT` × 100 with `%` (2 places unless asked), `PP` with `pp`."""
    decimals_check(decimals)
    if unit == UNIT_PCT:
        return number_display(percent_of(value), RATE_DECIMALS if decimals is None else decimals) + "%"
    if unit == UNIT_PP:
        return number_display(value, decimals) + " pp"
    return number_display(value, decimals)


def places_of(value: Decimal) -> int:
    """The decimal places `value` is written with: `96120.3` → 1, `2310.0` → 1, `412` → 0."""
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def converted_places(value: Decimal, given: int, shift: int, *, rated: bool) -> int:
    """The places a figure converted into another unit is shown to, rounded half-up (the exact
    `value` is kept beside the display, in the JSON and the CSV).

    `given` is the places the figure was given at (a fact's as stored, a computed figure's as
    shown); `shift` the power of ten its unit moves up (百万元 → 亿元 is +2, 百万元 → 万元 is -2).

    - The precision the figure was given at is carried into the unit shown: `given +
      max(shift, 0)` places (0.1 百万元 is 0.001 亿元). A smaller unit adds no places and drops
      none (87,402.6 百万元 → 8,740,260.0 万元): the point moves, the written digits stay.
    - A scale word alone (亿, 万, 千, 百万, billions, millions, thousands; a count's 万人) is an
      exact shift, so the figure is shown whole while that takes at most `SCALED_EXACT_PLACES`
      places: every stored digit, checkable against the stored value printed beside it
      (128,450.6 百万元 → 128.4506 CNY bn). Past that (元 with 分 asked in 百万元,
      1,175,301,034.32 元 → 1,175.30 百万元) the tail is below anything an analyst reads at that
      scale, and the figure is shown to `RATE_DECIMALS`, as a 亿元 or bn figure is written.
    - Through a curated rate the result is no more precise than the figure converted, whatever
      the rate's own digits: the carried places, at most `RATE_DECIMALS` (24,015.8 百万元 × 0.14
      → 3,362.2, not 3,362.212; ÷ 7.1034 → 3,380.9).
    - Never more places than the exact value has: no zeros are added to an exact figure.
    """
    carried = given + max(shift, 0)
    if rated:
        places = min(carried, RATE_DECIMALS)
    else:
        places = carried if carried <= SCALED_EXACT_PLACES else RATE_DECIMALS
    return min(places, places_of(value))
