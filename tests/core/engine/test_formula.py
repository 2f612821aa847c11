from __future__ import annotations

import itertools
from decimal import Decimal, localcontext

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.engine.formula import (
    Chain,
    FormulaError,
    Group,
    Negate,
    Number,
    Power,
    Ref,
    decimal_context,
    formula_evaluate,
    formula_expand,
    formula_parse,
    formula_render,
    formulas_check,
    node_evaluate,
    node_has_division,
    refs_map,
)

STORED = ("REVENUE", "OPERATING_PROFIT", "NET_PROFIT", "GROSS_PROFIT", "M024", "M025")
DEMO_FORMULAS = {"OPERATING_MARGIN": "OPERATING_PROFIT / REVENUE", "NET_MARGIN": "NET_PROFIT / REVENUE"}
NAMES = {"OPERATING_PROFIT": "营业利润", "REVENUE": "营业收入", "M024": "收入", "M025": "成本"}
D = Decimal


@pytest.mark.parametrize(
    ("text", "codes", "words"),
    [
        ("OPERATING_PROFIT / REVENUE", "OPERATING_PROFIT / REVENUE", "营业利润 / 营业收入"),
        ("(M024-M025)/M024", "(M024 - M025) / M024", "(收入 - 成本) / 收入"),
        ("  M024*100 /  REVENUE ", "M024 * 100 / REVENUE", "收入 * 100 / 营业收入"),
        ("-(M024 + M025) * 0.5", "-(M024 + M025) * 0.5", "-(收入 + 成本) * 0.5"),
        ("M024 - -M025", "M024 - -M025", "收入 - -成本"),
        ("M024 - (M025 - REVENUE)", "M024 - (M025 - REVENUE)", "收入 - (成本 - 营业收入)"),
        ("((M024))", "((M024))", "((收入))"),
        ("M024 * (M025)", "M024 * (M025)", "收入 * (成本)"),
    ],
)
def test_render_in_codes_and_in_words_keeps_written_parentheses(text: str, codes: str, words: str) -> None:
    formula = formula_parse(text)
    assert formula_render(formula) == codes
    assert formula_render(formula, NAMES) == words
    assert formula_parse(codes).root == formula.root


def test_codes_in_order_of_first_use() -> None:
    assert formula_parse("(M024-M025)/M024").codes == ("M024", "M025")
    assert formula_parse("REVENUE*2 + M024 - REVENUE").codes == ("REVENUE", "M024")


def test_precedence_and_associativity() -> None:
    root = formula_parse("M024 - M025 - REVENUE * 2 / 4").root
    assert root == Chain(
        Ref("M024"),
        (("-", Ref("M025")), ("-", Chain(Ref("REVENUE"), (("*", Number(D(2), "2")), ("/", Number(D(4), "4")))))),
    )
    assert formula_parse("-M024 * M025").root == Chain(Negate(Ref("M024")), (("*", Ref("M025")),))


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("", "empty formula", None),
        ("   ", "empty formula", None),
        ("(M024-M025))", "unexpected ')' at column 12", 12),
        ("M024 / )", "unexpected ')' at column 8", 8),
        ("M024 +", "unexpected end of formula at column 7", 7),
        ("(M024", "missing ')' for '(' at column 1", 1),
        ("M024 (M025)", "unexpected '(' at column 6", 6),
        ("revenue", "unexpected 'r' at column 1", 1),
        ("M024 % 2", "unexpected '%' at column 6", 6),
        ("M024 ^ 2", "unexpected '^' at column 6", 6),
        ("REVENUE[FY2025]", "unexpected '[' at column 8", 8),
        ("M024 / 0", "division by a constant zero at column 6", 6),
        ("M024 / 0.00", "division by a constant zero at column 6", 6),
        ("M024/(2-2*1)", "division by a constant zero at column 5", 5),
        ("1.", "unexpected '.' at column 2", 2),
        ("+M024", "unexpected '+' at column 1", 1),
        ("100", "formula uses no metric code", None),
        ("2 * (3 + 4)", "formula uses no metric code", None),
    ],
)
def test_syntax_errors_name_the_column(text: str, message: str, column: int | None) -> None:
    with pytest.raises(FormulaError) as caught:
        formula_parse(text)
    assert str(caught.value) == message
    assert caught.value.column == column


def test_unknown_code_is_named_with_its_column() -> None:
    with pytest.raises(FormulaError, match=r"^unknown metric code FOO at column 11$"):
        formula_parse("REVENUE - FOO", known_codes=STORED)
    assert formula_parse("REVENUE - M024", known_codes=STORED).codes == ("REVENUE", "M024")


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(FormulaError, match="nested too deeply"):
        formula_parse("(" * 500 + "M024" + ")" * 500)
    with pytest.raises(FormulaError, match="nested too deeply"):
        formula_parse("-" * 500 + "M024")
    assert formula_parse("(" * 30 + "M024" + ")" * 30).codes == ("M024",)


def test_long_flat_sums_do_not_recurse() -> None:
    text = " + ".join(f"M{i}" for i in range(20_000))
    formula = formula_parse(text)
    assert len(formula.codes) == 20_000
    assert formula_render(formula) == text
    assert node_evaluate(formula.root, lambda ref: D(1)).value == 20_000


# -- formulas_check ------------------------------------------------------------------------


def test_demo_formulas_are_accepted() -> None:
    assert formulas_check(DEMO_FORMULAS, STORED) == {}
    assert formulas_check({**DEMO_FORMULAS, "MARGIN_GAP": "OPERATING_MARGIN - NET_MARGIN"}, STORED) == {}


def test_check_reports_syntax_unknown_codes_cycles_and_their_users() -> None:
    errors = formulas_check(
        {
            "A": "B + REVENUE",
            "B": "C * 2",
            "C": "A / REVENUE",
            "SELF": "SELF + 1",
            "BAD": "REVENUE /",
            "UNKNOWN": "REVENUE - FOO",
            "USER": "A + 1",
            "USER_OF_BAD": "BAD * 2",
            "FINE": "OPERATING_PROFIT / REVENUE",
        },
        STORED,
    )
    assert errors == {
        "A": "cycle A → B → C → A",
        "B": "cycle B → C → A → B",
        "C": "cycle C → A → B → C",
        "SELF": "cycle SELF → SELF",
        "BAD": "unexpected end of formula at column 10",
        "UNKNOWN": "unknown metric code FOO at column 11",
        "USER": "uses A, which has an error",
        "USER_OF_BAD": "uses BAD, which has an error",
    }


def test_a_formula_metric_may_shadow_a_stored_code_without_a_cycle() -> None:
    assert formulas_check({"GROSS_PROFIT": "REVENUE - M025"}, STORED) == {}


@st.composite
def definition_graphs(draw: st.DrawFn) -> dict[str, list[str]]:
    size = draw(st.integers(1, 8))
    codes = [f"F{i}" for i in range(size)]
    return {code: draw(st.lists(st.sampled_from(codes), max_size=3, unique=True)) for code in codes}


def _reach(graph: dict[str, list[str]]) -> dict[str, set[str]]:
    reach = {code: set(targets) for code, targets in graph.items()}
    for middle in graph:
        for code in graph:
            if middle in reach[code]:
                reach[code] |= reach[middle]
    return reach


@settings(derandomize=True, database=None, max_examples=200, deadline=None)
@given(definition_graphs())
def test_check_finds_every_cycle_and_accepts_every_acyclic_definition(graph: dict[str, list[str]]) -> None:
    definitions = {code: " + ".join(["REVENUE", *targets]) for code, targets in graph.items()}
    errors = formulas_check(definitions, STORED)
    reach = _reach(graph)
    on_cycle = {code for code in graph if code in reach[code]}
    broken = {code for code in graph if code in on_cycle or reach[code] & on_cycle}
    assert set(errors) == broken
    for code in on_cycle:
        assert errors[code].startswith("cycle ")
        path = errors[code].removeprefix("cycle ").split(" → ")
        assert path[0] == path[-1] == code
        assert all(b in graph[a] for a, b in itertools.pairwise(path))
        assert len(path) == len(set(path)) + 1  # a simple cycle
    for code in broken - on_cycle:
        assert errors[code].startswith("uses ")


# -- evaluation ----------------------------------------------------------------------------

DEFINITIONS = {
    "OPERATING_MARGIN": formula_parse("OPERATING_PROFIT / REVENUE"),
    "NET_MARGIN": formula_parse("NET_PROFIT / REVENUE"),
    "MARGIN_GAP": formula_parse("OPERATING_MARGIN - NET_MARGIN"),
}
GROUP_FY2025 = {"OPERATING_PROFIT": D("9487.3"), "REVENUE": D("128450.6"), "NET_PROFIT": D("6811.9")}


def test_evaluate_is_exact_decimal() -> None:
    evaluation = formula_evaluate(formula_parse("M024 + M025"), {"M024": D("0.1"), "M025": D("0.2")}.get)
    assert evaluation.status == "ok"
    assert evaluation.value == D("0.3")
    margin = formula_evaluate(DEFINITIONS["OPERATING_MARGIN"], GROUP_FY2025.get)
    assert margin.value == D("0.07385952264917407937370475497973540")  # 34 significant digits
    with localcontext(decimal_context()):
        assert margin.value == D("9487.3") / D("128450.6")


def test_formula_metrics_inside_are_expanded() -> None:
    evaluation = formula_evaluate(DEFINITIONS["MARGIN_GAP"], GROUP_FY2025.get, DEFINITIONS)
    with localcontext(decimal_context()):
        assert evaluation.value == D("9487.3") / D("128450.6") - D("6811.9") / D("128450.6")
    assert evaluation.used == ("OPERATING_PROFIT", "REVENUE", "NET_PROFIT")
    assert formula_render(evaluation.expanded) == "OPERATING_PROFIT / REVENUE - NET_PROFIT / REVENUE"


def test_a_stored_value_of_a_formula_metric_wins_inside() -> None:
    values = {**GROUP_FY2025, "OPERATING_MARGIN": D("0.05")}
    evaluation = formula_evaluate(DEFINITIONS["MARGIN_GAP"], values.get, DEFINITIONS)
    with localcontext(decimal_context()):
        assert evaluation.value == D("0.05") - D("6811.9") / D("128450.6")
    assert evaluation.used == ("OPERATING_MARGIN", "NET_PROFIT", "REVENUE")


def test_missing_inputs_are_named_not_guessed() -> None:
    evaluation = formula_evaluate(DEFINITIONS["MARGIN_GAP"], {"REVENUE": D(1)}.get, DEFINITIONS)
    assert evaluation.status == "missing"
    assert evaluation.value is None
    assert evaluation.missing == ("OPERATING_PROFIT", "NET_PROFIT")


def test_division_by_zero_is_not_meaningful_not_an_exception() -> None:
    values = {"OPERATING_PROFIT": D("5"), "REVENUE": D("0")}
    evaluation = formula_evaluate(DEFINITIONS["OPERATING_MARGIN"], values.get)
    assert evaluation.status == "not_meaningful"
    assert evaluation.value is None
    assert evaluation.not_meaningful == "division by zero: REVENUE = 0"
    assert evaluation.problem == Ref("REVENUE")
    nested = formula_evaluate(
        formula_parse("M024 / (M025 - REVENUE)"), {"M024": D(1), "M025": D(2), "REVENUE": D(2)}.get
    )
    assert nested.not_meaningful == "division by zero: (M025 - REVENUE) = 0"


def test_an_unchecked_cycle_is_refused_at_evaluation() -> None:
    cyclic = {"A": formula_parse("B + 1"), "B": formula_parse("A * 2")}
    with pytest.raises(FormulaError, match="cycle B → A → B"):
        formula_evaluate(cyclic["A"], lambda code: None, cyclic)


def test_expand_and_map_references() -> None:
    expanded = formula_expand(DEFINITIONS["MARGIN_GAP"], DEFINITIONS, stored=lambda code: code == "NET_MARGIN")
    assert formula_render(expanded) == "OPERATING_PROFIT / REVENUE - NET_MARGIN"
    qualified = refs_map(expanded, lambda ref: Ref(ref.code, "ACME_HK,FY2025"))
    assert formula_render(qualified) == (
        "OPERATING_PROFIT[ACME_HK,FY2025] / REVENUE[ACME_HK,FY2025] - NET_MARGIN[ACME_HK,FY2025]"
    )
    assert node_has_division(expanded)
    assert not node_has_division(formula_parse("M024 - M025 * 2").root)


def test_computed_formulas_take_qualified_references_and_powers() -> None:
    text = "(REVENUE[FY2025] / REVENUE[FY2022]) ^ (1 / 3) - 1"
    formula = formula_parse(text, references=True)
    assert formula_render(formula) == text
    values = {"FY2025": D("128450.6"), "FY2022": D("98215.4")}
    value = node_evaluate(formula.root, lambda ref: values[ref.qualifier]).value
    assert value is not None
    with localcontext(decimal_context()):
        assert abs((1 + value) ** 3 - D("128450.6") / D("98215.4")) < D("1e-31")
    assert formula_parse("A ^ B ^ C", references=True).root == Power(Ref("A"), Power(Ref("B"), Ref("C")))
    assert formula_render(Power(Power(Ref("A"), Ref("B")), Negate(Ref("C")))) == "(A ^ B) ^ -C"
    undefined = node_evaluate(formula_parse("A ^ 0.5", references=True).root, lambda ref: D(-4))
    assert undefined.status == "not_meaningful"
    with pytest.raises(FormulaError, match=r"unclosed '\[' at column 2"):
        formula_parse("A[FY2025", references=True)


def test_render_adds_only_the_parentheses_precedence_needs() -> None:
    built = Chain(
        Chain(Ref("A"), (("-", Ref("B")),)),
        (("/", Ref("B")), ("*", Chain(Ref("C"), (("/", Ref("D")),)))),
    )
    assert formula_render(built) == "(A - B) / B * (C / D)"
    assert formula_render(Negate(Chain(Ref("A"), (("*", Ref("B")),)))) == "-(A * B)"
    assert formula_render(Group(Ref("A"))) == "(A)"


# -- round trip ----------------------------------------------------------------------------

_spaces = st.sampled_from(["", " ", "  "])
_codes = st.sampled_from(["REVENUE", "M024", "M025", "NET_PROFIT", "X1_2"])
_constants = st.sampled_from(["100", "0.5", "2", "12.25", "3"])


def _binary(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda a, op, b, s1, s2: f"{a}{s1}{op}{s2}{b}", children, st.sampled_from("+-*/"), children, _spaces, _spaces
    )


_texts = st.recursive(
    st.one_of(_codes, _constants),
    lambda children: st.one_of(
        _binary(children),
        st.builds(lambda inner, s: f"({s}{inner}{s})", children, _spaces),
        st.builds(lambda inner: f"-{inner}", children),
    ),
    max_leaves=12,
)


@settings(derandomize=True, database=None, max_examples=300, deadline=None)
@given(_texts)
def test_parse_render_parse_round_trips(text: str) -> None:
    try:
        first = formula_parse(text)
    except FormulaError as exc:
        assume("constant zero" not in exc.message and "no metric code" not in exc.message)
        raise
    rendered = formula_render(first)
    second = formula_parse(rendered)
    assert second.root == first.root
    assert second.codes == first.codes
    assert formula_render(second) == rendered
    assert rendered.replace(" ", "") == text.replace(" ", "")
    values = {code: D(7 + i) for i, code in enumerate(first.codes)}
    assert formula_evaluate(first, values.get) == formula_evaluate(second, values.get)
