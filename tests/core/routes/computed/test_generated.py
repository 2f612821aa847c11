"""Every operator against values computed by hand on a generated field of 3,000 subsidiaries.

A seeded generator gives each subsidiary of the home entity REVENUE, OPERATING_PROFIT,
NET_PROFIT (CNY_M), GROSS_MARGIN (PCT, stored in percent) and NEW_STORES (COUNT) for
FY2023–FY2025, 2024Q4 and the quarters of 2025, REVENUE also by channel, with zero and negative
figures, missing facts, RESTRICTED facts, ties and rates that fall exactly half-way at the
displayed decimal; a year missing with its four quarters seen is derived from them. Each case is
answered by `answer_question` from a hand-built intent and compared with an oracle written here
in `Decimal` (34 significant digits, half-up display): the answer kind, every computed value, unit
and display, the input facts in order, the keys not found, the formula and the result line.

RESTRICTED figures carry three decimal places and no other figure does, so an uncleared answer
showing three decimals would be showing one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from functools import cache
from typing import Any

import pytest

from core.engine import computed_reevaluate
from core.glossary import EntityInfo, GlossarySnapshot, glossary_build
from core.model.facts import INTERNAL, PUBLIC, RESTRICTED, FactRecord, SubTask
from core.model.intent import ParsedIntent
from core.model.operation import Operation
from core.model.period import Period
from core.model.result import AgentResult
from core.pipeline import answer_question
from core.ports import Ports
from tests.core.support.computing import GLOSSARY, REF, FiguresOnlyMissing, FixedParser
from tests.fakes import InMemoryFactStore
from tests.scripted import ExplodingProvider

D = Decimal
CTX = Context(prec=34, rounding=ROUND_HALF_EVEN)  # the engine's documented precision
WIDE = Context(prec=200)

N = 3000
SEED = 20260315
HOME = "ACME_GROUP"
OM = "OPERATING_MARGIN"
UNITS = {
    "REVENUE": "CNY_M",
    "OPERATING_PROFIT": "CNY_M",
    "NET_PROFIT": "CNY_M",
    "GROSS_MARGIN": "PCT",
    "NEW_STORES": "COUNT",
    OM: "PCT",
}
STORED = ("REVENUE", "OPERATING_PROFIT", "NET_PROFIT", "GROSS_MARGIN", "NEW_STORES")
ADDITIVE = ("REVENUE", "OPERATING_PROFIT", "NET_PROFIT", "NEW_STORES")
SUFFIX = {"CNY_M": " 百万元", "COUNT": "", "PCT": "%", "TEN_THOUSAND_PERSONS": " 万人"}


def fy(year: int) -> Period:
    return Period("FY", str(year))


def quarter(year: int, number: int) -> Period:
    return Period("QUARTER", f"{year}Q{number}")


PERIODS = (fy(2023), fy(2024), fy(2025), quarter(2024, 4), *(quarter(2025, q) for q in range(1, 5)))
QUESTION = "生成数据上的计算"
THREE_DECIMALS = re.compile(r"\d\.\d{3}")


# -- the generated field ---------------------------------------------------------------------


def tenths(n: int) -> Decimal:
    return D(n).scaleb(-1)


def figure_draw(rng: random.Random, metric: str) -> Decimal:
    """A visible figure (at most one decimal place): zeros, negatives and ties on purpose."""
    r = rng.random()
    if metric == "REVENUE":
        if r < 0.02:
            return D(0)
        if r < 0.03:
            return -tenths(rng.randint(1, 50_000))
        if r < 0.08:
            return D(rng.choice(("1000", "1000.0", "2500.5", "12345.6")))
        return tenths(rng.randint(1, 999_999))
    if metric in ("OPERATING_PROFIT", "NET_PROFIT"):
        if r < 0.04:
            return D(0)
        if r < 0.08:
            return D(rng.choice(("-300", "-300.0", "150.5", "800")))
        if r < 0.33:
            return -tenths(rng.randint(1, 500_000))
        return tenths(rng.randint(1, 500_000))
    if metric == "GROSS_MARGIN":
        if r < 0.03:
            return D(0)
        if r < 0.08:
            return D(rng.choice(("29.7", "30", "30.0")))
        if r < 0.12:
            return -tenths(rng.randint(1, 200))
        return tenths(rng.randint(1, 800))
    if r < 0.15:
        return D(0)
    if r < 0.25:
        return D(-rng.randint(1, 5))
    return D(rng.randint(1, 60))


def restricted_draw(rng: random.Random, metric: str) -> Decimal:
    """A RESTRICTED figure: three decimal places, the last one never zero."""
    top = {"GROSS_MARGIN": 80_000, OM: 80_000, "REVENUE": 9_999_999}.get(metric, 99_999_999)
    value = D(rng.randint(0, top) * 10 + rng.randint(1, 9)).scaleb(-3)
    return -value if metric != "REVENUE" and rng.random() < 0.3 else value


@dataclass
class Generated:
    glossary: GlossarySnapshot
    facts: dict[tuple[str, ...], FactRecord]
    entities: tuple[str, ...]
    store: InMemoryFactStore
    unrestricted: InMemoryFactStore  # the same facts with the RESTRICTED ones deleted
    top_revenue: dict[str, Decimal]  # the FY2025 revenue figures set at the head of the field
    half_way: tuple[str, ...]  # subsidiaries whose rates and ratios end in an exact half (0.125%)
    mixed_unit_entity: str  # the one ACTIVE_MEMBERS figure stored in another unit

    def seen(self, task: SubTask, cleared: bool) -> FactRecord | None:
        fact = self.facts.get(task.key)
        if fact is None or (fact.sensitivity == RESTRICTED and not cleared):
            return None
        return fact

    def name(self, kind: str, code: str) -> str:
        return self.glossary.display(kind, code, "zh")


@cache
def generated() -> Generated:
    rng = random.Random(SEED)
    entities = tuple(f"G{i:04d}" for i in range(N))
    children = [EntityInfo(code, f"子公司{code[1:]}", "subsidiary", HOME) for code in entities]
    glossary = glossary_build(
        entities=[*(e for e in GLOSSARY.entities.values() if e.kind in ("home", "external")), *children],
        metrics=GLOSSARY.metrics.values(),
        channels=GLOSSARY.channels.values(),
        units=GLOSSARY.units.values(),
        aliases=[a for a in GLOSSARY.aliases if a.kind != "entity" or a.code in GLOSSARY.entities],
        home_company_name=GLOSSARY.home_company_name,
    )
    facts: dict[tuple[str, ...], FactRecord] = {}
    row = 0

    def put(
        metric: str, entity: str, period: Period, channel: str, value: Decimal, sensitivity: str, unit: str = ""
    ) -> None:
        nonlocal row
        row += 1
        unit = unit or UNITS[metric]
        fact = FactRecord(
            metric, entity, period, channel, value, unit, "gen.xlsx", f"row={row}", sensitivity=sensitivity
        )
        facts[SubTask(metric, entity, period, channel).key] = fact

    def draw(metric: str, entity: str, period: Period, channel: str) -> None:
        if rng.random() < 0.03:
            return  # missing
        r = rng.random()
        if r < 0.04:
            put(metric, entity, period, channel, restricted_draw(rng, metric), RESTRICTED)
        else:
            put(metric, entity, period, channel, figure_draw(rng, metric), PUBLIC if r < 0.3 else INTERNAL)

    for entity in entities:
        for metric in STORED:
            for period in PERIODS:
                draw(metric, entity, period, "TOTAL")
                if metric == "REVENUE" or (metric == "GROSS_MARGIN" and period == fy(2025)):
                    draw(metric, entity, period, "ONLINE")
                    draw(metric, entity, period, "STORE")
        if rng.random() < 0.03:  # a flat year, written differently
            last, this = (SubTask("REVENUE", entity, fy(y)).key for y in (2024, 2025))
            if last in facts and facts[last].sensitivity != RESTRICTED:
                facts[this] = replace(facts[last], period=fy(2025), value=facts[last].value.quantize(D("0.00")))
        for year in (2024, 2025):
            if rng.random() < 0.03:  # a reported margin, which wins over the formula
                restricted = rng.random() < 0.3
                value = restricted_draw(rng, OM) if restricted else tenths(rng.randint(-200, 400))
                put(OM, entity, fy(year), "TOTAL", value, RESTRICTED if restricted else INTERNAL)

    # Rates and ratios that fall exactly half-way at the second decimal of a percent, where
    # half-up and half-even rounding part: 1/800 = 0.125%, 5/800 = 0.625%, 801/800 = 100.125%.
    half_way = tuple(rng.sample(entities, 90))
    for entity in half_way:
        for metric, period, channel, text in (
            ("REVENUE", fy(2025), "TOTAL", "800"),
            ("REVENUE", fy(2025), "ONLINE", "1"),
            ("REVENUE", fy(2025), "STORE", "5"),
            ("OPERATING_PROFIT", fy(2025), "TOTAL", rng.choice(("1", "-1", "5"))),
            ("NET_PROFIT", fy(2024), "TOTAL", "800"),
            ("NET_PROFIT", fy(2025), "TOTAL", rng.choice(("801", "799"))),
            ("NEW_STORES", fy(2024), "TOTAL", "800"),
            ("NEW_STORES", fy(2025), "TOTAL", rng.choice(("801", "799", "805"))),
            ("REVENUE", quarter(2025, 1), "TOTAL", "1600"),
            ("REVENUE", quarter(2025, 2), "TOTAL", rng.choice(("1602", "1598"))),
        ):
            put(metric, entity, period, channel, D(text), INTERNAL)

    # The head of FY2025 revenue, above every drawn figure: a RESTRICTED leader, a tie at 1
    # (cleared: at 2) and four tied at the cut (9th uncleared, 10th cleared).
    head = rng.sample(entities, 13)
    top = ["100001.005", "100001", "100001.0", *(f"100000.{d}" for d in range(9, 3, -1)), *["100000.2"] * 4]
    top_revenue = {}
    for i, (entity, text) in enumerate(zip(head, top, strict=True)):
        put("REVENUE", entity, fy(2025), "TOTAL", D(text), RESTRICTED if i == 0 else INTERNAL)
        top_revenue[entity] = D(text)

    # The home entity: the whole of an entity share, with a zero, a negative, a RESTRICTED and a
    # missing whole.
    for metric in ADDITIVE:
        for period in PERIODS:
            for channel in ("TOTAL", "ONLINE", "STORE") if metric == "REVENUE" else ("TOTAL",):
                put(metric, HOME, period, channel, tenths(rng.randint(10**7, 10**9)), INTERNAL)
    put("GROSS_MARGIN", HOME, fy(2025), "TOTAL", D("29.7"), PUBLIC)
    put("REVENUE", HOME, quarter(2025, 2), "TOTAL", D(0), INTERNAL)
    put("NET_PROFIT", HOME, fy(2024), "TOTAL", D("-12345.6"), INTERNAL)
    put("OPERATING_PROFIT", HOME, fy(2025), "TOTAL", D("98765.432"), RESTRICTED)
    del facts[SubTask("NEW_STORES", HOME, quarter(2025, 1)).key]

    # ACTIVE_MEMBERS for 40 subsidiaries in 万人, one of them (the lowest) stored as a count.
    members = rng.sample(entities, 40)
    for i, entity in enumerate(members):
        unit = "COUNT" if i == 0 else "TEN_THOUSAND_PERSONS"
        put("ACTIVE_MEMBERS", entity, fy(2025), "TOTAL", D(500 + i), INTERNAL, unit)

    values = list(facts.values())
    return Generated(
        glossary,
        facts,
        entities,
        InMemoryFactStore(values),
        InMemoryFactStore([f for f in values if f.sensitivity != RESTRICTED]),
        top_revenue,
        half_way,
        members[0],
    )


# -- asking ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    metrics: tuple[str, ...]
    entities: tuple[str, ...]
    periods: tuple[Period, ...]
    channels: tuple[str, ...] = ("TOTAL",)
    operation: Operation | None = None


def answer(case: Case, *, cleared: bool, store: InMemoryFactStore | None = None) -> AgentResult:
    data = generated()
    intent = ParsedIntent(
        raw_question=QUESTION,
        route="structured",
        metric=case.metrics[0],
        entity=case.entities[0] if case.entities else None,
        period=case.periods[-1],
        channel=case.channels[0],
        channel_given=case.channels != ("TOTAL",),
        metrics=case.metrics,
        entities=case.entities,
        periods=case.periods,
        channels=case.channels,
        operation=case.operation,
    )
    return answer_question(
        QUESTION,
        Ports(
            glossary=data.glossary,
            store=store if store is not None else data.store,
            provider=ExplodingProvider(),
            parser=FixedParser(intent),
        ),
        cleared=cleared,
        reference_date=REF,
    )


def visible(result: AgentResult) -> tuple[Any, ...]:
    return (
        result.answer,
        result.answer_kind,
        result.facts,
        result.tool_results,
        result.sources,
        result.computed,
        result.ranking,
        result.guard,
    )


# -- the oracle ------------------------------------------------------------------------------


def percent(fraction: Decimal, places: int = 2) -> str:
    """A fraction shown in percent, rounded half-up, never `-0.00%`."""
    shown = WIDE.multiply(fraction, D(100)).quantize(D(1).scaleb(-places), rounding=ROUND_HALF_UP, context=WIDE)
    return f"{shown.copy_abs() if shown.is_zero() else shown:,f}%"


def half_way(fraction: Decimal) -> bool:
    """Whether the percent lies exactly half-way between two displays of two decimals."""
    scaled = fraction.scaleb(4, context=WIDE)
    return scaled - scaled.to_integral_value(rounding=ROUND_FLOOR) == D("0.5")


def plain(value: Decimal) -> str:
    return f"{value.copy_abs() if value.is_zero() else value:,f}"


def strictest(sensitivities: Iterable[str]) -> str:
    levels = set(sensitivities)
    return RESTRICTED if RESTRICTED in levels else INTERNAL if INTERNAL in levels else PUBLIC


@dataclass
class Expect:
    kind: str  # answer | refusal
    category: str
    computed: tuple[tuple[str, str, Decimal, str], ...] = ()  # kind, unit, value, display
    facts: tuple[FactRecord, ...] = ()
    missing: tuple[SubTask, ...] = ()  # reported as not found
    phrases: tuple[str, ...] = ()
    first_line: str | None = None
    formulas: tuple[str, ...] | None = None
    tolerance: Decimal | None = None  # a value compared within this (a fractional power)
    rows: list[tuple[int, bool, str, Decimal, str]] | None = None  # rank, tied, member, value, display
    count: int = 0
    not_meaningful: tuple[str, ...] = ()
    sensitivity: str | None = None
    axis: str = "entity"  # what a ranking's rows are: entities or channels
    touched: tuple[tuple[str, ...], ...] = ()  # every key read, for the RESTRICTED cases


def refused(category: str, missing: Sequence[SubTask] = (), *phrases: str) -> Expect:
    return Expect("refusal", category, missing=tuple(missing), phrases=("无法计算：", *phrases))


def missing_phrases(data: Generated, missing: Sequence[SubTask]) -> tuple[str, ...]:
    def words(t: SubTask) -> str:
        channel = f"（{data.name('channel', t.channel)}）" if t.channel != "TOTAL" else ""
        return f"{data.name('entity', t.entity)}{data.name('metric', t.metric)}{channel} {t.period.label}"

    return ("缺少计算所需的数据", *(words(t) for t in missing))


def found_or_missing(
    data: Generated, tasks: Sequence[SubTask], cleared: bool
) -> tuple[list[FactRecord | None], list[SubTask]]:
    found = [data.seen(t, cleared) for t in tasks]
    return found, [t for t, f in zip(tasks, found, strict=True) if f is None]


# A year a case needs and does not see is derived from its four quarters when each is seen (a
# flow; the field holds no halves): shown first as a `derived` value, and the computation's formula
# reads it in parentheses over the quarters. One key that cannot be derived leaves every missing
# key missing (`derived_run`).


@dataclass(frozen=True)
class Figure:
    """An operand as the oracle sees it: a stored fact, or a year summed from its quarters."""

    task: SubTask
    value: Decimal
    unit: str
    facts: tuple[FactRecord, ...]

    @property
    def derived(self) -> bool:
        return len(self.facts) > 1

    def ref(self, *, entity: bool = False, channel: bool = False) -> str:
        if not self.derived:
            return ref(self.task, entity=entity, channel=channel)
        return f"({self.parts(entity=entity, channel=channel)})"

    def parts(self, *, entity: bool = False, channel: bool = False) -> str:
        return " + ".join(ref(replace(self.task, period=f.period), entity=entity, channel=channel) for f in self.facts)


def quarters_of(data: Generated, task: SubTask, cleared: bool) -> tuple[FactRecord, ...] | None:
    if task.period.period_type != "FY" or task.metric not in ADDITIVE:
        return None
    found = [data.seen(replace(task, period=quarter(task.period.year, q)), cleared) for q in range(1, 5)]
    facts = tuple(f for f in found if f is not None)
    return facts if len(facts) == 4 and len({f.unit for f in facts}) == 1 else None


def figures_or_missing(data: Generated, tasks: Sequence[SubTask], cleared: bool) -> tuple[list[Figure], list[SubTask]]:
    found, missing = found_or_missing(data, tasks, cleared)
    years = {t.key: quarters_of(data, t, cleared) for t in missing}
    if any(q is None for q in years.values()):
        return [], missing
    figures = []
    for task, fact in zip(tasks, found, strict=True):
        facts = (fact,) if fact is not None else years[task.key]
        assert facts is not None
        total = D(0)
        for f in facts:
            total = CTX.add(total, f.value)
        figures.append(Figure(task, total, facts[0].unit, facts))
    return figures, []


def derived_first(data: Generated, expect: Expect, figures: Sequence[Figure]) -> Expect:
    """`expect` after the derived values it used, each shown first with its formula and inputs."""
    derived = list({f.task.key: f for f in figures if f.derived}.values())
    quarters = tuple(SubTask(f.metric, f.entity, f.period, f.channel).key for d in derived for f in d.facts)
    if not derived or expect.kind == "refusal":
        return replace(expect, touched=(*expect.touched, *quarters))
    first = derived[0]
    channel = f"（{data.name('channel', first.task.channel)}）" if first.task.channel != "TOTAL" else ""
    head = (
        f"{data.name('entity', first.task.entity)} {first.task.period.label} {data.name('metric', first.task.metric)}"
    )
    return replace(
        expect,
        category="derived",
        computed=(*(("derived", d.unit, d.value, plain(d.value)) for d in derived), *expect.computed),
        facts=tuple(dict.fromkeys([*(f for d in derived for f in d.facts), *expect.facts])),
        first_line=f"{head}{channel}（推算）为 {plain(first.value)}{SUFFIX[first.unit]}。",
        formulas=(*(d.parts() for d in derived), *(expect.formulas or ())),
        touched=(*expect.touched, *quarters),
    )


def previous(period: Period, comparison: str) -> Period:
    if period.period_type == "FY":
        return fy(period.year - 1)
    number = int(period.period[-1])
    if comparison == "yoy":
        return quarter(period.year - 1, number)
    return quarter(period.year, number - 1) if number > 1 else quarter(period.year - 1, 4)


def ref(task: SubTask, *, entity: bool = False, channel: bool = False) -> str:
    """`REVENUE[FY2025]`: the entity and channel shown where the inputs differ in them."""
    where = [task.entity] if entity else []
    where.append(task.period.label)
    if channel or task.channel != "TOTAL":
        where.append(task.channel)
    return f"{task.metric}[{','.join(where)}]"


def change_expect(data: Generated, kind: str, task: SubTask, base_task: SubTask, words: str, cleared: bool) -> Expect:
    """A growth or a difference: the rate (base > 0) then the change; PCT in percentage points."""
    touched = (task.key, base_task.key)
    figures, missing = figures_or_missing(data, [task, base_task], cleared)
    if missing:
        return derived_first(
            data, replace(refused("missing", missing, *missing_phrases(data, missing)), touched=touched), []
        )
    expect = _change_expect(data, kind, figures, words, touched)
    return derived_first(data, expect, figures)


def _change_expect(
    data: Generated, kind: str, figures: Sequence[Figure], words: str, touched: tuple[tuple[str, ...], ...]
) -> Expect:
    current, base = figures
    task = current.task
    facts = tuple(f for figure in figures for f in figure.facts)
    change = CTX.subtract(current.value, base.value)
    sign = change.compare(D(0))
    channel = f"（{data.name('channel', task.channel)}）" if task.channel != "TOTAL" else ""
    head = f"{data.name('entity', task.entity)} {task.period.label} {data.name('metric', task.metric)}{channel}"
    head += words
    change_formula = f"{current.ref()} - {base.ref()}"
    if current.unit == "PCT":
        shown = plain(change)
        line = head + ("持平。" if sign == 0 else f"{'上升' if sign > 0 else '下降'} {shown.lstrip('-')} 个百分点。")
        return Expect(
            "answer",
            "pp",
            ((kind, "PP", change, f"{shown} pp"),),
            facts,
            first_line=line,
            formulas=(change_formula,),
            touched=touched,
        )
    amount = plain(change)
    amount_item = (kind, current.unit, change, amount)
    unsigned = amount.lstrip("-") + SUFFIX[current.unit]
    if base.value <= 0:
        note = "基期数为 0" if base.value == 0 else "基期数为负"
        note += "，增长率无意义，仅给出变动额。"
        line = head + ("持平。" if sign == 0 else f"{'增加' if sign > 0 else '减少'} {unsigned}。") + note
        category = "zero_base" if base.value == 0 else "negative_base"
        return Expect(
            "answer",
            category,
            (amount_item,),
            facts,
            first_line=line,
            formulas=(change_formula,),
            touched=touched,
        )
    rate = CTX.divide(change, base.value)
    shown = percent(rate)
    if sign == 0:
        line = head + "持平。"
    else:
        verbs = ("增长", "增加") if sign > 0 else ("下降", "减少")
        line = head + f"{verbs[0]} {shown.lstrip('-')}，{verbs[1]} {unsigned}。"
    return Expect(
        "answer",
        "flat" if sign == 0 else "half_way" if half_way(rate) else "rate",
        ((kind, "PCT", rate, shown), amount_item),
        facts,
        first_line=line,
        formulas=(f"({change_formula}) / {base.ref()}", change_formula),
        touched=touched,
    )


def growth_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    assert case.operation is not None
    comparison = case.operation.comparison
    task = SubTask(case.metrics[0], case.entities[0], case.periods[0], case.channels[0])
    base = replace(task, period=previous(task.period, comparison))
    return change_expect(data, "growth", task, base, "同比" if comparison == "yoy" else "环比", cleared)


def difference_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    older, newer = case.periods
    task = SubTask(case.metrics[0], case.entities[0], newer, case.channels[0])
    base = replace(task, period=older)
    if older.period_type != newer.period_type:
        return refused("period_types", (), "只比较同一指标、同类期间的两个数")
    return change_expect(data, "difference", task, base, f"较 {older.label} ", cleared)


def cagr_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    start, end = case.periods
    task = SubTask(case.metrics[0], case.entities[0], end)
    first_task = replace(task, period=start)
    touched = (task.key, first_task.key)
    figures, missing = figures_or_missing(data, [task, first_task], cleared)
    if missing:
        return derived_first(
            data, replace(refused("missing", missing, *missing_phrases(data, missing)), touched=touched), []
        )
    last, first = figures
    if last.unit == "PCT":
        return replace(refused("percent", (), "百分比指标不计算复合增长率"), touched=touched)
    if first.value <= 0 or last.value <= 0:
        return replace(refused("not_positive", (), "起点或终点数不为正，复合增长率无意义。"), touched=touched)
    value = CTX.subtract(CTX.sqrt(CTX.divide(last.value, first.value)), D(1))
    shown = percent(value)
    metric = data.name("metric", task.metric)
    line = f"{data.name('entity', task.entity)} {metric}复合年增长率（FY2023–FY2025）为 {shown}。"
    expect = Expect(
        "answer",
        "cagr",
        (("cagr", "PCT", value, shown),),
        (*last.facts, *first.facts),
        first_line=line,
        tolerance=D("1e-30") * max(D(1), abs(value)),
        touched=touched,
    )
    derived = derived_first(data, expect, figures)
    return replace(derived, formulas=None)  # a power: its value is compared within a tolerance


def quotient_expect(
    data: Generated,
    kind: str,
    part_task: SubTask,
    whole_task: SubTask,
    cleared: bool,
    line: str,
    *,
    entity: bool = False,
    channel: bool = False,
) -> Expect:
    """A ratio or a share: `part / whole` in percent, refused on a missing input, mixed units,
    a zero divisor, or (a share) a percentage or a whole that is not positive."""
    touched = (part_task.key, whole_task.key)
    figures, missing = figures_or_missing(data, [part_task, whole_task], cleared)
    if missing:
        return derived_first(
            data, replace(refused("missing", missing, *missing_phrases(data, missing)), touched=touched), []
        )
    expect = _quotient_expect(kind, figures, line, touched, entity=entity, channel=channel)
    return derived_first(data, expect, figures)


def _quotient_expect(
    kind: str,
    figures: Sequence[Figure],
    line: str,
    touched: tuple[tuple[str, ...], ...],
    *,
    entity: bool,
    channel: bool,
) -> Expect:
    part, whole = figures
    formula = f"{part.ref(entity=entity, channel=channel)} / {whole.ref(entity=entity, channel=channel)}"
    if part.unit != whole.unit:
        return replace(refused("mixed_units", (), f"单位不一致（{part.unit}, {whole.unit}）"), touched=touched)
    if kind == "share" and part.unit == "PCT":
        return replace(refused("percent", (), "百分比指标不能求占比。"), touched=touched)
    if kind == "share" and whole.value <= 0:
        return replace(refused("not_positive", (), "整体数不为正，占比无意义。"), touched=touched)
    if whole.value == 0:
        return replace(refused("zero_divisor", (), "为 0，结果无意义。"), touched=touched)
    value = CTX.divide(part.value, whole.value)
    shown = percent(value)
    return Expect(
        "answer",
        "half_way" if half_way(value) else kind,
        ((kind, "PCT", value, shown),),
        (*part.facts, *whole.facts),
        first_line=f"{line}为 {shown}。",
        formulas=(formula,),
        touched=touched,
    )


def ratio_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    numerator = SubTask(case.metrics[0], case.entities[0], period)
    denominator = replace(numerator, metric=case.metrics[1])
    names = [data.name("metric", m) for m in case.metrics]
    line = f"{data.name('entity', numerator.entity)} {period.label} {names[0]}与{names[1]}之比"
    return quotient_expect(data, "ratio", numerator, denominator, cleared, line)


def channel_share_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    part = SubTask(case.metrics[0], case.entities[0], period, case.channels[0])
    whole = replace(part, channel="TOTAL")
    metric, channel = data.name("metric", part.metric), data.name("channel", part.channel)
    line = f"{data.name('entity', part.entity)} {period.label} {metric}（{channel}）占{metric}比重"
    return quotient_expect(data, "share", part, whole, cleared, line, channel=True)


def parent_share_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    part = SubTask(case.metrics[0], case.entities[0], period)
    whole = replace(part, entity=HOME)
    metric = data.name("metric", part.metric)
    line = f"{period.label} {data.name('entity', part.entity)}{metric}占{data.name('entity', HOME)}{metric}比重"
    return quotient_expect(data, "share", part, whole, cleared, line, entity=True)


def margin_level_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    """OPERATING_MARGIN at its level: the stored figure wins, else OPERATING_PROFIT / REVENUE."""
    (period,) = case.periods
    task = SubTask(OM, case.entities[0], period)
    inputs = [replace(task, metric="OPERATING_PROFIT"), replace(task, metric="REVENUE")]
    touched = (task.key, *(t.key for t in inputs))
    stored = data.seen(task, cleared)
    entity = data.name("entity", task.entity)
    if stored is not None:
        line = f"{entity} {period.label} 营业利润率：{plain(stored.value)}%（来源：gen.xlsx · {stored.locator}）"
        return Expect("answer", "stored", (), (stored,), first_line=line, touched=touched)
    (profit, revenue), missing = found_or_missing(data, inputs, cleared)
    if missing:
        return replace(refused("missing", missing, *missing_phrases(data, missing)), touched=touched)
    assert profit is not None and revenue is not None
    if revenue.value == 0:
        return replace(refused("zero_divisor", (), "为 0"), touched=touched)
    value = CTX.divide(profit.value, revenue.value)
    shown = percent(value)
    return Expect(
        "answer",
        "half_way" if half_way(value) else "formula",
        (("formula", "PCT", value, shown),),
        (profit, revenue),
        first_line=f"{entity} {period.label} 营业利润率为 {shown}。",
        formulas=(f"OPERATING_PROFIT[{period.label}] / REVENUE[{period.label}]",),
        touched=touched,
    )


def sum_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    if len(case.metrics) > 1:  # refused before any figure is read, units first
        units = {GLOSSARY.metrics[m].unit for m in case.metrics}
        return refused("mixed_metrics", (), "单位不一致" if len(units) > 1 else "只能合计同一指标")
    if HOME in case.entities:
        return refused("overlap", (), "所列项目有重叠")
    if len(case.entities) > 1:
        tasks = [SubTask(case.metrics[0], e, period) for e in case.entities]
    else:
        tasks = [SubTask(case.metrics[0], case.entities[0], period, c) for c in case.channels]
    touched = tuple(t.key for t in tasks)
    found, missing = found_or_missing(data, tasks, cleared)
    units = {f.unit for f in found if f is not None}
    if len(units) > 1:
        return replace(refused("mixed_units", (), "单位不一致"), touched=touched)
    if missing:
        return replace(refused("missing", missing, *missing_phrases(data, missing)), touched=touched)
    facts = tuple(f for f in found if f is not None)
    if units == {"PCT"}:
        return replace(refused("percent", (), "百分比不能相加。"), touched=touched)
    total = D(0)
    for fact in facts:
        total = CTX.add(total, fact.value)
    shown = plain(total)
    by_entity = len(case.entities) > 1
    return Expect(
        "answer",
        "sum",
        (("sum", facts[0].unit, total, shown),),
        facts,
        phrases=(f"合计为 {shown}{SUFFIX[facts[0].unit]}。",),
        formulas=(" + ".join(ref(t, entity=by_entity) for t in tasks),),
        touched=touched,
    )


def rank_figure(data: Generated, task: SubTask, cleared: bool) -> tuple[Decimal, str, tuple[FactRecord, ...]] | str:
    """The figure ranked (in the units shown), its display and inputs; `missing` or `not_meaningful`."""
    stored = data.seen(task, cleared)
    if stored is not None:
        shown = plain(stored.value) + ("%" if stored.unit == "PCT" else "")
        return stored.value, shown, (stored,)
    if task.metric != OM:
        return "missing"
    profit = data.seen(replace(task, metric="OPERATING_PROFIT"), cleared)
    revenue = data.seen(replace(task, metric="REVENUE"), cleared)
    if profit is None or revenue is None:
        return "missing"
    if revenue.value == 0:
        return "not_meaningful"
    fraction = CTX.divide(profit.value, revenue.value)
    return fraction.scaleb(2, context=WIDE), percent(fraction), (profit, revenue)


def rank_expect(data: Generated, case: Case, cleared: bool, members: Sequence[SubTask], axis: str) -> Expect:
    """Competition ranks (ties share a number), best first, ties in listing order; the rows shown
    are those ranked `top` or better (10 for a field of more than 20 when no top is asked)."""
    assert case.operation is not None
    touched = tuple(t.key for t in members)
    if case.metrics[0] == OM:
        touched += tuple(replace(t, metric=m).key for t in members for m in ("OPERATING_PROFIT", "REVENUE"))
    figures = []
    missing, not_meaningful = [], []
    for task in members:
        outcome = rank_figure(data, task, cleared)
        if outcome == "missing":
            missing.append(task)
        elif outcome == "not_meaningful":
            not_meaningful.append(getattr(task, axis))
        else:
            assert not isinstance(outcome, str)
            figures.append((task, *outcome))
    if not figures:
        return replace(refused("all_missing", missing), touched=touched)
    if len(figures) == 1:  # nobody's first: the figure as a value, and who has none
        ((task, value, shown, inputs),) = figures
        stored = len(inputs) == 1 and inputs[0].metric == task.metric
        computed = () if stored else (("formula", "PCT", value.scaleb(-2, context=WIDE), shown),)
        phrases = [f"{len(members):,} 项中只有 1 项有该数据，无法排名。"]
        phrases += [f"未找到：{data.name(axis, getattr(missing[0], axis))}"] if missing else []
        return Expect(
            "answer",
            "lone",
            computed,
            inputs,
            missing=tuple(missing),
            phrases=tuple(phrases),
            rows=[(1, False, getattr(task, axis), value, shown)],
            count=1,
            not_meaningful=tuple(not_meaningful),
            sensitivity=strictest(f.sensitivity for f in inputs),
            axis=axis,
            touched=touched,
        )
    desc = case.operation.order == "desc"
    ordered = sorted(figures, key=lambda item: item[1], reverse=desc)
    ranks: list[int] = []
    for i, item in enumerate(ordered):
        ranks.append(ranks[-1] if i and item[1] == ordered[i - 1][1] else i + 1)
    top = case.operation.top
    if top is None and len(members) > 20:
        top = 10
    rows = [
        (rank, ranks.count(rank) > 1, getattr(task, axis), value, shown)
        for rank, (task, value, shown, _) in zip(ranks, ordered, strict=True)
        if top is None or rank <= top
    ]
    shown_inputs = (  # a long field cites the rows shown, a short one every figure ranked
        [f for rank, item in zip(ranks, ordered, strict=True) if top is None or rank <= top for f in item[3]]
        if len(figures) > 20
        else [f for item in ordered for f in item[3]]
    )
    phrases = [f"（{len(figures):,} 项参与排名）"]
    if len(figures) < len(members):
        phrases.append(f"{len(members):,} 项中有 {len(figures):,} 项有该数据。")
        phrases.append(f"在有数据的 {len(figures):,} 项中，")
    if top is not None and top > len(figures):
        phrases.append(f"有数据的只有 {len(figures):,} 项")
    if missing:
        phrases.append("未找到：")
    if len(missing) > 10:
        phrases.append(f"等 {len(missing):,} 项")
    ties = any(tied for _, tied, *_ in rows)
    return Expect(
        "answer",
        "tie" if ties else ("with_missing" if missing else "rank"),
        tuple(("rank", "RANK", D(rank), str(rank)) for rank, *_ in rows),
        tuple(dict.fromkeys(shown_inputs)),
        missing=tuple(missing),
        phrases=tuple(phrases),
        rows=rows,
        count=len(figures),
        not_meaningful=tuple(not_meaningful),
        sensitivity=strictest(f.sensitivity for item in figures for f in item[3]),
        axis=axis,
        touched=touched,
    )


def listed_rank_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    if len(case.entities) > 1:
        members = [SubTask(case.metrics[0], e, period) for e in case.entities]
        return rank_expect(data, case, cleared, members, "entity")
    channels = [c for c in data.glossary.channels if c != "TOTAL"]
    members = [SubTask(case.metrics[0], case.entities[0], period, c) for c in channels]
    return rank_expect(data, case, cleared, members, "channel")


def field_rank_expect(data: Generated, case: Case, cleared: bool) -> Expect:
    (period,) = case.periods
    members = [SubTask(case.metrics[0], e, period, case.channels[0]) for e in data.entities]
    return rank_expect(data, case, cleared, members, "entity")


# -- the checks ------------------------------------------------------------------------------


def audit(result: AgentResult, data: Generated, cleared: bool) -> None:
    """What holds for every answer: lineage, sensitivity, tool results, no RESTRICTED trace."""
    listed = set(result.facts)
    for item in result.computed:
        assert item.inputs and set(item.inputs) <= listed, item.name_zh
        if item.kind != "rank":
            assert computed_reevaluate(item) == item.value, item.formula
            assert item.sensitivity == strictest(f.sensitivity for f in item.inputs), item.formula
    for fact in result.facts:
        assert data.facts[SubTask(fact.metric, fact.entity, fact.period, fact.channel).key] == fact
        assert cleared or fact.sensitivity != RESTRICTED
    found = [r for r in result.tool_results if r["status"] == "found"]
    assert len(found) == len(result.facts) == len(result.sources)
    if result.answer_kind == "refusal":
        assert result.computed == () and result.facts == ()
    if not cleared:
        assert not THREE_DECIMALS.search(result.answer), result.answer


def check(result: AgentResult, expect: Expect, data: Generated, cleared: bool) -> None:
    assert result.answer_kind == expect.kind, result.answer
    shown = tuple((c.kind, c.unit, c.value, c.display) for c in result.computed)
    if expect.tolerance is None:
        assert shown == expect.computed
    else:
        assert [(k, u, d) for k, u, _, d in shown] == [(k, u, d) for k, u, _, d in expect.computed]
        assert all(abs(a[2] - b[2]) <= expect.tolerance for a, b in zip(shown, expect.computed, strict=True))
    assert result.facts == expect.facts
    not_found = {
        tuple(r["normalized"][k] for k in ("metric", "entity", "period", "channel"))
        for r in result.tool_results
        if r["status"] == "not_found"
    }
    assert not_found == {(t.metric, t.entity, t.period.label, t.channel) for t in expect.missing}
    for phrase in expect.phrases:
        assert phrase in result.answer, (phrase, result.answer)
    structured = result.sections.structured.splitlines()
    if expect.first_line is not None:
        assert structured[0] == expect.first_line
    if expect.formulas is not None:
        assert tuple(c.formula for c in result.computed) == expect.formulas
    if expect.rows is not None:
        ranking = result.ranking
        assert ranking is not None
        rows = [(r.rank, r.tied, getattr(r.subject, expect.axis), r.value, r.display) for r in ranking.rows]
        assert rows == expect.rows
        assert ranking.count == expect.count
        assert ranking.missing == expect.missing
        assert tuple(getattr(t, expect.axis) for t in ranking.not_meaningful) == expect.not_meaningful
        assert ranking.sensitivity == expect.sensitivity
        assert all(c.sensitivity == expect.sensitivity for c in result.computed)
        ranked = [getattr(c, "ranked_value", None) for c in result.computed if c.kind == "rank"]
        assert ranked == ([r[3] for r in expect.rows] if expect.count > 1 else [])
    audit(result, data, cleared)


# -- the cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Operator:
    name: str
    draw: Callable[[random.Random, Generated], Case]
    expect: Callable[[Generated, Case, bool], Expect]
    categories: tuple[str, ...]  # each must be hit (on the uncleared run) by the sample


def _entity(rng: random.Random, data: Generated) -> str:
    return rng.choice(data.half_way if rng.random() < 0.1 else data.entities)


def _growth_draw(comparison: str, periods: Sequence[Period]) -> Callable[[random.Random, Generated], Case]:
    def draw(rng: random.Random, data: Generated) -> Case:
        metric = rng.choice(STORED)
        channel = rng.choice(("TOTAL", "TOTAL", "ONLINE", "STORE")) if metric == "REVENUE" else "TOTAL"
        period = rng.choice(periods)
        operation = Operation("growth", cue="同比" if comparison == "yoy" else "环比", comparison=comparison)
        return Case((metric,), (_entity(rng, data),), (period,), (channel,), operation)

    return draw


PAIRS = ((fy(2023), fy(2025)), (fy(2024), fy(2025)), (quarter(2025, 1), quarter(2025, 3)))
PAIRS += ((quarter(2024, 4), quarter(2025, 4)), (quarter(2025, 2), fy(2025)))


def _difference_draw(rng: random.Random, data: Generated) -> Case:
    metric = rng.choice(STORED)
    channel = rng.choice(("TOTAL", "ONLINE")) if metric == "REVENUE" else "TOTAL"
    pair = rng.choice(PAIRS)
    return Case((metric,), (_entity(rng, data),), pair, (channel,), Operation("difference", cue="相差"))


def _cagr_draw(rng: random.Random, data: Generated) -> Case:
    metric = rng.choice(STORED)
    return Case((metric,), (_entity(rng, data),), (fy(2023), fy(2025)), operation=Operation("cagr"))


def _ratio_draw(rng: random.Random, data: Generated) -> Case:
    r = rng.random()
    metrics = ("REVENUE", "NEW_STORES") if r < 0.08 else ("GROSS_MARGIN", "REVENUE") if r < 0.12 else None
    metrics = metrics or (rng.choice(("OPERATING_PROFIT", "NET_PROFIT")), "REVENUE")
    return Case(metrics, (_entity(rng, data),), (rng.choice(PERIODS),), operation=Operation("ratio"))


def _margin_draw(rng: random.Random, data: Generated) -> Case:
    return Case((OM,), (_entity(rng, data),), (rng.choice((fy(2024), fy(2025), quarter(2025, 2))),))


def _channel_share_draw(rng: random.Random, data: Generated) -> Case:
    metric, period = ("GROSS_MARGIN", fy(2025)) if rng.random() < 0.1 else ("REVENUE", rng.choice(PERIODS))
    channel = rng.choice(("ONLINE", "STORE"))
    return Case((metric,), (_entity(rng, data),), (period,), (channel,), Operation("share", cue="占比"))


def _parent_share_draw(rng: random.Random, data: Generated) -> Case:
    metric = "GROSS_MARGIN" if rng.random() < 0.05 else rng.choice(ADDITIVE)
    period = rng.choice((*PERIODS, quarter(2025, 2), fy(2024), quarter(2025, 1)))
    return Case((metric,), (_entity(rng, data),), (period,), operation=Operation("share", cue="占比"))


def _sum_draw(rng: random.Random, data: Generated) -> Case:
    r = rng.random()
    period = (rng.choice(PERIODS),)
    operation = Operation("sum", cue="合计")
    if r < 0.04:
        return Case(("REVENUE", "NEW_STORES"), tuple(rng.sample(data.entities, 3)), period, operation=operation)
    if r < 0.07:
        return Case(("REVENUE",), (*rng.sample(data.entities, 2), HOME), period, operation=operation)
    if r < 0.25:
        return Case(("REVENUE",), (_entity(rng, data),), period, ("ONLINE", "STORE"), operation)
    metric = "GROSS_MARGIN" if r < 0.3 else rng.choice(ADDITIVE)
    size = rng.choice((2, 2, 3, 4, 5, 8, rng.randint(2, 50)))
    return Case((metric,), tuple(rng.sample(data.entities, size)), period, operation=operation)


def _listed_rank_draw(rng: random.Random, data: Generated) -> Case:
    metric = rng.choice((*STORED, "NEW_STORES", OM))
    period = rng.choice((fy(2024), fy(2025))) if metric == OM else rng.choice(PERIODS)
    top = rng.choice((None, None, 1, 2, 5))
    operation = Operation("rank", cue="排名", order=rng.choice(("desc", "asc")), top=top)
    if metric == "REVENUE" and rng.random() < 0.2:
        return Case((metric,), (_entity(rng, data),), (period,), operation=replace(operation, over="channels"))
    entities = tuple(rng.sample(data.entities, rng.randint(2, 20)))
    return Case((metric,), entities, (period,), operation=operation)


OPERATORS = (
    Operator(
        "growth_yoy",
        _growth_draw("yoy", (fy(2024), fy(2025), fy(2025), quarter(2025, 4), quarter(2025, 2))),
        growth_expect,
        ("rate", "half_way", "flat", "zero_base", "negative_base", "pp", "missing", "derived"),
    ),
    Operator(
        "growth_qoq",
        _growth_draw("qoq", (quarter(2025, 1), quarter(2025, 2), quarter(2025, 3), quarter(2025, 4), fy(2025))),
        growth_expect,
        ("rate", "half_way", "zero_base", "negative_base", "pp", "missing", "derived"),
    ),
    Operator("cagr", _cagr_draw, cagr_expect, ("cagr", "not_positive", "percent", "missing", "derived")),
    Operator(
        "difference",
        _difference_draw,
        difference_expect,
        ("rate", "half_way", "zero_base", "negative_base", "pp", "missing", "period_types", "derived"),
    ),
    Operator(
        "ratio", _ratio_draw, ratio_expect, ("ratio", "half_way", "zero_divisor", "mixed_units", "missing", "derived")
    ),
    Operator(
        "margin_level", _margin_draw, margin_level_expect, ("stored", "formula", "half_way", "zero_divisor", "missing")
    ),
    Operator(
        "channel_share",
        _channel_share_draw,
        channel_share_expect,
        ("share", "half_way", "not_positive", "percent", "missing", "derived"),
    ),
    Operator(
        "parent_share",
        _parent_share_draw,
        parent_share_expect,
        ("share", "not_positive", "percent", "missing", "derived"),
    ),
    Operator("sum", _sum_draw, sum_expect, ("sum", "missing", "percent", "mixed_metrics", "overlap")),
    Operator("listed_rank", _listed_rank_draw, listed_rank_expect, ("rank", "tie", "with_missing", "lone")),
)
CASES_PER_OPERATOR = 240
PER_CATEGORY = 25


def restricted_touched(data: Generated, expect: Expect) -> bool:
    return any(data.facts[k].sensitivity == RESTRICTED for k in expect.touched if k in data.facts)


@cache
def cases_of(name: str) -> tuple[tuple[Case, Expect], ...]:
    """Up to `PER_CATEGORY` cases of each category (as the uncleared user sees them) and of those
    reading a RESTRICTED fact, then random ones, `CASES_PER_OPERATOR` in all, from a seeded draw."""
    operator = next(o for o in OPERATORS if o.name == name)
    data = generated()
    rng = random.Random(f"{SEED}-{name}")
    drawn = [operator.draw(rng, data) for _ in range(8 * CASES_PER_OPERATOR)]
    expected = [(case, operator.expect(data, case, False)) for case in dict.fromkeys(drawn)]
    chosen: dict[Case, Expect] = {}
    for category in sorted({e.category for _, e in expected}):
        chosen.update([(c, e) for c, e in expected if e.category == category][:PER_CATEGORY])
    chosen.update([(c, e) for c, e in expected if restricted_touched(data, e)][:PER_CATEGORY])
    for case, expect in expected:
        if len(chosen) >= CASES_PER_OPERATOR:
            break
        chosen.setdefault(case, expect)
    return tuple(chosen.items())


# -- the tests -------------------------------------------------------------------------------


def test_the_generated_field_has_what_the_cases_need() -> None:
    data = generated()
    assert len(data.entities) == N
    assert len(data.glossary.children(HOME)) == N
    facts = list(data.facts.values())
    assert len(facts) > 150_000
    restricted = [f for f in facts if f.sensitivity == RESTRICTED]
    assert len(restricted) > 4000
    assert all(THREE_DECIMALS.search(plain(f.value)) for f in restricted)
    assert not any(THREE_DECIMALS.search(plain(f.value)) for f in facts if f.sensitivity != RESTRICTED)
    assert sum(1 for f in facts if f.value == 0) > 2000 and sum(1 for f in facts if f.value < 0) > 10_000


@pytest.mark.parametrize("cleared", [False, True], ids=["uncleared", "cleared"])
@pytest.mark.parametrize("name", [o.name for o in OPERATORS])
def test_each_operator_matches_the_hand_computed_values(name: str, cleared: bool) -> None:
    operator = next(o for o in OPERATORS if o.name == name)
    data = generated()
    cases = cases_of(name)
    assert len(cases) == CASES_PER_OPERATOR
    hit: dict[str, int] = {}
    for case, uncleared in cases:
        expect = uncleared if not cleared else operator.expect(data, case, True)
        hit[expect.category] = hit.get(expect.category, 0) + 1
        check(answer(case, cleared=cleared), expect, data, cleared)
    if not cleared:
        assert all(hit.get(category, 0) >= 3 for category in operator.categories), hit


@pytest.mark.parametrize("name", [o.name for o in OPERATORS])
def test_an_uncleared_user_gets_the_answer_without_the_restricted_facts(name: str) -> None:
    data = generated()
    touching = [case for case, expect in cases_of(name) if restricted_touched(data, expect)][:40]
    assert len(touching) >= 20
    cleared_restricted = 0
    for case in touching:
        hidden = answer(case, cleared=False)
        assert visible(hidden) == visible(answer(case, cleared=False, store=data.unrestricted))
        assert visible(hidden) == visible(answer(case, cleared=True, store=data.unrestricted))
        shown = answer(case, cleared=True)
        restricted_inputs = [c for c in shown.computed if any(f.sensitivity == RESTRICTED for f in c.inputs)]
        assert all(c.sensitivity == RESTRICTED for c in restricted_inputs)
        if restricted_inputs:
            assert THREE_DECIMALS.search(shown.answer)  # the cleared user sees the figure itself
        cleared_restricted += bool(restricted_inputs)
    assert cleared_restricted >= 3


FIELD_RANKINGS = [
    ("REVENUE", fy(2025), "TOTAL", "desc", None),
    ("REVENUE", fy(2025), "TOTAL", "desc", 3),
    ("REVENUE", fy(2025), "TOTAL", "asc", None),
    ("REVENUE", quarter(2025, 3), "ONLINE", "desc", 25),
    ("OPERATING_PROFIT", fy(2024), "TOTAL", "asc", 5),
    ("NET_PROFIT", quarter(2025, 1), "TOTAL", "desc", None),
    ("GROSS_MARGIN", quarter(2025, 2), "TOTAL", "desc", None),
    ("NEW_STORES", fy(2025), "TOTAL", "desc", 1),
    ("NEW_STORES", fy(2023), "TOTAL", "asc", None),
]


def field_rank_case(metric: str, period: Period, channel: str, order: str, top: int | None) -> Case:
    operation = Operation("rank", cue="最高", order=order, top=top, over="entities")
    return Case((metric,), (), (period,), (channel,), operation)


@pytest.mark.parametrize("cleared", [False, True], ids=["uncleared", "cleared"])
@pytest.mark.parametrize(("metric", "period", "channel", "order", "top"), FIELD_RANKINGS)
def test_a_ranking_across_every_subsidiary(
    metric: str, period: Period, channel: str, order: str, top: int | None, cleared: bool
) -> None:
    data = generated()
    case = field_rank_case(metric, period, channel, order, top)
    expect = field_rank_expect(data, case, cleared)
    result = answer(case, cleared=cleared)
    check(result, expect, data, cleared)
    assert expect.count > 2500 and len(expect.missing) > 10
    assert result.answer.startswith("【假设】未指定实体，按 ACME集团 计算。")
    if not cleared:
        assert visible(result) == visible(answer(case, cleared=False, store=data.unrestricted))


@pytest.mark.parametrize("cleared", [False, True], ids=["uncleared", "cleared"])
def test_the_head_of_revenue_ties_at_the_top_and_at_the_cut(cleared: bool) -> None:
    data = generated()
    result = answer(field_rank_case("REVENUE", fy(2025), "TOTAL", "desc", None), cleared=cleared)
    assert result.ranking is not None
    rows = [(r.rank, r.tied, r.value) for r in result.ranking.rows]
    restricted, first, second, *six = sorted(data.top_revenue.values(), reverse=True)[:9]
    assert first == second  # `100001` and `100001.0`
    if cleared:
        expected = [(1, False, restricted), (2, True, first), (2, True, second)]
        expected += [(4 + i, False, v) for i, v in enumerate(six)] + [(10, True, D("100000.2"))] * 4
    else:
        expected = [(1, True, first), (1, True, second)]
        expected += [(3 + i, False, v) for i, v in enumerate(six)] + [(9, True, D("100000.2"))] * 4
    assert rows == expected
    assert result.ranking.sensitivity == (RESTRICTED if cleared else INTERNAL)


def test_a_ranking_of_a_formula_metric_across_every_subsidiary() -> None:
    data = generated()
    case = field_rank_case(OM, fy(2025), "TOTAL", "desc", None)
    expect = field_rank_expect(data, case, False)
    assert expect.not_meaningful and expect.count > 2500
    check(answer(case, cleared=False), expect, data, False)


# -- mixed units -----------------------------------------------------------------------------


def test_a_sum_of_mixed_units_is_refused() -> None:
    data = generated()
    members = tuple(
        f.entity for f in data.facts.values() if f.metric == "ACTIVE_MEMBERS" and f.entity != data.mixed_unit_entity
    )
    same = Case(("ACTIVE_MEMBERS",), members[:5], (fy(2025),), operation=Operation("sum"))
    result = answer(same, cleared=False)
    assert result.answer_kind == "answer"
    assert result.computed[0].value == sum(
        data.facts[SubTask("ACTIVE_MEMBERS", e, fy(2025)).key].value for e in members[:5]
    )
    mixed = replace(same, entities=(*members[:4], data.mixed_unit_entity))
    result = answer(mixed, cleared=False)
    assert result.answer_kind == "refusal" and "单位不一致（TEN_THOUSAND_PERSONS, COUNT）" in result.answer
    assert result.facts == () and result.computed == ()


def test_a_ranking_of_a_listed_handful_with_mixed_units_is_refused() -> None:
    data = generated()
    members = [f.entity for f in data.facts.values() if f.metric == "ACTIVE_MEMBERS"][:10]
    assert data.mixed_unit_entity in members
    case = Case(("ACTIVE_MEMBERS",), tuple(members), (fy(2025),), operation=Operation("rank", cue="排名"))
    result = answer(case, cleared=False)
    assert result.answer_kind == "refusal" and "单位不一致" in result.answer and result.facts == ()


def test_a_ranking_across_every_subsidiary_with_mixed_units_is_refused() -> None:
    data = generated()
    case = field_rank_case("ACTIVE_MEMBERS", fy(2025), "TOTAL", "desc", None)
    members = [f for f in data.facts.values() if f.metric == "ACTIVE_MEMBERS"]
    every_key = answer(case, cleared=False, store=FiguresOnlyMissing(members))
    assert every_key.answer_kind == "refusal" and "单位不一致" in every_key.answer
    assert visible(answer(case, cleared=False, store=InMemoryFactStore(members))) == visible(every_key)


# -- difference between two entities ---------------------------------------------------------


def test_a_difference_between_two_entities_is_not_answered_with_their_own_changes() -> None:
    data = generated()
    a, b = [e for e in data.entities if all(data.seen(SubTask("REVENUE", e, fy(y)), False) for y in (2024, 2025))][:2]
    case = Case(("REVENUE",), (a, b), (fy(2025),), operation=Operation("difference", cue="相差"))
    result = answer(case, cleared=False)
    assert result.answer_kind == "refusal" or all({f.entity for f in item.inputs} == {a, b} for item in result.computed)
