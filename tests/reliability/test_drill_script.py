"""The drill (`make reliability`) runs outside CI; these keep its parts honest in CI: its LLM
stub speaks the Chat Completions protocol to the real OpenAI SDK, fails the way a provider
does, and the script starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openai
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from reliability import Llm  # noqa: E402


def test_the_drill_llm_answers_through_the_real_sdk_and_fails_on_demand() -> None:
    llm = Llm()
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{llm.port}/v1", api_key="drill-key", max_retries=0)
    reply = client.chat.completions.create(model="drill", messages=[{"role": "user", "content": "香港收入为什么下降"}])
    assert reply.choices[0].message.content == "资料对此有说明 [1]。"
    llm.failing = True
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="drill", messages=[{"role": "user", "content": "x"}])
    assert llm.calls == 2
    llm.server.shutdown()


def test_the_drill_script_starts() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/reliability.py", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "--clients" in done.stdout
