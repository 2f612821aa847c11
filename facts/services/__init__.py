"""Writes of the `facts` app: the glossary and its aliases (`glossary`), glossary imports
(`glossary_import`), fact rows (`fact_rows`) and the review queue's group actions
(`review_queue`). Fact imports from CSV / XLSX are in `facts.importing`."""

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
from .review_queue import fact_choose, facts_key_set, facts_reject, label_alias_add, label_metric_create

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
    "fact_choose",
    "facts_delete",
    "facts_key_set",
    "facts_reject",
    "facts_replace",
    "facts_review",
    "glossary_changed",
    "glossary_import",
    "glossary_rows_read",
    "label_alias_add",
    "label_metric_create",
    "metric_create",
    "metric_formula_problems",
    "unit_ensure",
    "unit_names",
]
