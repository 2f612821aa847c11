"""`GET /v1/facts`: approved facts with lineage, filtered by any alias, clearance-filtered.
`/v1/glossary/aliases`: curators add and remove aliases; every authenticated user reads them.
`GET /v1/glossary/metrics`: the metrics with their unit, formula, how each adds up and its sign
convention."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as ApiValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.access import user_cleared
from common.api.errors import Conflict
from common.api.fields import FactSourceSerializer
from common.api.pagination import StrictLimitOffsetPagination
from common.api.permissions import CuratorWrites
from core.glossary import AGGREGATIONS
from core.model.facts import SENSITIVITIES
from core.model.sign import SIGNS

from .models import Alias, FactDispute, FactMetric, Metric
from .selectors import FactFilterError, fact_filter, fact_list, glossary_snapshot
from .services import AliasExists, alias_create, alias_delete
from .services.disputes import NOTE_LIMIT, DisputeError, dispute_file


class FactListApi(ListAPIView):  # type: ignore[type-arg]
    pagination_class = StrictLimitOffsetPagination

    class FilterSerializer(serializers.Serializer):  # type: ignore[type-arg]
        metric = serializers.CharField(max_length=64, required=False)
        entity = serializers.CharField(max_length=255, required=False)
        period = serializers.CharField(max_length=32, required=False)
        channel = serializers.CharField(max_length=64, required=False)

    @extend_schema_serializer(component_name="FactRow")
    class OutputSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
        metric = serializers.CharField(source="metric_id")
        entity = serializers.CharField(source="entity_id")
        period = serializers.CharField(source="period_label")
        channel = serializers.CharField(source="channel_id")
        value = serializers.SerializerMethodField()
        printed_value = serializers.SerializerMethodField(
            help_text="The figure as the report printed it (exact decimal as a string), when the metric's sign "
            "convention stores the amount (`positive`: `(1,577)` is stored as 1577); null when `value` is as printed."
        )
        unit = serializers.CharField(source="unit_id")
        source = serializers.SerializerMethodField()
        # The level the fact is read at: the stricter of its own and its document's.
        sensitivity = serializers.ChoiceField(list(SENSITIVITIES), source="effective_sensitivity", read_only=True)

        class Meta:
            model = FactMetric
            fields = [
                "id",
                "metric",
                "entity",
                "period",
                "channel",
                "value",
                "printed_value",
                "unit",
                "source",
                "valid_as_of",
                "sensitivity",
            ]

        def get_value(self, fact: FactMetric) -> str:
            return str(fact.value)

        def get_printed_value(self, fact: FactMetric) -> str | None:
            return None if fact.printed_value is None else str(fact.printed_value)

        @extend_schema_field(FactSourceSerializer)
        def get_source(self, fact: FactMetric) -> dict[str, Any]:
            return {"doc": fact.source_doc, "locator": fact.locator, "document_id": fact.document_id}

    serializer_class = OutputSerializer

    @extend_schema(
        parameters=[OpenApiParameter(name, str, required=False) for name in ("metric", "entity", "period", "channel")],
        summary="List facts with lineage",
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[FactMetric]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        try:
            return fact_filter(fact_list(cleared=user_cleared(self.request.user)), filters=filters.validated_data)
        except FactFilterError as error:
            raise serializers.ValidationError({error.field: str(error)}) from None


class AliasSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField(read_only=True)
    kind = serializers.ChoiceField(["entity", "metric", "channel"])
    text = serializers.CharField(max_length=255)
    code = serializers.CharField(max_length=64)


def _alias_dict(alias: Alias) -> dict[str, Any]:
    return {"id": alias.pk, "kind": alias.kind, "text": alias.text, "code": alias.target_code}


class AliasListApi(APIView):
    permission_classes = [CuratorWrites]
    model = Alias

    @extend_schema(responses={200: AliasSerializer(many=True)}, summary="List glossary aliases")
    def get(self, request: Request) -> Response:
        aliases = Alias.objects.select_related("entity", "metric", "channel").order_by("kind", "text")
        return Response([_alias_dict(a) for a in aliases])

    @extend_schema(request=AliasSerializer, responses={201: AliasSerializer}, summary="Add an alias")
    def post(self, request: Request) -> Response:
        serializer = AliasSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            alias = alias_create(kind=data["kind"], text=data["text"], code=data["code"])
        except AliasExists as error:
            raise Conflict(error.message_dict) from None
        except ValidationError as error:
            raise serializers.ValidationError(error.message_dict) from None
        return Response(_alias_dict(alias), status=status.HTTP_201_CREATED)


class AliasDetailApi(APIView):
    permission_classes = [CuratorWrites]
    model = Alias

    @extend_schema(responses={204: None}, summary="Delete an alias")
    def delete(self, request: Request, pk: int) -> Response:
        alias_delete(alias=get_object_or_404(Alias, pk=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_serializer(component_name="GlossaryMetric")
class MetricSerializer(serializers.Serializer):  # type: ignore[type-arg]
    code = serializers.CharField()
    name = serializers.CharField()
    unit = serializers.CharField()
    formula = serializers.CharField(help_text="Blank for a stored metric; else an expression over metric codes.")
    aggregation = serializers.ChoiceField(
        list(AGGREGATIONS),
        help_text="How the metric adds up over periods: sum (flows), end (a value at a date), none (ratios). "
        "Sums, averages and derived periods respect it.",
    )
    aggregation_from = serializers.ChoiceField(
        ["glossary", "unit"], help_text="glossary: set by a curator; unit: the unit's default (PCT → none, else sum)."
    )
    sign = serializers.ChoiceField(
        list(SIGNS),
        help_text="How a fact stores the printed figure: as_printed (as the report prints it) or positive "
        "(the amount, for an outflow such as capex; the printed figure is the fact's printed_value).",
    )


class MetricListApi(APIView):
    """Every metric as the answers use it (the glossary snapshot), curated in admin and the glossary CSV."""

    permission_classes = [CuratorWrites]
    model = Metric

    @extend_schema(responses={200: MetricSerializer(many=True)}, summary="List glossary metrics")
    def get(self, request: Request) -> Response:
        metrics = glossary_snapshot().metrics.values()
        rows = [
            {
                "code": m.code,
                "name": m.name,
                "unit": m.unit,
                "formula": m.formula,
                "aggregation": m.adds_up,
                "aggregation_from": "glossary" if m.aggregation in AGGREGATIONS else "unit",
                "sign": m.sign,
            }
            for m in sorted(metrics, key=lambda m: m.code)
        ]
        return Response(MetricSerializer(rows, many=True).data)


class FactDisputeApi(APIView):
    """`POST /v1/facts/{id}/disputes`: "this figure is wrong", with a note, into the curator's
    review queue beside the fact. A fact the caller may not see is a 404, as a missing one."""

    class InputSerializer(serializers.Serializer):  # type: ignore[type-arg]
        note = serializers.CharField(max_length=NOTE_LIMIT, allow_blank=False, trim_whitespace=True)

        class Meta:
            ref_name = "FactDisputeInput"

    class OutputSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
        fact = serializers.IntegerField(source="fact_id")

        class Meta:
            ref_name = "FactDispute"
            model = FactDispute
            fields = ["id", "fact", "note", "status", "created_at"]

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request: Request, pk: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            dispute = dispute_file(
                fact_id=pk, note=data.validated_data["note"], user=request.user, cleared=user_cleared(request.user)
            )
        except DisputeError as error:
            raise ApiValidationError({"note": [str(error)]}) from None
        if dispute is None:
            raise NotFound("No such fact.")
        return Response(self.OutputSerializer(dispute).data, status=status.HTTP_201_CREATED)
