"""LLM provider adapters and the factory that picks one from the settings.

`provider_from_settings(config)` takes `settings.RAGSPINE` plus the keys `ANTHROPIC_API_KEY`,
`OPENAI_API_KEY`, `LLM_TIMEOUT` and `LLM_MAX_RETRIES`, and returns an `LLMProvider`:

| `LLM_PROVIDER` (env `RAGSPINE_LLM_PROVIDER`) | provider | key | default `LLM_MODEL` |
|---|---|---|---|
| `mock` (or empty) | `core.routes.lookup.provider.MockProvider` | none | none |
| `anthropic` | `AnthropicProvider` | `ANTHROPIC_API_KEY` | `claude-sonnet-4-6` |
| `openai` | `OpenAICompatibleProvider` | `OPENAI_API_KEY` | `gpt-4o-mini` |

The default models are only defaults: set `RAGSPINE_LLM_MODEL` to choose another one, and
`RAGSPINE_LLM_BASE_URL` for a proxy or an OpenAI-compatible server (vLLM, DashScope, Ollama…;
for Anthropic the server root, for OpenAI-compatible servers the URL ending in `/v1`).
An incomplete configuration raises `ValueError` naming the variable to set;
`config_problems(config)` lists the same problems, plus warnings, without raising.

The SDKs are imported only when their provider is built, so `mock` needs neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core.routes.lookup.provider import MockProvider

if TYPE_CHECKING:
    from core.ports import LLMProvider

    from ._base import SdkProvider

PROVIDERS = ("mock", "anthropic", "openai")
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4o-mini"}
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class _Settings:
    provider: str
    model: str
    base_url: str | None
    api_key: str
    timeout: float
    max_retries: int
    errors: tuple[str, ...]
    warnings: tuple[str, ...]


def _text(config: Mapping[str, object], key: str) -> str:
    value = config.get(key)
    return "" if value is None else str(value).strip()


def _settings_read(config: Mapping[str, object]) -> _Settings:
    errors: list[str] = []
    warnings: list[str] = []
    provider = _text(config, "LLM_PROVIDER").lower() or "mock"
    if provider not in PROVIDERS:
        errors.append(f"RAGSPINE_LLM_PROVIDER is '{provider[:40]}'; it must be one of {', '.join(PROVIDERS)}.")
    model = _text(config, "LLM_MODEL")
    base_url = _text(config, "LLM_BASE_URL") or None
    api_key = _text(config, KEY_VARIABLES[provider]) if provider in KEY_VARIABLES else ""

    timeout = DEFAULT_TIMEOUT
    raw_timeout = config.get("LLM_TIMEOUT")
    if raw_timeout not in (None, ""):
        try:
            timeout = float(str(raw_timeout))
        except ValueError:
            errors.append(f"LLM_TIMEOUT is '{raw_timeout}'; it must be a number of seconds.")
        else:
            if not timeout > 0:
                errors.append(f"LLM_TIMEOUT is {raw_timeout}; it must be more than 0 seconds.")
    max_retries = DEFAULT_MAX_RETRIES
    raw_retries = config.get("LLM_MAX_RETRIES")
    if raw_retries not in (None, ""):
        try:
            max_retries = int(str(raw_retries))
        except ValueError:
            errors.append(f"LLM_MAX_RETRIES is '{raw_retries}'; it must be a whole number.")
        else:
            if max_retries < 0:
                errors.append(f"LLM_MAX_RETRIES is {raw_retries}; it must be 0 or more.")

    if base_url is not None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            errors.append(f"RAGSPINE_LLM_BASE_URL is '{base_url}'; it must be an http(s) URL.")

    if provider in KEY_VARIABLES:
        variable = KEY_VARIABLES[provider]
        if not api_key:
            hint = " (any non-empty value for a keyless OpenAI-compatible server)" if provider == "openai" else ""
            errors.append(f"RAGSPINE_LLM_PROVIDER is '{provider}' but {variable} is not set; set {variable}{hint}.")
        if not model:
            model = DEFAULT_MODELS[provider]
            if provider == "openai" and base_url is not None:
                warnings.append(
                    f"RAGSPINE_LLM_BASE_URL points to '{base_url}' but RAGSPINE_LLM_MODEL is not set; "
                    f"the default model '{model}' may not exist on that server."
                )
    elif provider == "mock":
        # Only the LLM's own variables: OPENAI_API_KEY may well serve the embedder alone.
        unused = [f"RAGSPINE_{name}" for name in ("LLM_MODEL", "LLM_BASE_URL") if _text(config, name)]
        if unused:
            warnings.append(
                f"RAGSPINE_LLM_PROVIDER is 'mock' (the offline default), so {' and '.join(unused)} "
                "is ignored; set RAGSPINE_LLM_PROVIDER to anthropic or openai to use a real model."
            )
    return _Settings(provider, model, base_url, api_key, timeout, max_retries, tuple(errors), tuple(warnings))


def config_problems(config: Mapping[str, object]) -> list[str]:
    """Human-readable problems of an LLM configuration: errors first, then warnings; [] when fine."""
    settings = _settings_read(config)
    return [*settings.errors, *settings.warnings]


def provider_from_settings(config: Mapping[str, object]) -> LLMProvider:
    """The configured provider; `ValueError` (naming the variable to set) when it cannot be built."""
    settings = _settings_read(config)
    if settings.errors:
        raise ValueError("LLM provider is misconfigured: " + " ".join(settings.errors))
    provider_class: type[SdkProvider]
    if settings.provider == "anthropic":
        from .anthropic_provider import AnthropicProvider

        provider_class = AnthropicProvider
    elif settings.provider == "openai":
        from .openai_provider import OpenAICompatibleProvider

        provider_class = OpenAICompatibleProvider
    else:
        return MockProvider()
    return provider_class(
        api_key=settings.api_key,
        model=settings.model,
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )


__all__ = ["DEFAULT_MODELS", "PROVIDERS", "config_problems", "provider_from_settings"]
