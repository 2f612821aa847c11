"""The golden-set gates: run each case through the real stack and score it.

A case with `before` is a conversation: its earlier questions are asked first, as the same
user on the same reference date under a fresh `conversation_id`, then the case's question in
the same conversation; only that last answer is scored and timed. The conversation is removed
afterwards.
"""

from __future__ import annotations

import json
import statistics
import time
import uuid
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from agent.golden import case_problems, expectations_check

from .models import Conversation
from .services import question_ask

GATES = (
    "numeric_accuracy",
    "citation_validity",
    "refusal_appropriateness",
    "clarification_appropriateness",
    "routing_accuracy",
    "faq_correctness",
    "pass_rate",
)


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
                case = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error.msg})") from None
            problems = case_problems(case)
            if problems:
                raise ValueError(f"{path}:{number}: {'; '.join(problems)}")
            cases.append(case)
    return cases


def case_evaluate(case: dict[str, Any]) -> CaseOutcome:
    user = get_user_model().objects.filter(username=case.get("user", "")).first() if case.get("user") else None
    reference = date.fromisoformat(case["reference_date"]) if case.get("reference_date") else None
    before: list[str] = case.get("before", [])
    if before and user is None:
        failure = "a case with 'before' needs a user: a conversation belongs to one"
        return CaseOutcome(case["id"], False, [failure], {"pass_rate": False}, False, 0.0)
    conversation_id = f"golden-{uuid.uuid4().hex}" if before else None
    try:
        for question in before:
            question_ask(question, user=user, reference_date=reference, conversation_id=conversation_id)
        began = time.perf_counter()
        asked = question_ask(case["question"], user=user, reference_date=reference, conversation_id=conversation_id)
        seconds = time.perf_counter() - began
    finally:
        if conversation_id is not None:
            Conversation.objects.filter(user=user, external_id=conversation_id).delete()
    verdict = expectations_check(case, asked.data)
    return CaseOutcome(case["id"], not verdict.failures, verdict.failures, verdict.gates, verdict.fabricated, seconds)


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
