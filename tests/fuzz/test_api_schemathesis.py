"""Schemathesis against `/v1/schema`: every operation, generated valid and invalid inputs, no 5xx,
and every response as documented (status code, content type, body schema).

The schema is loaded from the running WSGI application with a curator's token, so the
curator-only operations are exercised too. Hypothesis drives each operation directly (the
schemathesis pytest plugin predates the pytest this project uses).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance

from ragspine_site.wsgi import application
from tests.api_operations import api_operations

pytestmark = pytest.mark.django_db


def _cases() -> list[Any]:
    """Every operation with valid inputs, and those that take inputs with invalid ones too."""
    cases = []
    for method, path, operation in api_operations():
        cases.append(pytest.param(method, path, GenerationMode.POSITIVE, id=f"{method} {path} valid"))
        if operation.get("parameters") or operation.get("requestBody"):
            cases.append(pytest.param(method, path, GenerationMode.NEGATIVE, id=f"{method} {path} invalid"))
    return cases


@pytest.fixture(autouse=True)
def _keep_the_test_transaction() -> Iterator[None]:
    """The raw WSGI application closes "old" connections at each request, which on PostgreSQL
    would close the test's transaction; Django's own test client unhooks this the same way."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def curator_token(demo: dict[str, Any]) -> str:
    token, _ = Token.objects.get_or_create(user=demo["users"]["curator"])
    return token.key


@pytest.mark.parametrize(("method", "path", "mode"), _cases())
def test_the_api_keeps_its_contract(method: str, path: str, mode: GenerationMode, curator_token: str) -> None:
    auth = {"Authorization": f"Token {curator_token}"}
    schema = schemathesis.openapi.from_wsgi("/v1/schema?format=json", application, headers=auth)
    operation = schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
    def exercise(case: Any) -> None:
        # Every check but one: a schema-valid question can still be refused on its meaning (blank,
        # an unknown scope code, a future date the grammar rejects), with a documented 400.
        case.call_and_validate(headers=auth, excluded_checks=[positive_data_acceptance])

    exercise()
