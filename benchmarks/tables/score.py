"""Score the product's table extraction against the oracle, cell by cell, per format.

Takes the TAT-QA items and a format; renders every table (`render`), runs the product on it
(`ingestion.extract` then `ingestion.document_facts` with a glossary that names every row
label) and compares each candidate with the oracle's cells (`oracle`). Returns a `FormatScore`
per format: how many number cells became exact approved facts, wrong approved facts (each
listed), pending facts (with a histogram of their reasons), missing cells, and the cells outside
the oracle by class; the same figures over the selected tables (`TableTruth.selected`).

A fact's scale is read from its unit code alone (`unit_scale`), by the grammar the extractor
writes: `USD_M` is millions, `PCT` a percent, `AMT_K` thousands of a currency not stated.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, MetricInfo, UnitInfo, alias_key, glossary_build
from ingestion import ExtractionError, FactCandidate, document_facts, extract

from . import oracle
from .oracle import Cell, TableTruth
from .printed import COLLIDING, EXPECTED_PENDING, PERCENT, SCORED, UNKNOWN
from .render import document_name, render

HOME_COMPANY = "TAT-QA Holdings"
METRIC_UNIT = "AS_PRINTED"
UNITS = (UnitInfo(METRIC_UNIT, "", "as printed"), UnitInfo("PCT", "%", "%"))
SENSITIVITY = "INTERNAL"
TOTAL = "TOTAL"

_UNIT_CODE = re.compile(r"(?P<cur>[A-Z]{3})(?:_(?P<scale>K|M|B|10K|100M))?")
_UNIT_SCALES = {
    None: "one",
    "K": "thousand",
    "M": "million",
    "B": "billion",
    "10K": "ten_thousand",
    "100M": "hundred_million",
}
_REASON_NOISE = (
    (re.compile(r"'[^']*'"), "'…'"),
    (re.compile(r"\bM[0-9]{5}\b"), "<metric>"),
    (re.compile(r"\bTQ[0-9]{3}\b"), "<entity>"),
)
LISTED = 20


def unit_scale(code: str) -> str:
    """`percent`, `one`, `thousand`, `million`, `billion`, `ten_thousand`, `hundred_million` or
    `unknown`, read from a unit code alone."""
    if code == "PCT":
        return PERCENT
    m = _UNIT_CODE.fullmatch(code)
    return _UNIT_SCALES[m["scale"]] if m else UNKNOWN


@dataclass(frozen=True)
class Glossary:
    snapshot: GlossarySnapshot
    metric_of: dict[str, str]  # alias text → metric code

    def metric(self, alias: str) -> str | None:
        return self.metric_of.get(alias)


def glossary_for(truths: Iterable[TableTruth]) -> Glossary:
    """The glossary a curator would write for these tables: every company, and one metric per
    row alias (aliases that compare equal once normalised share one metric, as the curator's
    alias check would make them)."""
    truths = list(truths)
    codes: dict[str, str] = {}
    metric_of: dict[str, str] = {}
    metrics: list[MetricInfo] = []
    aliases: list[AliasRecord] = []
    for truth in truths:
        for alias in truth.aliases():
            key = alias_key(alias)
            if not key or alias in metric_of:
                continue
            if key not in codes:
                codes[key] = f"M{len(codes) + 1:05d}"
                metrics.append(MetricInfo(codes[key], alias, METRIC_UNIT))
            metric_of[alias] = codes[key]
            aliases.append(AliasRecord("metric", alias, codes[key]))
    entities = [EntityInfo(t.entity, t.company, "subsidiary") for t in truths]
    aliases += [AliasRecord("entity", t.company, t.entity) for t in truths]
    snapshot = glossary_build(
        entities=entities, metrics=metrics, channels=[], units=UNITS, aliases=aliases, home_company_name=HOME_COMPANY
    )
    return Glossary(snapshot, metric_of)


@dataclass(frozen=True)
class Wrong:
    """An approved fact that differs from its printed cell, or that no printed cell backs."""

    table: int
    locator: str
    metric: str
    label: str
    period: str
    value: Decimal
    unit: str
    why: str
    kind: str  # unmatched | expected pending | value | scale

    def __str__(self) -> str:
        return (
            f"TQ{self.table:03d} {self.locator} {self.metric} ({self.label!r}) {self.period} "
            f"{self.value} {self.unit or '-'}: {self.why}"
        )


@dataclass
class Tally:
    """Figures over a set of tables."""

    tables: int = 0
    number_cells: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    exact: int = 0
    scale_unverified: int = 0
    pending: int = 0
    missing: int = 0
    wrong_cells: int = 0
    value_exact: int = 0  # approved with the cell's key and value, whatever the scale
    outside_outcomes: Counter[str] = field(default_factory=Counter)  # "<class> <approved|pending|missing>"
    wrong: list[Wrong] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)

    @property
    def scored(self) -> int:
        return self.classes[SCORED]

    @property
    def exact_share(self) -> float:
        return self.exact / self.scored if self.scored else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "tables": self.tables,
            "number_cells": self.number_cells,
            "scored_cells": self.scored,
            "exact_approved": self.exact,
            "exact_share": round(self.exact_share, 4),
            "scale_unverified": self.scale_unverified,
            "wrong_approved": len(self.wrong),
            "wrong_scored_cells": self.wrong_cells,
            "value_exact": self.value_exact,
            "wrong_by": dict(Counter(w.kind for w in self.wrong)),
            "pending": self.pending,
            "missing": self.missing,
            "outside": {k: v for k, v in self.classes.items() if k != SCORED},
            "outside_outcomes": dict(self.outside_outcomes),
            "top_pending_reasons": self.reasons.most_common(8),
            "refused": self.refused,
            "wrong_list": [str(w) for w in self.wrong[:LISTED]],
        }


@dataclass
class FormatScore:
    fmt: str
    all: Tally
    selected: Tally
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.fmt,
            "seconds": round(self.seconds, 1),
            "all": self.all.as_dict(),
            "selected": self.selected.as_dict(),
        }


def table_candidates(item: dict[str, Any], truth: TableTruth, fmt: str, glossary: Glossary) -> list[FactCandidate]:
    """What the product makes of one rendered table (raises `ExtractionError` for a refused file)."""
    name = document_name(truth.index, fmt)
    document = extract(name, render(item, truth.index, fmt))
    return document_facts(
        document, glossary=glossary.snapshot, sensitivity=SENSITIVITY, default_entity=truth.entity
    ).candidates


def table_tally(truth: TableTruth, candidates: list[FactCandidate], glossary: Glossary, into: list[Tally]) -> None:
    """Classify every number cell of one table and every approved candidate, adding to `into`."""
    keyed: dict[tuple[str, ...], list[Cell]] = {}
    kinds: dict[tuple[int, int], str] = {}
    for cell in truth.cells:
        kinds[(cell.row, cell.col)] = cell.kind
        metric = glossary.metric(cell.alias)
        if cell.year is None or metric is None:
            continue
        keyed.setdefault(_key(metric, truth.entity, cell.year), []).append(cell)
    for cells in keyed.values():
        if len({cell.value for cell in cells}) > 1:  # two rows the glossary reads as one metric, two values
            for cell in cells:
                if kinds[(cell.row, cell.col)] == SCORED:
                    kinds[(cell.row, cell.col)] = COLLIDING

    outcome: dict[tuple[int, int], str] = {}
    wrong: list[Wrong] = []
    value_exact: set[tuple[int, int]] = set()
    unverified = 0
    for fact in candidates:
        if fact.status != "approved":
            continue
        cells = keyed.get(fact.key, [])
        if not cells:
            wrong.append(_wrong(truth, fact, "", "no printed cell has this metric, entity and period", "unmatched"))
            continue
        for cell in cells:
            if kinds[(cell.row, cell.col)] in EXPECTED_PENDING:
                outcome[(cell.row, cell.col)] = "approved"
        same = len({c.value for c in cells}) == 1  # a figure printed twice (a summary repeated)
        if (len(cells) > 1 and not same) or kinds[(cells[0].row, cells[0].col)] != SCORED:
            kind = kinds[(cells[0].row, cells[0].col)]
            wrong.append(_wrong(truth, fact, cells[0].label, f"expected pending ({kind})", "expected pending"))
            continue
        cell = cells[0]
        scale = unit_scale(fact.unit)
        if fact.value != cell.value:
            kind, why = "value", f"value differs from the printed {cell.text!r}"
        elif cell.scale != UNKNOWN and scale != cell.scale:
            value_exact.add((cell.row, cell.col))
            kind, why = "scale", f"scale {scale}, printed in {cell.scale}"
        else:
            for twin in cells:
                value_exact.add((twin.row, twin.col))
                outcome[(twin.row, twin.col)] = "exact"
                unverified += twin.scale == UNKNOWN
            continue
        outcome[(cell.row, cell.col)] = "wrong"
        wrong.append(_wrong(truth, fact, cell.label, why, kind))

    reasons: Counter[str] = Counter()
    open_cells = sorted(
        (c for c in truth.cells if c.year is not None and (c.row, c.col) not in outcome),
        key=lambda c: kinds[(c.row, c.col)] != SCORED,
    )
    waiting: dict[tuple[str, str, Decimal], list[FactCandidate]] = {}
    for fact in candidates:
        if fact.status != "approved" and fact.period_type == "FY":
            waiting.setdefault((fact.entity, fact.period, fact.value), []).append(fact)
    for cell in open_cells:
        queue = waiting.get((truth.entity, str(cell.year), cell.value))
        if queue:
            fact = queue.pop(0)
            outcome[(cell.row, cell.col)] = "pending"
            reasons.update(_reasons(fact.reason))
        else:
            outcome[(cell.row, cell.col)] = "missing"

    for tally in into:
        tally.tables += 1
        tally.number_cells += len(truth.cells)
        tally.wrong += wrong
        tally.scale_unverified += unverified
        tally.value_exact += len(value_exact)
        tally.reasons += reasons
        for cell in truth.cells:
            kind = kinds[(cell.row, cell.col)]
            tally.classes[kind] += 1
            result = outcome.get((cell.row, cell.col))
            if kind == SCORED:
                tally.exact += result == "exact"
                tally.wrong_cells += result == "wrong"
                tally.pending += result == "pending"
                tally.missing += result == "missing"
            elif result is not None:
                tally.outside_outcomes[f"{kind} {result}"] += 1


def _key(metric: str, entity: str, year: int) -> tuple[str, ...]:
    return (metric, entity, "FY", str(year), TOTAL)


def _wrong(truth: TableTruth, fact: FactCandidate, label: str, why: str, kind: str) -> Wrong:
    return Wrong(
        truth.index,
        fact.locator,
        fact.metric,
        label or fact.raw_label,
        fact.period_label,
        fact.value,
        fact.unit,
        why,
        kind,
    )


def _reasons(reason: str) -> list[str]:
    found = []
    for part in (reason or "no reason given").split("; "):
        for pattern, replacement in _REASON_NOISE:
            part = pattern.sub(replacement, part)
        found.append(part)
    return found


def format_score(items: list[dict[str, Any]], truths: list[TableTruth], glossary: Glossary, fmt: str) -> FormatScore:
    """Render, extract and score every table in one format."""
    score = FormatScore(fmt, Tally(), Tally())
    began = time.perf_counter()
    for item, truth in zip(items, truths, strict=True):
        into = [score.all, score.selected] if truth.selected else [score.all]
        try:
            candidates = table_candidates(item, truth, fmt, glossary)
        except ExtractionError as error:
            for tally in into:
                tally.refused.append(f"{truth.entity}: {error.message}")
            candidates = []
        table_tally(truth, candidates, glossary, into)
    score.seconds = time.perf_counter() - began
    return score


def truths_and_glossary(items: list[dict[str, Any]]) -> tuple[list[TableTruth], Glossary]:
    truths = oracle.truths_build(items)
    return truths, glossary_for(truths)
