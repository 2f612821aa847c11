"""One exception handler maps every API error to the envelope `{"error": {type, message, request_id}}`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from common.middleware import database_error_answer, request_id_of
from core.pipeline import ScopeError


class Conflict(exceptions.APIException):
    """The request clashes with what is stored (an alias that is there already): 409."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "This clashes with a record that already exists."
    default_code = "conflict"


_TYPES = {
    Conflict: "conflict",
    exceptions.ValidationError: "bad_request",
    exceptions.ParseError: "bad_request",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "throttled",
}


def error_message(detail: Any) -> str:
    if isinstance(detail, dict):
        parts = []
        for field, value in detail.items():
            text = error_message(value)
            parts.append(text if field in ("non_field_errors", "detail") else f"{field}: {text}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return " ".join(error_message(item) for item in detail)
    return str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    request = context.get("request")
    request_id = request_id_of(request._request) if request is not None else ""
    headers: dict[str, str] = {}
    if isinstance(exc, ScopeError):
        code, error_type, message = status.HTTP_400_BAD_REQUEST, "bad_request", str(exc)
    elif (answer := database_error_answer(exc)) is not None:  # refused write 409/400, outage 503
        code, error_type, message = answer
    elif isinstance(exc, RequestDataTooBig):  # Django refuses to read it: the client's fault, not ours
        code, error_type = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, "request_too_large"
        message = f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."
    elif isinstance(exc, Http404):
        code, error_type, message = status.HTTP_404_NOT_FOUND, "not_found", "Not found."
    elif isinstance(exc, exceptions.APIException):
        code = exc.status_code
        error_type = next((t for cls, t in _TYPES.items() if isinstance(exc, cls)), "error")
        message = error_message(exc.detail)
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            headers["Retry-After"] = str(int(exc.wait))
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    else:
        return None
    body = {"error": {"type": error_type, "message": message, "request_id": request_id}}
    return Response(body, status=code, headers=headers)
