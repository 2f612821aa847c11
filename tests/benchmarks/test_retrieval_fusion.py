"""The pure parts of the semantic retrieval benchmark: fusions on toy rankings, the
metrics on toy data, the cross-set tuning protocol and the e5 vector cache (with a stand-in
embedder: no real corpus is embedded here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import e5_vectors, retrieval_bench
from benchmarks.retrieval_bench import (
    bigram_tokens,
    delta_interval,
    fuse_lexical_first,
    fuse_rescue,
    fuse_rrf,
    fuse_scores,
    fuse_zscores,
    fusion_tune,
    ranking_quality,
    reciprocal_ranks,
)


def test_rrf_equal_weights_puts_a_document_both_lists_rank_first_on_top() -> None:
    assert fuse_rrf([[1, 2, 3], [2, 4, 1]])[:2] == [2, 1]


def test_weighted_rrf_lets_the_heavier_list_lead() -> None:
    lexical, dense = [1, 2], [3, 4]
    assert fuse_rrf([lexical, dense], weights=(1.0, 1.0))[0] == 1  # tie on score: smaller id first
    assert fuse_rrf([lexical, dense], weights=(1.0, 2.0))[:2] == [3, 4]
    assert fuse_rrf([lexical, dense], weights=(1.0, 0.5))[:2] == [1, 2]


def test_small_rrf_k_rewards_a_first_place_more_than_agreement_lower_down() -> None:
    lexical, dense = [7, 1, 5, 6], [8, 2, 6, 5]
    # 7 and 8 are each first once; 5 and 6 are third and fourth in both lists.
    assert set(fuse_rrf([lexical, dense], k=1)[:2]) == {7, 8}
    assert set(fuse_rrf([lexical, dense], k=60)[:2]) == {5, 6}


def test_lexical_first_keeps_the_bm25_head_and_fuses_the_rest() -> None:
    fused = fuse_lexical_first([1, 2, 3, 4], [9, 4, 8], keep=2)
    assert fused[:2] == [1, 2]
    assert fused[2] == 4  # in both lists, so RRF puts it first among the rest
    assert sorted(fused) == [1, 2, 3, 4, 8, 9]


def test_rescue_adds_dense_documents_bm25_missed_without_reordering_its_head() -> None:
    lexical = list(range(10))
    fused = fuse_rescue(lexical, [3, 42, 43, 44], slots=2, depth=10)
    assert fused[:8] == list(range(8))
    assert fused[8:10] == [42, 43]  # 3 is already in BM25's head, 44 is beyond the slots
    assert fused[10:] == [8, 9]


def test_score_fusion_normalises_each_list_before_mixing() -> None:
    lexical = ([1, 2], [30.0, 10.0])  # BM25 scale
    dense = ([2, 1], [0.83, 0.82])  # a narrow cosine band
    assert fuse_scores(lexical, dense, alpha=0.5) == [1, 2]  # 1.0 + 0.0 vs 0.0 + 1.0: a tie, smaller id first
    assert fuse_scores(lexical, dense, alpha=0.9)[0] == 2
    assert fuse_scores(lexical, dense, alpha=0.1)[0] == 1


def test_mrr_and_recall_at_k_on_toy_rankings() -> None:
    tops = [[5, 1, 2], [9, 8, 7], [3]]
    relevant = [frozenset({1}), frozenset({7, 4}), frozenset({3})]
    assert reciprocal_ranks(tops, relevant, k=3).tolist() == [0.5, pytest.approx(1 / 3), 1.0]
    assert ranking_quality(tops, relevant, k=3) == {"mrr@3": round((0.5 + 1 / 3 + 1) / 3, 4), "recall@3": 0.8333}
    assert reciprocal_ranks(tops, relevant, k=2).tolist() == [0.5, 0.0, 1.0]  # 7 is third: outside k = 2


def test_delta_interval_is_exact_for_a_constant_gain_and_straddles_zero_for_noise() -> None:
    base = np.array([0.5, 0.25, 1.0, 0.0])
    assert delta_interval(base + 0.1, base) == (0.1, 0.1, 0.1)
    mean, low, high = delta_interval(np.array([1.0, 0.0] * 50), np.array([0.0, 1.0] * 50))
    assert mean == 0.0 and low < 0 < high


def test_tuning_picks_the_grid_point_with_the_best_mrr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(retrieval_bench.GRIDS, "rescue", [{"slots": 1}, {"slots": 3}])
    lexical = [(list(range(10)), [1.0] * 10)] * 2
    dense = [([20, 21, 22], [0.9, 0.8, 0.7])] * 2
    relevant = [frozenset({22})] * 2  # only three rescue slots bring it into the top 10
    assert fusion_tune("rescue", lexical, dense, relevant) == {"slots": 3}


def test_semantic_reports_each_set_with_parameters_tuned_on_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retrieval_bench, "GRIDS", {"rescue": [{"slots": 1}, {"slots": 3}]})
    # Test doubles for both rankers: BM25 always returns 10..19, the dense side 9, 8, 7.
    monkeypatch.setattr(
        retrieval_bench,
        "bm25_lists",
        lambda corpus, questions, n=50: [(list(range(10, 20)), [1.0] * 10)] * len(questions),
    )
    monkeypatch.setattr(
        retrieval_bench,
        "e5_lists",
        lambda corpus, questions, n=50, cached_only=False: [([9, 8, 7], [0.9, 0.8, 0.7])] * len(questions),
    )
    sets = {
        "A": (["a"] * 20, [("q", frozenset({7}))]),  # only three rescue slots reach 7
        "B": (["b"] * 20, [("q", frozenset({17}))]),  # BM25's 8th: three slots push it out of the top 10
    }
    out = retrieval_bench.semantic(sets)
    assert out["tuned_on"] == {"A": {"rescue": {"slots": 3}}, "B": {"rescue": {"slots": 1}}}
    a, b = out["sets"]["A"]["rows"]["rescue_tuned"], out["sets"]["B"]["rows"]["rescue_tuned"]
    assert (a["params"], a["tuned_on"], a["mrr@10"]) == ({"slots": 1}, "B", 0.0)
    assert (b["params"], b["tuned_on"], b["mrr@10"]) == ({"slots": 3}, "A", 0.0)
    assert out["sets"]["B"]["rows"]["bm25"]["mrr@10"] == 0.125
    assert out["sets"]["B"]["goal_mrr@10"] == 0.155 and out["sets"]["B"]["goal_reachable"] is True


def test_plain_bigrams_do_not_fold_traditional_characters() -> None:
    assert bigram_tokens("發展ABC为") == ["ABC", "發展", "为"]
    assert "发展" not in bigram_tokens("發展")


def _stand_in(calls: list[list[str]]):
    def embed(texts: list[str], kind: str) -> np.ndarray:
        calls.append(list(texts))
        rows = np.array([[len(t), kind == "query"] + [0.0] * (e5_vectors.DIM - 2) for t in texts], dtype=np.float32)
        return rows

    return embed


def test_cache_key_changes_with_texts_kind_and_model() -> None:
    key = e5_vectors.cache_key(["a", "b"], "passage", "m1")
    assert key == e5_vectors.cache_key(["a", "b"], "passage", "m1")
    assert key != e5_vectors.cache_key(["a", "c"], "passage", "m1")
    assert key != e5_vectors.cache_key(["ab"], "passage", "m1")  # joining texts differently is another key
    assert key != e5_vectors.cache_key(["a", "b"], "query", "m1")
    assert key != e5_vectors.cache_key(["a", "b"], "passage", "m2")
    with pytest.raises(ValueError):
        e5_vectors.cache_key(["a"], "document", "m1")


def test_vectors_are_read_back_from_the_cache_and_only_changed_blocks_are_embedded(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    texts = [f"text {i}" for i in range(e5_vectors.BLOCK + 3)]
    first = e5_vectors.vectors_cached(texts, "passage", directory=tmp_path, embed=_stand_in(calls), signature="t")
    assert first.shape == (len(texts), e5_vectors.DIM) and len(calls) == 2

    again = e5_vectors.vectors_cached(texts, "passage", directory=tmp_path, embed=_stand_in(calls), signature="t")
    assert len(calls) == 2 and np.array_equal(first, again)

    changed = [*texts[:-1], "a new last text"]
    e5_vectors.vectors_cached(changed, "passage", directory=tmp_path, embed=_stand_in(calls), signature="t")
    assert calls[2:] == [changed[e5_vectors.BLOCK :]]  # only the second block was embedded again

    with pytest.raises(LookupError):
        e5_vectors.vectors_cached(["unseen"], "passage", directory=tmp_path, signature="t", cached_only=True)


def test_semantic_markdown_shows_both_sets_side_by_side_and_an_unreachable_goal() -> None:
    row = {"mrr@10": 0.99, "recall@10": 1.0, "mrr_delta": 0.0, "mrr_delta_95": [0.0, 0.0]}
    tuned = {**row, "mrr@10": 0.5, "mrr_delta": -0.49, "mrr_delta_95": [-0.5, -0.48]}
    result = {
        "e5": {
            "sets": {
                "A": {
                    "rows": {"bm25": row, "rescue_tuned": {**tuned, "params": {"slots": 2}, "tuned_on": "B"}},
                    "goal_mrr@10": 1.02,
                    "goal_reachable": False,
                },
                "B": {
                    "rows": {"bm25": row, "rescue_tuned": {**tuned, "params": {"slots": 1}, "tuned_on": "A"}},
                    "goal_mrr@10": 1.02,
                    "goal_reachable": False,
                },
            }
        }
    }
    text = retrieval_bench.semantic_markdown(result)
    rescue = next(line for line in text.splitlines() if line.startswith("| BM25 + vector rescue"))
    assert "slots = 2 (tuned on B) / slots = 1 (tuned on A)" in rescue
    assert rescue.count("0.5000 (-0.4900, -0.5000…-0.4800)") == 2
    assert "above the MRR ceiling of 1" in text


def test_vectors_store_gives_each_chunk_its_own_row() -> None:
    from types import SimpleNamespace

    from benchmarks.search_backend import _vectors_store

    chunks = [SimpleNamespace(), SimpleNamespace()]
    _vectors_store(chunks, np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    assert [c.embedding.tolist() for c in chunks] == [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(ValueError):
        _vectors_store(chunks, np.zeros((3, 2)))


def test_zscore_fusion_ranks_a_document_missing_from_a_list_as_that_lists_last() -> None:
    lexical = ([1, 2, 3], [9.0, 5.0, 1.0])
    dense = ([3, 1], [0.9, 0.5])  # 2 is absent from the dense list: it counts as the dense minimum
    assert fuse_zscores(lexical, dense, alpha=0.0) == [1, 2, 3]
    assert fuse_zscores(lexical, dense, alpha=1.0)[0] == 3
    assert fuse_zscores(lexical, dense, alpha=1.0)[1:] == [1, 2]  # 1 and 2 tie at the dense floor


def test_score_fusion_counts_a_list_of_equal_scores_as_all_best() -> None:
    lexical = ([4], [2.5])  # a single BM25 hit: its best, not its worst
    dense = ([5, 4], [0.9, 0.8])
    assert fuse_scores(lexical, dense, alpha=0.4) == [4, 5]  # 0.6 * 1 + 0.4 * 0 beats 0.4 * 1
