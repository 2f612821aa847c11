"""A metric's sign convention (SPEC §15): how a fact of it stores the figure a report prints.

An outflow such as capital expenditure or dividends paid is printed negative in one report
(`(1,577)`) and positive in another (`1,577` under "Purchases of …"). A metric's convention
is `as_printed` (the fact stores the value as printed, the default) or `positive` (the fact
stores the amount, always positive). Either way the printed value stays in the fact's lineage:
a `positive` metric's fact keeps it beside its value (`printed_value`), so the conversion can be
undone when a curator changes the convention.
"""

from __future__ import annotations

from decimal import Decimal

SIGN_AS_PRINTED = "as_printed"
SIGN_POSITIVE = "positive"
SIGNS = (SIGN_AS_PRINTED, SIGN_POSITIVE)


def sign_apply(printed: Decimal, sign: str) -> tuple[Decimal, Decimal | None]:
    """The value a fact of a metric with convention `sign` stores for a figure printed as
    `printed`, and the printed value it keeps beside it (None when it stores it as printed).
    Exact: the amount keeps the printed scale (`-1577.0` → `1577.0`)."""
    if sign == SIGN_POSITIVE:
        return printed.copy_abs(), printed
    return printed, None


def sign_reapply(value: Decimal, printed_value: Decimal | None, sign: str) -> tuple[Decimal, Decimal | None]:
    """A stored fact (its `value` and the `printed_value` it kept, if any) under convention `sign`:
    what it stores then, from the figure as printed."""
    return sign_apply(value if printed_value is None else printed_value, sign)


def printed_display(printed: Decimal) -> str:
    """A printed figure as a statement prints it: `(1,577)` for a negative one, `1,577` else."""
    shown = f"{printed.copy_abs():,f}"
    return f"({shown})" if printed < 0 else shown


def printed_differs(value: Decimal, printed_value: Decimal | None) -> bool:
    """Whether a fact's printed figure is worth showing beside its value: it kept one, and the
    value is not it (a negative figure stored as the amount)."""
    return printed_value is not None and printed_value != value
