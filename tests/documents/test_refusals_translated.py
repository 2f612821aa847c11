"""Every refusal ingestion can write into a job's message is shown in the curator's language
(issue X): each `ExtractionError` and `IngestError` the code raises, read from the source with
its values filled in, is found among the forms the admin translates (`job_message_shown`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

from documents.warning_groups import job_message_shown

ROOT = Path(__file__).resolve().parents[2]
RAISED = ("ExtractionError", "IngestError")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _said(node: ast.expr) -> str | None:
    """The message a raise site writes, with `x` for each value; None for one it passes on."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "x" for part in node.values)
    return None  # `str(error)`: a message written elsewhere, read there


def _refusals() -> list[tuple[str, str]]:
    found = []
    for path in [*ROOT.glob("ingestion/**/*.py"), *ROOT.glob("documents/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in RAISED and node.args:
                said = _said(node.args[0])
                if said is not None:
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", said))
    return found


REFUSALS = _refusals()


def test_the_source_has_refusals_to_check() -> None:
    assert len(REFUSALS) > 30


@pytest.mark.parametrize(("where", "message"), REFUSALS, ids=[where for where, _ in REFUSALS])
def test_each_refusal_is_said_in_chinese_and_in_english_as_written(where: str, message: str) -> None:
    with translation.override("zh-hans"):
        chinese = job_message_shown(message)
    with translation.override("en"):
        english = job_message_shown(message)
    assert CJK.search(chinese.replace(message, "")), (where, message)
    assert english == message
