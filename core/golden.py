"""The golden-set expectations (SPEC §10), checked against one answer in its JSON form.

Django-free, so the same checks score `manage.py evaluate` (in process) and the reliability
script (over HTTP).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from .normalize import text_normalize
from .periods import periods_find

_PERIOD_TOKEN = re.compile(r"FY\d{2,4}|\d{4}\s?[HQ][1-4]|\d{4}\s?(?:年|财年|年度)")


@dataclass
class Verdict:
    failures: list[str] = field(default_factory=list)
    gates: dict[str, bool] = field(default_factory=dict)
    fabricated: bool = False


def unexplained_digits(answer: str, question: str) -> str:
    """What digits remain after removing period tokens and the question's own numbers."""
    text = _PERIOD_TOKEN.sub(" ", answer)
    normalized = text_normalize(text)
    for start, end, _ in sorted(periods_find(normalized, date(2000, 1, 1)), reverse=True):
        normalized = normalized[:start] + " " + normalized[end:]
    for number in sorted(set(re.findall(r"\d+(?:\.\d+)?", text_normalize(question))), key=len, reverse=True):
        normalized = normalized.replace(number, " ")
    return "".join(re.findall(r"\d", normalized))


def expectations_check(case: dict[str, Any], result: dict[str, Any]) -> Verdict:
    """Which of the case's expectations the answer `result` (SPEC §10 JSON) fails, gate by gate."""
    expect: dict[str, Any] = case.get("expect", {})
    verdict = Verdict()
    failures, gates = verdict.failures, verdict.gates

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
    if expect.get("no_fabricated_numbers"):
        digits = unexplained_digits(result["answer"], case["question"])
        verdict.fabricated = bool(digits)
        check(None, not digits, f"answer has unexplained digits '{digits}'")
    if case["id"].startswith("faq-") or expect.get("route") == "faq" or expect.get("not_route") == "faq":
        gates["faq_correctness"] = not failures
    gates["pass_rate"] = not failures
    return verdict
