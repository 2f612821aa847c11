"""One metric's largest changes between two periods across many entities, read for a why
(`changes_head`): the head of the changes and what they all add up to. A why over thousands of
subsidiaries lists ten of them; the rest is one row, so only its sum is needed.

Both periods' figures are read once, in one statement with the facts' write stamp
(`FactsStamp`), paired and ranked here, exactly, and kept: every later why of the same metric,
channel and periods, for any list of entities and either clearance, is answered from what was
kept while the stamp stands. Any write of a fact, or of a document's level, changes the stamp in
the database, whoever makes it, so what was kept is never read after it. Clearance is applied
per question, to the kept pairs, as `facts_visible` would: a figure takes the stricter of its
own level and its document's."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Collection, Iterable
from contextlib import suppress
from decimal import Decimal, Inexact, localcontext
from itertools import chain
from typing import Any

from django.db import connection

from common.access import sensitivity_strictest_sql
from core.model.facts import RESTRICTED, SENSITIVITIES
from core.model.period import Period
from core.ports import ChangesHead

from .models import FactMetric, FactsStamp

# The exact sum is given only while every partial sum of the changes keeps this many digits:
# the engine sums them at 34 (`core.engine.formula.PRECISION`), and a sum it would round is
# left to it (None: the caller reads every figure).
DIGITS = 33
KEPT = 32  # the metric, channel and period pairs a process keeps, the least recently used dropped
LARGEST = 200_000  # a field with more figures than this is not kept: the caller reads every figure

# (entity, now, before, level now, level before, unit now, unit before,
#  change, hidden now, hidden before, strictest rank, most decimals, largest magnitude)
Pair = tuple[str, Decimal, Decimal, str, str, str, str, Decimal, bool, bool, int, int, Decimal]


def changes_head(
    metric: str,
    entities: Collection[str],
    now: Period,
    before: Period,
    channel: str,
    *,
    cleared: bool,
    top: int = 10,
) -> ChangesHead | None:
    """The first `top` changes of one metric from `before` to `now` across `entities` for one
    channel, largest `|now − before|` first and ties by entity code (as Python orders text),
    with the count, units, strictest level and exact sum of them all and the entities with a
    figure the caller may see in one period only (`ChangesHead`). None when the field is too
    large to keep, or its sum has more digits than the engine keeps: the caller reads every
    figure."""
    if top < 1:
        raise ValueError(f"top must be at least 1, not {top}")
    field = _field(metric, now, before, channel)
    if field is None:
        return None
    wanted = entities if isinstance(entities, (set, frozenset, dict)) else set(entities)
    return field.head(wanted, cleared=cleared, top=top)


class _Field:
    """Every entity's figure of one metric and channel in two periods, paired: the pairs ranked
    by the size of their change, and the entities with a figure in one period only."""

    def __init__(self, token: str | None, pairs: list[Pair], alone: list[tuple[str, bool]]) -> None:
        self.token = token
        # `copy_abs` and `copy_negate` are exact; `abs` and `-` round to the context.
        pairs.sort(key=lambda pair: (pair[7].copy_abs().copy_negate(), pair[0]))
        self.pairs = tuple(pairs)
        self.alone = tuple(alone)
        self._by_clearance: dict[bool, _Seen] = {}

    def head(self, wanted: Collection[str], *, cleared: bool, top: int) -> ChangesHead | None:
        seen = self._seen(cleared)
        missing = seen.entities.difference(wanted)
        if len(missing) * 4 > seen.count:  # a small part of the field: count it afresh
            seen = _Seen([pair for pair in seen.pairs if pair[0] in wanted], seen.lacking.intersection(wanted))
            missing = frozenset()
        lacking = seen.lacking.intersection(wanted) if len(seen.lacking) else seen.lacking
        dropped = [seen.by_entity[entity] for entity in missing]
        count = seen.count - len(dropped)
        if not count:
            return ChangesHead(
                rows=(), count=0, units=frozenset(), sensitivity=SENSITIVITIES[0], lacking=lacking, total=Decimal(0)
            )
        # Every partial sum of the changes is below `2 × count × largest` and has `scale` decimals;
        # the whole field's bound holds for any part of it, and a part that fails it is measured.
        if seen.total is None or (2 * count * seen.largest).adjusted() + 1 + seen.scale > DIGITS:
            if not dropped:
                return None
            return self._afresh(seen, wanted, lacking, top)
        rows = []
        for pair in seen.pairs:
            if pair[0] not in missing:
                rows.append(pair[:7])
                if len(rows) == top:
                    break
        with localcontext() as context:
            context.prec = 2 * DIGITS
            context.traps[Inexact] = True
            total = seen.total - sum((pair[7] for pair in dropped), Decimal(0))
        units = seen.units - Counter(chain.from_iterable(pair[5:7] for pair in dropped))
        ranks = seen.ranks - Counter(pair[10] for pair in dropped)
        return ChangesHead(
            rows=tuple(rows),
            count=count,
            units=frozenset(units),
            sensitivity=SENSITIVITIES[max(ranks)],
            lacking=lacking,
            total=total,
        )

    def _afresh(self, seen: _Seen, wanted: Collection[str], lacking: frozenset[str], top: int) -> ChangesHead | None:
        part = _Seen([pair for pair in seen.pairs if pair[0] in wanted], lacking)
        if part.total is None or (2 * part.count * part.largest).adjusted() + 1 + part.scale > DIGITS:
            return None
        return ChangesHead(
            rows=tuple(pair[:7] for pair in part.pairs[:top]),
            count=part.count,
            units=frozenset(part.units),
            sensitivity=SENSITIVITIES[max(part.ranks)],
            lacking=lacking,
            total=part.total,
        )

    def _seen(self, cleared: bool) -> _Seen:
        """What a caller of this clearance sees of the field, summed once (a race computes it twice)."""
        seen = self._by_clearance.get(cleared)
        if seen is None:
            if cleared:
                seen = _Seen(list(self.pairs), [entity for entity, _ in self.alone])
            else:
                # A pair with one side hidden is, to this caller, a figure in one period only.
                lacking = [pair[0] for pair in self.pairs if pair[8] != pair[9]]
                lacking += [entity for entity, hidden in self.alone if not hidden]
                seen = _Seen([pair for pair in self.pairs if not (pair[8] or pair[9])], lacking)
            self._by_clearance[cleared] = seen
        return seen


class _Seen:
    """The pairs one caller sees, in rank order, and their totals: count, exact sum of the
    changes, units and levels (counted, so that leaving a few entities out is a subtraction),
    the most decimals and largest magnitude; and the entities with a figure in one period only."""

    def __init__(self, pairs: list[Pair], lacking: Iterable[str]) -> None:
        self.pairs = pairs
        self.by_entity = {pair[0]: pair for pair in pairs}
        self.entities = frozenset(self.by_entity)
        self.lacking = frozenset(lacking)
        self.count = len(pairs)
        self.units = Counter(chain.from_iterable(pair[5:7] for pair in pairs))
        self.ranks = Counter(pair[10] for pair in pairs)
        self.scale = max((pair[11] for pair in pairs), default=0)
        self.largest = max((pair[12] for pair in pairs), default=Decimal(0))
        self.total: Decimal | None = None  # a sum past any the engine keeps (see `DIGITS`) is not needed
        with localcontext() as context:
            context.prec = 4 * DIGITS
            context.traps[Inexact] = True
            with suppress(Inexact):
                self.total = sum((pair[7] for pair in pairs), Decimal(0))


_kept: OrderedDict[tuple[object, ...], _Field] = OrderedDict()
_lock = threading.Lock()


def _field(metric: str, now: Period, before: Period, channel: str) -> _Field | None:
    """The field kept for these figures while the stamp stands, else read (and kept)."""
    key = (connection.alias, connection.settings_dict.get("NAME"), metric, channel, now, before)
    with _lock:
        kept = _kept.get(key)
    if kept is not None and kept.token is not None and kept.token == _token():
        with _lock:
            if key in _kept:
                _kept.move_to_end(key)
        return kept
    field = _read(metric, now, before, channel)
    if field is not None and field.token is not None:
        with _lock:
            _kept[key] = field
            _kept.move_to_end(key)
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return field


def _token() -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT token FROM {FactsStamp._meta.db_table} WHERE id = 1")
        row = cursor.fetchone()
    return None if row is None else str(row[0])


def _read(metric: str, now: Period, before: Period, channel: str) -> _Field | None:
    """Both periods' approved figures with their levels and the stamp, in one statement (one
    snapshot: the stamp is that of the figures read), paired exactly."""
    meta = FactMetric._meta
    documents = meta.get_field("document").related_model._meta  # documents sits above facts: no import
    metric_c, entity_c, channel_c, unit_c, document_c = (
        f"f.{meta.get_field(name).column}" for name in ("metric", "entity", "channel", "unit", "document")
    )
    level, level_params = sensitivity_strictest_sql("f.sensitivity", "d.sensitivity")
    figures = (
        f"SELECT %s, {entity_c}, f.value, {level}, {unit_c} FROM {meta.db_table} f "
        f"LEFT JOIN {documents.db_table} d ON d.{documents.pk.column} = {document_c} "
        f"WHERE {metric_c} = %s AND f.period_type = %s AND f.period = %s AND {channel_c} = %s "
        "AND f.review_status = %s"
    )
    text = "CAST(token AS TEXT)" if connection.vendor == "sqlite" else "token"
    sql = (
        f"SELECT 2, {text}, NULL, NULL, NULL FROM {FactsStamp._meta.db_table} WHERE id = 1 "
        f"UNION ALL {figures} UNION ALL {figures}"
    )
    params: list[object] = []
    for tag, period in ((1, now), (0, before)):
        params += [tag, *level_params, metric, period.period_type, period.period, channel, FactMetric.Review.APPROVED]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchmany(LARGEST * 2 + 2)
        if cursor.fetchone() is not None:
            return None
    token = next((str(row[1]) for row in rows if row[0] == 2), None)
    return _paired(token, (row for row in rows if row[0] == 1), (row for row in rows if row[0] == 0))


def _paired(token: str | None, now: Iterable[Any], before: Iterable[Any]) -> _Field | None:
    """Values come as the database keeps them: text on SQLite, decimals on PostgreSQL."""
    last = len(SENSITIVITIES) - 1
    ranks = {level: rank for rank, level in enumerate(SENSITIVITIES)}
    earlier = {row[1]: row for row in before}
    pairs: list[Pair] = []
    alone: list[tuple[str, bool]] = []
    with localcontext() as context:
        context.prec = 4 * DIGITS
        context.traps[Inexact] = True
        for _, entity, raw, level, unit in now:
            other = earlier.pop(entity, None)
            if other is None:
                alone.append((entity, level == RESTRICTED))
                continue
            _, _, raw_before, level_before, unit_before = other
            value, value_before = Decimal(raw), Decimal(raw_before)
            try:
                change = value - value_before
            except Inexact:
                return None  # digits beyond any sum the engine keeps: the caller reads every figure
            pairs.append(
                (
                    entity,
                    value,
                    value_before,
                    level,
                    level_before,
                    unit,
                    unit_before,
                    change,
                    level == RESTRICTED,
                    level_before == RESTRICTED,
                    max(ranks.get(level, last), ranks.get(level_before, last)),
                    max(_decimals(raw), _decimals(raw_before)),
                    max(value.copy_abs(), value_before.copy_abs()),
                )
            )
    alone += [(row[1], row[3] == RESTRICTED) for row in earlier.values()]
    return _Field(token, pairs, alone)


def _decimals(raw: str | Decimal) -> int:
    """The decimals a value is kept with: SQLite's text (`ExactDecimalField` writes it plain,
    without an exponent), or PostgreSQL's decimal."""
    if isinstance(raw, str):
        point = raw.find(".")
        return 0 if point < 0 else len(raw) - point - 1
    exponent = raw.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0
