"""The real clients the protocol tests drive, each holding a user's API token, as an integrator's
program would."""

from __future__ import annotations

from typing import Any

from openai import OpenAI
from rest_framework.authtoken.models import Token

FIGURE = "中国内地FY2025的营收是多少"
GROWTH = "集团2025年营收同比增长多少"
MISSING = "香港FY2026的营收是多少"
COMPETITOR = "竞安2025年营收是多少"
FIRST, FOLLOW_UP = "集团2025年营收是多少", "那香港呢？"


def token_for(user: Any) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def openai_client(base_url: str, user: Any) -> OpenAI:
    return OpenAI(base_url=f"{base_url}/v1", api_key=token_for(user), max_retries=0, timeout=30)
