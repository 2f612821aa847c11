"""What the browser tests share that is not a fixture: the Chromium binary, the screenshot
folder, the test password, and the steps every analyst test takes (log in, ask, screenshot)."""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PASSWORD = "browser-test-password"
ANALYST, CLEARED = "analyst", "analyst_cleared"  # demo users; the second may see RESTRICTED figures


def login(page, site: str, user: str = ANALYST) -> None:
    page.goto(f"{site}/")
    page.fill("#id_username", user)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/")


def page_open(browser, site: str, width: int, user: str = CLEARED):
    """A new Chinese-locale context `width` pixels wide, logged in as `user`: (context, page)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    login(page, site, user)
    return context, page


def ask(page, question: str) -> None:
    """Type `question` into the ask form and wait until its turn has finished streaming."""
    count = page.locator("article.turn").count()
    page.fill("#question", question)
    page.click("#ask-form button[type=submit]")
    page.locator("article.turn").nth(count).wait_for()
    page.wait_for_function("document.querySelectorAll('article.turn.streaming').length === 0")


def static_form(page) -> None:
    page.add_style_tag(content=".ask-form { position: static; }")  # a sticky bar would float over a shot


def shots_folder() -> Path | None:
    """Where optional screenshots go: `RAGSPINE_SCREENSHOTS` names a folder, `1` docs/screenshots/."""
    named = os.environ.get("RAGSPINE_SCREENSHOTS", "")
    if named in ("", "0"):
        return None
    return SHOTS if named == "1" else Path(named)


def shot(target, name: str) -> None:
    """Screenshot `target` (a page or a locator) as `name` when screenshots are asked for."""
    folder = shots_folder()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(folder / name))
