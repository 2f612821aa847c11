"""The hybrid fusion (`retrieval.fusion.scores_fuse`) and the vector candidates it fuses."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.db import connection
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.retrieval_bench import fuse_scores
from documents.services import document_ingest
from retrieval.fusion import scores_fuse
from retrieval.index import VectorIndex
from retrieval.services import chunks_embed
from tests.fakes import BigramHashEmbedder

rankings = st.lists(
    st.tuples(st.integers(0, 60), st.floats(0, 50, allow_nan=False)), max_size=25, unique_by=lambda p: p[0]
).map(lambda pairs: sorted(pairs, key=lambda p: -p[1]))


@settings(max_examples=300, derandomize=True)
@given(rankings, rankings, st.sampled_from([0.0, 0.25, 0.4, 0.5, 0.75]))
@example([(1, 2.0), (2, 5e-324), (0, 0.0)], [], 0.0)  # a score that scales to 0 keeps its place
def test_fusion_keeps_every_candidate_and_respects_each_lists_order(lexical, vector, alpha) -> None:
    fused = scores_fuse(lexical, vector, alpha=alpha)
    ids = [item for item, _ in fused]
    assert sorted(ids) == sorted({item for item, _ in lexical} | {item for item, _ in vector})
    assert all(0.0 <= score <= 1.0 + 1e-9 for _, score in fused)
    position = {item: n for n, item in enumerate(ids)}
    only_lexical = [(i, s) for i, s in lexical if i not in {v for v, _ in vector}]
    # Among documents the vector side lacks (e.g. not embedded yet), BM25's order stands.
    for (first, high), (second, low) in itertools.pairwise(only_lexical):
        if high > low:
            assert position[first] < position[second]


@settings(max_examples=200, derandomize=True)
@given(rankings, rankings, st.sampled_from([0.25, 0.4, 0.5]))
def test_the_benchmark_measures_the_product_fusion(lexical, vector, alpha) -> None:
    def as_lists(r):
        return ([i for i, _ in r], [s for _, s in r])

    assert fuse_scores(as_lists(lexical), as_lists(vector), alpha=alpha) == [
        i for i, _ in scores_fuse(lexical, vector, alpha=alpha)
    ]


def test_each_list_counts_by_its_own_spread_not_its_raw_scale() -> None:
    lexical = [(1, 20.0), (2, 4.0), (3, 3.0)]
    vector = [(4, 0.86), (2, 0.85), (1, 0.80)]  # a narrow cosine band, as e5 gives
    fused = scores_fuse(lexical, vector)
    assert [i for i, _ in fused] == [1, 4, 2, 3]
    assert fused[0][1] == pytest.approx(0.6) and fused[1][1] == pytest.approx(0.4)
    assert scores_fuse([], vector) == [(4, 0.4), (2, pytest.approx(0.4 * 0.05 / 0.06)), (1, 0.0)]


@pytest.mark.django_db
def test_vector_search_returns_as_many_candidates_as_asked(demo: Any) -> None:
    """pgvector's HNSW scan stops at `hnsw.ef_search` rows (40 by default); hybrid asks for 50."""
    lines = "".join(f"## 段{n}\n华南第{n}号智能仓投产，单件物流成本下降{n}分。\n" for n in range(70))
    document = document_ingest(name="many.md", data=f"# 多\n{lines}".encode()).document
    embedder = BigramHashEmbedder()
    chunks_embed(embedder=embedder, document_id=document.pk)
    found = VectorIndex().search(embedder.embed_query("智能仓物流成本"), cleared=False, k=50, space=embedder.signature)
    assert len(found) == 50, connection.vendor
