"""A question as the parser reads it (`ParsedIntent`): its slots (metric, entity, period, channel
and their lists), the operation asked for, the parts that each ask something of their own
(`Part`), a formula the question brings (`Definition`), the unit it asks the answer in
(`UnitAsked`), how it was routed (`Routing`, one of `ROUTING_MODES`) and the glossary hits it
was read from (`Match`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.model.operation import Operation
from core.model.period import Period
from core.model.registry import ROUTE_NARRATIVE

ROUTING_MODES = ("deterministic", "llm_assisted", "llm_fallback")


@dataclass(frozen=True)
class Match:
    """One glossary hit in the normalised question: `[start, end)` in the compact view."""

    kind: str  # entity | metric | channel
    code: str
    start: int
    end: int
    text: str
    external: bool = False


@dataclass(frozen=True)
class Routing:
    mode: str = "deterministic"
    confidence: float = 1.0
    reason: str = ""


@dataclass(frozen=True)
class Part:
    """One part of a question asked with its own operation (None: the level), with the slots it
    runs over: a clause of its own (`毛利率是多少，营收同比增长多少`), or a metric followed by an
    operator of its own inside a list (`营收同比增速和毛利率`). Its entities and periods are its
    clause's, else the ones the question named before it; its channels are its own clause's (empty:
    TOTAL); empty entities or periods: the question names none, and the assumed one applies."""

    metrics: tuple[str, ...]
    operation: Operation | None = None
    entities: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    channels: tuple[str, ...] = ()
    decimals: int | None = None


@dataclass(frozen=True)
class UnitAsked:
    """The unit a question asks its answer in (`是多少亿元`, `in USD billions`, `换算成美元`):
    `power` the scale as a power of ten (None: the stored figure's own), `currency` an ISO code
    ("": the stored figure's own), `written` the question's words."""

    power: int | None
    currency: str
    written: str


@dataclass(frozen=True)
class Definition:
    """A formula the question brings (`DPO is defined as: …`, `流动比率定义为…`, `capex as a % of
    revenue`): the analyst's name for it and their words, the formula in the engine's reference
    grammar (`CODE[FY2019]` a period written, `CODE[]` the period asked, `CODE[-1]` the year
    before it; "" when it could not be read), whether the result is a percentage, the years an
    `N year average` runs over, and the words no rule read (asked back by name)."""

    name: str
    written: str
    formula: str
    percent: bool = False
    over: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedIntent:
    raw_question: str
    normalized: str = ""
    metric: str | None = None
    entity: str | None = None
    period: Period | None = None
    channel: str = "TOTAL"
    channel_given: bool = False
    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    route: str = ROUTE_NARRATIVE
    external_entity: str | None = None
    routing: Routing = field(default_factory=Routing)
    unrecognized_terms: tuple[str, ...] = ()
    language: str = "zh"
    # the computation asked for (None: the level), every channel named (in order;
    # `channel` is the first), and a metric-like term the glossary does not know (`净利率` when
    # only 净利 is defined): never answered with a shorter alias's figure.
    operation: Operation | None = None
    channels: tuple[str, ...] = ()
    unknown_metric: str | None = None
    # `保留N位小数` / `N decimal places`, also when no operation is asked (a formula metric's level);
    # equal to `operation.decimals` when there is one.
    decimals: int | None = None
    # A mistyped operator word and the cue it was read as (`增长律` → `增长率`), each said in the answer.
    corrections: tuple[tuple[str, str], ...] = ()
    # The parts of a question that asks each of them something of its own (`Part`): clauses with
    # their own operator or slots, or listed metrics with operators of their own; empty when
    # `operation` (or the level) runs over every slot listed.
    parts: tuple[Part, ...] = ()
    # Stretches of time the question names against the previous question's periods (`那前三年呢`),
    # as `(start, end)` in `normalized`, once a follow-up has read them (`follow_up_apply`): read,
    # so never asked back as a period no type holds.
    periods_read: tuple[tuple[int, int], ...] = ()
    # A formula the question defines for itself, answered in its stead of a glossary metric.
    definition: Definition | None = None
    # The unit or scale the answer is asked in (`core.language.quantities.asked`).
    unit_asked: UnitAsked | None = None

    @property
    def has_slot(self) -> bool:
        return bool(self.metric or self.entity or self.period or self.channel_given)
