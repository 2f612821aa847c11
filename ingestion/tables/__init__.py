"""Tables → fact candidates.

Two layouts are read: metric rows × period columns (a header row of periods) and the transposed
one (period rows × metric columns). Headers may span several rows (merged cells such as `2025`
over `H1 | H2`, `Domestic` over repeated years, `Years Ended September 30,` over a row of years).
Each value cell is resolved through the glossary:

- the **metric** from the row label as printed (`Gross margin (%)`), else under its section
  heading (a label-only row or one ending in `:`: `RSUs` › `Granted`), else the label read
  without units and footnotes; an explicit sub-row (`其中：线上`, `of which`) takes the metric of
  the row above; a bare total (`Total`, `合计`) never does;
- the **entity** from the row label, else the column header, the table title, the nearest
  heading, the sheet name, the first cell, then `default_entity`;
- the **channel** from the row label, else the column header or the title; `TOTAL` by default;
  columns sharing a period are a dimension: a channel the glossary names, else review;
- the **period** from the column header (`headers`: dates, `Fiscal 2019`, `FY19`, `2019/20`,
  footnote marks), through the period grammar (`core.language.periods`) (absolute forms only); a dated header is checked
  against the company's fiscal year end when the curator set one;
- the **unit**: a percent value or a unit on the label (`（家）`) must be the metric's; a money
  figure's scale and currency (`scales`) come from the label, the column header, the table
  (corner, title rows, caption) or the sentence before it, and are converted exactly into the
  metric's scale, or stored as printed for an `AS_PRINTED` metric.

Anything not understood becomes a `pending` candidate with its reason, never an approved guess:
an unknown label (with a suggested alias and, when one is close, a suggested metric), an
external or missing entity, a unit that contradicts the metric's, a scale nobody stated, a
column group, a bare total, two values for one key.
"""

from .candidates import (
    TABLE_PROBLEMS,
    DocumentFacts,
    TableFacts,
    document_facts,
    facts_from_document,
    facts_from_table,
    table_read,
)
from .cells import FactCandidate, Status

__all__ = [
    "TABLE_PROBLEMS",
    "DocumentFacts",
    "FactCandidate",
    "Status",
    "TableFacts",
    "document_facts",
    "facts_from_document",
    "facts_from_table",
    "table_read",
]
