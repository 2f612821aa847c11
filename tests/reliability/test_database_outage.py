"""The database going away, wherever it is first touched: a 503 (the envelope under /v1/, a
plain page elsewhere), never a stack trace; the worker waits for it instead of dying."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import OperationalError
from django.test import Client

from tests.clients import client_for

pytestmark = pytest.mark.django_db


def _down(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("connection to server failed: the database system is shutting down")


def test_the_ui_answers_503_when_the_session_cannot_be_read(demo: Any, monkeypatch: Any) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(demo["users"]["analyst"])
    monkeypatch.setattr(SessionStore, "load", _down)
    page = browser.get("/")
    assert page.status_code == 503 and page["Retry-After"] == "5"
    assert "Traceback" not in page.content.decode() and "shutting down" not in page.content.decode()


def test_the_api_answers_the_503_envelope_when_authentication_cannot_reach_the_database(
    demo: Any, monkeypatch: Any
) -> None:
    client = client_for(demo["users"]["analyst"])
    client.raise_request_exception = False
    from rest_framework.authtoken.models import Token

    monkeypatch.setattr(Token.objects, "select_related", _down)
    response = client.post("/v1/ask", {"question": "香港收入是多少"}, format="json")
    assert response.status_code == 503
    assert response.json()["error"]["type"] == "database_unavailable"
    assert "shutting down" not in response.content.decode()


def test_any_other_uncaught_error_is_a_plain_500_without_details(demo: Any, monkeypatch: Any) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(demo["users"]["analyst"])

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(SessionStore, "load", broken)
    page = browser.get("/")
    assert page.status_code == 500 and "secret internals" not in page.content.decode()
