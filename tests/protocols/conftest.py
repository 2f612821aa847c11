from __future__ import annotations

# Defined once, next to the stub servers; a conftest import makes it a fixture here too.
from tests.providers.conftest import hostile  # noqa: F401
