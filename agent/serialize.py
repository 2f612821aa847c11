"""The `/v1/ask` object: one serializer, `AskResultSerializer`, describes it for the
OpenAPI schema and produces it from an `AgentResult` for the API, the stream, the UI's session
and `manage.py ask --json`; one decoder, `answer_from_json`, reads it back (a stored turn) into
typed values (`Answer`) for the page, which parses nothing again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from common.api.fields import FactSourceSerializer
from core.engine import KINDS, RANK_ORDERS
from core.language.periods import period_parse
from core.model.clarification import CLARIFY_MODES
from core.model.facts import RESTRICTED, SENSITIVITIES
from core.model.intent import ROUTING_MODES
from core.model.period import Period
from core.model.registry import ANSWER_KINDS, ANSWER_ROUTES
from core.model.result import SOURCE_KINDS, AgentResult


class PeriodField(serializers.CharField):
    """A period as its label: `FY2025`, `2025H1`, `2025Q4`."""

    def to_representation(self, value: Period) -> str:
        return value.label


class SeveralField(serializers.ListField):
    """A slot the question may name several values of: listed only when it named more than one."""

    def to_representation(self, data: Any) -> list[Any]:
        if len(data) <= 1:
            return []
        if type(self.child) is serializers.CharField:  # codes already: a ranking lists thousands
            return [str(code) for code in data]
        return list(super().to_representation(data))


class RoutingSerializer(serializers.Serializer):  # type: ignore[type-arg]
    mode = serializers.ChoiceField(ROUTING_MODES)
    confidence = serializers.FloatField()
    reason = serializers.CharField()


class IntentSerializer(serializers.Serializer):  # type: ignore[type-arg]
    metric = serializers.CharField(allow_null=True)
    metrics = SeveralField(child=serializers.CharField())
    entity = serializers.CharField(allow_null=True)
    entities = SeveralField(child=serializers.CharField())
    period = PeriodField(allow_null=True)
    periods = SeveralField(child=PeriodField())
    channel = serializers.CharField()


@extend_schema_serializer(component_name="NarrowingOption")
class OptionSerializer(serializers.Serializer):  # type: ignore[type-arg]
    label = serializers.CharField()
    question = serializers.CharField()
    scope = serializers.DictField(child=serializers.CharField())


class AssumedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    entity = serializers.CharField(source="assumed_entity", allow_null=True)
    period = PeriodField(source="assumed_period", allow_null=True)


class ClarificationSerializer(serializers.Serializer):  # type: ignore[type-arg]
    mode = serializers.ChoiceField(CLARIFY_MODES)
    question = serializers.CharField(allow_null=True)
    assumption_note = serializers.CharField(allow_null=True)
    assumed = AssumedSerializer(source="*")
    narrowing_options = OptionSerializer(many=True)


@extend_schema_serializer(component_name="AskFact")
class FactSerializer(serializers.Serializer):  # type: ignore[type-arg]
    value = serializers.CharField(help_text="Exact decimal as a string.")
    unit = serializers.CharField()
    metric = serializers.CharField()
    entity = serializers.CharField()
    period = PeriodField()
    channel = serializers.CharField()
    source = FactSourceSerializer(source="*")
    valid_as_of = serializers.DateField(allow_null=True)
    sensitivity = serializers.ChoiceField(
        SENSITIVITIES,
        required=False,
        help_text="Only on a RESTRICTED fact (its own sensitivity or its document's, the stricter), which only a "
        "cleared caller receives: the page labels an answer built from it.",
    )
    printed_value = serializers.CharField(
        required=False,
        help_text="The figure as the report printed it (exact decimal as a string), only for a fact whose metric's "
        "sign convention stores the amount (`positive`: `(1,577)` is stored as 1577).",
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        shown: dict[str, Any] = super().to_representation(instance)
        if shown.get("printed_value") is None:  # a fact stored as printed: the SPEC's keys alone
            shown.pop("printed_value", None)
        if shown.get("sensitivity") != RESTRICTED:  # said only where it asks for care
            shown.pop("sensitivity", None)
        return shown


@extend_schema_serializer(component_name="AskSource")
class SourceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    kind = serializers.ChoiceField(SOURCE_KINDS)
    doc = serializers.CharField()
    locator = serializers.CharField()
    document_id = serializers.IntegerField(allow_null=True)
    snippet = serializers.CharField()
    sensitivity = serializers.ChoiceField(
        SENSITIVITIES,
        required=False,
        help_text="Only on a passage or document that is RESTRICTED (its own sensitivity or its document's), which "
        "only a cleared caller receives: the page labels an answer built from it.",
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        shown: dict[str, Any] = super().to_representation(instance)
        if shown.get("sensitivity") != RESTRICTED:  # said only where it asks for care
            shown.pop("sensitivity", None)
        return shown


class GuardSerializer(serializers.Serializer):  # type: ignore[type-arg]
    fabrication_guard_triggered = serializers.BooleanField()
    numbers_unsupported = serializers.IntegerField()


@extend_schema_serializer(component_name="AskComputedInput")
class ComputedInputSerializer(serializers.Serializer):  # type: ignore[type-arg]
    metric = serializers.CharField()
    entity = serializers.CharField()
    period = serializers.CharField()
    channel = serializers.CharField()


@extend_schema_serializer(component_name="AskComputed")
class ComputedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """One computed value: its formula in codes, exact value, display, unit and inputs
    (each input is also in `facts`)."""

    kind = serializers.ChoiceField(KINDS)
    name = serializers.CharField()
    formula = serializers.CharField(help_text="In metric codes with qualified references; recomputes `value`.")
    formula_words = serializers.CharField(
        help_text="The formula in the answer's language, as the answer's formula line says it: display names, "
        "the period after each, − × ÷."
    )
    value = serializers.CharField(help_text="Exact decimal as a string; a PCT value is a fraction (0.0854 is 8.54%).")
    display = serializers.CharField(help_text="As shown in the answer, rounded half-up.")
    unit = serializers.CharField(help_text="PCT, PP (percentage points), RANK or the inputs' unit.")
    inputs = ComputedInputSerializer(many=True)
    ranked_value = serializers.CharField(required=False, help_text="Rank items only: the figure ranked, exact.")
    ranked_display = serializers.CharField(required=False, help_text="Rank items only: the figure ranked, as shown.")
    ranked_metric = serializers.CharField(required=False, help_text="Rank items only: the code of the metric ranked.")
    order = serializers.ChoiceField(
        RANK_ORDERS, required=False, help_text="Rank items only: desc (highest first) or asc (lowest first)."
    )
    count = serializers.IntegerField(required=False, help_text="Rank items only: how many figures were ranked.")
    period = serializers.CharField(required=False, help_text="Derived items only: the period the value stands for.")


@extend_schema_field(ComputedSerializer(many=True))
class ComputedField(serializers.Field):  # type: ignore[type-arg]
    """`computed`: every computed value in the answer, in the answer's language; `[]` when none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value: AgentResult) -> list[dict[str, Any]]:
        return [item.as_dict(value.language) for item in value.computed]


@extend_schema_serializer(component_name="AskResult")
class AskResultSerializer(serializers.Serializer):  # type: ignore[type-arg]
    request_id = serializers.CharField()
    question = serializers.CharField()
    answer = serializers.CharField()
    answer_kind = serializers.ChoiceField(ANSWER_KINDS)
    route = serializers.ChoiceField(ANSWER_ROUTES)
    routing = RoutingSerializer()
    intent = IntentSerializer()
    clarification = ClarificationSerializer()
    facts = FactSerializer(many=True)
    tool_results = serializers.ListField(child=serializers.DictField())
    sources = SourceSerializer(many=True)
    faq = serializers.DictField(allow_null=True)
    computed = ComputedField()
    guard = GuardSerializer()


# Built once: binding a serializer's fields deep-copies them, which costs more than the whole
# structured answer. `to_representation` keeps no state, so one instance serves every request.
_ASK_RESULT = AskResultSerializer()


def result_as_dict(result: AgentResult) -> dict[str, Any]:
    return dict(_ASK_RESULT.to_representation(result))


def sections_as_dict(result: AgentResult) -> dict[str, str]:
    """The answer's sections, which the UI and the stream show apart (the API joins them in `answer`)."""
    return asdict(result.sections)


# -- reading it back --------------------------------------------------------------------------


class AnswerJsonError(ValueError):
    """A stored answer that is not the `/v1/ask` shape: the page says so instead of guessing."""


@dataclass(frozen=True)
class AnswerFact:
    """One found fact: its exact value, its key and where it was read."""

    metric: str
    entity: str
    period: Period
    channel: str
    value: Decimal
    unit: str
    doc: str
    locator: str
    document_id: int | None
    valid_as_of: str | None
    sensitivity: str | None  # None: a turn stored before facts carried it
    printed_value: Decimal | None  # the figure as printed, when the sign convention stored the amount

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.metric, self.entity, self.period.label, self.channel


@dataclass(frozen=True)
class AnswerKey:
    """A computed value's input: a fact's key (the fact itself is in `Answer.facts`)."""

    metric: str
    entity: str
    period: Period
    channel: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.metric, self.entity, self.period.label, self.channel


@dataclass(frozen=True)
class WhyTag:
    """What a why's computed value is in its decomposition (`core.engine.why`)."""

    dimension: str
    role: str
    parts: int
    weight: str | None
    part: AnswerKey | None  # the part's entity, channel and period (metric left empty)


@dataclass(frozen=True)
class AnswerComputed:
    kind: str
    name: str
    formula: str
    formula_words: str
    value: Decimal | None  # None: not a number (never for a value the engine wrote)
    value_text: str  # exact, as the JSON has it
    display: str
    unit: str
    inputs: tuple[AnswerKey, ...]
    ranked_value: Decimal | None = None
    ranked_display: str | None = None
    ranked_metric: str | None = None
    order: str | None = None
    count: int | None = None
    period: Period | None = None  # a derived value's period
    why: WhyTag | None = None

    @property
    def signed(self) -> str:
        """The display with `+` on a rise (points read `个百分点` in Chinese already)."""
        if self.value is not None and self.value > 0 and not self.display.startswith("+"):
            return "+" + self.display
        return self.display


@dataclass(frozen=True)
class AnswerSource:
    kind: str
    doc: str
    locator: str
    document_id: int | None
    snippet: str
    sensitivity: str | None = None  # RESTRICTED, or None


@dataclass(frozen=True)
class AnswerOption:
    label: str
    question: str
    scope: Mapping[str, str]


@dataclass(frozen=True)
class AnswerClarification:
    mode: str
    question: str | None
    assumption_note: str | None
    assumed_entity: str | None
    assumed_period: Period | None
    options: tuple[AnswerOption, ...]


@dataclass(frozen=True)
class AnswerIntent:
    metric: str | None
    metrics: tuple[str, ...]
    entity: str | None
    entities: tuple[str, ...]
    period: Period | None
    periods: tuple[Period, ...]
    channel: str


@dataclass(frozen=True)
class Answer:
    """A `/v1/ask` object read back: every value typed, every period a `Period`, every figure a
    `Decimal`, read once here."""

    request_id: str
    question: str
    answer: str
    answer_kind: str
    route: str
    routing_mode: str
    routing_reason: str
    intent: AnswerIntent
    clarification: AnswerClarification
    facts: tuple[AnswerFact, ...]
    tool_results: tuple[Mapping[str, Any], ...]
    sources: tuple[AnswerSource, ...]
    computed: tuple[AnswerComputed, ...]
    language: str | None

    def fact(self, key: AnswerKey) -> AnswerFact | None:
        return self._facts.get(key.key)

    @cached_property
    def _facts(self) -> dict[tuple[str, str, str, str], AnswerFact]:
        return {f.key: f for f in self.facts}


def answer_from_json(data: Mapping[str, Any]) -> Answer:
    """The `/v1/ask` object `data` (`result_as_dict`, as a turn stores it) as an `Answer`.

    Raises `AnswerJsonError` when a required field is missing or a value is not what the
    contract says (a figure that is not a decimal, a period that is not a label). Fields added
    to the contract later (`formula_words`, `printed_value`, `sensitivity`, `language`) may be
    absent from a turn stored before them."""
    try:
        return _answer(data)
    except (KeyError, TypeError, ValueError, InvalidOperation, AttributeError) as error:
        if isinstance(error, AnswerJsonError):
            raise
        raise AnswerJsonError(f"not a /v1/ask answer: {error!r}") from error


def _period(label: str) -> Period:
    period = period_parse(label)
    if period is None:
        raise AnswerJsonError(f"not a period: {label!r}")
    return period


def _number(text: Any) -> Decimal:
    value = Decimal(str(text))
    if not value.is_finite():
        raise AnswerJsonError(f"not a figure: {text!r}")
    return value


def _maybe_number(text: Any) -> Decimal | None:
    try:
        return _number(text) if text is not None else None
    except (InvalidOperation, AnswerJsonError):
        return None


def _key(item: Mapping[str, Any]) -> AnswerKey:
    return AnswerKey(str(item["metric"]), str(item["entity"]), _period(item["period"]), str(item["channel"]))


def _fact(item: Mapping[str, Any]) -> AnswerFact:
    source = item["source"]
    printed = item.get("printed_value")
    return AnswerFact(
        metric=str(item["metric"]),
        entity=str(item["entity"]),
        period=_period(item["period"]),
        channel=str(item["channel"]),
        value=_number(item["value"]),
        unit=str(item["unit"]),
        doc=str(source["doc"]),
        locator=str(source["locator"]),
        document_id=source.get("document_id"),
        valid_as_of=item.get("valid_as_of"),
        sensitivity=item.get("sensitivity"),
        printed_value=_number(printed) if printed is not None else None,
    )


def _why(tag: Mapping[str, Any] | None) -> WhyTag | None:
    if not tag:
        return None
    part = tag.get("part")
    return WhyTag(
        dimension=str(tag["dimension"]),
        role=str(tag["role"]),
        parts=int(tag.get("parts") or 1),
        weight=tag.get("weight"),
        part=AnswerKey("", str(part["entity"]), _period(part["period"]), str(part["channel"])) if part else None,
    )


def _computed(item: Mapping[str, Any]) -> AnswerComputed:
    period = item.get("period")
    return AnswerComputed(
        kind=str(item["kind"]),
        name=str(item["name"]),
        formula=str(item["formula"]),
        formula_words=str(item.get("formula_words") or item["formula"]),
        value=_maybe_number(item["value"]),
        value_text=str(item["value"]),
        display=str(item["display"]),
        unit=str(item["unit"]),
        inputs=tuple(_key(i) for i in item["inputs"]),
        ranked_value=_maybe_number(item.get("ranked_value")),
        ranked_display=item.get("ranked_display"),
        ranked_metric=item.get("ranked_metric"),
        order=item.get("order"),
        count=item.get("count"),
        period=_period(period) if period else None,
        why=_why(item.get("why")),
    )


def _answer(data: Mapping[str, Any]) -> Answer:
    intent, clarification, routing = data.get("intent") or {}, data["clarification"], data.get("routing") or {}
    assumed = clarification.get("assumed") or {}
    period = intent.get("period")
    return Answer(
        request_id=str(data.get("request_id", "")),
        question=str(data.get("question", "")),
        answer=str(data["answer"]),
        answer_kind=str(data["answer_kind"]),
        route=str(data["route"]),
        routing_mode=str(routing.get("mode", "")),
        routing_reason=str(routing.get("reason", "")),
        intent=AnswerIntent(
            metric=intent.get("metric"),
            metrics=tuple(intent.get("metrics") or ()),
            entity=intent.get("entity"),
            entities=tuple(intent.get("entities") or ()),
            period=_period(period) if period else None,
            periods=tuple(_period(p) for p in intent.get("periods") or ()),
            channel=str(intent.get("channel") or "TOTAL"),
        ),
        clarification=AnswerClarification(
            mode=str(clarification["mode"]),
            question=clarification.get("question"),
            assumption_note=clarification.get("assumption_note"),
            assumed_entity=assumed.get("entity"),
            assumed_period=_period(assumed["period"]) if assumed.get("period") else None,
            options=tuple(
                AnswerOption(str(o["label"]), str(o["question"]), dict(o.get("scope") or {}))
                for o in clarification.get("narrowing_options") or ()
            ),
        ),
        facts=tuple(_fact(f) for f in data["facts"]),
        tool_results=tuple(data.get("tool_results") or ()),
        sources=tuple(
            AnswerSource(
                str(s["kind"]),
                str(s["doc"]),
                str(s["locator"]),
                s.get("document_id"),
                str(s["snippet"]),
                s.get("sensitivity"),
            )
            for s in data["sources"]
        ),
        computed=tuple(_computed(c) for c in data.get("computed") or ()),
        language=data.get("language"),
    )
