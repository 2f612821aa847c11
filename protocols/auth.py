"""The API's tokens, also as `Authorization: Bearer <token>`: the header OpenAI-compatible
clients and MCP clients send."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authtoken.models import Token

from common.api.authentication import ClearanceTokenAuthentication


class BearerTokenAuthentication(ClearanceTokenAuthentication):
    keyword = "Bearer"


class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = BearerTokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "An API token, as for `Authorization: Token`."}


def token_user(key: str) -> Any | None:
    """The active user whose API token `key` is, or None."""
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user
