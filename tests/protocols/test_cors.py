"""Browser-side clients (issue Y): a page on an origin `RAGSPINE_CORS_ORIGINS` names may call the
API and `/mcp` with a token; a page on any other origin gets no permission to read the answer."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from django.test import override_settings

from tests.protocols.support import FIGURE, token_for

pytestmark = pytest.mark.django_db
CHAT = "https://chat.example.com"


@pytest.fixture
def site(live_server: Any, demo: dict[str, Any]) -> str:
    return str(live_server.url)


@override_settings(RAGSPINE_CORS_ORIGINS=[CHAT])
def test_a_named_origin_may_call_the_api_and_mcp_from_a_browser(site: str, demo: dict[str, Any]) -> None:
    token = token_for(demo["users"]["analyst"])
    with httpx.Client(base_url=site, timeout=30) as browser:
        for path, method in (("/v1/chat/completions", "POST"), ("/mcp", "POST"), ("/v1/ask", "POST")):
            preflight = browser.options(
                path,
                headers={
                    "Origin": CHAT,
                    "Access-Control-Request-Method": method,
                    "Access-Control-Request-Headers": "authorization, content-type",
                },
            )
            assert preflight.status_code == 204, path
            assert preflight.headers["Access-Control-Allow-Origin"] == CHAT
            assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
        answer = browser.post(
            "/v1/ask",
            json={"question": FIGURE},
            headers={"Origin": CHAT, "Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == CHAT
        assert "Retry-After" in answer.headers["Access-Control-Expose-Headers"]
        refused = browser.post("/v1/ask", json={"question": FIGURE}, headers={"Origin": CHAT})
        assert refused.status_code == 401 and refused.headers["Access-Control-Allow-Origin"] == CHAT


@override_settings(RAGSPINE_CORS_ORIGINS=[CHAT])
def test_any_other_origin_and_the_pages_get_no_permission(site: str, demo: dict[str, Any]) -> None:
    with httpx.Client(base_url=site, timeout=30) as browser:
        other = browser.options(
            "/v1/ask", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
        )
        assert "Access-Control-Allow-Origin" not in other.headers
        page = browser.get("/accounts/login/", headers={"Origin": CHAT})
        assert "Access-Control-Allow-Origin" not in page.headers
    with override_settings(RAGSPINE_CORS_ORIGINS=[]), httpx.Client(base_url=site, timeout=30) as browser:
        closed = browser.options("/v1/ask", headers={"Origin": CHAT, "Access-Control-Request-Method": "POST"})
        assert "Access-Control-Allow-Origin" not in closed.headers
