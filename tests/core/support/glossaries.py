"""Glossaries the parsing tests read questions with: the demo glossary with the curators'
formula metrics (`COMPUTED`), the same without them (`UNDEFINED`), and ways to drop or add a metric."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from core.glossary import AliasRecord, GlossarySnapshot, MetricInfo, glossary_build
from tests.fakes import DEMO, demo_glossary

REF = date(2026, 3, 15)
# The demo glossary with the curators' formula metrics (净利率, 营业利润率 …): the copy the issue
# ships, until the project's own demo glossary carries the `formula` column.
SHARED_GLOSSARY = Path(__file__).resolve().parents[4] / "shared" / "demo" / "glossary.csv"
FORMULA_CODES = ("NET_MARGIN", "OPERATING_MARGIN")


def computed_glossary() -> GlossarySnapshot:
    with (DEMO / "glossary.csv").open(encoding="utf-8") as handle:
        has_formulas = "formula" in handle.readline()
    return demo_glossary(DEMO / "glossary.csv" if has_formulas or not SHARED_GLOSSARY.exists() else SHARED_GLOSSARY)


def glossary_without(glossary: GlossarySnapshot, *codes: str) -> GlossarySnapshot:
    """The same glossary without some metrics: `净利率` is then a term nobody defined."""
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=[m for m in glossary.metrics.values() if m.code not in codes],
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[a for a in glossary.aliases if not (a.kind == "metric" and a.code in codes)],
        home_company_name=glossary.home_company_name,
    )


def glossary_with_metric(glossary: GlossarySnapshot, code: str, name: str, *aliases: str) -> GlossarySnapshot:
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=[*glossary.metrics.values(), MetricInfo(code, name, "CNY_M")],
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[*glossary.aliases, *(AliasRecord("metric", text, code) for text in aliases)],
        home_company_name=glossary.home_company_name,
    )


COMPUTED = computed_glossary()
UNDEFINED = glossary_without(COMPUTED, *FORMULA_CODES)
SUBSIDIARIES = ("ACME_CN", "ACME_HK", "ACME_SEA")
CHANNELS = ("ONLINE", "STORE", "DISTRIBUTOR")
