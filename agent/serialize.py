"""The `/v1/ask` object: one serializer, `AskResultSerializer`, describes it for the
OpenAPI schema and produces it from an `AgentResult` for the API, the stream, the UI's session
and `manage.py ask --json`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from common.api.fields import FactSourceSerializer
from core.engine import KINDS, RANK_ORDERS
from core.model.types import (
    ANSWER_KINDS,
    ANSWER_ROUTES,
    CLARIFY_MODES,
    ROUTING_MODES,
    SOURCE_KINDS,
    AgentResult,
    Period,
)


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
    printed_value = serializers.CharField(
        required=False,
        help_text="The figure as the report printed it (exact decimal as a string), only for a fact whose metric's "
        "sign convention stores the amount (`positive`: `(1,577)` is stored as 1577).",
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        shown: dict[str, Any] = super().to_representation(instance)
        if shown.get("printed_value") is None:  # a fact stored as printed: the SPEC's keys alone
            shown.pop("printed_value", None)
        return shown


@extend_schema_serializer(component_name="AskSource")
class SourceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    kind = serializers.ChoiceField(SOURCE_KINDS)
    doc = serializers.CharField()
    locator = serializers.CharField()
    document_id = serializers.IntegerField(allow_null=True)
    snippet = serializers.CharField()


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
