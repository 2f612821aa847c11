"""Access, over every endpoint the schema lists: authentication everywhere but `/v1/health`,
curator-only writes and admin refused to analysts, and the production session settings."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.api_operations import api_operations
from tests.clients import client_for

pytestmark = pytest.mark.django_db
OPEN = {("GET", "/v1/health")}
CURATOR_ONLY = {
    ("POST", "/v1/faq"),
    ("PATCH", "/v1/faq/{id}"),
    ("DELETE", "/v1/faq/{id}"),
    ("POST", "/v1/glossary/aliases"),
    ("DELETE", "/v1/glossary/aliases/{id}"),
    ("POST", "/v1/documents"),
}


def _operations() -> list[tuple[str, str]]:
    return [(method, path) for method, path, _ in api_operations()]


OPENAI_SHAPED = ("/v1/chat/", "/v1/models")


def _url(path: str) -> str:
    return re.sub(r"\{job_id\}", "00000000-0000-0000-0000-000000000000", re.sub(r"\{id\}", "1", path))


def _call(client: APIClient, method: str, path: str) -> Any:
    return getattr(client, method.lower())(_url(path), {}, format="json") if method != "GET" else client.get(_url(path))


@pytest.mark.parametrize(("method", "path"), _operations())
def test_every_endpoint_but_health_needs_authentication(demo: Any, method: str, path: str) -> None:
    response = _call(APIClient(), method, path)
    if (method, path) in OPEN:
        assert response.status_code == 200
    else:
        assert response.status_code == 401, (method, path)
        error = response.json()["error"]
        if path.startswith(OPENAI_SHAPED):  # the OpenAI protocol's own error shape
            assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_api_key")
        else:
            assert error["type"] == "not_authenticated"


def test_the_lists_above_name_real_endpoints() -> None:
    operations = set(_operations())
    assert operations >= OPEN and operations >= CURATOR_ONLY


@pytest.mark.parametrize(("method", "path"), sorted(CURATOR_ONLY))
def test_curator_only_endpoints_refuse_analysts(demo: Any, method: str, path: str) -> None:
    for username in ("analyst", "analyst_cleared"):
        response = _call(client_for(demo["users"][username]), method, path)
        assert response.status_code == 403, (username, method, path)
        assert response.json()["error"]["type"] == "permission_denied"


@pytest.mark.parametrize(
    "page", ["/admin/", "/admin/facts/factmetric/", "/admin/faq/faqitem/", "/admin/agent/querylog/gaps/"]
)
def test_admin_refuses_analysts(demo: Any, page: str) -> None:
    browser = Client()
    browser.force_login(demo["users"]["analyst_cleared"])
    response = browser.get(page)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_production_settings_are_locked_down(monkeypatch: Any) -> None:
    monkeypatch.setenv("DJANGO_SECRET_KEY", "from-the-environment-" + "x" * 40)
    production = importlib.reload(importlib.import_module("ragspine_site.settings.production"))
    assert production.DEBUG is False
    assert production.SECRET_KEY == "from-the-environment-" + "x" * 40
    assert production.SESSION_COOKIE_SECURE and production.SESSION_COOKIE_HTTPONLY and production.CSRF_COOKIE_SECURE
    assert production.SECURE_HSTS_SECONDS >= 31536000 and production.SECURE_SSL_REDIRECT
    assert production.SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")
    assert production.X_FRAME_OPTIONS == "DENY"
    assert production.CACHES["default"]["BACKEND"].endswith("DatabaseCache")  # throttles shared by all workers


def test_production_settings_refuse_to_start_without_a_secret_key(monkeypatch: Any) -> None:
    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    with pytest.raises(ImproperlyConfigured):
        importlib.reload(importlib.import_module("ragspine_site.settings.production"))
