from tests.db.conftest import analyst, cleared, demo  # noqa: F401
