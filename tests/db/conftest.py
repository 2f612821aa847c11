from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


@pytest.fixture
def demo(db: Any) -> dict[str, Any]:
    out = StringIO()
    call_command("load_demo", stdout=out)
    users = {u.username: u for u in get_user_model().objects.all()}
    return {"out": out.getvalue(), "users": users}


def client_for(user: Any) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def analyst(demo: dict[str, Any]) -> APIClient:
    return client_for(demo["users"]["analyst"])


@pytest.fixture
def cleared(demo: dict[str, Any]) -> APIClient:
    return client_for(demo["users"]["analyst_cleared"])
