"""OpenAI's error object for the OpenAI-compatible endpoints: `{"error": {message, type, param, code}}`.

Every failure of those views answers in this shape, so an OpenAI client raises its own error
class with the message: bad input (400, naming the parameter), a model that is not served
(404), a missing token (401), a body over the size limit (413), throttling (429 with
Retry-After), the database down (503), and anything unexpected (500, logged; never a trace).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response

from common.middleware import database_error_answer

logger = logging.getLogger("ragspine")

INVALID_REQUEST = "invalid_request_error"


class ModelNotFound(exceptions.APIException):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "model_not_found"

    def __init__(self, model: str):
        super().__init__(f"The model `{model}` does not exist: this server answers as `ragspine`.")
        self.model = model


@extend_schema_serializer(component_name="OpenAIErrorDetail")
class ErrorDetailSerializer(serializers.Serializer):  # type: ignore[type-arg]
    message = serializers.CharField()
    type = serializers.CharField()
    param = serializers.CharField(allow_null=True)
    code = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="OpenAIError")
class ErrorSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """An error in OpenAI's shape."""

    error = ErrorDetailSerializer()


def openai_error(
    status_code: int,
    message: str,
    *,
    error_type: str = INVALID_REQUEST,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body = {"error": {"message": message, "type": error_type, "param": param, "code": code}}
    return Response(body, status=status_code, headers=headers)


def first_problem(detail: Any, path: str = "") -> tuple[str | None, str]:
    """The first field a validation error names, as OpenAI writes it (`messages[2].content`),
    and its message."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key in ("non_field_errors", "detail"):
                return first_problem(value, path)
            step = f"[{key}]" if isinstance(key, int) else (f".{key}" if path else str(key))
            if value:
                return first_problem(value, path + step)
    if isinstance(detail, list):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                if value:
                    return first_problem(value, f"{path}[{index}]")
            else:
                return (path or None), str(value)
    return (path or None), str(detail)


_STATUS_CODES = {
    exceptions.NotAuthenticated: "invalid_api_key",
    exceptions.AuthenticationFailed: "invalid_api_key",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.ParseError: "invalid_json",
}


def openai_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's exception handler for the OpenAI-compatible views: every exception gets an answer."""
    if isinstance(exc, ModelNotFound):
        return openai_error(404, str(exc.detail), param="model", code="model_not_found")
    if isinstance(exc, exceptions.ValidationError):
        param, message = first_problem(exc.detail)
        return openai_error(400, f"{param}: {message}" if param else message, param=param)
    if isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait) if exc.wait is not None else 1
        return openai_error(
            429,
            f"Too many requests: try again in {wait} seconds.",
            error_type="rate_limit_error",
            code="rate_limit_exceeded",
            headers={"Retry-After": str(wait)},
        )
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return openai_error(413, f"The request body is larger than {limit} bytes.", code="request_too_large")
    if isinstance(exc, Http404):
        return openai_error(404, "Not found.", code="not_found")
    if isinstance(exc, exceptions.APIException):
        code = next((name for cls, name in _STATUS_CODES.items() if isinstance(exc, cls)), None)
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        return openai_error(exc.status_code, str(exc.detail), code=code, headers=headers)
    answer = database_error_answer(exc)
    if answer is not None:
        code_number, name, message = answer
        logger.warning("database error in the OpenAI-compatible API: %s", type(exc).__name__)
        error_type = "server_error" if code_number >= 500 else INVALID_REQUEST
        return openai_error(code_number, message, error_type=error_type, code=name)
    logger.exception("unhandled error in the OpenAI-compatible API")
    return openai_error(
        500, "Something went wrong on our side; it has been logged.", error_type="server_error", code="server_error"
    )
