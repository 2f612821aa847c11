"""The golden-set expectations, checked against one answer in its JSON form.

Django-free, so the same checks score `manage.py evaluate` (in process) and the reliability
script (over HTTP). A case's top-level `before` (earlier questions of the same conversation)
is the runner's to send; only the answer to `question` is checked here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from core.language.normalize import text_normalize
from core.language.periods import periods_find

_PERIOD_TOKEN = re.compile(r"FY\d{2,4}|\d{4}\s?[HQ][1-4]|\d{4}\s?(?:年|财年|年度)")
COMPUTED_TOLERANCE = Decimal("0.01")
# Full-width digits and signs read as ASCII; a full-width comma only between full-width digits
# (`１２８，４５０`), since elsewhere `，` is the Chinese comma, never a thousands separator.
_FULL_WIDTH = str.maketrans(
    {**{chr(0xFF10 + d): str(d) for d in range(10)}, "％": "%", "－": "-", "−": "-", "＋": "+", "．": "."}
)
_FULL_WIDTH_GROUPING = re.compile(r"(?<=[０-９])，(?=[０-９]{3})")
_FIGURE = re.compile(r"(?P<sign>[-+]?)(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<pct>\s*%)?")


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


def figures_shown(text: str) -> list[tuple[Decimal, bool]]:
    """Every figure written in `text` and whether a `%` follows it: thousands separators and signs
    understood, full-width forms too. A `-` right after an ASCII letter or digit (`1-6月`,
    `FY2024-2025`) is a hyphen; after anything else (`净利润-1,402.6`, `同比 -2.2%`) a minus."""
    text = _FULL_WIDTH_GROUPING.sub(",", text).translate(_FULL_WIDTH)
    figures = []
    for match in _FIGURE.finditer(text):
        before = text[match.start() - 1] if match.start() else ""
        sign = match.group("sign")
        if not sign and before and (before in "0123456789."):
            continue  # the tail of a figure the pattern could not read whole
        negative = sign == "-" and not (before.isascii() and before.isalnum())
        value = Decimal(match.group("digits").replace(",", ""))
        figures.append((-value if negative else value, bool(match.group("pct"))))
    return figures


def computed_shown(answer: str, value: str, pct: bool) -> bool:
    """Whether `answer` shows `value` within 0.01, followed by `%` exactly when `pct`."""
    expected = Decimal(str(value))
    return any(abs(shown - expected) <= COMPUTED_TOLERANCE and is_pct == pct for shown, is_pct in figures_shown(answer))


def in_order(text: str, parts: list[str]) -> bool:
    """Whether every part occurs in `text`, each after the end of the one before."""
    at = 0
    for part in parts:
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def case_problems(case: Any) -> list[str]:
    """What makes a golden case unreadable (its shape, not its expectations' outcome)."""
    if not isinstance(case, dict):
        return ["a case must be a JSON object"]
    problems = [f"'{key}' is required" for key in ("id", "question") if not isinstance(case.get(key), str)]
    before = case.get("before", [])
    if not isinstance(before, list) or not all(isinstance(q, str) and q.strip() for q in before):
        problems.append("'before' must be a list of questions")
    expect = case.get("expect", {})
    if not isinstance(expect, dict):
        return [*problems, "'expect' must be an object"]
    computed = expect.get("computed")
    if computed is not None:
        value = computed.get("value") if isinstance(computed, dict) else None
        if not isinstance(value, str) or not re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip()):
            problems.append('\'expect.computed\' must be {"value": "<decimal>", "pct": true|false}')
    for key in ("answer_kind_any", "order"):
        if key in expect and not (isinstance(expect[key], list) and all(isinstance(v, str) for v in expect[key])):
            problems.append(f"'expect.{key}' must be a list of strings")
    return problems


def expectations_check(case: dict[str, Any], result: dict[str, Any]) -> Verdict:
    """Which of the case's expectations the answer `result` (`/v1/ask` JSON) fails, gate by gate."""
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
    if "answer_kind_any" in expect:
        kinds = list(expect["answer_kind_any"])
        check(
            "refusal_appropriateness" if "refusal" in kinds else None,
            result["answer_kind"] in kinds,
            f"answer_kind {result['answer_kind']} not in {kinds}",
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
    if "computed" in expect:
        computed = expect["computed"]
        pct = bool(computed.get("pct", False))
        shown = f"{computed['value']}{'%' if pct else ''}"
        check("numeric_accuracy", computed_shown(result["answer"], computed["value"], pct), f"answer lacks {shown}")
    for text in expect.get("must_contain", []):
        check(None, text in result["answer"], f"answer lacks '{text}'")
    for text in expect.get("must_not_contain", []):
        check(None, text not in result["answer"], f"answer contains '{text}'")
    if "order" in expect:
        check(None, in_order(result["answer"], list(expect["order"])), f"answer lacks {expect['order']} in this order")
    if expect.get("no_fabricated_numbers"):
        digits = unexplained_digits(result["answer"], case["question"])
        verdict.fabricated = bool(digits)
        check(None, not digits, f"answer has unexplained digits '{digits}'")
    if case["id"].startswith("faq-") or expect.get("route") == "faq" or expect.get("not_route") == "faq":
        gates["faq_correctness"] = not failures
    gates["pass_rate"] = not failures
    return verdict
