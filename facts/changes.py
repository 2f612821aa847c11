"""One metric's largest changes between two periods across many entities, read for a why
(`changes_head`): the head of the changes and what they all add up to, in one statement,
clearance-filtered in the query like `figures_get` and `figures_head`. A why over thousands of
subsidiaries lists ten of them; the rest is one row, so only its sum is needed."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Any

from django.db import connection

from common.access import sensitivity_strictest_sql, visible_to_sql
from core.model.types import SENSITIVITIES, Period
from core.ports import ChangesHead

from .figures import IN_BATCH, _entities_stamp, _entity_codes, _stamp_now
from .models import FactMetric

# The exact sum is trusted only while every partial sum of the changes keeps this many digits:
# the engine sums them at 34 (`core.engine.formula.PRECISION`), and a sum it would round is
# left to it (None: the caller reads every figure).
DIGITS = 33
# SQLite keeps a decimal as text. A value is its integer part (`CAST AS INTEGER`, exact) and its
# fraction, summed apart: the integer parts as doubles, exact below 2^53 in all; the fractions
# as doubles, each off by at most `value × 2^-50`, their sum by `count² × 2^-52` more. When
# that is below a quarter of the values' last decimal place, rounding the fractions' sum to it
# gives the exact sum.
_EXACT_INTEGERS = 2.0**52


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
    channel, largest `|now − before|` first and ties by entity code, with the count, units,
    strictest level and exact sum of them all and the entities with a figure in one period only
    (`ChangesHead`): one statement, two when some entity has a figure in one period only.

    The database ranks the pairs exactly. PostgreSQL subtracts numerics. SQLite keeps a decimal
    as text: it ranks `|now − before|` as a double rounded to `scale` decimals, which is the
    change itself (equal changes equal, a larger one larger) while the values have at most
    `scale` decimals and few enough digits (`_ranks_exactly`); the same statement says whether
    they had, and is read once more with their own scale when it was too small. Which rows
    belong to `entities` is said as `figures_head` says it. None when neither list is short,
    or the order or the sum cannot be told exactly: the caller reads every figure."""
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
        read = _Read(metric, wanted, excluded, now, before, channel, cleared)
        scale = SCALE
        while True:
            rows, totals, lacking, read_under = read.head(top, scale)
            if stamp is not None and read_under != stamp:
                break  # an entity came or went since the codes were read: read them again
            if totals is None:
                return None
            count, units, strictest, total, (scale_read, largest) = totals
            if not read.postgres and not _ranks_exactly(scale_read, largest, scale):
                if scale_read > scale and _ranks_exactly(scale_read, largest, scale_read):
                    scale = scale_read
                    continue
                return None
            return ChangesHead(
                rows=tuple(sorted(rows, key=lambda row: (-abs(row[1] - row[2]), row[0]))),
                count=count,
                units=units,
                sensitivity=strictest,
                lacking=lacking,
                total=total,
            )
    return None


SCALE = 4  # the decimals SQLite ranks changes at first: most figures have fewer


def _ranks_exactly(scale_read: int, largest: Decimal, scale: int) -> bool:
    """Whether changes rounded to `scale` decimals as doubles rank as the changes do: every
    value has at most `scale` decimals, and every change (below `2 × largest`) has at most 14
    digits in all, so that a double holds it to far better than half its last decimal."""
    return scale_read <= scale and (2 * largest).adjusted() + 1 + scale <= 14


_PAIR_COLUMNS = "n.entity AS e, n.value AS v1, b.value AS v0, n.level AS l1, b.level AS l0, n.unit AS u1, b.unit AS u0"
Row = tuple[str, Decimal, Decimal, str, str, str, str]
# count, units, strictest level, exact sum, and the values' most decimals and largest magnitude
Totals = tuple[int, frozenset[str], str, Decimal, tuple[int, Decimal]]


class _Read:
    """The statements of one `changes_head`: its SQL, built once (read again when SQLite must
    rank at more decimals)."""

    def __init__(
        self,
        metric: str,
        wanted: Collection[str],
        excluded: list[str] | None,
        now: Period,
        before: Period,
        channel: str,
        cleared: bool,
    ) -> None:
        meta = FactMetric._meta
        documents = meta.get_field("document").related_model._meta  # documents sits above facts: no import
        metric_c, entity_c, channel_c, unit_c, document_c = (
            f"f.{meta.get_field(name).column}" for name in ("metric", "entity", "channel", "unit", "document")
        )
        self.postgres = connection.vendor == "postgresql"
        self.excluded = excluded
        level, level_params = sensitivity_strictest_sql("f.sensitivity", "d.sensitivity")
        hidden, hidden_params = visible_to_sql(level, cleared=cleared)
        if excluded is None:
            members = f" AND {entity_c} IN ({', '.join(['%s'] * len(wanted))})"
            member_params: list[object] = sorted(wanted)
        else:
            members = f" AND {entity_c} NOT IN ({', '.join(['%s'] * len(excluded))})" if excluded else ""
            member_params = list(excluded)
        source = (
            f"FROM {meta.db_table} f LEFT JOIN {documents.db_table} d ON d.{documents.pk.column} = {document_c} "
            f"WHERE {metric_c} = %s AND {channel_c} = %s AND f.review_status = %s{hidden}{members}"
        )
        tail = [*(level_params if hidden else ()), *hidden_params, *member_params]

        def field(period: Period) -> tuple[str, list[object]]:
            sql = (
                f"(SELECT {entity_c} AS entity, f.value AS value, {level} AS level, {unit_c} AS unit "
                f"{source} AND f.period_type = %s AND f.period = %s)"
            )
            params = [*level_params, metric, channel, FactMetric.Review.APPROVED, *tail]
            return sql, [*params, period.period_type, period.period]

        (self.now_sql, self.now_params), (self.before_sql, self.before_params) = field(now), field(before)

    def _pairs(self) -> tuple[str, list[object]]:
        return (
            f"{self.now_sql} n JOIN {self.before_sql} b ON b.entity = n.entity",
            [*self.now_params, *self.before_params],
        )

    def _totals(self, tag: int, source: str) -> str:
        """One period's figures in `source` (`entity, value, level, unit`): its units, how many,
        its entities (the index reads them in order, so two periods with the same entities
        almost always list them alike), the sum's parts, the most decimals, the largest value
        and the strictest level. Each period apart: two ranges of the index, no grouping."""
        ranked = " ".join(f"WHEN %s THEN {i}" for i in range(len(SENSITIVITIES) - 1))
        strictest = f"max(CASE level {ranked} ELSE {len(SENSITIVITIES) - 1} END)"
        if self.postgres:
            listed = "string_agg(entity, ',' ORDER BY entity)"
            sums = "sum(value), NULL, max(scale(value)), max(abs(value))"
        else:
            listed = "group_concat(entity, ',')"
            sums = (
                "total(CAST(value AS INTEGER)), total(CAST(value AS REAL) - CAST(value AS INTEGER)), "
                "max(CASE instr(value, '.') WHEN 0 THEN 0 ELSE length(value) - instr(value, '.') END), "
                "max(abs(CAST(value AS REAL)))"
            )
        return (
            f"SELECT {tag}, NULL, NULL, NULL, NULL, NULL, min(unit), max(unit), NULL, "
            f"count(*), {listed}, {sums}, {strictest}, NULL FROM {source} s"
        )

    def _order(self, scale: int) -> str:
        """The pairs' order: largest change first, then by entity code as Python orders text."""
        if self.postgres:
            return 'abs(n.value - b.value) DESC, n.entity COLLATE "C"'
        return f"round(abs(CAST(n.value AS REAL) - CAST(b.value AS REAL)), {int(scale)}) DESC, n.entity"

    def _statement(self, top: int, scale: int, now: str, before: str, params: list[object]) -> list[Any]:
        """The head of the pairs, and `now`'s and `before`'s totals (`_totals`), with the stamp."""
        ranks = list(SENSITIVITIES[:-1])
        stamp = f" UNION ALL SELECT 2, {'NULL, ' * 15}{_entities_stamp()}" if self.excluded is not None else ""
        pairs, pair_params = self._pairs()
        sql = (
            f"SELECT 0, e, v1, v0, l1, l0, u1, u0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM "
            f"(SELECT {_PAIR_COLUMNS} FROM {pairs} ORDER BY {self._order(scale)} LIMIT %s) n_b "
            f"UNION ALL {self._totals(1, now)} UNION ALL {self._totals(3, before)}{stamp}"
        )
        return self._fetch(
            sql, [*pair_params, top, *ranks, *params[: len(params) // 2], *ranks, *params[len(params) // 2 :]]
        )

    def head(self, top: int, scale: int) -> tuple[list[Row], Totals | None, frozenset[str], str | None]:
        """The first `top` pairs, the totals (None when the sum cannot be told exactly), the
        entities with a figure in one period only, and the stamp read under."""
        rows = self._statement(top, scale, self.now_sql, self.before_sql, [*self.now_params, *self.before_params])
        now, before = (next(row for row in rows if row[0] == tag) for tag in (1, 3))
        read_under = next((row[16] for row in rows if row[0] == 2), None)
        # At most one figure per entity and period: the same entities listed alike have both.
        if not (now[9] == before[9] and now[10] == before[10]):
            return self._lacking(top, scale, read_under)  # some entity has a figure in one period only
        return [_row(row) for row in rows if row[0] == 0], self._sum(now, before), frozenset(), read_under

    def _lacking(
        self, top: int, scale: int, read_under: str | None
    ) -> tuple[list[Row], Totals | None, frozenset[str], str | None]:
        """`head` when the periods' entities differ (or were listed apart): the totals from the
        pairs alone, and the entities with a figure in one period only, in a second statement
        (the same snapshot as the first only when nothing was written between them)."""
        pairs, pair_params = self._pairs()
        now = f"(SELECT n.entity AS entity, n.value AS value, n.level AS level, n.unit AS unit FROM {pairs})"
        before = f"(SELECT b.entity AS entity, b.value AS value, b.level AS level, b.unit AS unit FROM {pairs})"
        rows = self._statement(top, scale, now, before, [*pair_params, *pair_params])
        both = (
            f"(SELECT entity FROM {self.now_sql} n UNION ALL SELECT entity FROM {self.before_sql} b) s "
            "GROUP BY entity HAVING count(*) = 1"
        )
        alone = self._fetch(f"SELECT entity FROM {both}", [*self.now_params, *self.before_params])
        totals = self._sum(*(next(row for row in rows if row[0] == tag) for tag in (1, 3)))
        return [_row(row) for row in rows if row[0] == 0], totals, frozenset(row[0] for row in alone), read_under

    def _fetch(self, sql: str, params: list[object]) -> list[Any]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())

    def _sum(self, now: tuple[Any, ...], before: tuple[Any, ...]) -> Totals | None:
        """The pairs' totals from both periods' (the same entities in each): the exact sum of
        their changes, or None when it cannot be told exactly."""
        count = int(now[9])
        units = frozenset(str(u) for row in (now, before) for u in row[6:8] if u is not None)
        if not count:
            return 0, units, SENSITIVITIES[0], Decimal(0), (0, Decimal(0))
        strictest = SENSITIVITIES[max(int(now[15]), int(before[15]))]
        scale = max(int(now[13]), int(before[13]))
        largest = max(Decimal(str(now[14])), Decimal(str(before[14])))
        read = (scale, largest)
        values = 2 * count
        # Every partial sum of the changes is below `values × largest` and has `scale` decimals.
        if (values * largest).adjusted() + 1 + scale > DIGITS:
            return None
        if self.postgres:
            return count, units, strictest, Decimal(str(now[11])) - Decimal(str(before[11])), read
        integers = float(now[11]) - float(before[11])  # exact: integers below 2^52 in all
        fractions = float(now[12]) - float(before[12])
        error = values * (float(largest) + 1) * 2.0**-50 + values * values * 2.0**-52
        if values * (float(largest) + 1) >= _EXACT_INTEGERS or error >= 10.0**-scale / 4:
            return None
        fraction = Decimal(fractions).quantize(Decimal(1).scaleb(-scale))
        return count, units, strictest, Decimal(int(integers)) + fraction, read


def _row(row: tuple[object, ...]) -> Row:
    now, before = Decimal(str(row[2])), Decimal(str(row[3]))
    return (str(row[1]), now, before, str(row[4]), str(row[5]), str(row[6]), str(row[7]))
