"""In-memory fakes of the core's ports, built from the demo data set (no Django)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path

from core.engine import sensitivity_max
from core.glossary import (
    AliasRecord,
    ChannelInfo,
    EntityInfo,
    GlossarySnapshot,
    MetricInfo,
    UnitInfo,
    glossary_build,
)
from core.language.periods import period_parse
from core.model.facts import PUBLIC, RESTRICTED, FactRecord, SubTask
from core.model.period import Period
from core.ports import ChangesHead

DEMO = Path(__file__).resolve().parent.parent / "demo"

UNITS = [
    UnitInfo("CNY_M", "百万元", "CNY m"),
    UnitInfo("PCT", "%", "%"),
    UnitInfo("COUNT", "", ""),
    UnitInfo("TEN_THOUSAND_PERSONS", "万人", "10k persons"),
]


def demo_glossary(path: Path = DEMO / "glossary.csv", *, with_home: bool = True) -> GlossarySnapshot:
    entities: dict[str, EntityInfo] = {}
    metrics: dict[str, MetricInfo] = {}
    channels: dict[str, ChannelInfo] = {}
    aliases: list[AliasRecord] = []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            code, kind = row["code"], row["kind"]
            if kind == "entity":
                entity_kind = row["entity_kind"] if with_home or row["entity_kind"] != "home" else "subsidiary"
                entities.setdefault(code, EntityInfo(code, row["name"], entity_kind, row["parent"] or None))
            elif kind == "metric":
                formula, aggregation = row.get("formula") or "", row.get("aggregation") or ""
                metrics.setdefault(
                    code, MetricInfo(code, row["name"], row["unit"], formula=formula, aggregation=aggregation)
                )
            else:
                channels.setdefault(code, ChannelInfo(code, row["name"]))
            aliases.append(AliasRecord(kind, row["alias"], code))
    return glossary_build(
        entities=entities.values(),
        metrics=metrics.values(),
        channels=channels.values(),
        units=UNITS,
        aliases=aliases,
        home_company_name="ACME集团" if with_home else None,
    )


def glossary_without(glossary: GlossarySnapshot, *metrics: str) -> GlossarySnapshot:
    """`glossary` without the given metrics and their aliases (e.g. the demo's formula metrics)."""
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=[m for code, m in glossary.metrics.items() if code not in metrics],
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[a for a in glossary.aliases if a.kind != "metric" or a.code not in metrics],
        home_company_name=glossary.home_company_name,
    )


class InMemoryFactStore:
    """Approved `facts`, and `pending` candidates that wait for curator review (never answered)."""

    def __init__(self, facts: list[FactRecord], pending: Iterable[FactRecord] = ()):
        self.facts = {(f.metric, f.entity, f.period.period_type, f.period.period, f.channel): f for f in facts}
        self.pending = list(pending)
        self.calls = 0
        self.pending_calls = 0

    def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None:
        self.calls += 1
        fact = self.facts.get(task.key)
        if fact is None or (fact.sensitivity == RESTRICTED and not cleared):
            return None
        return fact

    def pending_count(self, task: SubTask, *, cleared: bool) -> int:
        self.pending_calls += 1
        key = task.key
        return sum(
            1
            for f in self.pending
            if (f.metric, f.entity, f.period.period_type, f.period.period, f.channel) == key
            and (f.sensitivity != RESTRICTED or cleared)
        )

    def facts_get(self, tasks: Iterable[SubTask], *, cleared: bool) -> dict[tuple[str, ...], FactRecord]:
        self.bulk_calls = getattr(self, "bulk_calls", 0) + 1
        found = {}
        for task in tasks:
            fact = self.facts.get(task.key)
            if fact is not None and (fact.sensitivity != RESTRICTED or cleared):
                found[task.key] = fact
        return found

    def figures_get(
        self, metric: str, entities: Iterable[str], period: Period, channel: str, *, cleared: bool, order: str
    ) -> list[tuple[str, Decimal, str, str]]:
        """Best first; tied figures in reverse listing order, so callers cannot rely on it."""
        self.figure_calls = getattr(self, "figure_calls", 0) + 1
        found = []
        for entity in entities:
            fact = self.facts.get((metric, entity, period.period_type, period.period, channel))
            if fact is not None and (fact.sensitivity != RESTRICTED or cleared):
                found.append((entity, fact.value, fact.sensitivity, fact.unit))
        found.reverse()
        return sorted(found, key=lambda row: row[1], reverse=order == "desc")

    def changes_head(
        self,
        metric: str,
        entities: Iterable[str],
        now: Period,
        before: Period,
        channel: str,
        *,
        cleared: bool,
        top: int,
    ) -> ChangesHead:
        """`ChangesHead` read figure by figure: what a database's must equal."""
        self.changes_calls = getattr(self, "changes_calls", 0) + 1
        pairs, lacking = [], set()
        for entity in entities:
            figures = [self.facts.get((metric, entity, p.period_type, p.period, channel)) for p in (now, before)]
            seen = [f for f in figures if f is not None and (f.sensitivity != RESTRICTED or cleared)]
            if len(seen) == 2:
                one, other = seen
                pairs.append((entity, one.value, other.value, one.sensitivity, other.sensitivity, one.unit, other.unit))
            elif seen:
                lacking.add(entity)
        pairs.sort(key=lambda row: (-abs(row[1] - row[2]), row[0]))
        return ChangesHead(
            rows=tuple(pairs[:top]),
            count=len(pairs),
            units=frozenset(u for row in pairs for u in row[5:]),
            sensitivity=sensitivity_max(level for row in pairs for level in row[3:5]) if pairs else PUBLIC,
            lacking=frozenset(lacking),
            total=sum((row[1] - row[2] for row in pairs), Decimal(0)),
        )


def demo_facts(path: Path = DEMO / "facts.csv") -> list[FactRecord]:
    facts = []
    with path.open(encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            period = period_parse(row["period"])
            assert period is not None
            facts.append(
                FactRecord(
                    metric=row["metric"],
                    entity=row["entity"],
                    period=period,
                    channel=row["channel"],
                    value=Decimal(row["value"]),
                    unit=row["unit"],
                    source_doc=row["source_doc"],
                    locator=f"facts.csv,row={number}",
                    sensitivity=row["sensitivity"],
                )
            )
    return facts


class BigramHashEmbedder:
    """A deterministic test double for an embedding model: hashed character bigrams, L2-normalised."""

    name = "bigram-hash"
    enabled = True

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.signature = f"bigram-hash/{dim}"
        self.calls = 0
        self.queries: list[list[str]] = []  # the texts of each `embed_queries` call

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        self.queries.append(list(texts))
        return self.embed(texts)

    def embed(self, texts: list[str]) -> list[list[float]]:
        import hashlib
        import math

        from core.language.normalize import text_normalize

        self.calls += 1
        vectors = []
        for text in texts:
            compact = "".join(text_normalize(text).split())
            vector = [0.0] * self.dim
            for i in range(len(compact) - 1):
                bucket = int(hashlib.md5(compact[i : i + 2].encode()).hexdigest(), 16) % self.dim
                vector[bucket] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors
