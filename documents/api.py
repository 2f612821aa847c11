"""`POST /v1/documents` (curators: upload, 202 + job id) and `GET /v1/jobs/{id}`."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.model.facts import SENSITIVITIES
from facts.selectors import glossary_snapshot
from ingestion.context import REPORT_TYPES
from ingestion.formats import EXTENSIONS, format_of

from .jobs import ingest_job_create, ingest_jobs_recover
from .models import IngestJob
from .selectors import ingest_job_list
from .services import ContextChoice, IngestError, context_set_merge
from .warning_groups import warnings_read

MAX_UPLOAD = 50 * 1024 * 1024


class CuratorUploads(permissions.BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and user.has_perm("documents.add_document"))


def job_dict(job: IngestJob) -> dict[str, Any]:
    return {
        "id": str(job.pk),
        "name": job.name,
        "status": job.status,
        "progress": job.progress,
        "message": job.message,
        "attempts": job.attempts,
        "document_id": job.document_id,
        "warnings": [w.line for w in warnings_read(job.document.warnings)] if job.document is not None else [],
        "created_at": job.created_at.isoformat(),
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


class DocumentUploadApi(APIView):
    permission_classes = [CuratorUploads]
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):  # type: ignore[type-arg]
        file = serializers.FileField()
        sensitivity = serializers.ChoiceField(list(SENSITIVITIES), required=False)
        entity = serializers.CharField(
            required=False, allow_blank=True, max_length=64, help_text="issuer's entity code"
        )
        report_type = serializers.ChoiceField(list(REPORT_TYPES), required=False, allow_blank=True)
        period = serializers.CharField(
            required=False, allow_blank=True, max_length=16, help_text="FY2019, 2019H1, 2019Q3"
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            choice = ContextChoice(
                issuer=attrs.get("entity", ""), report_type=attrs.get("report_type", ""), period=attrs.get("period", "")
            )
            try:
                context_set_merge(stored={}, choice=choice, entities=glossary_snapshot().entities)
            except IngestError as error:
                raise serializers.ValidationError(str(error)) from None
            return attrs

        def validate_file(self, upload: Any) -> Any:
            if upload.size > MAX_UPLOAD:
                raise serializers.ValidationError("larger than 50 MB")
            if format_of(upload.name) is None:
                raise serializers.ValidationError(f"supported formats: {', '.join(EXTENSIONS)}")
            return upload

    @extend_schema(request={"multipart/form-data": InputSerializer}, responses={202: dict}, summary="Upload a document")
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        job = ingest_job_create(
            name=upload.name.rsplit("/", 1)[-1],
            data=upload.read(),
            sensitivity=serializer.validated_data.get("sensitivity", ""),
            created_by=request.user,
            issuer=serializer.validated_data.get("entity", "").strip(),
            report_type=serializer.validated_data.get("report_type", ""),
            report_period=serializer.validated_data.get("period", "").strip(),
        )
        body = {**job_dict(job), "status_url": f"/v1/jobs/{job.pk}"}
        return Response(body, status=status.HTTP_202_ACCEPTED)


class JobDetailApi(APIView):
    @extend_schema(responses={200: dict}, summary="An ingestion job's status")
    def get(self, request: Request, job_id: str) -> Response:
        ingest_jobs_recover(jobs=IngestJob.objects.filter(pk=job_id))  # a job whose worker died is retried
        return Response(job_dict(get_object_or_404(ingest_job_list(user=request.user), pk=job_id)))
