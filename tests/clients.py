"""An API client authenticated as a user, with a DRF token."""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


def client_for(user: Any) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
