"""`docs/architecture.md` names code by dotted path; every path it names must exist.

A path is a module (`core.pipeline`), something in a module (`facts.selectors.OrmFactStore`,
`facts.selectors.glossary_snapshot()`), or an attribute of a class (`core.ports.FactStore.fact_get`,
or `GlossarySnapshot.formula_metrics` when the class's name says which class). The doc also names a
module by its file and then the attribute (`tests/fakes.InMemoryFactStore`,
`ingestion/formats.py: FORMATS`). Only names under the project's own packages are checked.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = frozenset(init.parent.name for init in ROOT.glob("*/__init__.py"))
FILE_ENDINGS = frozenset({"py", "md", "css", "csv", "json", "jsonl", "toml", "html", "txt", "png"})

IDENTIFIER = r"[A-Za-z_]\w*"
DOTTED = re.compile(rf"(?<![\w/.])({IDENTIFIER}(?:\.{IDENTIFIER})+)")
FILE_THEN_ATTRIBUTE = re.compile(rf"^((?:\w+/)+\w+)(?:\.py: ?|\.)({IDENTIFIER}(?:\.{IDENTIFIER})*)(?:\(.*\))?$")
CLASS_ATTRIBUTE = re.compile(rf"^([A-Z]\w*)\.({IDENTIFIER})(?:\(.*\))?$")


def _named_paths(text: str) -> tuple[set[str], set[str]]:
    """The module-qualified paths the text names, and its `Class.attribute`s without a module."""
    qualified: set[str] = set()
    unqualified: set[str] = set()
    fences = re.findall(r"```.*?```", text, flags=re.S)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    for span in spans:
        span = span.strip()
        if match := FILE_THEN_ATTRIBUTE.match(span):
            module, attribute = match.groups()
            if module.split("/")[0] in PACKAGES and attribute not in FILE_ENDINGS:
                qualified.add(f"{module.replace('/', '.')}.{attribute}")
        elif (match := CLASS_ATTRIBUTE.match(span)) and match.group(2) not in FILE_ENDINGS:
            unqualified.add(".".join(match.groups()))
    for chunk in [*spans, *fences]:
        for match in DOTTED.finditer(chunk):
            path = match.group(1)
            if path.split(".")[0] in PACKAGES and path.rsplit(".", 1)[1] not in FILE_ENDINGS:
                qualified.add(path)
    return qualified, unqualified


QUALIFIED, UNQUALIFIED = _named_paths(DOC.read_text(encoding="utf-8"))


def _holds(owner: Any, name: str) -> bool:
    """Whether `owner.name` exists, counting a dataclass field without a default."""
    if hasattr(owner, name):
        return True
    return dataclasses.is_dataclass(owner) and name in {field.name for field in dataclasses.fields(owner)}


def _has(owner: Any, name: str) -> Any:
    """`owner.name` (None for a dataclass field without a default); a failure when it does not exist."""
    if _holds(owner, name):
        return getattr(owner, name, None)
    owner_name = getattr(owner, "__qualname__", None) or getattr(owner, "__name__", repr(owner))
    pytest.fail(f"{owner_name} has no attribute {name!r}")


def _resolve(path: str) -> None:
    """Import the longest module the path starts with, then look up the rest on it.

    A class or function must be defined in the module the path names (or in a package under it,
    which re-exports it): a name another module merely imports is not where the code lives.
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            owner: Any = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is not None and (name == error.name or name.startswith(f"{error.name}.")):
                continue  # `name` is no module: try it as an attribute of a shorter one
            raise
        if cut < len(parts):
            found = _has(owner, parts[cut])
            home = getattr(found, "__module__", None) if callable(found) else None
            if isinstance(home, str) and home.split(".")[0] in PACKAGES:
                assert home == name or home.startswith(f"{name}."), f"{parts[cut]} lives in {home}, not {name}"
            for attribute in parts[cut + 1 :]:
                found = _has(found, attribute)
        return
    pytest.fail(f"no module {parts[0]!r}")


@cache
def _class_modules() -> dict[str, tuple[str, ...]]:
    """Each class name defined in the project's packages, and the modules that define it."""
    found: dict[str, list[str]] = {}
    for package in sorted(PACKAGES):
        for source in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(source.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    found.setdefault(node.name, []).append(module)
    return {name: tuple(modules) for name, modules in found.items()}


def test_every_form_of_a_path_is_read() -> None:
    text = (
        "`facts.selectors.OrmFactStore` and `common.access.visible_to(queryset, cleared=…)`;\n"
        "`tests/fakes.demo_glossary()`, `ingestion/formats.py: FORMATS`, `core/pipeline.py`;\n"
        "`GlossarySnapshot.formula_metrics`, `BENCHMARKS.md`, `guard.numbers_unsupported`\n"
        "```\nFAQ (core/gates/faq.py rules; faq.selectors.OrmFaqLookup)\n```\n"
    )
    assert _named_paths(text) == (
        {
            "facts.selectors.OrmFactStore",
            "common.access.visible_to",
            "tests.fakes.demo_glossary",
            "ingestion.formats.FORMATS",
            "faq.selectors.OrmFaqLookup",
        },
        {"GlossarySnapshot.formula_metrics"},
    )
    assert len(QUALIFIED) >= 20, sorted(QUALIFIED)  # the doc still names code this way


@pytest.mark.parametrize("path", sorted(QUALIFIED))
def test_a_dotted_path_names_code_that_exists(path: str) -> None:
    _resolve(path)


@pytest.mark.parametrize("path", sorted(UNQUALIFIED))
def test_a_class_attribute_names_a_class_that_has_it(path: str) -> None:
    class_name, attribute = path.split(".")
    modules = _class_modules().get(class_name)
    assert modules, f"no class {class_name} in the project"
    owners = [getattr(importlib.import_module(module), class_name, None) for module in modules]
    assert any(_holds(owner, attribute) for owner in owners if owner is not None), (
        f"no {class_name} in {', '.join(modules)} has {attribute!r}"
    )
