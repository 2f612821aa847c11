"""BM25 over a sparse term × document matrix (SPEC §7): no Python loop over documents.

Okapi BM25 with k1 = 1.5 and b = 0.75. The per-(term, document) weights are precomputed at
build time, so a query is a sum of a few sparse rows and a top-k partition. A mask (for
clearance) is applied before the top-k, so a hidden document can never take a place.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

K1 = 1.5
B = 0.75


class BM25Index:
    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = K1, b: float = B):
        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        counts: list[float] = []
        lengths = np.zeros(len(documents), dtype=np.float32)
        for doc_index, doc_tokens in enumerate(documents):
            lengths[doc_index] = len(doc_tokens)
            frequencies: dict[int, int] = {}
            for token in doc_tokens:
                term = vocabulary.setdefault(token, len(vocabulary))
                frequencies[term] = frequencies.get(term, 0) + 1
            rows.extend(frequencies.keys())
            cols.extend([doc_index] * len(frequencies))
            counts.extend(frequencies.values())
        self.vocabulary = vocabulary
        self.size = len(documents)
        n_terms = len(vocabulary)
        tf = np.asarray(counts, dtype=np.float32)
        row_index = np.asarray(rows, dtype=np.int64)
        col_index = np.asarray(cols, dtype=np.int64)
        average = float(lengths.mean()) if self.size else 0.0
        df = np.bincount(row_index, minlength=n_terms).astype(np.float32)
        idf = np.log((self.size - df + 0.5) / (df + 0.5) + 1.0)
        norm = k1 * (1.0 - b + b * lengths[col_index] / (average or 1.0))
        weights = idf[row_index] * tf * (k1 + 1.0) / (tf + norm)
        self.matrix = sparse.csr_matrix((weights, (row_index, col_index)), shape=(n_terms, self.size))

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        terms = [self.vocabulary[t] for t in set(query_tokens) if t in self.vocabulary]
        if not terms or self.size == 0:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.matrix[terms].sum(axis=0)).ravel()

    def search(
        self, query_tokens: Sequence[str], k: int, *, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k document indexes with positive scores (best first), and their scores."""
        scores = self.scores(query_tokens)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        k = min(k, self.size)
        if k <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        keep = scores[top] > 0
        return top[keep], scores[top][keep]
