"""Value types shared by every stage of the orchestrator.

All of them are frozen dataclasses: a stage takes values and returns new ones,
so no later stage can quietly rewrite what an earlier stage decided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from core.engine import Computed, Ranking


@dataclass(frozen=True)
class Badge:
    """How the analyst UI shows a route or an answer kind: a label, and a tone the CSS colours."""

    label: str
    tone: str

    @property
    def css_class(self) -> str:
        return f"tone-{self.tone}"


# The registry of routes and answer kinds: the API's choices, the trace's checks, the UI's badges
# and their CSS classes all read it, so a route is added here (and given a handler in the
# orchestrator) and nowhere else.
ROUTE_STRUCTURED = "structured"
ROUTE_NARRATIVE = "narrative"
ROUTE_COMPOSITE = "composite"
ROUTE_FIND_DOCUMENTS = "find_documents"
ROUTE_FAQ = "faq"
ROUTE_BADGES = {
    ROUTE_STRUCTURED: Badge("数据", "data"),
    ROUTE_NARRATIVE: Badge("文档", "documents"),
    ROUTE_COMPOSITE: Badge("数据 + 归因", "mixed"),
    ROUTE_FIND_DOCUMENTS: Badge("找文件", "documents"),
    ROUTE_FAQ: Badge("FAQ", "cached"),
}
ANSWER_ROUTES = tuple(ROUTE_BADGES)  # every route an answer can report
ROUTES = tuple(r for r in ANSWER_ROUTES if r != ROUTE_FAQ)  # what the parser can choose: FAQ is a short-circuit

KIND_ANSWER = "answer"
KIND_CLARIFICATION = "clarification"
KIND_REFUSAL = "refusal"
KIND_DEGRADED = "degraded"
KIND_BADGES: dict[str, Badge | None] = {
    KIND_ANSWER: None,
    KIND_CLARIFICATION: None,
    KIND_REFUSAL: Badge("未作答", "refused"),
    KIND_DEGRADED: Badge("服务降级", "degraded"),
}
ANSWER_KINDS = tuple(KIND_BADGES)

CLARIFY_NONE = "none"
CLARIFY_ASK_FIRST = "ask_first"
CLARIFY_ANSWER_WITH_ASSUMPTIONS = "answer_with_assumptions"
CLARIFY_OUT_OF_SCOPE_ENTITY = "out_of_scope_entity"
CLARIFY_MODES = (CLARIFY_NONE, CLARIFY_ASK_FIRST, CLARIFY_ANSWER_WITH_ASSUMPTIONS, CLARIFY_OUT_OF_SCOPE_ENTITY)

ROUTING_MODES = ("deterministic", "llm_assisted", "llm_fallback")
SOURCE_KINDS = ("fact", "chunk", "faq", "document")

ENTITY_HOME = "home"
ENTITY_SUBSIDIARY = "subsidiary"
ENTITY_PEER = "peer"
ENTITY_EXTERNAL = "external"
ENTITY_KINDS = (ENTITY_HOME, ENTITY_SUBSIDIARY, ENTITY_PEER, ENTITY_EXTERNAL)

PUBLIC = "PUBLIC"
INTERNAL = "INTERNAL"
RESTRICTED = "RESTRICTED"
SENSITIVITIES = (PUBLIC, INTERNAL, RESTRICTED)

CODE_RE = re.compile(r"^[A-Z0-9][A-Z0-9_]*$")

PeriodType = Literal["FY", "HY", "QUARTER"]


@dataclass(frozen=True, order=True)
class Period:
    """A fiscal period: `FY` + `2025`, `HY` + `2025H1`, `QUARTER` + `2025Q4`."""

    period_type: str
    period: str

    @property
    def year(self) -> int:
        return int(self.period[:4])

    @property
    def label(self) -> str:
        return f"FY{self.period}" if self.period_type == "FY" else self.period

    @property
    def sort_key(self) -> tuple[int, int]:
        """Chronological order: quarters and halves sort inside their year."""
        if self.period_type == "FY":
            return (self.year, 9)
        if self.period_type == "HY":
            return (self.year, 2 if self.period.endswith("H1") else 6)
        return (self.year, int(self.period[-1]) * 2 - 1)


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


# What a question asks to compute over its slots; `None` on an intent: the level.
OP_GROWTH = "growth"  # `comparison` yoy | qoq: against a year earlier, or the previous period
OP_CAGR = "cagr"  # between the first and last listed years
OP_DIFFERENCE = "difference"  # the absolute change only (较…增加/减少了多少)
OP_RATIO = "ratio"  # metrics[0] / metrics[1] (之比, ratio)
OP_SHARE = "share"  # part of a whole: metric of metric, entity of parent (or of entities[1]),
#                     channel of its entity's TOTAL (占比, 比重, share of)
OP_SUM = "sum"  # across listed entities or channels (合计, 总和, 一共, total)
OP_RANK = "rank"  # across subsidiaries / listed entities / channels (最高, 最低, 排名, 前N, which)
OP_EXCLUDE = "exclude"  # the whole less a part it holds (不含香港, excluding Hong Kong)
OP_FILTER = "filter"  # the members whose figure (or growth) meets a condition (为负的地区有哪些)
OP_AVERAGE = "average"  # the mean over listed periods, entities or channels (平均, average)
OPERATION_KINDS = (
    OP_GROWTH,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    OP_AVERAGE,
    OP_RANK,
    OP_EXCLUDE,
    OP_FILTER,
)


@dataclass(frozen=True)
class Operation:
    """The computation a question asks for, as read from its words.

    `cue` is the question's own words that asked for it (shown in the route reason, e.g.
    `依据：指标 营业收入 · 同比`). `decimals` is what the question asked for (`保留3位小数`),
    None for the default. `over` says what a ranking or a sum runs across when the question
    names no list: `entities` (the home entity's subsidiaries, 各地区 / 哪个地区) or `channels`
    (every channel, 各渠道). `position` is the place a ranking question asks about (排名第二,
    倒数第二, second highest: 2, counted in `order`); None when it asks for the whole order or
    the leader.
    """

    kind: str
    cue: str = ""
    comparison: str = "yoy"  # growth: yoy | qoq
    order: str = "desc"  # rank: desc (最高, 前N) | asc (最低)
    top: int | None = None  # rank: 前N / top N
    decimals: int | None = None
    over: str | None = None  # rank / sum with no list: entities | channels
    position: int | None = None  # rank: the N-th place asked about (第N名, N-th highest)
    ranked: bool = False  # growth: the members' rates ordered by `order` (哪个地区增长最快, 增速排名)
    gap: bool = False  # growth: the gap between two rates in percentage points (增速高多少个百分点)
    # filter: (comparator `<` or `>`, threshold as written, whether it is in percent, whether it is
    # of the growth rate): `营业利润为负` → ("<", "0", False, False); `grew faster than 10%` → (">", "10", True, True)
    condition: tuple[str, str, bool, bool] | None = None


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


@dataclass(frozen=True)
class NarrowingOption:
    label: str
    question: str
    scope: dict[str, str]


@dataclass(frozen=True)
class ClarificationResult:
    mode: str = CLARIFY_NONE
    question: str | None = None
    assumption_note: str | None = None
    assumed_entity: str | None = None
    assumed_period: Period | None = None
    narrowing_options: tuple[NarrowingOption, ...] = ()


@dataclass(frozen=True)
class FactRecord:
    """An approved fact row as the store hands it to the core."""

    metric: str
    entity: str
    period: Period
    channel: str
    value: Decimal
    unit: str
    source_doc: str
    locator: str
    document_id: int | None = None
    valid_as_of: date | None = None
    sensitivity: str = INTERNAL
    # The figure as the report printed it, kept when the metric's sign convention stores another
    # value (`core.model.sign`: a `positive` metric stores `(1,577)` as 1577); None: as printed.
    printed_value: Decimal | None = None


@dataclass(frozen=True)
class Source:
    kind: str  # fact | chunk | faq | document
    doc: str
    locator: str
    document_id: int | None = None
    snippet: str = ""
    # RESTRICTED when the passage or its document is (only a cleared caller receives one): the
    # page labels an answer built from it; "" otherwise.
    sensitivity: str = ""


@dataclass(frozen=True)
class Guard:
    fabrication_guard_triggered: bool = False
    numbers_unsupported: int = 0


@dataclass(frozen=True)
class SubTask:
    metric: str
    entity: str
    period: Period
    channel: str = "TOTAL"

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.metric, self.entity, self.period.period_type, self.period.period, self.channel)


@dataclass(frozen=True)
class AnswerSections:
    """The answer as the channels wrote it: the assumption note, the structured lines, and the
    narrative (under `narrative_heading` when it follows a structured part, as in a composite).
    A refusal or an ask-first question is the section of the channel the question was routed to.
    `text` joins them into the one answer the API returns."""

    assumption_note: str = ""
    structured: str = ""
    narrative_heading: str = ""
    narrative: str = ""

    @property
    def structured_text(self) -> str:
        """The structured section with its assumption note, as it leads the answer."""
        return "\n".join(part for part in (self.assumption_note, self.structured) if part)

    @property
    def text(self) -> str:
        if self.narrative_heading:
            return f"{self.structured_text}\n\n{self.narrative_heading}\n{self.narrative}"
        return "\n\n".join(part for part in (self.structured_text, self.narrative) if part)


@dataclass(frozen=True)
class AgentResult:
    request_id: str
    question: str
    sections: AnswerSections
    answer_kind: str
    route: str
    routing: Routing
    intent: ParsedIntent
    clarification: ClarificationResult
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    sources: tuple[Source, ...] = ()
    guard: Guard = field(default_factory=Guard)
    faq: dict[str, Any] | None = None
    language: str = "zh"
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    chunk_scores: tuple[tuple[int, float], ...] = ()
    provider_seconds: float = 0.0
    # every computed value in the answer (its inputs are also in `facts`), and the
    # ranking when the question asked for one (its rows feed the UI's bar chart).
    computed: tuple[Computed, ...] = ()
    ranking: Ranking | None = None
    follow_up_note: str | None = None  # what a follow-up inherited from the previous turn

    @property
    def answer(self) -> str:
        return self.sections.text
