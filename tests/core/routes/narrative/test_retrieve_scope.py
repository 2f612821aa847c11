"""The narrative retrieval's scope (SPEC §7): a question naming an entity is searched within what is
about it, without its name; everything is searched only when nothing within speaks to the question.
And an English question's glossary names are all written in Chinese in one variant."""

from __future__ import annotations

from collections.abc import Sequence

from core.gates.screening import ScreenedRetriever
from core.ports import RetrievedChunk, ScopedNarrativeRetriever
from core.routes.narrative.retrieve import chunks_retrieve, queries_rewrite
from tests.fakes import demo_glossary

GLOSSARY = demo_glossary()
HK = frozenset({"ACME_HK"})


class Retriever:
    """Passages within the scope and outside it; records what it was asked."""

    def __init__(self, within: list[RetrievedChunk], everything: list[RetrievedChunk]) -> None:
        self.within, self.everything = within, everything
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.asked.append(("all", (query,)))
        return self.everything

    def retrieve_within(
        self, queries: Sequence[str], *, entities: frozenset[str], cleared: bool, k: int = 8
    ) -> list[list[RetrievedChunk]]:
        assert entities == HK
        self.asked.append(("within", tuple(queries)))
        return [self.within for _ in queries]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list:
        return []


OWN = RetrievedChunk(1, "hk_report.md", "section=经营回顾,para=1", "会员复购带动营业收入增长。", 1.0, 1, "ACME_HK")
OWN_ELSE = RetrievedChunk(2, "hk_report.md", "section=释义,para=1", "ACME香港指本公司。", 1.0, 1, "ACME_HK")
OTHER = RetrievedChunk(3, "sea_report.md", "section=经营回顾,para=1", "新店开业带动营业收入增长。", 1.0, 2, "ACME_SEA")


def test_a_named_entity_is_searched_within_its_scope_without_its_name() -> None:
    retriever = Retriever([OWN], [OTHER])
    assert isinstance(retriever, ScopedNarrativeRetriever)
    found = chunks_retrieve(
        "香港营业收入为什么增长", retriever=retriever, glossary=GLOSSARY, cleared=False, entities=HK
    )
    assert [c.chunk_id for c in found] == [1]
    assert [kind for kind, _ in retriever.asked] == ["within"]
    assert not any("香港" in query for query in retriever.asked[0][1])


def test_everything_is_searched_when_nothing_within_speaks_to_the_question() -> None:
    retriever = Retriever([OWN_ELSE], [OTHER])  # its own passage matches by its name alone
    found = chunks_retrieve(
        "香港营业收入为什么增长", retriever=retriever, glossary=GLOSSARY, cleared=False, entities=HK
    )
    assert [c.chunk_id for c in found] == [3]
    assert retriever.asked[1] == ("all", ("香港营业收入为什么增长",))


def test_a_retriever_that_cannot_scope_is_asked_the_question_as_it_is() -> None:
    class Unscoped:
        def __init__(self) -> None:
            self.queries: list[str] = []

        def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
            self.queries.append(query)
            return [OWN]

        def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list:
            return []

    inner = Unscoped()
    found = chunks_retrieve(
        "香港营业收入为什么增长",
        retriever=ScreenedRetriever(inner, GLOSSARY),
        glossary=GLOSSARY,
        cleared=False,
        entities=HK,
    )
    assert found and inner.queries[0] == "香港营业收入为什么增长"


def test_every_english_name_is_written_in_chinese_in_one_variant() -> None:
    queries = queries_rewrite("Hong Kong revenue decline", GLOSSARY)
    assert queries[1] == "acme香港 营业收入 decline"
    assert len(queries) <= 5
    # a Chinese question gets no such variant first: its names are Chinese already
    assert queries_rewrite("香港营业收入为什么下降", GLOSSARY)[1] != "香港 营业收入 为什么下降"
