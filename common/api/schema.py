"""OpenAPI post-processing: every operation documents the error envelope it can answer with."""

from __future__ import annotations

from typing import Any

ERROR_ENVELOPE = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "message", "request_id"],
            "properties": {
                "type": {"type": "string"},
                "message": {"type": "string"},
                "request_id": {"type": "string"},
            },
        }
    },
}
ERRORS = {
    "400": "Bad input: the message names the field and the limit.",
    "401": "Not authenticated.",
    "403": "Authenticated, but not allowed (curator-only endpoints).",
    "404": "Not found (or not visible with this user's clearance).",
    "405": "Method not allowed.",
    "406": "Not acceptable.",
    "413": "Request body too large.",
    "415": "Unsupported media type.",
    "429": "Throttled: see Retry-After.",
    "503": "The database is unavailable; try again shortly.",
}
PUBLIC = {"/v1/health"}


def error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOK: add the shared error responses to each operation."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["ErrorEnvelope"] = ERROR_ENVELOPE
    reference = {"$ref": "#/components/schemas/ErrorEnvelope"}
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for code, description in ERRORS.items():
                if path in PUBLIC and code in ("401", "403", "429"):
                    continue
                responses.setdefault(
                    code, {"description": description, "content": {"application/json": {"schema": reference}}}
                )
    return result
