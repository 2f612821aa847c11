"""Display strings for computed values: thousands separators, half-up rounding, no exponent.

Takes an exact `Decimal`, its unit and the decimals asked for; returns text. The exact value is
never changed: rounding happens on a copy, with `ROUND_HALF_UP` (`0.125` → `0.13`), and a
rounded zero never shows a minus sign. `PCT` values are fractions (0.0854 → `8.54%`), `PP`
values are percentage points (`-2.2 pp`); any other unit shows the bare number, to which the
caller adds the glossary's unit name.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

from core.engine.formula import PRECISION

UNIT_PCT = "PCT"
UNIT_PP = "PP"
UNIT_RANK = "RANK"
RATE_DECIMALS = 2
MAX_DECIMALS = 12


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
