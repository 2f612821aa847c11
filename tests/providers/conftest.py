from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from agent.providers.anthropic_provider import AnthropicProvider
from agent.providers.openai_provider import OpenAICompatibleProvider
from tests.providers import stub_servers as stubs
from tests.providers.hostile import HOSTILE_REPLY

API_KEY = "sk-test-5f0c2e9a-not-a-real-key"


@dataclass(frozen=True)
class Flavor:
    """One wire protocol: how to build its provider, script its server and read its requests."""

    name: str
    path: str

    def provider(self, stub: stubs.StubServer, *, timeout: float = 5.0) -> Any:
        if self.name == "anthropic":
            return AnthropicProvider(
                api_key=API_KEY, model="claude-test", base_url=stub.root, timeout=timeout, max_retries=0
            )
        return OpenAICompatibleProvider(
            api_key=API_KEY, model="gpt-test", base_url=stub.root + "/v1", timeout=timeout, max_retries=0
        )

    def tool_call(self, arguments: Any, *, name: str = "query_metric", text: str = "") -> stubs.Reply:
        """A reply calling one tool; for OpenAI a str is sent as the raw `arguments` string."""
        if self.name == "anthropic":
            blocks = ([stubs.anthropic_text(text)] if text else []) + [stubs.anthropic_tool_use(name, arguments)]
            return stubs.anthropic_message(*blocks, input_tokens=100, output_tokens=20)
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return stubs.openai_completion(
            text or None, [stubs.openai_tool_call(name, raw)], prompt_tokens=100, completion_tokens=20
        )

    def prose(self, text: str) -> stubs.Reply:
        if self.name == "anthropic":
            return stubs.anthropic_message(stubs.anthropic_text(text), input_tokens=150, output_tokens=30)
        return stubs.openai_completion(text, prompt_tokens=150, completion_tokens=30)

    def error(self, status: int, message: str = "upstream trouble") -> stubs.Reply:
        return (
            stubs.anthropic_error(status, message) if self.name == "anthropic" else stubs.openai_error(status, message)
        )

    def tool_results(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(tool call id, parsed result) for every tool result a recorded request carried."""
        found = []
        for message in body["messages"]:
            if self.name == "anthropic":
                if message["role"] == "user" and isinstance(message["content"], list):
                    found += [
                        (b["tool_use_id"], json.loads(b["content"]))
                        for b in message["content"]
                        if b["type"] == "tool_result"
                    ]
            elif message["role"] == "tool":
                found.append((message["tool_call_id"], json.loads(message["content"])))
        return found

    def call_id(self) -> str:
        return "toolu_01" if self.name == "anthropic" else "call_01"


ANTHROPIC = Flavor("anthropic", "/v1/messages")
OPENAI = Flavor("openai", "/v1/chat/completions")


@pytest.fixture(autouse=True)
def _no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy configured on the host must not intercept the local stub servers.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture(params=[ANTHROPIC, OPENAI], ids=lambda f: f.name)
def flavor(request: pytest.FixtureRequest) -> Flavor:
    return request.param


@pytest.fixture
def stub(flavor: Flavor) -> Iterator[stubs.StubServer]:
    with stubs.stub_serve(flavor.path) as server:
        yield server


@pytest.fixture
def hostile(settings: Any) -> Iterator[stubs.StubServer]:
    """The whole app wired to the hostile model, with LLM routing and reranking on.

    Also used by `tests/protocols`, whose conftest imports it.
    """
    with stubs.stub_serve(OPENAI.path) as stub:
        stub.default = stubs.openai_completion(HOSTILE_REPLY)
        settings.RAGSPINE = {
            **settings.RAGSPINE,
            "LLM_PROVIDER": "openai",
            "LLM_MODEL": "hostile",
            "LLM_BASE_URL": stub.root + "/v1",
            "OPENAI_API_KEY": API_KEY,
            "LLM_MAX_RETRIES": 0,
            "LLM_ROUTING": True,
            "RERANK": True,
        }
        yield stub
