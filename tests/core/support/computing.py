"""Helpers for computed answers through `answer_question`: hand-built facts and stores, the demo
glossary with its formula metrics, and `ask` with a fixed intent (a parser's future output)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from decimal import Decimal, localcontext
from typing import Any

from core.engine.formula import decimal_context
from core.glossary import AliasRecord, GlossarySnapshot, MetricInfo, glossary_build
from core.model.types import INTERNAL, FactRecord, ParsedIntent, Period
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary
from tests.scripted import ExplodingProvider

REF = date(2026, 3, 15)
D = Decimal
FY2025 = Period("FY", "2025")


def exact(compute: Callable[[], Decimal]) -> Decimal:
    """A reference value computed at the engine's precision (34 significant digits)."""
    with localcontext(decimal_context()):
        return compute()


def fact(
    metric: str,
    entity: str,
    period: str,
    value: str,
    *,
    unit: str = "CNY_M",
    channel: str = "TOTAL",
    sensitivity: str = INTERNAL,
) -> FactRecord:
    parsed = (
        Period("FY", period[2:]) if period.startswith("FY") else Period("QUARTER" if "Q" in period else "HY", period)
    )
    return FactRecord(
        metric, entity, parsed, channel, D(value), unit, "t.xlsx", f"sheet=t!{entity}{period}", sensitivity=sensitivity
    )


def demo_store(*extra: FactRecord, drop: tuple[tuple[str, str, str], ...] = ()) -> InMemoryFactStore:
    """The demo facts, without the (metric, entity, period label) keys in `drop`, plus `extra`."""
    kept = [f for f in demo_facts() if (f.metric, f.entity, f.period.label) not in drop]
    return InMemoryFactStore([*kept, *extra])


def formula_glossary() -> GlossarySnapshot:
    """The demo glossary with the curators' two formula metrics (as in the shared demo CSV)."""
    base = demo_glossary()
    extra = {
        "OPERATING_MARGIN": (
            MetricInfo("OPERATING_MARGIN", "营业利润率", "PCT", formula="OPERATING_PROFIT / REVENUE"),
            ("营业利润率", "经营利润率", "operating margin"),
        ),
        "NET_MARGIN": (
            MetricInfo("NET_MARGIN", "净利率", "PCT", formula="NET_PROFIT / REVENUE"),
            ("净利率", "净利润率", "net margin", "net profit margin"),
        ),
    }
    return glossary_build(
        entities=base.entities.values(),
        metrics=[*base.metrics.values(), *(info for info, _ in extra.values())],
        channels=base.channels.values(),
        units=base.units.values(),
        aliases=[*base.aliases, *(AliasRecord("metric", a, code) for code, (_, al) in extra.items() for a in al)],
        home_company_name=base.home_company_name,
    )


GLOSSARY = formula_glossary()


class FixedParser:
    """An `IntentParser` that returns the intent it was given (the rule parser's future output)."""

    def __init__(self, intent: ParsedIntent) -> None:
        self.intent = intent

    def parse(self, question: str, *, glossary: GlossarySnapshot, reference_date: Any) -> ParsedIntent:
        return self.intent


def intent_for(question: str, glossary: GlossarySnapshot = GLOSSARY, **changes: Any) -> ParsedIntent:
    return replace(parse_intent(question, glossary, REF), **changes)


def ask(
    question: str,
    *,
    store: InMemoryFactStore | None = None,
    glossary: GlossarySnapshot = GLOSSARY,
    cleared: bool = False,
    provider: Any = None,
    **changes: Any,
):
    intent = intent_for(question, glossary, **changes)
    return answer_question(
        question,
        glossary=glossary,
        store=store if store is not None else InMemoryFactStore(demo_facts()),
        provider=provider or ExplodingProvider(),
        cleared=cleared,
        reference_date=REF,
        intent_parser=FixedParser(intent),
    )


class FiguresOnlyMissing(InMemoryFactStore):
    """The same facts, without the bulk figure read: a ranking falls back to reading facts."""

    figures_get = None  # type: ignore[assignment]
