"""Pending is visible: a not-found or refused answer counts the candidates waiting for review
for each missing key, shows none of them, and never counts one the asker may not see."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

from core.glossary import GlossarySnapshot
from core.model.facts import RESTRICTED, FactRecord, SubTask
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_facts
from tests.scripted import ExplodingProvider

REF = date(2026, 3, 15)
ZH_TWO = "另有 2 个候选数字正在等待审核。"
EN_TWO = "Another 2 candidate figures are waiting for curator review."


def candidate(metric: str, entity: str, period: str, value: str, **changes: Any) -> FactRecord:
    fact = FactRecord(
        metric=metric,
        entity=entity,
        period=Period("FY", period),
        channel="TOTAL",
        value=Decimal(value),
        unit="CNY_M",
        source_doc="HK_Draft_Budget_FY2026.xlsx",
        locator="sheet=Budget,row=7",
    )
    return replace(fact, **changes)


def store_with(*pending: FactRecord) -> InMemoryFactStore:
    return InMemoryFactStore(demo_facts(), pending=pending)


def ask(question: str, glossary: GlossarySnapshot, store: Any, *, cleared: bool = False, provider: Any = None):
    return answer_question(
        question,
        Ports(glossary=glossary, store=store, provider=provider or MockProvider()),
        cleared=cleared,
        reference_date=REF,
    )


TWO_HK_2026 = (candidate("REVENUE", "ACME_HK", "2026", "26001.5"), candidate("REVENUE", "ACME_HK", "2026", "26990.2"))


def test_a_not_found_answer_counts_the_pending_candidates_without_showing_them(glossary) -> None:
    result = ask("香港FY2026的营收是多少", glossary, store_with(*TWO_HK_2026))
    assert result.answer_kind == "refusal"
    assert result.answer.startswith("查不到：营业收入 / ACME香港 / FY2026")
    assert f"未在事实表中找到。{ZH_TWO}" in result.answer
    assert "26,001.5" not in result.answer and "26001.5" not in result.answer
    assert "HK_Draft_Budget" not in result.answer and not result.facts


def test_the_count_is_said_in_english(glossary) -> None:
    result = ask("What was ACME Hong Kong revenue in FY2026?", glossary, store_with(*TWO_HK_2026))
    assert f"is not in the fact table. {EN_TWO}" in result.answer
    one = ask("What was ACME Hong Kong revenue in FY2026?", glossary, store_with(TWO_HK_2026[0]))
    assert "Another 1 candidate figure is waiting for curator review." in one.answer


def test_no_candidates_no_sentence(glossary) -> None:
    result = ask("香港FY2026的营收是多少", glossary, store_with(candidate("REVENUE", "ACME_HK", "2027", "1")))
    assert result.answer.startswith("查不到") and "等待审核" not in result.answer


def test_a_restricted_candidate_is_not_counted_for_an_uncleared_analyst(glossary) -> None:
    hidden = candidate("REVENUE", "ACME_HK", "2026", "27000", sensitivity=RESTRICTED)
    store = store_with(TWO_HK_2026[0], hidden)
    uncleared = ask("香港FY2026的营收是多少", glossary, store)
    assert "另有 1 个候选数字正在等待审核。" in uncleared.answer
    assert "另有 2 个" not in uncleared.answer
    assert ZH_TWO in ask("香港FY2026的营收是多少", glossary, store, cleared=True).answer
    only_hidden = ask("香港FY2026的营收是多少", glossary, store_with(hidden))
    assert "等待审核" not in only_hidden.answer


def test_a_found_figure_does_not_read_the_queue(glossary) -> None:
    store = store_with(candidate("REVENUE", "ACME_HK", "2025", "1"))
    result = ask("香港FY2025的营收是多少", glossary, store)
    assert "24,015.8" in result.answer and "等待审核" not in result.answer
    assert store.pending_calls == 0


def test_a_store_that_does_not_know_the_queue_counts_nothing(glossary) -> None:
    class Approved:
        def __init__(self) -> None:
            self.inner = store_with(*TWO_HK_2026)

        def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None:
            return self.inner.fact_get(task, cleared=cleared)

    result = ask("香港FY2026的营收是多少", glossary, Approved())
    assert result.answer.startswith("查不到") and "等待审核" not in result.answer


def test_a_refused_computation_counts_candidates_per_missing_input(glossary) -> None:
    store = store_with(*TWO_HK_2026, candidate("NET_PROFIT", "ACME_HK", "2026", "2100", sensitivity=RESTRICTED))
    result = ask("香港FY2026的净利率", glossary, store, provider=ExplodingProvider())
    assert result.answer_kind == "refusal" and result.answer.startswith("无法计算")
    lines = result.answer.splitlines()
    assert f"ACME香港 FY2026 营业收入：{ZH_TWO}" in lines
    assert not any("净利润" in line and "等待审核" in line for line in lines)  # RESTRICTED, uncleared
    cleared = ask("香港FY2026的净利率", glossary, store, cleared=True, provider=ExplodingProvider())
    assert "ACME香港 FY2026 净利润：另有 1 个候选数字正在等待审核。" in cleared.answer.splitlines()
    assert "26,001.5" not in cleared.answer and "HK_Draft_Budget" not in cleared.answer


def test_a_refused_change_counts_candidates_in_english(glossary) -> None:
    result = ask(
        "ACME Hong Kong revenue growth in FY2026", glossary, store_with(*TWO_HK_2026), provider=ExplodingProvider()
    )
    assert result.answer.startswith("Cannot compute")
    assert f"Hong Kong FY2026 revenue: {EN_TWO}" in result.answer.splitlines()
