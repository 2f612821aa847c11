"""`/v1/faq`: curators write; analysts read what their clearance allows."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.access import user_cleared
from common.api.permissions import CuratorWrites

from .models import FAQItem
from .selectors import faq_item_list
from .services import faq_item_create, faq_item_delete, faq_item_update


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
        try:
            item = faq_item_create(**serializer.validated_data)
        except ValidationError as error:
            raise serializers.ValidationError(error.message_dict) from None
        return Response(FAQItemSerializer(item).data, status=status.HTTP_201_CREATED)


class FaqDetailApi(APIView):
    permission_classes = [CuratorWrites]
    model = FAQItem

    @extend_schema(responses={200: FAQItemSerializer}, summary="One FAQ item")
    def get(self, request: Request, pk: int) -> Response:
        return Response(FAQItemSerializer(get_object_or_404(_faq_items(request), pk=pk)).data)

    @extend_schema(request=FAQItemSerializer, responses={200: FAQItemSerializer}, summary="Change an FAQ item")
    def patch(self, request: Request, pk: int) -> Response:
        item = get_object_or_404(_faq_items(request), pk=pk)
        serializer = FAQItemSerializer(item, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        try:
            item = faq_item_update(item=item, **serializer.validated_data)
        except ValidationError as error:
            raise serializers.ValidationError(error.message_dict) from None
        return Response(FAQItemSerializer(item).data)

    @extend_schema(responses={204: None}, summary="Delete an FAQ item")
    def delete(self, request: Request, pk: int) -> Response:
        faq_item_delete(item=get_object_or_404(_faq_items(request), pk=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
