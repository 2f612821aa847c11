from tests.db.conftest import demo  # noqa: F401
