"""Fixtures of the browser tests: Debian's Chromium through Playwright, and a live server holding
the demo data with a known password for the analyst (`site`) or the cleared analyst (`cleared_site`)."""

from __future__ import annotations

import os
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.browser.support import ANALYST, CHROMIUM, CLEARED, PASSWORD

# Playwright's sync API keeps an event loop in this thread; Django's ORM calls from the test
# thread are still synchronous, so its async-safety check does not apply here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        if os.environ.get("RAGSPINE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (make test does when root)")
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield instance
        instance.close()


def _demo_site(url: str, user: str) -> str:
    call_command("load_demo", stdout=StringIO())
    account = get_user_model().objects.get(username=user)
    account.set_password(PASSWORD)
    account.save()
    return url


@pytest.fixture
def site(live_server) -> str:
    """The demo site's URL; the analyst (no RESTRICTED clearance) logs in with `PASSWORD`."""
    return _demo_site(live_server.url, ANALYST)


@pytest.fixture
def cleared_site(live_server) -> str:
    """The demo site's URL; the cleared analyst logs in with `PASSWORD`."""
    return _demo_site(live_server.url, CLEARED)
