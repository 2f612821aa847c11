"""`provider_from_settings` and `config_problems`: the provider a configuration yields, or why not."""

from __future__ import annotations

import pytest

from agent.providers import DEFAULT_MODELS, config_problems, provider_from_settings
from agent.providers.anthropic_provider import AnthropicProvider
from agent.providers.openai_provider import OpenAICompatibleProvider
from core.routes.lookup.provider import MockProvider

KEY = "sk-settings-test-key"


def config(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "LLM_PROVIDER": "mock",
        "LLM_MODEL": "",
        "LLM_BASE_URL": "",
        "EMBEDDER": "none",
        "ANTHROPIC_API_KEY": "",
        "OPENAI_API_KEY": "",
        "LLM_TIMEOUT": 30.0,
        "LLM_MAX_RETRIES": 2,
    }
    return {**base, **overrides}


@pytest.mark.parametrize("name", ["mock", "", "  MOCK "])
def test_mock_is_the_default(name: str) -> None:
    assert isinstance(provider_from_settings(config(LLM_PROVIDER=name)), MockProvider)
    assert config_problems(config(LLM_PROVIDER=name)) == []


def test_a_bare_mapping_with_no_llm_keys_is_mock() -> None:
    assert isinstance(provider_from_settings({}), MockProvider)


def test_anthropic_with_a_key_uses_the_default_model_and_the_settings() -> None:
    provider = provider_from_settings(
        config(
            LLM_PROVIDER="anthropic",
            ANTHROPIC_API_KEY=KEY,
            LLM_BASE_URL="http://gateway.internal:8080",
            LLM_TIMEOUT="12.5",
            LLM_MAX_RETRIES="4",
        )
    )
    assert isinstance(provider, AnthropicProvider)
    assert provider.model == DEFAULT_MODELS["anthropic"] == "claude-sonnet-4-6"
    assert provider.tool_format == "anthropic"
    client = provider._client
    assert str(client.base_url).rstrip("/") == "http://gateway.internal:8080"
    assert client.timeout == 12.5 and client.max_retries == 4
    assert KEY not in repr(provider)


def test_openai_with_a_key_and_a_model_override() -> None:
    provider = provider_from_settings(
        config(
            LLM_PROVIDER="openai",
            OPENAI_API_KEY=KEY,
            LLM_MODEL="qwen2.5-72b-instruct",
            LLM_BASE_URL="http://vllm:8000/v1",
        )
    )
    assert isinstance(provider, OpenAICompatibleProvider)
    assert provider.model == "qwen2.5-72b-instruct" and provider.tool_format == "openai"
    assert str(provider._client.base_url).rstrip("/") == "http://vllm:8000/v1"
    assert provider._client.timeout == 30.0 and provider._client.max_retries == 2


def test_openai_defaults_to_gpt_4o_mini() -> None:
    provider = provider_from_settings(config(LLM_PROVIDER="openai", OPENAI_API_KEY=KEY))
    assert provider.model == "gpt-4o-mini"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "variable"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_a_missing_key_is_a_clear_error(name: str, variable: str) -> None:
    # The other provider's key does not count.
    other = {"anthropic": "OPENAI_API_KEY", "openai": "ANTHROPIC_API_KEY"}[name]
    settings = config(LLM_PROVIDER=name, **{other: KEY})
    with pytest.raises(ValueError, match=variable) as caught:
        provider_from_settings(settings)
    assert "RAGSPINE_LLM_PROVIDER" in str(caught.value)
    [problem] = config_problems(settings)
    assert variable in problem and name in problem


def test_an_unknown_provider_names_the_variable_and_the_choices() -> None:
    with pytest.raises(ValueError, match="RAGSPINE_LLM_PROVIDER") as caught:
        provider_from_settings(config(LLM_PROVIDER="gemini"))
    assert "mock, anthropic, openai" in str(caught.value)
    assert any("gemini" in p for p in config_problems(config(LLM_PROVIDER="gemini")))


@pytest.mark.parametrize(
    ("overrides", "variable"),
    [
        ({"LLM_BASE_URL": "gateway.internal:8080"}, "RAGSPINE_LLM_BASE_URL"),
        ({"LLM_TIMEOUT": "soon"}, "LLM_TIMEOUT"),
        ({"LLM_TIMEOUT": 0}, "LLM_TIMEOUT"),
        ({"LLM_MAX_RETRIES": -1}, "LLM_MAX_RETRIES"),
        ({"LLM_MAX_RETRIES": "many"}, "LLM_MAX_RETRIES"),
    ],
)
def test_bad_values_are_errors(overrides: dict[str, object], variable: str) -> None:
    settings = config(LLM_PROVIDER="anthropic", ANTHROPIC_API_KEY=KEY, **overrides)
    with pytest.raises(ValueError, match=variable):
        provider_from_settings(settings)
    assert any(variable in p for p in config_problems(settings))


def test_a_complete_configuration_has_no_problems() -> None:
    assert config_problems(config(LLM_PROVIDER="anthropic", ANTHROPIC_API_KEY=KEY)) == []
    assert config_problems(config(LLM_PROVIDER="openai", OPENAI_API_KEY=KEY, LLM_MODEL="gpt-4.1")) == []


def test_an_openai_compatible_server_without_a_model_is_a_warning_not_an_error() -> None:
    settings = config(LLM_PROVIDER="openai", OPENAI_API_KEY=KEY, LLM_BASE_URL="http://vllm:8000/v1")
    [warning] = config_problems(settings)
    assert "RAGSPINE_LLM_MODEL" in warning and "gpt-4o-mini" in warning
    assert isinstance(provider_from_settings(settings), OpenAICompatibleProvider)


def test_llm_settings_under_mock_are_flagged_as_ignored() -> None:
    settings = config(LLM_MODEL="claude-opus-4-1", OPENAI_API_KEY=KEY)
    [warning] = config_problems(settings)
    assert "RAGSPINE_LLM_MODEL" in warning and "mock" in warning
    assert "OPENAI_API_KEY" not in warning  # it may serve the embedder alone
    assert isinstance(provider_from_settings(settings), MockProvider)


def test_problems_never_show_the_key() -> None:
    settings = config(LLM_PROVIDER="anthropic", ANTHROPIC_API_KEY=KEY, LLM_BASE_URL="ftp://x", LLM_TIMEOUT="x")
    problems = config_problems(settings)
    assert len(problems) == 2 and all(KEY not in p for p in problems)
