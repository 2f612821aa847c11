from __future__ import annotations

from datetime import date
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from core.glossary import GlossarySnapshot
from tests.clients import client_for
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

REFERENCE = date(2026, 3, 15)


@pytest.fixture(scope="session")
def glossary() -> GlossarySnapshot:
    return demo_glossary()


@pytest.fixture
def store() -> InMemoryFactStore:
    return InMemoryFactStore(demo_facts())


# -- with a database: the demo data and API clients -------------------------------------------
@pytest.fixture
def demo(db: Any) -> dict[str, Any]:
    out = StringIO()
    call_command("load_demo", stdout=out)
    users = {u.username: u for u in get_user_model().objects.all()}
    return {"out": out.getvalue(), "users": users}


@pytest.fixture
def analyst(demo: dict[str, Any]) -> APIClient:
    return client_for(demo["users"]["analyst"])


@pytest.fixture
def cleared(demo: dict[str, Any]) -> APIClient:
    return client_for(demo["users"]["analyst_cleared"])


@pytest.fixture(scope="session", autouse=True)
def _ui_catalogues_compiled() -> None:
    """The UI's catalogues compiled as `make` does, when a .po is newer than its .mo."""
    from pathlib import Path

    for po in (Path(__file__).resolve().parents[1] / "locale").glob("*/LC_MESSAGES/django.po"):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            call_command("compilemessages", verbosity=0, locale=[po.parents[1].name])
