"""Request ids, and the error envelope for failures that happen outside a DRF view."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger("ragspine")

API_PREFIX = "/v1/"
# Plain HTML: the site's templates need the database (sessions, the user) to render.
UNAVAILABLE_PAGE = (
    '<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>RAGSpine</title>'
    "<p>RAGSpine 暂时无法访问数据库，请稍后刷新。The database is unavailable; please try again shortly.</p></html>"
)
ERROR_PAGE = (
    '<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>RAGSpine</title>'
    "<p>RAGSpine 出错了，已记录。Something went wrong on our side; it has been logged.</p></html>"
)


def request_id_of(request: HttpRequest) -> str:
    return getattr(request, "request_id", "") or uuid.uuid4().hex


def error_response(request: HttpRequest, status: int, error_type: str, message: str) -> JsonResponse:
    body = {"error": {"type": error_type, "message": message, "request_id": request_id_of(request)}}
    return JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.request_id = uuid.uuid4().hex  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request.request_id  # type: ignore[attr-defined]
        return response


class ApiErrorMiddleware:
    """Under /v1/ every failure is the JSON envelope: never an HTML page, never a stack trace."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX) and response.status_code == 404 and not _is_json(response):
            return error_response(request, 404, "not_found", "No such endpoint.")
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith(API_PREFIX):
            return None  # pages: `server_error` below, as for any uncaught exception
        if isinstance(exception, DatabaseError):
            logger.warning("database unavailable: %s", type(exception).__name__)
            return error_response(
                request, 503, "database_unavailable", "The database is unavailable; try again shortly."
            )
        logger.exception("unhandled error in %s", request.path)
        return error_response(request, 500, "server_error", "Something went wrong on our side; it has been logged.")


def _is_json(response: HttpResponse) -> bool:
    return str(response.get("Content-Type", "")).startswith("application/json")


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: what any uncaught exception becomes, wherever it was raised (a middleware
    reading the session included). A database outage is a 503, in the envelope under /v1/."""
    database = isinstance(sys.exc_info()[1], DatabaseError)
    if request.path.startswith(API_PREFIX):
        if database:
            return error_response(
                request, 503, "database_unavailable", "The database is unavailable; try again shortly."
            )
        return error_response(request, 500, "server_error", "Something went wrong on our side; it has been logged.")
    if database:
        return HttpResponse(UNAVAILABLE_PAGE, status=503, headers={"Retry-After": "5"})
    return HttpResponse(ERROR_PAGE, status=500)
