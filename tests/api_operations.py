"""The API's operations as the OpenAPI schema lists them, so suites over "every endpoint" cover
new endpoints without being told."""

from __future__ import annotations

from typing import Any

from drf_spectacular.generators import SchemaGenerator


def api_operations() -> list[tuple[str, str, dict[str, Any]]]:
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return sorted(
        (method.upper(), path, operation)
        for path, operations in paths.items()
        for method, operation in operations.items()
    )
