"""One metric's figures across many entities, read for a ranking: every figure (`figures_get`), or
only the head of a long field with the field's totals (`figures_head`), in one statement each,
clearance-filtered in the query. Raw SQL over the covering figures index: a ranking over
thousands of entities reads thousands of figures for a handful of answer lines."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace
from decimal import Decimal

from django.db import connection

from common.access import sensitivity_strictest_sql, visible_to_sql
from core.model.facts import SENSITIVITIES
from core.model.period import Period
from core.ports import FiguresHead

from .models import Entity, FactMetric, GlossaryState

IN_BATCH = 500  # codes per IN clause: well under SQLite's bound on query parameters


def figures_get(
    metric: str, entities: Collection[str], period: Period, channel: str, *, cleared: bool, order: str = "desc"
) -> list[tuple[str, Decimal | float | str, str, str]]:
    """`(entity, value, sensitivity, unit)` of one metric's facts for one period and channel, among
    `entities`, that the caller may see, highest value first (`order="asc"`: lowest first): what
    a long ranking reads to find its head. The sensitivity is the one `facts_visible` derives.

    One query over the `(metric, period, channel, entity, …)` index, with each row's document
    looked up by primary key for its level, sorted by the database and read through the cursor
    rather than as model instances: a ranking over thousands of entities reads thousands of
    figures for a handful of answer lines. A short entity list goes into the query; a long one is
    matched here, since the index already bounds the rows to the metric's. Values are as the
    database returns them (a decimal, or a number or text that `Decimal` reads): only the head's
    are ever needed exactly, and those are read whole.
    """
    if order not in ("desc", "asc"):
        raise ValueError(f"order must be 'desc' or 'asc', not {order!r}")
    meta = FactMetric._meta
    documents = meta.get_field("document").related_model._meta  # documents sits above facts: no import
    metric_c, entity_c, channel_c, unit_c, document_c = (
        f"f.{meta.get_field(name).column}" for name in ("metric", "entity", "channel", "unit", "document")
    )
    # The same level as `facts_visible`: the stricter of the fact's and its document's, if any.
    level, level_params = sensitivity_strictest_sql("f.sensitivity", "d.sensitivity")
    hidden, hidden_params = visible_to_sql(level, cleared=cleared)
    sql = (
        f"SELECT {entity_c}, f.value, {level}, {unit_c} FROM {meta.db_table} f "
        f"LEFT JOIN {documents.db_table} d ON d.{documents.pk.column} = {document_c} "
        f"WHERE {metric_c} = %s AND f.period_type = %s AND f.period = %s AND {channel_c} = %s "
        f"AND f.review_status = %s{hidden}"
    )
    # The level's parameters go wherever its expression does: in the SELECT, and in the filter.
    params: list[object] = [*level_params, metric, period.period_type, period.period, channel]
    params += [FactMetric.Review.APPROVED, *(level_params if hidden else ()), *hidden_params]
    wanted = entities if isinstance(entities, (set, frozenset, dict)) else set(entities)
    if len(wanted) <= IN_BATCH:
        sql += f" AND {entity_c} IN ({', '.join(['%s'] * len(wanted))})"
        params += sorted(wanted)
    # SQLite keeps a decimal as text, which would sort by its characters: sort it as a number.
    # Two figures that differ beyond a double's precision may then come in either order; the
    # caller's cut takes every figure equal to the boundary's as a double (see `ranking_head`).
    key = "CAST(f.value AS REAL)" if connection.vendor == "sqlite" else "f.value"
    sql += f" ORDER BY {key} {order.upper()}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [row for row in rows if row[0] in wanted]


def _entities_stamp() -> str:
    """An SQL expression that changes whenever an entity code appears: the glossary version stamp
    (every save of an entity, a rename too, bumps it in its own transaction: `facts.signals`) and
    the entity table's highest id (ids are never reused, so a row written without a save, such
    as a bulk insert, raises it). An entity removed needs no notice: it has no facts left."""
    glossary, entities = GlossaryState._meta.db_table, Entity._meta.db_table
    text = "::text" if connection.vendor == "postgresql" else ""
    return (
        f"coalesce((SELECT version{text} || ':' || token FROM {glossary} WHERE id = 1), '0:') "
        f"|| '/' || coalesce((SELECT max(id) FROM {entities}), 0){text}"
    )


def _stamp_now() -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_entities_stamp()}")
        return str(cursor.fetchone()[0])


_known: tuple[str, frozenset[str]] | None = None  # (stamp, every entity code), see `_entity_codes`


def _entity_codes(*, fresh: bool) -> tuple[str, frozenset[str]]:
    """Every entity code and the stamp they were read under (`_entities_stamp`), in one
    statement; remembered by the process until a reader finds the stamp has moved (`fresh`)."""
    global _known
    known = _known
    if known is not None and not fresh:
        return known
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_entities_stamp()}, NULL UNION ALL SELECT NULL, code FROM {Entity._meta.db_table}")
        rows = cursor.fetchall()
    stamp = next(row[0] for row in rows if row[0] is not None)
    known = (stamp, frozenset(row[1] for row in rows if row[1] is not None))
    _known = known
    return known


def figures_head(
    metric: str,
    entities: Collection[str],
    period: Period,
    channel: str,
    *,
    cleared: bool,
    order: str = "desc",
    top: int = 10,
) -> FiguresHead | None:
    """The head of one metric's figures across `entities` for one period and channel, and the
    count, units and strictest level of them all (`FiguresHead`), in one statement: the
    database ranks the figures in the `(metric, period, channel, status, entity, …)` index,
    which holds every column this reads, and only the head's rows come back. The figures are
    the ones `figures_get` reads; `top` must be at least 1.

    Which rows belong to `entities` is said in the statement: a short list as it is, a long one
    by the entities it leaves out (every entity code there is, less `entities`), checked against
    a stamp of the entity table read in the same statement, so that an entity added since its
    codes were read is never counted in (the codes are read again, once). None when neither list
    is short: the caller reads every figure.
    """
    if order not in ("desc", "asc"):
        raise ValueError(f"order must be 'desc' or 'asc', not {order!r}")
    if top < 1:
        raise ValueError(f"top must be at least 1, not {top}")
    wanted = entities if isinstance(entities, (set, frozenset, dict)) else set(entities)
    for fresh in (False, True):
        stamp, excluded = None, None
        if len(wanted) > IN_BATCH:
            stamp, known = _entity_codes(fresh=fresh)
            excluded = sorted(known - wanted)
            if len(excluded) > IN_BATCH:
                if fresh or _stamp_now() == stamp:
                    return None  # too many to list
                continue  # the codes remembered are out of date: read them again
        limit = top + 1
        while True:
            head, read_under = _figures_head_read(metric, wanted, excluded, period, channel, cleared, order, limit)
            if stamp is not None and read_under != stamp:
                break  # an entity came or went since the codes were read: read them again
            values = [float(Decimal(str(row[1]))) for row in head.rows]
            if len(values) <= top:
                return head
            # The rows up to the `top`-th, those equal to it as doubles, and the next one.
            end = next((i for i in range(top, len(values)) if values[i] != values[top - 1]), None)
            if end is not None:
                return replace(head, rows=head.rows[: end + 1])
            if len(values) < limit:
                return head  # the whole field ties from the `top`-th on
            limit *= 4  # the last row read ties with the `top`-th: read further (all of it again)
    return None


def _figures_head_read(
    metric: str,
    wanted: Collection[str],
    excluded: list[str] | None,
    period: Period,
    channel: str,
    cleared: bool,
    order: str,
    limit: int,
) -> tuple[FiguresHead, str | None]:
    """One read of `figures_head`: the head (`limit` rows), the totals and, when `excluded`
    says who belongs, the entity table's stamp, all from one statement."""
    meta = FactMetric._meta
    documents = meta.get_field("document").related_model._meta  # documents sits above facts: no import
    metric_c, entity_c, channel_c, unit_c, document_c = (
        f"f.{meta.get_field(name).column}" for name in ("metric", "entity", "channel", "unit", "document")
    )
    postgres = connection.vendor == "postgresql"
    level, level_params = sensitivity_strictest_sql("f.sensitivity", "d.sensitivity")
    hidden, hidden_params = visible_to_sql(level, cleared=cleared)
    if excluded is None:
        members = f" AND {entity_c} IN ({', '.join(['%s'] * len(wanted))})"
        member_params = sorted(wanted)
    else:
        members = f" AND {entity_c} NOT IN ({', '.join(['%s'] * len(excluded))})" if excluded else ""
        member_params = excluded
    # The strictest level by its rank: PUBLIC 0, INTERNAL 1, anything else the last.
    ranked = " ".join(f"WHEN %s THEN {i}" for i in range(len(SENSITIVITIES) - 1))
    strictest = f"max(CASE level {ranked} ELSE {len(SENSITIVITIES) - 1} END)"
    found = "coalesce(json_agg(entity)::text, '[]')" if postgres else "json_group_array(entity)"
    key = "value" if postgres else "CAST(value AS REAL)"  # SQLite keeps a decimal as text
    # The field is read twice in one statement, for its head and for its totals: one snapshot,
    # and cheaper than keeping it as a table both read (a `WITH` used twice is materialised).
    field = (
        f"(SELECT {entity_c} AS entity, f.value AS value, {level} AS level, {unit_c} AS unit "
        f"FROM {meta.db_table} f LEFT JOIN {documents.db_table} d ON d.{documents.pk.column} = {document_c} "
        f"WHERE {metric_c} = %s AND f.period_type = %s AND f.period = %s AND {channel_c} = %s "
        f"AND f.review_status = %s{hidden}{members})"
    )
    field_params: list[object] = [*level_params, metric, period.period_type, period.period, channel]
    field_params += [FactMetric.Review.APPROVED, *(level_params if hidden else ()), *hidden_params, *member_params]
    sql = (
        f"SELECT 0, entity, value, level, unit, NULL, NULL, NULL, NULL "
        f"FROM (SELECT * FROM {field} r ORDER BY {key} {order.upper()} LIMIT %s) h "
        f"UNION ALL SELECT 1, NULL, NULL, NULL, min(unit), max(unit), count(*), {strictest}, "
        f"CASE WHEN count(*) < %s THEN {found} END FROM {field} r"
    )
    params = [*field_params, limit, *SENSITIVITIES[:-1], len(wanted), *field_params]
    if excluded is not None:
        sql += f" UNION ALL SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {_entities_stamp()}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    head = tuple(row[1:5] for row in rows if row[0] == 0)
    totals = next(row for row in rows if row[0] == 1)
    low, high, count, strictest_rank = totals[4], totals[5], int(totals[6]), totals[7]
    return (
        FiguresHead(
            rows=head,
            count=count,
            units=frozenset(u for u in (low, high) if u is not None),
            sensitivity=SENSITIVITIES[int(strictest_rank)] if count else SENSITIVITIES[0],
            found=frozenset(json.loads(totals[8])) if totals[8] is not None else None,
        ),
        next((row[8] for row in rows if row[0] == 2), None),
    )
