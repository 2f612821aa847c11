"""`/v1/faq` and `/v1/glossary/aliases`: curators write; analysts read what their clearance allows."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.access import user_cleared
from common.api.permissions import CuratorWrites
from facts.models import Alias, Channel, Entity, Metric
from facts.services import alias_conflict

from .models import FAQItem
from .selectors import faq_item_list


class FAQItemSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    aliases = serializers.ListField(child=serializers.CharField(max_length=500), required=False, max_length=50)

    class Meta:
        model = FAQItem
        fields = [
            "id",
            "question",
            "aliases",
            "answer",
            "source",
            "version",
            "enabled",
            "valid_from",
            "valid_until",
            "sensitivity",
            "owner",
            "hit_count",
            "last_hit_at",
        ]
        read_only_fields = ["hit_count", "last_hit_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        item = FAQItem(
            **{
                **({f: getattr(self.instance, f) for f in self.Meta.fields if f != "id"} if self.instance else {}),
                **attrs,
            }
        )
        item.clean()
        return attrs


def _faq_items(request: Request) -> QuerySet[FAQItem]:
    return faq_item_list(cleared=user_cleared(request.user))


class FaqListApi(APIView):
    permission_classes = [CuratorWrites]
    model = FAQItem

    @extend_schema(responses={200: FAQItemSerializer(many=True)}, summary="List FAQ items")
    def get(self, request: Request) -> Response:
        return Response(FAQItemSerializer(_faq_items(request), many=True).data)

    @extend_schema(request=FAQItemSerializer, responses={201: FAQItemSerializer}, summary="Create an FAQ item")
    def post(self, request: Request) -> Response:
        serializer = FAQItemSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data, status=status.HTTP_201_CREATED)


class FaqDetailApi(APIView):
    permission_classes = [CuratorWrites]
    model = FAQItem

    @extend_schema(responses={200: FAQItemSerializer}, summary="One FAQ item")
    def get(self, request: Request, pk: int) -> Response:
        return Response(FAQItemSerializer(get_object_or_404(_faq_items(request), pk=pk)).data)

    @extend_schema(request=FAQItemSerializer, responses={200: FAQItemSerializer}, summary="Change an FAQ item")
    def patch(self, request: Request, pk: int) -> Response:
        serializer = FAQItemSerializer(get_object_or_404(_faq_items(request), pk=pk), data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)

    @extend_schema(responses={204: None}, summary="Delete an FAQ item")
    def delete(self, request: Request, pk: int) -> Response:
        get_object_or_404(_faq_items(request), pk=pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class AliasSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField(read_only=True)
    kind = serializers.ChoiceField(["entity", "metric", "channel"])
    text = serializers.CharField(max_length=255)
    code = serializers.CharField(max_length=64)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        model = {"entity": Entity, "metric": Metric, "channel": Channel}[attrs["kind"]]
        target = model.objects.filter(code=attrs["code"]).first()
        if target is None:
            raise serializers.ValidationError({"code": f"no {attrs['kind']} with code '{attrs['code']}'"})
        problem = alias_conflict(text=attrs["text"], kind=attrs["kind"], code=attrs["code"])
        if problem:
            raise serializers.ValidationError({"text": problem})
        attrs["target"] = target
        return attrs


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
        alias = Alias.objects.create(kind=data["kind"], text=data["text"], **{data["kind"]: data["target"]})
        return Response(_alias_dict(alias), status=status.HTTP_201_CREATED)


class AliasDetailApi(APIView):
    permission_classes = [CuratorWrites]
    model = Alias

    @extend_schema(responses={204: None}, summary="Delete an alias")
    def delete(self, request: Request, pk: int) -> Response:
        get_object_or_404(Alias, pk=pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
