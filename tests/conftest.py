from __future__ import annotations

from datetime import date

import pytest

from core.glossary import GlossarySnapshot
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

REFERENCE = date(2026, 3, 15)


@pytest.fixture(scope="session")
def glossary() -> GlossarySnapshot:
    return demo_glossary()


@pytest.fixture
def store() -> InMemoryFactStore:
    return InMemoryFactStore(demo_facts())
