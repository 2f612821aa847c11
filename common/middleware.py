"""Request ids, and the error envelope for failures that happen outside a DRF view."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import (
    DatabaseError,
    DataError,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    ProgrammingError,
)
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation

logger = logging.getLogger("ragspine")

API_PREFIX = "/v1/"
MCP_PATH = "/mcp"
# Plain HTML: the site's templates need the database (sessions, the user) to render.
UNAVAILABLE_PAGE = (
    '<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>RAGSpine</title>'
    "<p>RAGSpine 暂时无法访问数据库，请稍后刷新。The database is unavailable; please try again shortly.</p></html>"
)
ERROR_PAGE = (
    '<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>RAGSpine</title>'
    "<p>RAGSpine 出错了，已记录。Something went wrong on our side; it has been logged.</p></html>"
)
REFUSED_PAGE = (
    '<!doctype html><html lang="zh-CN"><meta charset="utf-8"><title>RAGSpine</title>'
    "<p>数据库拒绝了这次修改，未保存任何内容。{message} 请返回修改后重试。</p></html>"
)
UNAVAILABLE = (503, "database_unavailable", "The database is unavailable; try again shortly.")
CONFLICT = (409, "conflict", "This would duplicate a record that already exists; nothing was saved.")
INVALID = (400, "bad_request", "A value breaks a rule of the data (required, related or in range); nothing was saved.")


def database_error_answer(error: BaseException | None) -> tuple[int, str, str] | None:
    """Status, envelope type and message for a database error that reached the last resort, or
    None for any other error (a 500). The database refusing a write is the request's fault: a
    duplicate is a 409, any other broken rule a 400. A query the database cannot run is our bug
    (a 500). Only the rest, the database unreachable or failing (`OperationalError`,
    `InterfaceError`), is an outage: 503."""
    if isinstance(error, IntegrityError):
        return CONFLICT if _unique_violation(error) else INVALID
    if isinstance(error, DataError):
        return INVALID
    if isinstance(error, ProgrammingError | InternalError | NotSupportedError):
        return None
    if isinstance(error, DatabaseError | InterfaceError):  # `InterfaceError`: the connection is gone
        return UNAVAILABLE
    return None


def _unique_violation(error: IntegrityError) -> bool:
    driver = error.__cause__  # Django re-raises the driver's error `from` it
    sqlstate = getattr(driver, "sqlstate", None) or getattr(driver, "pgcode", None)  # psycopg 3 / 2
    if sqlstate:
        return bool(sqlstate == "23505")
    return "UNIQUE constraint failed" in str(error)  # SQLite says so in words


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


class CorsMiddleware:
    """Cross-origin calls to the API and `/mcp` from the origins `RAGSPINE_CORS_ORIGINS` names, and
    from no other: a preflight is answered here, before authentication (a browser sends it
    without the token), and every answer to such an origin says it may be read. Credentials are
    the token in `Authorization`, never a cookie, so no cookie is allowed across origins."""

    HEADERS = (
        "Authorization, Content-Type, Accept, Accept-Language, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"
    )
    EXPOSED = "Retry-After, X-Request-ID, Mcp-Session-Id, WWW-Authenticate"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        origin = request.headers.get("Origin", "").rstrip("/")
        allowed = (
            bool(origin)
            and origin in settings.RAGSPINE_CORS_ORIGINS
            and request.path.startswith((API_PREFIX, MCP_PATH))
        )
        if allowed and request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
            response["Access-Control-Allow-Headers"] = self.HEADERS
            response["Access-Control-Max-Age"] = "600"
        else:
            response = self.get_response(request)
        if allowed:
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Expose-Headers"] = self.EXPOSED
        if origin:
            response["Vary"] = ", ".join(filter(None, [response.get("Vary", ""), "Origin"]))
        return response


class ApiLanguageMiddleware:
    """A program that calls the API and says no language reads English: the site's default
    (Chinese) is for people in a browser, whose browser says which language they read. Placed
    after `LocaleMiddleware`; an `Accept-Language` header or the language cookie still decides."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        spoken = "HTTP_ACCEPT_LANGUAGE" in request.META or settings.LANGUAGE_COOKIE_NAME in request.COOKIES
        if not spoken and request.path.startswith((API_PREFIX, MCP_PATH)):
            translation.activate("en")
            request.LANGUAGE_CODE = "en"  # type: ignore[attr-defined]
        return self.get_response(request)


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
        answer = database_error_answer(exception)
        if answer is not None:
            logger.warning("database error in %s: %s", request.path, type(exception).__name__)
            return error_response(request, *answer)
        logger.exception("unhandled error in %s", request.path)
        return error_response(request, 500, "server_error", "Something went wrong on our side; it has been logged.")


def _is_json(response: HttpResponse) -> bool:
    return str(response.get("Content-Type", "")).startswith("application/json")


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: what any uncaught exception becomes, wherever it was raised (a middleware
    reading the session included). A database outage is a 503, a write the database refused a
    409 or 400 (`database_error_answer`), in the envelope under /v1/."""
    answer = database_error_answer(sys.exc_info()[1])
    if request.path.startswith(API_PREFIX):
        if answer is not None:
            return error_response(request, *answer)
        return error_response(request, 500, "server_error", "Something went wrong on our side; it has been logged.")
    if answer == UNAVAILABLE:
        return HttpResponse(UNAVAILABLE_PAGE, status=503, headers={"Retry-After": "5"})
    if answer is not None:
        status, _, message = answer
        return HttpResponse(REFUSED_PAGE.format(message=message), status=status)
    return HttpResponse(ERROR_PAGE, status=500)
