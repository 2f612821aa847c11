from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from ingestion.ir import Block
from ingestion.text import blocks_from_text
from retrieval.chunking import chunks_build
from retrieval.engine import BM25Index
from retrieval.text import tokens

DOC = """# 年报
## 一、概况
第一段。
第二段。
## 二、香港业务
香港段落。
"""


def test_markdown_sections_become_locators() -> None:
    title, blocks = blocks_from_text(DOC, markdown=True)
    assert title == "年报"
    drafts = chunks_build(blocks)
    assert [d.locator for d in drafts] == ["section=一、概况,para=1-2", "section=二、香港业务,para=1"]
    assert drafts[0].text == "第一段。\n第二段。"


def test_long_paragraphs_split_on_sentence_ends_with_overlap() -> None:
    sentence = "这是一个用于测试切分是否按句号进行的句子。"
    text = sentence * 60
    drafts = chunks_build([Block(text, "page=2", 4)])
    assert len(drafts) > 2
    assert all(d.locator == "page=2,para=4" for d in drafts)
    assert all(len(d.text) <= 480 for d in drafts)
    assert all(d.text.endswith("。") for d in drafts)
    assert drafts[1].text.startswith(sentence)  # the overlap: the previous piece's last sentence


def test_paragraphs_pack_greedily_to_the_target() -> None:
    blocks = [Block("字" * 200 + "。", "slide=3", n) for n in range(1, 6)]
    drafts = chunks_build(blocks)
    assert all(len(d.text) <= 480 + 100 for d in drafts)
    assert drafts[0].locator == "slide=3,para=1-2"


def test_tokens_have_words_bigrams_and_ascii() -> None:
    out = tokens("香港收入 HK Revenue FY2025")
    assert {"香港", "收入", "港收", "hk", "revenue", "fy2025"} <= set(out)
    assert tokens("競安") == tokens("竞安")


def test_bm25_ranks_like_rank_bm25() -> None:
    corpus = [
        tokens(t)
        for t in ["香港营业收入下降", "东南亚营业收入增长", "存储芯片价格上涨", "香港门店客流下降", "监管政策"]
    ]
    ours = BM25Index(corpus)
    reference = BM25Okapi(corpus, k1=1.5, b=0.75)
    for query in ["香港收入为什么下降", "存储芯片", "营业收入"]:
        q = tokens(query)
        top, _ = ours.search(q, 3)
        ref_scores = reference.get_scores(q)
        expected = [i for i in np.argsort(-ref_scores, kind="stable") if ref_scores[i] > 0][:2]
        assert list(top[:2]) == expected, query


def test_bm25_weights_are_okapi_and_the_documents_may_be_streamed() -> None:
    documents = [["a", "b", "a"], ["b", "c"], [], ["a", "d", "d", "d"]]
    index = BM25Index(iter(documents))  # read once, as the per-process index streams the chunk table
    n, average = len(documents), sum(map(len, documents)) / len(documents)
    for term, row in index.vocabulary.items():
        df = sum(term in d for d in documents)
        idf = np.log((n - df + 0.5) / (df + 0.5) + 1.0)
        for doc, words in enumerate(documents):
            tf = words.count(term)
            expected = idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * len(words) / average)) if tf else 0.0
            assert index.matrix[row, doc] == pytest.approx(expected, rel=1e-5), (term, doc)
    assert index.matrix.shape == (4, 4) and BM25Index(iter([])).size == 0


def test_bm25_mask_hides_documents_before_the_top_k() -> None:
    index = BM25Index([tokens("蓝鲸项目估值"), tokens("蓝鲸"), tokens("香港")])
    top, _ = index.search(tokens("蓝鲸"), 2, allowed=np.array([False, True, True]))
    assert list(top) == [1]


@pytest.mark.parametrize("query", ["", "完全无关的话"])
def test_bm25_returns_nothing_without_overlap(query: str) -> None:
    top, scores = BM25Index([tokens("香港营业收入")]).search(tokens(query), 5)
    assert len(top) == 0 and len(scores) == 0


@pytest.mark.parametrize("at", [0, 150, 319, 320, 399, 400, 401, 639, 640])
def test_a_hard_cut_never_splits_a_short_name_across_pieces(at: int) -> None:
    run_on = "甲" * at + "竞安" + "乙" * (1000 - at)  # one sentence, no end mark: cut hard
    pieces = [draft.text for draft in chunks_build([Block(run_on, "section=a")])]
    assert len(pieces) > 1
    assert any("竞安" in piece for piece in pieces)
    assert all(len(piece) <= 480 for piece in pieces)
