"""Writes of the `facts` app: the glossary and its aliases (`glossary`), glossary imports
(`glossary_import`) and fact rows (`fact_rows`). Fact imports from CSV / XLSX are in
`facts.importing`."""

from .fact_rows import facts_delete, facts_replace, facts_review
from .glossary import (
    ALIAS_TARGETS,
    KNOWN_UNITS,
    AliasDraft,
    AliasExists,
    alias_conflict,
    alias_create,
    aliases_create,
    glossary_changed,
    metric_create,
    metric_formula_problems,
    unit_ensure,
    unit_names,
)
from .glossary_import import GlossaryReport, ImportAborted, glossary_import, glossary_rows_read

__all__ = [
    "ALIAS_TARGETS",
    "KNOWN_UNITS",
    "AliasDraft",
    "AliasExists",
    "GlossaryReport",
    "ImportAborted",
    "alias_conflict",
    "alias_create",
    "aliases_create",
    "facts_delete",
    "facts_replace",
    "facts_review",
    "glossary_changed",
    "glossary_import",
    "glossary_rows_read",
    "metric_create",
    "metric_formula_problems",
    "unit_ensure",
    "unit_names",
]
