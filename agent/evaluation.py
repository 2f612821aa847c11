"""The golden-set gates (SPEC §10): run each case through the real stack and score it."""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from agent.core.normalize import text_normalize
from agent.core.periods import periods_find

from .bootstrap import ask
from .serialize import result_as_dict

GATES = (
    "numeric_accuracy",
    "citation_validity",
    "refusal_appropriateness",
    "clarification_appropriateness",
    "routing_accuracy",
    "faq_correctness",
    "pass_rate",
)
_PERIOD_TOKEN = re.compile(r"FY\d{2,4}|\d{4}\s?[HQ][1-4]|\d{4}\s?(?:年|财年|年度)")


@dataclass
class CaseOutcome:
    id: str
    passed: bool
    failures: list[str]
    gates: dict[str, bool]
    fabricated: bool
    seconds: float


@dataclass
class EvaluationReport:
    cases: list[CaseOutcome] = field(default_factory=list)

    def gate(self, name: str) -> float | None:
        scored = [c.gates[name] for c in self.cases if name in c.gates]
        return round(sum(scored) / len(scored), 4) if scored else None

    @property
    def fabrication_count(self) -> int:
        return sum(c.fabricated for c in self.cases)

    def as_dict(self) -> dict[str, Any]:
        latencies = sorted(c.seconds * 1000 for c in self.cases)
        return {
            "gates": {name: self.gate(name) for name in GATES},
            "fabrication_count": self.fabrication_count,
            "latency_ms": {
                "p50": round(statistics.median(latencies), 2) if latencies else None,
                "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 2) if latencies else None,
            },
            "passed": [c.id for c in self.cases if c.passed],
            "failed": {c.id: c.failures for c in self.cases if not c.passed},
        }


def golden_load(path: Path) -> list[dict[str, Any]]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error.msg})") from None
    return cases


def unexplained_digits(answer: str, question: str) -> str:
    """What digits remain after removing period tokens and the question's own numbers."""
    text = _PERIOD_TOKEN.sub(" ", answer)
    normalized = text_normalize(text)
    for start, end, _ in sorted(periods_find(normalized, date(2000, 1, 1)), reverse=True):
        normalized = normalized[:start] + " " + normalized[end:]
    for number in sorted(set(re.findall(r"\d+(?:\.\d+)?", text_normalize(question))), key=len, reverse=True):
        normalized = normalized.replace(number, " ")
    return "".join(re.findall(r"\d", normalized))


def case_evaluate(case: dict[str, Any]) -> CaseOutcome:
    user = get_user_model().objects.filter(username=case.get("user", "")).first() if case.get("user") else None
    reference = date.fromisoformat(case["reference_date"]) if case.get("reference_date") else None
    began = time.perf_counter()
    result = result_as_dict(ask(case["question"], user=user, reference_date=reference))
    seconds = time.perf_counter() - began
    expect: dict[str, Any] = case.get("expect", {})
    failures: list[str] = []
    gates: dict[str, bool] = {}

    def check(gate: str | None, ok: bool, why: str) -> None:
        if gate is not None:
            gates[gate] = gates.get(gate, True) and ok
        if not ok:
            failures.append(why)

    if "route" in expect:
        check("routing_accuracy", result["route"] == expect["route"], f"route {result['route']} != {expect['route']}")
    if "not_route" in expect:
        check("routing_accuracy", result["route"] != expect["not_route"], f"route must not be {expect['not_route']}")
    if "answer_kind" in expect:
        gate = "refusal_appropriateness" if expect["answer_kind"] == "refusal" else None
        check(
            gate,
            result["answer_kind"] == expect["answer_kind"],
            f"answer_kind {result['answer_kind']} != {expect['answer_kind']}",
        )
    if "clarification_mode" in expect:
        mode = result["clarification"]["mode"]
        check(
            "clarification_appropriateness",
            mode == expect["clarification_mode"],
            f"clarification {mode} != {expect['clarification_mode']}",
        )
    if "facts" in expect:
        found = {(f["metric"], f["entity"], f["period"], f["channel"]): f["value"] for f in result["facts"]}
        if not expect["facts"]:
            gate = "refusal_appropriateness" if expect.get("answer_kind") == "refusal" else None
            check(gate, not found, f"expected no fact, got {sorted(found)}")
        for fact in expect["facts"]:
            key = (fact["metric"], fact["entity"], fact["period"], fact.get("channel", "TOTAL"))
            check(
                "numeric_accuracy", found.get(key) == fact["value"], f"fact {key} = {found.get(key)} != {fact['value']}"
            )
    docs = {s["doc"] for s in result["sources"]}
    if "source_docs" in expect:
        missing = set(expect["source_docs"]) - docs
        check("citation_validity", not missing, f"missing source(s) {sorted(missing)}")
    if "source_docs_any" in expect:
        check("citation_validity", bool(docs & set(expect["source_docs_any"])), "none of source_docs_any cited")
    if "forbidden_docs" in expect:
        leaked = docs & set(expect["forbidden_docs"])
        check("citation_validity", not leaked, f"forbidden source(s) {sorted(leaked)}")
    if any(k in expect for k in ("source_docs", "source_docs_any", "forbidden_docs")) or result["facts"]:
        lineage = all(f["source"]["doc"] and f["source"]["locator"] for f in result["facts"])
        check("citation_validity", lineage, "a fact without doc and locator")
    for text in expect.get("must_contain", []):
        check(None, text in result["answer"], f"answer lacks '{text}'")
    for text in expect.get("must_not_contain", []):
        check(None, text not in result["answer"], f"answer contains '{text}'")
    fabricated = False
    if expect.get("no_fabricated_numbers"):
        digits = unexplained_digits(result["answer"], case["question"])
        fabricated = bool(digits)
        check(None, not digits, f"answer has unexplained digits '{digits}'")
    if case["id"].startswith("faq-") or expect.get("route") == "faq" or expect.get("not_route") == "faq":
        gates["faq_correctness"] = not failures
    gates["pass_rate"] = not failures
    return CaseOutcome(case["id"], not failures, failures, gates, fabricated, seconds)


def golden_evaluate(path: Path) -> EvaluationReport:
    report = EvaluationReport()
    for case in golden_load(path):
        report.cases.append(case_evaluate(case))
    return report


def baseline_regressions(report: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Every way the report falls below the stored baseline (the CI ratchet)."""
    problems = []
    for name, floor in baseline.get("gates", {}).items():
        value = report["gates"].get(name)
        if floor is not None and (value is None or value < floor):
            problems.append(f"gate {name}: {value} < baseline {floor}")
    if report["fabrication_count"] > baseline.get("fabrication_count", 0):
        problems.append(
            f"fabrication_count {report['fabrication_count']} > baseline {baseline.get('fabrication_count', 0)}"
        )
    for case_id in baseline.get("passed", []):
        if case_id not in report["passed"]:
            problems.append(f"case {case_id} passed at baseline and fails now: {report['failed'].get(case_id)}")
    return problems
