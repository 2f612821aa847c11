"""The series benchmark's check (`benchmarks.computed_backend.series_right`) accepts the right
answer and rejects a wrong value, a wrong rate, a missing step or another entity's figures."""

from __future__ import annotations

import copy
import itertools
from decimal import Decimal, localcontext
from typing import Any

import pytest

from benchmarks import synthetic
from benchmarks.computed_backend import SERIES_QUARTERS, series_right


def _body(i: int, j: int) -> dict[str, Any]:
    code = f"CO{i:05d}"
    values = {f"{y}Q{q}": synthetic.expected_quarter_value(i, j, y, q) for y, q in SERIES_QUARTERS}
    facts = [{"entity": code, "period": period, "value": str(value)} for period, value in values.items()]
    computed = []
    labels = list(values)
    for older, newer in itertools.pairwise(labels):
        inputs = [{"entity": code, "period": newer}, {"entity": code, "period": older}]
        old, new = values[older], values[newer]
        with localcontext() as ctx:
            ctx.prec = 34
            rate = (new - old) / old
        computed.append({"kind": "growth", "unit": "PCT", "value": str(rate), "inputs": inputs})
        computed.append({"kind": "growth", "unit": "CNY_M", "value": str(new - old), "inputs": inputs})
    return {"facts": facts, "computed": computed}


def test_the_right_series_passes() -> None:
    assert series_right(_body(3, 7), 3, 7)


@pytest.mark.parametrize("harm", ["value", "rate", "change", "step", "entity"])
def test_a_wrong_series_fails(harm: str) -> None:
    body = copy.deepcopy(_body(3, 7))
    if harm == "value":
        body["facts"][4]["value"] = str(Decimal(body["facts"][4]["value"]) + Decimal("0.1"))
    elif harm == "rate":
        body["computed"][6]["value"] = str(Decimal(body["computed"][6]["value"]) * Decimal("1.000001"))
    elif harm == "change":
        body["computed"][7]["value"] = "0"
    elif harm == "step":
        del body["computed"][-2:]
    else:
        body = _body(4, 7)
    assert not series_right(body, 3, 7)
