"""Writes of the `facts` app: the glossary and its aliases (`glossary`), glossary imports
(`glossary_import`), fact rows (`fact_rows`), a metric's sign convention on its facts
(`fact_signs`), the review queue's group actions (`review_queue`)
and the curated FX table and its imports (`fx_rates`). Fact imports from CSV / XLSX are in
`fact_import` (reading rows in `fact_import_rows`, writing them in `fact_import_writers`)."""

from .fact_rows import facts_delete, facts_replace, facts_review
from .fact_signs import facts_sign_apply
from .fx_rates import FxImportReport, FxRateDraft, fx_rate_put, fx_rate_save, fx_rates_import, fx_rows_read
from .glossary import (
    ALIAS_TARGETS,
    KNOWN_UNITS,
    AliasDraft,
    AliasExists,
    alias_conflict,
    alias_create,
    alias_delete,
    aliases_create,
    glossary_changed,
    metric_create,
    metric_formula_problems,
    unit_ensure,
    unit_names,
)
from .glossary_export import glossary_export
from .glossary_import import (
    GlossaryPlanChanged,
    GlossaryReport,
    GlossaryRowPlan,
    GlossaryRows,
    ImportAborted,
    glossary_import,
    glossary_rows_parse,
    glossary_rows_read,
)
from .review_queue import fact_choose, facts_key_set, facts_reject, label_alias_add, label_metric_create

__all__ = [
    "ALIAS_TARGETS",
    "KNOWN_UNITS",
    "AliasDraft",
    "AliasExists",
    "FxImportReport",
    "FxRateDraft",
    "GlossaryPlanChanged",
    "GlossaryReport",
    "GlossaryRowPlan",
    "GlossaryRows",
    "ImportAborted",
    "alias_conflict",
    "alias_create",
    "alias_delete",
    "aliases_create",
    "fact_choose",
    "facts_delete",
    "facts_key_set",
    "facts_reject",
    "facts_replace",
    "facts_review",
    "facts_sign_apply",
    "fx_rate_put",
    "fx_rate_save",
    "fx_rates_import",
    "fx_rows_read",
    "glossary_changed",
    "glossary_export",
    "glossary_import",
    "glossary_rows_parse",
    "glossary_rows_read",
    "label_alias_add",
    "label_metric_create",
    "metric_create",
    "metric_formula_problems",
    "unit_ensure",
    "unit_names",
]
