"""`GET /v1/search`: ranked chunks, clearance-filtered; with an embedder, the vector and hybrid modes
say in `X-Vectors-Pending` how many chunks are still waiting for their vector."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.access import user_cleared
from common.api.fields import QuerySerializer, QuestionTextField

from .embedders import embedder_build
from .selectors import MODES, SearchModeUnavailable, chunk_search, vectors_pending

PENDING_HEADER = "X-Vectors-Pending"


class SearchApi(APIView):
    class InputSerializer(QuerySerializer):
        q = QuestionTextField(max_length=2000)
        k = serializers.IntegerField(min_value=1, max_value=50, default=10)
        mode = serializers.ChoiceField(MODES, default="hybrid")

    @extend_schema_serializer(component_name="SearchHit")
    class OutputSerializer(serializers.Serializer):  # type: ignore[type-arg]
        chunk_id = serializers.IntegerField()
        doc = serializers.CharField()
        locator = serializers.CharField()
        score = serializers.FloatField()
        snippet = serializers.CharField()

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, required=True),
            OpenApiParameter("k", int, required=False),
            OpenApiParameter("mode", str, enum=list(MODES), required=False),
            OpenApiParameter(
                PENDING_HEADER,
                int,
                location=OpenApiParameter.HEADER,
                response=[200],
                description=(
                    "vector and hybrid modes with an embedder: how many chunks the caller may see are not "
                    "embedded yet; hybrid search still finds them by BM25, vector search does not"
                ),
            ),
        ],
        responses={200: OutputSerializer(many=True)},
        summary="Search document chunks",
    )
    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            hits = chunk_search(
                data["q"], cleared=user_cleared(request.user), k=data["k"], mode=data["mode"], names=True
            )
        except SearchModeUnavailable as error:
            raise serializers.ValidationError({"mode": str(error)}) from None
        response = Response(
            [
                {
                    "chunk_id": h.chunk_id,
                    "doc": h.doc,
                    "locator": h.locator,
                    "score": round(h.score, 6),
                    "snippet": h.snippet,
                }
                for h in hits
            ]
        )
        if data["mode"] != "bm25" and embedder_build().enabled:
            response[PENDING_HEADER] = str(vectors_pending(cleared=user_cleared(request.user)))
        return response
