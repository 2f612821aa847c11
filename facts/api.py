"""`GET /v1/facts`: approved facts with lineage, filtered by any alias, clearance-filtered."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from common.access import user_cleared
from common.api.fields import FactSourceSerializer
from common.api.pagination import StrictLimitOffsetPagination
from core.periods import period_parse

from .models import FactMetric
from .selectors import fact_list, glossary_snapshot


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
        unit = serializers.CharField(source="unit_id")
        source = serializers.SerializerMethodField()

        class Meta:
            model = FactMetric
            fields = [
                "id",
                "metric",
                "entity",
                "period",
                "channel",
                "value",
                "unit",
                "source",
                "valid_as_of",
                "sensitivity",
            ]

        def get_value(self, fact: FactMetric) -> str:
            return str(fact.value)

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
        return _facts_filter(fact_list(cleared=user_cleared(self.request.user)), filters.validated_data)


def _facts_filter(facts: QuerySet[FactMetric], params: dict[str, str]) -> QuerySet[FactMetric]:
    glossary = glossary_snapshot()
    for kind in ("metric", "entity", "channel"):
        if params.get(kind):
            code = glossary.resolve(kind, params[kind])
            if code is None:
                raise serializers.ValidationError({kind: f"'{params[kind]}' is not in the glossary."})
            facts = facts.filter(**{f"{kind}_id": code})
    if params.get("period"):
        period = period_parse(params["period"])
        if period is None:
            raise serializers.ValidationError({"period": f"'{params['period']}' is not a period."})
        facts = facts.filter(period_type=period.period_type, period=period.period)
    return facts
