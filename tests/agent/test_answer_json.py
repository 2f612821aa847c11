"""The `/v1/ask` object read back (`answer_from_json`): every answer the pipeline writes reads
into typed values equal to the JSON's, a stored answer of another shape is refused with a clear
error, and the page's modules parse nothing again (no `Decimal` from text, no period label)."""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path

import pytest

from agent.serialize import AnswerJsonError, answer_from_json, result_as_dict
from tests.agent.computed_results import pipeline_answer

GOLDEN = Path(__file__).resolve().parents[2].parent / "shared" / "golden"
PAGE = Path(__file__).resolve().parents[2] / "agent" / "page"


def _questions() -> list[str]:
    questions = []
    for name in ("golden.jsonl", "computed.jsonl", "phrasing.jsonl", "trends.jsonl"):
        path = GOLDEN / name
        if path.exists():
            questions += [json.loads(line)["question"] for line in path.read_text().splitlines() if line.strip()]
    return questions


def test_every_answer_reads_back_to_the_values_its_json_holds(store, glossary) -> None:
    questions = _questions()
    assert len(questions) >= 60, "the golden sets are beside the project"
    checked = 0
    for question in questions:
        data = result_as_dict(pipeline_answer(question, store=store, glossary=glossary))
        answer = answer_from_json(json.loads(json.dumps(data)))  # as a turn stores it
        assert [f.value for f in answer.facts] == [Decimal(f["value"]) for f in data["facts"]]
        assert [f.period.label for f in answer.facts] == [f["period"] for f in data["facts"]]
        assert [(f.doc, f.locator) for f in answer.facts] == [
            (f["source"]["doc"], f["source"]["locator"]) for f in data["facts"]
        ]
        assert [c.value_text for c in answer.computed] == [c["value"] for c in data["computed"]]
        assert [c.display for c in answer.computed] == [c["display"] for c in data["computed"]]
        for item, raw in zip(answer.computed, data["computed"], strict=True):
            assert [i.period.label for i in item.inputs] == [i["period"] for i in raw["inputs"]]
            assert all(answer.fact(i) is not None for i in item.inputs)  # lineage: every input is a fact
        assert answer.clarification.mode == data["clarification"]["mode"]
        assert [o.label for o in answer.clarification.options] == [
            o["label"] for o in data["clarification"]["narrowing_options"]
        ]
        checked += bool(data["facts"])
    assert checked >= 40


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("facts", 0, "value"), "twelve"),
        (("facts", 0, "value"), "NaN"),
        (("facts", 0, "period"), "sometime"),
        (("facts", 0, "source"), None),
        (("computed", 0, "inputs", 0, "period"), "FY20x5"),
        (("clarification",), None),
    ],
)
def test_a_stored_answer_of_another_shape_is_refused_clearly(store, glossary, path, value) -> None:
    answered = pipeline_answer("集团2025年营收同比增长多少", store=store, glossary=glossary)
    data = json.loads(json.dumps(result_as_dict(answered)))
    assert answer_from_json(data).facts  # the untouched answer reads
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    with pytest.raises(AnswerJsonError, match="not a"):
        answer_from_json(data)


def test_no_page_module_parses_a_figure_or_a_period_from_text() -> None:
    found = []
    for module in sorted(PAGE.glob("*.py")):
        tree = ast.parse(module.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                literal = node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int)
                if name == "Decimal" and not literal:
                    found.append(f"{module.name}:{node.lineno} Decimal(…)")
                if name in ("period_parse", "periods_find"):
                    found.append(f"{module.name}:{node.lineno} {name}(…)")
            json_key = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            if json_key and node.slice.value in ("result", "facts", "computed"):
                found.append(f"{module.name}:{node.lineno} [{node.slice.value!r}]")
    assert found == [], "the page reads the typed answer (`answer_from_json`), never the JSON again"
