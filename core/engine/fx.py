"""Currency conversion with a curated rate (SPEC §5a).

Takes a `Decimal` value, the currency it is in, the currency asked and the `FxQuote` the FX table
gave (`core.ports.FxRates`); returns the converted `Decimal`. `rate_type_for` says which rate a
metric needs: the average over the period for a flow, the closing rate for a balance.

Invariants: no float ever enters; a product is exact; a quotient is exact whenever it
terminates, and otherwise rounded half-even to `PRECISION` significant digits (the engine's
precision), never to fewer. There is no default rate: without a quote the caller refuses,
naming the rate it lacks.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, Inexact, InvalidOperation, Overflow, localcontext

from core.engine.formula import PRECISION
from core.model.fx import RATE_AVERAGE, RATE_CLOSING, FxQuote

# A metric's aggregation (`core.glossary.AGGREGATIONS`, which the engine may not import): a flow
# adds up over periods, a balance is a value at a date, a ratio has no currency.
_RATE_FOR_AGGREGATION: dict[str, str | None] = {"sum": RATE_AVERAGE, "end": RATE_CLOSING, "none": None}


def rate_type_for(aggregation: str) -> str | None:
    """The rate type a metric of this aggregation is converted with: `sum` (a flow: revenue,
    profit) → `average`; `end` (a balance: assets, debt) → `closing`; `none` (a ratio, a margin)
    → None, as a ratio has no currency to convert. Pass the resolved aggregation
    (`core.glossary.aggregation_of`), not a blank one."""
    try:
        return _RATE_FOR_AGGREGATION[aggregation]
    except KeyError:
        raise ValueError(
            f"aggregation must be one of {', '.join(_RATE_FOR_AGGREGATION)}, not {aggregation!r}"
        ) from None


def _context(precision: int) -> Context:
    return Context(prec=precision, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow])


def _digits(number: Decimal) -> int:
    return len(number.as_tuple().digits)


def _plain(number: Decimal) -> Decimal:
    """An integer written without an exponent (`71 ÷ 7.1` is `10`, not `1E+1`): the same value."""
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent > 0:
        with localcontext(_context(_digits(number) + exponent)):
            return number.quantize(Decimal(1))
    return number


def fx_convert(value: Decimal, from_ccy: str, to_ccy: str, quote: FxQuote) -> Decimal:
    """`value` in `from_ccy` expressed in `to_ccy` with `quote`'s rate.

    The quote may be the pair as asked or its inverse: with only USD/CNY stored (1 USD = 7.1 CNY),
    USD → CNY multiplies by 7.1 and CNY → USD divides by it. A product is always exact (its
    precision is the sum of the operands' digits), and so is a quotient that terminates
    (`71 ÷ 7.1 = 10`, `1 ÷ 8 = 0.125`); a quotient that does not (`1 ÷ 7.1`) is rounded half-even
    to `PRECISION` (34) significant digits. A quote for another pair is a `ValueError`: the
    caller asked the FX table for the wrong rate.
    """
    if not isinstance(value, Decimal) or not value.is_finite():
        raise ValueError(f"a value to convert is a finite Decimal, not {value!r}")
    if (from_ccy, to_ccy) == (quote.base_currency, quote.quote_currency):
        with localcontext(_context(max(PRECISION, _digits(value) + _digits(quote.rate)))):
            return _plain(value * quote.rate)
    if (from_ccy, to_ccy) == (quote.quote_currency, quote.base_currency):
        # A terminating quotient of a coefficient V by M = 2^a·5^b needs at most
        # digits(V) + max(a, b) + 1 digits, and max(a, b) ≤ log2(M) < 4·digits(M).
        exact = max(PRECISION, _digits(value) + 4 * _digits(quote.rate) + 2)
        with localcontext(_context(exact)) as context:
            quotient = value / quote.rate
            if not context.flags[Inexact]:
                return _plain(quotient)
        with localcontext(_context(PRECISION)):
            return value / quote.rate
    raise ValueError(f"the {quote.pair} rate does not convert {from_ccy} to {to_ccy}")
