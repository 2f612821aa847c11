"""Reads of the glossary and the fact table. RESTRICTED rows are filtered here, in the query."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from math import prod
from typing import Any

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from common.access import sensitivity_strictest, sensitivity_strictest_sql, visible_to, visible_to_sql
from core.engine import CannotCompute, Computed, formula_compute, formula_metrics_build
from core.engine.formula import formula_parse, formula_render, formulas_check
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
from core.model.facts import FactRecord, SubTask
from core.model.fx import FxQuote
from core.model.period import Period
from core.ports import ChangesHead, FiguresHead

from .changes import changes_head
from .figures import IN_BATCH, figures_get, figures_head
from .fx import fx_rate_get
from .models import Alias, Channel, CompanyProfile, Entity, FactDispute, FactMetric, GlossaryState, Metric, Unit

_lock = threading.Lock()
_cached: tuple[str, GlossarySnapshot] | None = None


def glossary_token() -> str:
    """The glossary's version stamp: one primary-key read, done before every question."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version, token FROM {GlossaryState._meta.db_table} WHERE id = 1")
        state = cursor.fetchone()
    return f"{state[0]}:{state[1]}" if state else "0:"


def glossary_snapshot() -> GlossarySnapshot:
    """The current glossary, rebuilt only when its version stamp has changed."""
    global _cached
    token = glossary_token()
    cached = _cached
    if cached is not None and cached[0] == token:
        return cached[1]
    with _lock:
        if _cached is not None and _cached[0] == token:
            return _cached[1]
        snapshot = glossary_load(version=int(token.split(":")[0]))
        _cached = (token, snapshot)
        return snapshot


def glossary_load(*, version: int = 0) -> GlossarySnapshot:
    entities = [
        EntityInfo(*row)
        for row in Entity.objects.values_list(
            "code", "name", "kind", "parent_id", "geography", "year_end_month", "currency"
        )
    ]
    metrics = [
        MetricInfo(*row)
        for row in Metric.objects.values_list(
            "code", "name", "unit_id", "description", "formula", "aggregation", "sign"
        )
    ]
    channels = [ChannelInfo(*row) for row in Channel.objects.values_list("code", "name")]
    units = [UnitInfo(*row) for row in Unit.objects.values_list("code", "name_zh", "name_en")]
    aliases = []
    for kind, text, entity, metric, channel in Alias.objects.order_by("pk").values_list(
        "kind", "text", "entity__code", "metric__code", "channel__code"
    ):
        aliases.append(AliasRecord(kind, text, entity or metric or channel))
    profile = CompanyProfile.objects.filter(pk=1).values_list("home_company_name", flat=True).first()
    return glossary_build(
        entities=entities,
        metrics=metrics,
        channels=channels,
        units=units,
        aliases=aliases,
        home_company_name=profile,
        version=version,
    )


def facts_visible(facts: QuerySet[FactMetric], *, cleared: bool) -> QuerySet[FactMetric]:
    """The rows of `facts` the caller may load, each annotated with `effective_sensitivity`: the
    stricter of its own level and its document's. An INTERNAL fact from a RESTRICTED document is
    RESTRICTED, and hidden from the uncleared like any other RESTRICTED row."""
    facts = facts.annotate(effective_sensitivity=sensitivity_strictest(*FactMetric.SENSITIVITY_LOOKUPS))
    return visible_to(facts, cleared=cleared, lookups=("effective_sensitivity",))


_KEY_FIELDS = ("entity_id", "metric_id", "period_type", "period", "channel_id")


def key_held(visible: QuerySet[FactMetric]) -> Exists:
    """Whether an approved fact among `visible` holds a row's key (company, metric, period and
    channel): a candidate beside it cannot be approved over it, only rejected."""
    holders = visible.filter(review_status=FactMetric.Review.APPROVED, **{f: OuterRef(f) for f in _KEY_FIELDS})
    return Exists(holders.order_by())


def document_review_counts(*, document_id: int, cleared: bool) -> dict[str, int]:
    """A document's facts the caller may see, as a curator's work list: `approved`, `pending`,
    the pending ones beside an approved figure of their key (`held`) and those whose row label
    the glossary did not know (`label`, no metric)."""
    visible = facts_visible(FactMetric.objects.all(), cleared=cleared)
    pending = Q(review_status=FactMetric.Review.PENDING)
    counts = (
        visible.filter(document_id=document_id)
        .annotate(beside_approved=key_held(visible))
        .aggregate(
            approved=Count("pk", filter=Q(review_status=FactMetric.Review.APPROVED)),
            pending=Count("pk", filter=pending),
            held=Count("pk", filter=pending & Q(beside_approved=True)),
            label=Count("pk", filter=pending & Q(metric__isnull=True)),
        )
    )
    return {name: int(value or 0) for name, value in counts.items()}


def fact_list(*, cleared: bool) -> QuerySet[FactMetric]:
    """Approved facts the caller may see, with `effective_sensitivity` (`facts_visible`)."""
    return facts_visible(FactMetric.objects.filter(review_status=FactMetric.Review.APPROVED), cleared=cleared)


class FactFilterError(ValueError):
    """A filter value that names nothing: `field` is the filter, the message says why."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def fact_filter(facts: QuerySet[FactMetric], *, filters: dict[str, str]) -> QuerySet[FactMetric]:
    """`facts` narrowed by `filters` (`metric`, `entity`, `channel`: any alias; `period`: a label
    such as `FY2025`). Raises `FactFilterError` for a value the glossary or the period grammar
    does not know."""
    glossary = glossary_snapshot()
    for kind in ("metric", "entity", "channel"):
        if filters.get(kind):
            code = glossary.resolve(kind, filters[kind])
            if code is None:
                raise FactFilterError(
                    kind, f"'{filters[kind]}' is not in the glossary.{_closest(glossary, kind, filters[kind])}"
                )
            facts = facts.filter(**{f"{kind}_id": code})
    if filters.get("period"):
        period = period_parse(filters["period"])
        if period is None:
            raise FactFilterError("period", f"'{filters['period']}' is not a period.")
        facts = facts.filter(period_type=period.period_type, period=period.period)
    return facts


_NEAR_SPELLING = 0.7  # difflib's ratio: a slip of a letter or two, not a shared syllable


def _closest(glossary: GlossarySnapshot, kind: str, given: str) -> str:
    """ " Closest: …" naming the codes whose code or names are spelt nearly as `given`, so a caller
    (a model over MCP) can correct a slip; competitors are never offered. A word with no near
    spelling is offered no code (sharing a few letters says nothing of meaning), only where the
    list is."""
    records = {"entity": glossary.entities, "metric": glossary.metrics, "channel": glossary.channels}[kind]
    names: dict[str, str] = {}
    for code in records:
        if kind == "entity" and glossary.is_external(code):
            continue
        for name in (code, *glossary.aliases_of(kind, code)):
            names.setdefault(name.casefold(), code)
    near = difflib.get_close_matches(given.strip().casefold(), list(names), n=8, cutoff=_NEAR_SPELLING)
    codes = list(dict.fromkeys(names[name] for name in near))[:3]
    if not codes:
        return (
            f" No {kind} code is spelt like it; the glossary lists every code with its names"
            " (MCP: the `glossary` tool; REST: `GET /v1/glossary/metrics`)."
        )
    return " Closest: " + ", ".join(f"{code} ({records[code].name})" for code in codes) + "."


_FACT_COLUMNS = (
    "metric_id",
    "entity_id",
    "period_type",
    "period",
    "channel_id",
    "value",
    "unit_id",
    "source_doc",
    "locator",
    "document_id",
    "valid_as_of",
    "printed_value",
    "effective_sensitivity",
)


def fact_record(row: tuple) -> FactRecord:  # type: ignore[type-arg]
    (
        metric,
        entity,
        period_type,
        period,
        channel,
        value,
        unit,
        doc,
        locator,
        document_id,
        as_of,
        printed,
        sensitivity,
    ) = row
    return FactRecord(
        metric=metric,
        entity=entity,
        period=Period(period_type, period),
        channel=channel,
        value=value,
        unit=unit,
        source_doc=doc,
        locator=locator,
        document_id=document_id,
        valid_as_of=as_of,
        sensitivity=sensitivity,
        printed_value=printed,
    )


def fact_get(task: SubTask, *, cleared: bool) -> FactRecord | None:
    """The approved fact for `task`'s key that the caller may see: `facts_get` for one key, a
    statement of its own rather than the ORM's (which costs ten times as much to build as to
    run, on every lookup of every answer)."""
    return facts_get([task], cleared=cleared).get(task.key)


def fact_queried(task: SubTask, *, cleared: bool) -> FactRecord | None:
    """`fact_get` through the ORM (`fact_list`): the definition the bulk reads are tested against."""
    row = (
        fact_list(cleared=cleared)
        .filter(
            metric_id=task.metric,
            entity_id=task.entity,
            period_type=task.period.period_type,
            period=task.period.period,
            channel_id=task.channel,
        )
        .values_list(*_FACT_COLUMNS)
        .first()
    )
    return fact_record(row) if row else None


def facts_pending(task: SubTask, *, cleared: bool) -> QuerySet[FactMetric]:
    """The candidates for `task`'s key that wait for curator review and the caller may see, each
    annotated with `effective_sensitivity` (`facts_visible`); `fact_metric_key_idx` serves it."""
    pending = FactMetric.objects.filter(
        review_status=FactMetric.Review.PENDING,
        metric_id=task.metric,
        entity_id=task.entity,
        period_type=task.period.period_type,
        period=task.period.period,
        channel_id=task.channel,
    )
    return facts_visible(pending, cleared=cleared)


def facts_get(tasks: Iterable[SubTask], *, cleared: bool) -> dict[tuple[str, ...], FactRecord]:
    """Every fact `tasks` name that the caller may see, keyed by `SubTask.key`, in a few queries.

    Tasks are grouped by channel, and each group is read with its metrics, periods and entities in
    `IN` clauses (the entities in batches of at most `IN_BATCH` codes), so a ranking over
    thousands of entities is a handful of queries instead of one per entity, and a series of
    twelve quarters with the quarters it compares with is one query instead of thirteen. Rows the
    tasks did not ask for (the cross product of a group's metrics, periods and entities) are
    dropped.
    """
    wanted = {task.key for task in tasks}
    groups: dict[tuple[str, ...], tuple[set[str], set[str], set[str], set[str]]] = {}
    for metric, entity, period_type, period, channel in wanted:
        metrics, entities, types, periods = groups.setdefault((channel,), (set(), set(), set(), set()))
        metrics.add(metric)
        entities.add(entity)
        types.add(period_type)
        periods.add(period)
    if len(groups) > 1:
        # A few keys over several channels (a why's channels beside its total) are one query
        # when the cross product it reads stays close to what was asked.
        merged = tuple(set().union(*(group[i] for group in groups.values())) for i in range(4))
        channels = tuple(sorted(channel for (channel,) in groups))
        if len(merged[1]) <= IN_BATCH and prod(map(len, merged)) * len(channels) <= max(256, 8 * len(wanted)):
            groups = {channels: merged}
    found: dict[tuple[str, ...], FactRecord] = {}
    select, params = _approved_facts_sql(cleared)
    value_field, date_field = FactMetric._meta.get_field("value"), FactMetric._meta.get_field("valid_as_of")

    def among(values: Collection[str]) -> str:
        return f"IN ({', '.join(['%s'] * len(values))})"

    with connection.cursor() as cursor:
        for channels, (metrics, entities, types, periods) in groups.items():
            ordered = sorted(entities)
            for start in range(0, len(ordered), IN_BATCH):
                chunk = ordered[start : start + IN_BATCH]
                cursor.execute(
                    f"{select} AND f.channel_code {among(channels)} AND f.period_type {among(types)} "
                    f"AND f.period {among(periods)} AND f.metric_code {among(metrics)} "
                    f"AND f.entity_code {among(chunk)}",
                    [*params, *channels, *sorted(types), *sorted(periods), *sorted(metrics), *chunk],
                )
                for row in cursor.fetchall():
                    value = value_field.from_db_value(row[5], None, connection)
                    printed = value_field.from_db_value(row[11], None, connection)
                    fact = fact_record((*row[:5], value, *row[6:10], date_field.to_python(row[10]), printed, row[12]))
                    key = (fact.metric, fact.entity, fact.period.period_type, fact.period.period, fact.channel)
                    if key in wanted:
                        found[key] = fact
    return found


def _approved_facts_sql(cleared: bool) -> tuple[str, list[object]]:
    """The approved facts the caller may see, as `_FACT_COLUMNS` (with the level `facts_visible`
    derives), in raw SQL: a query to add `AND …` conditions to, and its parameters. What
    `fact_list` reads, without the ORM's cost of building the query on every read."""
    meta = FactMetric._meta
    documents = meta.get_field("document").related_model._meta  # documents sits above facts: no import
    level, level_params = sensitivity_strictest_sql("f.sensitivity", "d.sensitivity")
    hidden, hidden_params = visible_to_sql(level, cleared=cleared)
    columns = ", ".join(f"f.{meta.get_field(name.removesuffix('_id')).column}" for name in _FACT_COLUMNS[:-1])
    select = (
        f"SELECT {columns}, {level} FROM {meta.db_table} f "
        f"LEFT JOIN {documents.db_table} d ON d.{documents.pk.column} = f.{meta.get_field('document').column} "
        f"WHERE f.review_status = %s{hidden}"
    )
    return select, [*level_params, FactMetric.Review.APPROVED, *(level_params if hidden else ()), *hidden_params]


class OrmFactStore:
    """The `FactStore` port over the ORM."""

    def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None:
        return fact_get(task, cleared=cleared)

    def facts_get(self, tasks: Iterable[SubTask], *, cleared: bool) -> dict[tuple[str, ...], FactRecord]:
        return facts_get(tasks, cleared=cleared)

    def pending_count(self, task: SubTask, *, cleared: bool) -> int:
        return facts_pending(task, cleared=cleared).count()

    def figures_get(
        self, metric: str, entities: Collection[str], period: Period, channel: str, *, cleared: bool, order: str
    ) -> list[tuple[str, Decimal | float | str, str, str]]:
        return figures_get(metric, entities, period, channel, cleared=cleared, order=order)

    def figures_head(
        self,
        metric: str,
        entities: Collection[str],
        period: Period,
        channel: str,
        *,
        cleared: bool,
        order: str,
        top: int,
    ) -> FiguresHead | None:
        return figures_head(metric, entities, period, channel, cleared=cleared, order=order, top=top)

    def changes_head(
        self,
        metric: str,
        entities: Collection[str],
        now: Period,
        before: Period,
        channel: str,
        *,
        cleared: bool,
        top: int,
    ) -> ChangesHead | None:
        return changes_head(metric, entities, now, before, channel, cleared=cleared, top=top)


@dataclass(frozen=True)
class FormulaPreview:
    """A formula tried on one key: why it cannot be used (`problem`), or the engine's `outcome`,
    with the formula in words and the stored fact for that key, which answers show instead."""

    problem: str = ""
    words: str = ""
    outcome: Computed | CannotCompute | None = None
    stored: FactRecord | None = None
    pending: tuple[FactRecord, ...] = ()  # candidates awaiting review for the missing inputs


PENDING_SHOWN_KEYS = 10  # the missing inputs whose candidates a preview lists (a query each)


def _pending_of(missing: Iterable[SubTask], *, cleared: bool) -> tuple[FactRecord, ...]:
    """The candidates awaiting review for `missing` that the caller may see, with their values
    and lineage (for curators); a candidate with no unit yet shows none."""
    rows = []
    for key in list(dict.fromkeys(missing))[:PENDING_SHOWN_KEYS]:
        rows += facts_pending(key, cleared=cleared).order_by("pk").values_list(*_FACT_COLUMNS)
    return tuple(replace(fact_record(row), unit=row[6] or "") for row in rows)


def formula_preview(
    *, code: str, formula: str, unit: str, task: SubTask, cleared: bool, language: str = "zh"
) -> FormulaPreview:
    """Metric `code`'s value for `task` if its formula were `formula` (unsaved), computed by the
    engine from the facts the caller may see; every other formula as the glossary holds it. The
    formula in words names the metrics in `language`."""
    glossary = glossary_snapshot()
    if not formula.strip():
        return FormulaPreview(problem="There is no formula to try: the formula is blank.")
    definitions = {c: m.formula for c, m in glossary.metrics.items() if m.formula.strip() and c != code}
    definitions[code] = formula
    units = {c: m.unit for c, m in glossary.metrics.items()} | {code: unit}
    bad = formulas_check(definitions, units)
    if code in bad:
        return FormulaPreview(problem=bad[code])
    while bad:  # another metric's formula that does not work is left out, as in the snapshot
        definitions = {c: text for c, text in definitions.items() if c not in bad}
        bad = formulas_check(definitions, units)
    words = formula_render(formula_parse(formula), lambda ref: glossary.display("metric", ref.code, language))

    def lookup(key: SubTask) -> FactRecord | None:
        return fact_get(key, cleared=cleared)

    outcome = formula_compute(lookup, task, formula_metrics_build(definitions, units), label=glossary.display)
    assert not isinstance(outcome, FactRecord)  # no `stored` was passed
    pending = _pending_of(outcome.missing, cleared=cleared) if isinstance(outcome, CannotCompute) else ()
    return FormulaPreview(words=words, outcome=outcome, stored=lookup(task), pending=pending)


class OrmFxRates:
    """The `FxRates` port over the ORM: the curated FX table (`facts.fx`)."""

    def rate(self, base: str, quote: str, period_type: str, period: str, rate_type: str) -> FxQuote | None:
        return fx_rate_get(base=base, quote=quote, period_type=period_type, period=period, rate_type=rate_type)


def dispute_list(*, cleared: bool) -> QuerySet[FactDispute]:
    """Disputes the caller may see: a dispute is as sensitive as its fact (and its document), so
    one on a RESTRICTED figure is neither listed nor counted for the uncleared."""
    disputes = FactDispute.objects.select_related("fact", "fact__document", "created_by", "resolved_by")
    return visible_to(disputes, cleared=cleared, lookups=FactDispute.SENSITIVITY_LOOKUPS)


def disputes_open(*, cleared: bool) -> QuerySet[FactDispute]:
    """The open disputes the caller may see, oldest first: the curators' to-do."""
    return dispute_list(cleared=cleared).filter(status=FactDispute.Status.OPEN).order_by("created_at", "pk")


def disputes_filed(*, user: Any, cleared: bool) -> QuerySet[FactDispute]:
    """The disputes `user` filed that they may still see, newest first ("my reports")."""
    if user is None or not user.is_authenticated:
        return FactDispute.objects.none()
    return dispute_list(cleared=cleared).filter(created_by_id=user.pk).order_by("-created_at", "-pk")
