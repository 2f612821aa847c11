"""The metrics a term or a row label may name, for a curator's choice: only those of the same
concept (`ingestion.tables.concept.concept_key`: one of the metric's names or aliases once
formatting and words that name nothing are set aside), closest by characters first. Shared by
the review queue and the glossary-gap report, and the same rule ingestion suggests a metric by."""

from __future__ import annotations

from core.glossary import GlossarySnapshot
from ingestion.tables.glossary_reader import concept_metrics


def metrics_of_concept(label: str, glossary: GlossarySnapshot) -> list[tuple[str, str]]:
    """(code, name) of every metric of the label's concept, closest first."""
    return [(code, glossary.metrics[code].name) for code in concept_metrics(label, glossary)]
