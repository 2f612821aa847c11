"""What both SDK-backed providers share: settings, the SDK client, and a `repr` without the key."""

from __future__ import annotations

from typing import Any


class SdkProvider:
    name = ""
    tool_format = ""

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._client = self._client_build(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=max_retries
        )

    def _client_build(self, **options: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={str(self._client.base_url)!r})"
