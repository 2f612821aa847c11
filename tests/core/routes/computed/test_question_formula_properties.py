"""Properties of a formula the question brings and of a unit it asks (SPEC §5a), through the real
parser and `answer_question` over generated fact stores:

- the answer's value is the analyst's formula evaluated in `Decimal` over exactly the inputs it
  lists (levels at written years, averages between year-ends, changes between years, numbers);
- a refused formula (a zero divisor, a missing year) gives no figure;
- every scale asked converts a stored figure exactly, for every pair of scales.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.formula import decimal_context
from core.language.quantities.asked import money_unit, scaled_unit_code
from core.model.facts import FactRecord
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import GLOSSARY, REF
from tests.fakes import InMemoryFactStore

YEARS = (2022, 2023, 2024, 2025)
# (the words the analyst writes, the metric code): stored money metrics of the demo glossary
METRICS = (("revenue", "REVENUE"), ("gross profit", "GROSS_PROFIT"), ("net profit", "NET_PROFIT"), ("capex", "CAPEX"))

values = st.decimals(min_value=Decimal("-5000"), max_value=Decimal("90000"), places=1, allow_nan=False)
years = st.sampled_from(YEARS)
metrics = st.sampled_from(METRICS)


def _store(table: dict[tuple[str, int], Decimal]) -> InMemoryFactStore:
    return InMemoryFactStore(
        [
            FactRecord(
                code, "ACME_GROUP", Period("FY", str(year)), "TOTAL", value, "CNY_M", "t.xlsx", f"c={code}{year}"
            )
            for (code, year), value in table.items()
        ]
    )


@st.composite
def terms(draw: st.DrawFn) -> tuple[str, object]:
    """One term as written, and how to evaluate it over a value table."""
    words, code = draw(metrics)
    shape = draw(st.sampled_from(("level", "average", "change", "number")))
    a, b = sorted(draw(st.lists(years, min_size=2, max_size=2, unique=True)))
    if shape == "level":
        return f"FY{b} {words}", ("level", code, b)
    if shape == "average":
        return f"average {words} between FY{a} and FY{b}", ("average", code, a, b)
    if shape == "change":
        return f"change in {words} between FY{a} and FY{b}", ("change", code, a, b)
    number = draw(st.integers(min_value=1, max_value=400))
    return str(number), ("number", Decimal(number))


@st.composite
def formulas(draw: st.DrawFn) -> tuple[str, list[object], list[str]]:
    parts = draw(st.lists(terms(), min_size=2, max_size=4).filter(lambda ts: any(t[1][0] != "number" for t in ts)))
    ops = [draw(st.sampled_from("+-*/")) for _ in parts[1:]]
    written = parts[0][0]
    for op, (text, _) in zip(ops, parts[1:], strict=True):
        written += f" {op} ({text})"
    return written, [p[1] for p in parts], ops


def _level(table: dict[tuple[str, int], Decimal], code: str, year: int) -> Decimal:
    """A stored figure as the formula takes it: an amount paid (capex) printed negative, as paid."""
    value = table[(code, year)]
    return -value if code == "CAPEX" and value < 0 else value


def _term_value(term: object, table: dict[tuple[str, int], Decimal]) -> Decimal:
    shape, *rest = term  # type: ignore[misc]
    if shape == "number":
        return rest[0]
    if shape == "level":
        return _level(table, rest[0], rest[1])
    code, a, b = rest
    if shape == "average":
        return (_level(table, code, a) + _level(table, code, b)) / 2
    return _level(table, code, b) - _level(table, code, a)


def _needs(term: object) -> set[tuple[str, int]]:
    shape, *rest = term  # type: ignore[misc]
    if shape == "number":
        return set()
    if shape == "level":
        return {(rest[0], rest[1])}
    return {(rest[0], rest[1]), (rest[0], rest[2])}


def _expected(parts: list[object], ops: list[str], table: dict[tuple[str, int], Decimal]) -> Decimal | None:
    """The formula as written, with `*` and `/` binding before `+` and `-` (each term in parentheses)."""
    with localcontext(decimal_context()):
        values_ = [_term_value(p, table) for p in parts]
        # precedence: fold * and / first
        sums: list[Decimal] = [values_[0]]
        signs: list[str] = []
        for op, value in zip(ops, values_[1:], strict=True):
            if op in "*/":
                if op == "/" and value == 0:
                    return None
                sums[-1] = sums[-1] * value if op == "*" else sums[-1] / value
            else:
                signs.append(op)
                sums.append(value)
        total = sums[0]
        for op, value in zip(signs, sums[1:], strict=True):
            total = total + value if op == "+" else total - value
        return total + 0


@settings(max_examples=60, deadline=None)
@given(
    formulas(),
    st.fixed_dictionaries({(code, year): values for _, code in METRICS for year in YEARS}),
    st.sets(st.tuples(st.sampled_from([c for _, c in METRICS]), years), max_size=2),
)
def test_the_answer_is_the_analysts_formula_evaluated_over_its_inputs(
    formula: tuple[str, list[object], list[str]],
    table: dict[tuple[str, int], Decimal],
    dropped: set[tuple[str, int]],
) -> None:
    written, parts, ops = formula
    table = {key: value for key, value in table.items() if key not in dropped}
    question = f"What is ACME Group's FY2025 index? Index is defined as: {written}. Round to four decimal places."
    result = answer_question(
        question,
        Ports(glossary=GLOSSARY, store=_store(table), provider=MockProvider()),
        cleared=True,
        reference_date=REF,
    )
    assert result.intent.definition is not None and not result.intent.definition.unread, result.answer
    years = {year for p in parts for _, year in _needs(p)}
    if len(years) == 1 and years != {2025}:  # written for one year, asked for FY2025: asked back
        assert result.answer_kind == "clarification" and not result.computed
        return
    if any(_needs(p) & dropped for p in parts):  # a missing input: named, and no figure
        assert result.answer_kind == "refusal" and not result.computed
        return
    expected = _expected(parts, ops, table)
    if expected is None:
        assert result.answer_kind == "refusal" and not result.computed
        return
    assert result.answer_kind == "answer", result.answer
    item = result.computed[0]
    assert item.value == expected
    # exactly the listed inputs, each a stored fact
    listed = {(f.metric, f.period.year) for f in item.inputs}
    assert listed <= set(table)


@settings(max_examples=40, deadline=None)
@given(
    st.decimals(min_value=Decimal("-10000000"), max_value=Decimal("10000000"), places=2, allow_nan=False),
    st.sampled_from(["CNY", "USD", "HKD"]),
    st.sampled_from([0, 3, 6, 8, 9]),
    st.sampled_from([("亿", 8), ("万", 4), ("千", 3), ("百万", 6), ("billions", 9), ("millions", 6), ("thousands", 3)]),
)
def test_every_scale_asked_converts_exactly(value: Decimal, currency: str, stored: int, asked: tuple[str, int]) -> None:
    unit = scaled_unit_code(currency, stored)
    assert money_unit(unit) == (currency, stored)
    words, power = asked
    fact = FactRecord("REVENUE", "ACME_GROUP", Period("FY", "2025"), "TOTAL", value, unit, "t.xlsx", "c=1")
    store = InMemoryFactStore([fact])
    currency_words = {"CNY": ("元", "rmb"), "USD": ("美元", "usd"), "HKD": ("港元", "hkd")}[currency]
    question = (
        f"集团2025年营收是多少{words}{currency_words[0]}"
        if not words.isascii()
        else f"ACME Group FY2025 revenue in {currency_words[1]} {words}"
    )
    result = answer_question(
        question, Ports(glossary=GLOSSARY, store=store, provider=MockProvider()), cleared=True, reference_date=REF
    )
    if stored == power:
        assert not result.computed and result.facts[0].value == value
        return
    converted = result.computed[-1]
    assert converted.value == value * Decimal(10) ** (stored - power)
    assert converted.inputs == (fact,)
    assert money_unit(converted.unit) == (currency, power)
