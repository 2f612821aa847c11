"""The metrics a term or a row label may name, for a curator's choice: only those of the same
concept (`same_concept`: the same head noun and no content of its own), closest by characters
first. Shared by the review queue and the glossary-gap report."""

from __future__ import annotations

import difflib

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from ingestion.tables.reading import same_concept


def metrics_of_concept(label: str, glossary: GlossarySnapshot) -> list[tuple[str, str]]:
    """(code, name) of every metric of the label's concept, closest first."""
    normalized = text_normalize(label)
    scored = []
    for code, info in glossary.metrics.items():
        name = text_normalize(info.name)
        if normalized and same_concept(normalized, name):
            scored.append((-difflib.SequenceMatcher(None, normalized, name).ratio(), code, info.name))
    return [(code, name) for _, code, name in sorted(scored)]
