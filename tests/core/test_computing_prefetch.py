"""A sum or ranking reads its inputs in one bulk read when the store offers one, and answers
exactly as it does key by key."""

from __future__ import annotations

from decimal import Decimal

from core.glossary import EntityInfo, glossary_build
from core.types import RESTRICTED, FactRecord, Operation, Period
from tests.core.test_computing import GLOSSARY, ask
from tests.fakes import InMemoryFactStore

FY2025 = Period("FY", "2025")
N = 300


class OneByOneStore(InMemoryFactStore):
    """The same facts, without `facts_get`: the reader falls back to one read per key."""

    facts_get = None  # type: ignore[assignment]


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


def test_a_ranking_of_a_formula_metric_reads_its_inputs_in_one_bulk_read() -> None:
    glossary, facts = many_subsidiaries()
    bulk, single = InMemoryFactStore(facts), OneByOneStore(facts)
    for cleared in (False, True):
        answers = [
            ask(
                "2025年哪个子公司营业利润率最高",
                store=store,
                glossary=glossary,
                cleared=cleared,
                metric="OPERATING_MARGIN",
                metrics=("OPERATING_MARGIN",),
                entity=None,
                entities=(),
                period=FY2025,
                periods=(FY2025,),
                operation=Operation("rank", cue="最高", over="entities"),
            )
            for store in (bulk, single)
        ]
        assert answers[0].answer == answers[1].answer
        assert answers[0].computed == answers[1].computed
        assert answers[0].ranking is not None and len(answers[0].ranking.rows) > N // 2
    assert bulk.bulk_calls == 2  # one bulk read per question
    assert bulk.calls == 0  # and no read key by key
    assert single.calls >= 2 * N
