"""Formula metrics: parse, check, expand, evaluate and render curator formulas.

Takes the text of the glossary's `formula` column, an arithmetic expression over metric codes
(`OPERATING_PROFIT / REVENUE`, `(M024-M025)/M024`) with `+ - * /`, unary minus, parentheses and
decimal constants. Returns a `Formula`: an AST of frozen nodes and the codes it uses.
`formulas_check` refuses syntax errors, unknown codes and cycles (`A → B → A`) per code, so an
importer can reject rows with their row numbers. `formula_evaluate` computes with `Decimal`
only (precision `PRECISION`), expands formula metrics used inside (a stored value wins), names
missing inputs and treats a zero divisor as "not meaningful", never as an exception.

Invariant: a value comes only from the values `resolve` returns and the constants written in the
formula; there is no `eval`, no float and no default for a missing input.

The computation engine (`core.engine`) also renders its own formulas with this grammar,
extended (`references=True`) by qualified references `REVENUE[FY2025]` and a power `^`, so that
every computed value can be re-evaluated from its formula text and its inputs. Curator formulas
may use neither.

The parts: `tree` (nodes and the decimal context), `parse` (parse and check) and `evaluate`
(evaluate, expand and render).
"""

from __future__ import annotations

from core.engine.formula.evaluate import Evaluation, formula_evaluate, formula_expand, formula_render, node_evaluate
from core.engine.formula.parse import formula_parse, formulas_check
from core.engine.formula.tree import (
    MAX_DEPTH,
    PRECISION,
    Chain,
    Formula,
    FormulaError,
    Group,
    Negate,
    Node,
    Number,
    Power,
    Ref,
    decimal_context,
    node_has_division,
    node_refs,
    refs_map,
)

__all__ = [
    "MAX_DEPTH",
    "PRECISION",
    "Chain",
    "Evaluation",
    "Formula",
    "FormulaError",
    "Group",
    "Negate",
    "Node",
    "Number",
    "Power",
    "Ref",
    "decimal_context",
    "formula_evaluate",
    "formula_expand",
    "formula_parse",
    "formula_render",
    "formulas_check",
    "node_evaluate",
    "node_has_division",
    "node_refs",
    "refs_map",
]
