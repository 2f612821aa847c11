"""Helpers for computed answers through `answer_question`: hand-built facts and stores, the demo
glossary with its formula metrics, and `ask` with a fixed intent (a parser's future output)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from decimal import Decimal, localcontext
from typing import Any

from core.engine.formula import decimal_context
from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, MetricInfo, glossary_build
from core.model.facts import INTERNAL, RESTRICTED, FactRecord
from core.model.intent import ParsedIntent
from core.model.operation import Operation
from core.model.period import Period
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
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
        Ports(
            glossary=glossary,
            store=store if store is not None else InMemoryFactStore(demo_facts()),
            provider=provider or ExplodingProvider(),
            parser=FixedParser(intent),
        ),
        cleared=cleared,
        reference_date=REF,
    )


class FiguresOnlyMissing(InMemoryFactStore):
    """The same facts, without the bulk figure read: a ranking falls back to reading facts."""

    figures_get = None  # type: ignore[assignment]


# -- a long field: many subsidiaries, for rankings over more entities than a head holds --------------

FY2025 = Period("FY", "2025")
N = 300


def many_subsidiaries():
    base = GLOSSARY
    children = [EntityInfo(f"SUB{i:04d}", f"子公司{i:04d}", "subsidiary", base.home_entity) for i in range(N)]
    glossary = glossary_build(
        entities=[*(e for e in base.entities.values() if e.kind in ("home", "external")), *children],
        metrics=base.metrics.values(),
        channels=base.channels.values(),
        units=base.units.values(),
        aliases=[a for a in base.aliases if a.kind != "entity" or a.code in base.entities],
        home_company_name=base.home_company_name,
    )
    facts = []
    for i in range(N):
        code = f"SUB{i:04d}"
        revenue = Decimal(1000 + (i * 37) % 500)
        facts.append(FactRecord("REVENUE", code, FY2025, "TOTAL", revenue, "CNY_M", "t.xlsx", f"r={i}"))
        if i % 7:  # every seventh subsidiary lacks its operating profit
            sensitivity = RESTRICTED if i % 11 == 0 else "INTERNAL"
            profit = Decimal((i * 13) % 90) - Decimal(20)
            facts.append(
                FactRecord(
                    "OPERATING_PROFIT",
                    code,
                    FY2025,
                    "TOTAL",
                    profit,
                    "CNY_M",
                    "t.xlsx",
                    f"p={i}",
                    sensitivity=sensitivity,
                )
            )
    return glossary, facts


def long_field(ties: int = 4, missing: int = 25):
    """Revenue of N subsidiaries: `ties` of them tied at the 10th place, `missing` without it, one
    RESTRICTED figure inside the head."""
    glossary, _ = many_subsidiaries()
    facts = []
    for i in range(N - missing):
        value = Decimal(5000) if i < ties else Decimal(1000 + (i * 37) % 4000)
        if 10 <= i < 10 + ties:
            value = Decimal(4999)
        sensitivity = RESTRICTED if i == 3 else "INTERNAL"
        facts.append(
            FactRecord(
                "REVENUE", f"SUB{i:04d}", FY2025, "TOTAL", value, "CNY_M", "t.xlsx", f"r={i}", sensitivity=sensitivity
            )
        )
    return glossary, facts


def ranked(question: str, store: InMemoryFactStore, glossary, *, cleared: bool, **operation):
    return ask(
        question,
        store=store,
        glossary=glossary,
        cleared=cleared,
        metric="REVENUE",
        metrics=("REVENUE",),
        entity=None,
        entities=(),
        period=FY2025,
        periods=(FY2025,),
        operation=Operation("rank", cue="最高", over="entities", **operation),
    )
