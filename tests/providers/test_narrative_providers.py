"""The narrative channel (synthesis, grounding, listwise rerank) over the real SDKs and stub servers."""

from __future__ import annotations

from typing import Any

import pytest

from core.glossary import GlossarySnapshot
from core.model.result import Source
from core.ports import RetrievedChunk
from core.routes.narrative.answer import SYNTHESIS_SYSTEM, NarrativeOutcome, narrative_answer
from tests.providers import stub_servers as stubs
from tests.providers.conftest import ANTHROPIC, Flavor

QUESTION = "香港收入为什么下降"
MDNA = RetrievedChunk(
    1, "mdna.pdf", "section=二、香港业务,para=1", "香港营业收入同比下降6.7%。主要原因是访港旅客消费结构变化。", 9.0, 11
)
HK = RetrievedChunk(2, "hk.pdf", "section=客流与客单价,para=1", "铜锣湾旗舰店客流同比下降15%。", 5.0, 12)


class TwoChunkRetriever:
    """Always the same two chunks, in the same order, so the fused order is MDNA then HK."""

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        return [MDNA, HK][:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def narrate(provider: Any, glossary: GlossarySnapshot, *, rerank: bool = False) -> NarrativeOutcome:
    return narrative_answer(
        QUESTION,
        retriever=TwoChunkRetriever(),
        glossary=glossary,
        cleared=False,
        language="zh",
        llm=provider,
        rerank=rerank,
    )


def prompt_of(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"]


def test_a_synthesis_that_cites_nothing_gets_its_sources_appended(
    flavor: Flavor, stub: stubs.StubServer, glossary
) -> None:
    stub.script(flavor.prose("香港收入下降，主要因为旅客消费结构变化。"))
    outcome = narrate(flavor.provider(stub), glossary)

    assert outcome.kind == "answer"
    assert outcome.text.endswith(
        "（资料来源：mdna.pdf section=二、香港业务,para=1；hk.pdf section=客流与客单价,para=1）"
    )
    assert {s.doc for s in outcome.sources} == {"mdna.pdf", "hk.pdf"}
    body = stub.requests[0].body
    assert "tools" not in body  # synthesis offers no tool
    if flavor is ANTHROPIC:
        assert body["system"] == SYNTHESIS_SYSTEM
    else:
        assert body["messages"][0] == {"role": "system", "content": SYNTHESIS_SYSTEM}
    assert "[1] （mdna.pdf" in prompt_of(body) and "[2] （hk.pdf" in prompt_of(body)
    assert outcome.usage == {"input_tokens": 150, "output_tokens": 30}


def test_a_synthesis_that_invents_a_figure_has_it_removed(flavor: Flavor, stub: stubs.StubServer, glossary) -> None:
    stub.script(flavor.prose("香港收入下降6.7% [1]。预计明年反弹至30,000百万元 [2]。"))
    outcome = narrate(flavor.provider(stub), glossary)

    assert "6.7%" in outcome.text and "30,000" not in outcome.text
    assert outcome.numbers_unsupported == 1
    assert "（已移除 1 处无法在资料中核实的数字）" in outcome.text


@pytest.mark.parametrize(
    ("ranking", "first_in_prompt"),
    [
        pytest.param("I cannot rank these: [7, 9, 0]", "mdna.pdf", id="garbage-keeps-fused-order"),
        pytest.param("[2, 1]", "hk.pdf", id="valid-ranking-reorders"),
    ],
)
def test_listwise_rerank_reorders_only_on_a_usable_ranking(
    flavor: Flavor, stub: stubs.StubServer, glossary, ranking: str, first_in_prompt: str
) -> None:
    stub.script(flavor.prose(ranking), flavor.prose("香港收入下降6.7% [1]。"))
    outcome = narrate(flavor.provider(stub), glossary, rerank=True)

    assert len(stub.requests) == 2
    assert "按与问题的相关性从高到低排列编号" in prompt_of(stub.bodies()[0])
    synthesis_prompt = prompt_of(stub.bodies()[1])
    assert f"[1] （{first_in_prompt}" in synthesis_prompt
    assert outcome.kind == "answer" and outcome.text.strip()
    assert outcome.usage == {"input_tokens": 300, "output_tokens": 60}  # rerank + synthesis


def test_a_failing_synthesis_degrades_with_no_number(flavor: Flavor, stub: stubs.StubServer, glossary) -> None:
    stub.script(flavor.error(503, "overloaded"))
    outcome = narrate(flavor.provider(stub), glossary)

    assert outcome.kind == "degraded"
    assert outcome.text == "AI 服务暂时不可用，未能生成归因，请稍后再试。"
