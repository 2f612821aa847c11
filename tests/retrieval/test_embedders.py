"""The `Embedder` port: the OpenAI-compatible client against a real local HTTP server, and `embedder_build`."""

from __future__ import annotations

import json
import math
import socket
import sys
import threading
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from retrieval.embedders import (
    EmbedderError,
    NoneEmbedder,
    OpenAICompatibleEmbedder,
    SentenceTransformerEmbedder,
    embedder_build,
)

SECRET = "sk-test-DO-NOT-LEAK-4f9c2e"
FAST = 0.3


def vector_for(text: str) -> list[float]:
    """What the fake server embeds `t7` as, so a test can tell which text a vector belongs to."""
    return [float(text[1:]), 1.0, 0.5]


def items_standard(texts: list[str]) -> list[dict[str, Any]]:
    return [{"object": "embedding", "index": i, "embedding": vector_for(t)} for i, t in enumerate(texts)]


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    payload: Any


@dataclass
class FakeEmbeddingServer:
    """Speaks the OpenAI embeddings wire protocol; `respond` decides what each request gets back."""

    url: str
    requests: list[Request] = field(default_factory=list)
    respond: Callable[[list[str]], tuple[int, bytes]] | None = None
    release: threading.Event = field(default_factory=threading.Event)

    def data_respond(self, make_items: Callable[[list[str]], list[dict[str, Any]]]) -> None:
        def respond(texts: list[str]) -> tuple[int, bytes]:
            body = {
                "object": "list",
                "data": make_items(texts),
                "model": "bge-m3",
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
            return 200, json.dumps(body).encode()

        self.respond = respond


def _handler_for(server: FakeEmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            payload = json.loads(raw)
            server.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, payload))
            if self.path != "/v1/embeddings":
                status, body = 404, b'{"error": "not found"}'
            else:
                assert server.respond is not None
                status, body = server.respond(payload["input"])
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is expected here, not a failure


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    fake = FakeEmbeddingServer(url="")
    httpd = _QuietServer(("127.0.0.1", 0), _handler_for(fake))
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    fake.data_respond(items_standard)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield fake
    fake.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=2)


def client(server: FakeEmbeddingServer, **kwargs: Any) -> OpenAICompatibleEmbedder:
    kwargs.setdefault("timeout", FAST)
    return OpenAICompatibleEmbedder(server.url, "bge-m3", **kwargs)


def texts_make(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


# --- the OpenAI-compatible client over real HTTP ---------------------------------------------------


def test_vectors_come_back_in_input_order_when_the_server_shuffles(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: list(reversed(items_standard(texts))))
    embedder = client(server)
    texts = texts_make(5)

    assert embedder.dim is None
    vectors = embedder.embed(texts)

    assert vectors == [vector_for(t) for t in texts]
    assert embedder.dim == 3
    assert len(server.requests) == 1
    assert server.requests[0].path == "/v1/embeddings"
    assert server.requests[0].payload == {"model": "bge-m3", "input": texts}


def test_inputs_are_sent_in_batches_and_reassembled_in_order(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: list(reversed(items_standard(texts))))
    texts = texts_make(10)

    vectors = client(server, batch_size=4).embed(texts)

    assert len(server.requests) == math.ceil(10 / 4)
    assert [r.payload["input"] for r in server.requests] == [texts[0:4], texts[4:8], texts[8:10]]
    assert vectors == [vector_for(t) for t in texts]


def test_a_trailing_slash_on_the_base_url_is_tolerated(server: FakeEmbeddingServer) -> None:
    embedder = OpenAICompatibleEmbedder(server.url + "/", "bge-m3", timeout=FAST)

    assert embedder.embed(["t1"]) == [vector_for("t1")]
    assert server.requests[0].path == "/v1/embeddings"


def test_no_texts_means_no_request(server: FakeEmbeddingServer) -> None:
    assert client(server).embed([]) == []
    assert server.requests == []


def test_the_bearer_key_is_sent_when_set(server: FakeEmbeddingServer) -> None:
    client(server, api_key=SECRET).embed(["t1"])

    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_no_authorization_header_without_a_key(server: FakeEmbeddingServer) -> None:
    client(server).embed(["t1"])

    assert "authorization" not in server.requests[0].headers


@pytest.mark.parametrize("status", [500, 429, 401, 404])
def test_an_error_status_is_an_embedder_error(server: FakeEmbeddingServer, status: int) -> None:
    server.respond = lambda texts: (status, b'{"error": {"message": "boom"}}')

    with pytest.raises(EmbedderError, match=f"HTTP {status}"):
        client(server).embed(["t1"])


def test_a_429_says_rate_limited(server: FakeEmbeddingServer) -> None:
    server.respond = lambda texts: (429, b'{"error": "slow down"}')

    with pytest.raises(EmbedderError, match="rate limited"):
        client(server).embed(["t1"])


def test_malformed_json_is_an_embedder_error(server: FakeEmbeddingServer) -> None:
    server.respond = lambda texts: (200, b'{"object": "list", "data": [')

    with pytest.raises(EmbedderError, match="invalid JSON"):
        client(server).embed(["t1"])


@pytest.mark.parametrize(
    "body",
    [b"[]", b'{"object": "list"}', b'{"data": {"0": [1.0]}}', b'{"data": ["not an object"]}'],
    ids=["list", "no-data", "data-not-list", "item-not-object"],
)
def test_a_response_of_the_wrong_shape_is_an_embedder_error(server: FakeEmbeddingServer, body: bytes) -> None:
    server.respond = lambda texts: (200, body)

    with pytest.raises(EmbedderError):
        client(server).embed(["t1"])


@pytest.mark.parametrize("delta", [-1, +1])
def test_the_wrong_number_of_vectors_is_an_embedder_error(server: FakeEmbeddingServer, delta: int) -> None:
    server.data_respond(lambda texts: items_standard(texts_make(len(texts) + delta)))

    with pytest.raises(EmbedderError, match=r"vectors for 3 inputs"):
        client(server).embed(texts_make(3))


def test_a_repeated_index_is_an_embedder_error(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: [{**item, "index": 0} for item in items_standard(texts)])

    with pytest.raises(EmbedderError, match="repeats index 0"):
        client(server).embed(texts_make(2))


def test_mismatched_dimensions_are_an_embedder_error(server: FakeEmbeddingServer) -> None:
    def items(texts: list[str]) -> list[dict[str, Any]]:
        made = items_standard(texts)
        made[-1]["embedding"] = [1.0, 2.0]
        return made

    server.data_respond(items)

    with pytest.raises(EmbedderError, match="mismatched dimensions"):
        client(server).embed(texts_make(3))


def test_mismatched_dimensions_across_batches_are_an_embedder_error(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: [{"index": i, "embedding": [1.0] * len(texts)} for i in range(len(texts))])

    with pytest.raises(EmbedderError, match="mismatched dimensions"):
        client(server, batch_size=2).embed(texts_make(3))


def test_a_change_of_dimension_between_calls_is_an_embedder_error(server: FakeEmbeddingServer) -> None:
    embedder = client(server)
    embedder.embed(["t1"])
    server.data_respond(lambda texts: [{"index": 0, "embedding": [1.0, 2.0]}])

    with pytest.raises(EmbedderError, match="changed from 3 to 2"):
        embedder.embed(["t1"])
    assert embedder.dim == 3


@pytest.mark.parametrize(
    "vector",
    [[], None, "1,2,3", [1.0, "2", 3.0], [1.0, True, 3.0], [1.0, float("nan"), 3.0], [float("inf"), 1.0, 1.0]],
    ids=["empty", "null", "string", "string-item", "bool-item", "nan", "inf"],
)
def test_a_vector_that_is_not_finite_floats_is_an_embedder_error(server: FakeEmbeddingServer, vector: Any) -> None:
    # json.dumps writes NaN/Infinity, which lenient servers do emit and Python's json accepts.
    server.data_respond(lambda texts: [{"index": 0, "embedding": vector}])

    with pytest.raises(EmbedderError, match="embedding 0"):
        client(server).embed(["t1"])


def test_integer_components_become_floats(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: [{"index": 0, "embedding": [1, 2, 3]}])

    vectors = client(server).embed(["t1"])

    assert vectors == [[1.0, 2.0, 3.0]]
    assert all(type(x) is float for x in vectors[0])


def test_a_server_slower_than_the_timeout_is_an_embedder_error(server: FakeEmbeddingServer) -> None:
    def slow(texts: list[str]) -> tuple[int, bytes]:
        server.release.wait(FAST * 4)
        return 200, b"{}"

    server.respond = slow

    with pytest.raises(EmbedderError, match="timed out"):
        client(server, timeout=FAST).embed(["t1"])


def test_an_unreachable_server_is_an_embedder_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}/v1", "bge-m3", timeout=FAST)

    with pytest.raises(EmbedderError, match="failed"):
        embedder.embed(["t1"])


def _echo_key_500(server: FakeEmbeddingServer) -> None:
    # Some providers quote the offending key back in the error body.
    server.respond = lambda texts: (500, json.dumps({"error": f"bad key {SECRET}"}).encode())


def _echo_key_429(server: FakeEmbeddingServer) -> None:
    server.respond = lambda texts: (429, f"rate limit for {SECRET}".encode())


def _malformed(server: FakeEmbeddingServer) -> None:
    server.respond = lambda texts: (200, f"not json {SECRET}".encode())


def _slow(server: FakeEmbeddingServer) -> None:
    server.respond = lambda texts: (server.release.wait(FAST * 4), (200, b"{}"))[1]


def _wrong_count(server: FakeEmbeddingServer) -> None:
    server.data_respond(lambda texts: [])


@pytest.mark.parametrize("failure", [_echo_key_500, _echo_key_429, _malformed, _slow, _wrong_count])
def test_the_api_key_never_appears_in_an_error(
    server: FakeEmbeddingServer, failure: Callable[[FakeEmbeddingServer], None]
) -> None:
    failure(server)
    embedder = client(server, api_key=SECRET)

    with pytest.raises(EmbedderError) as caught:
        embedder.embed(["t1"])

    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value)
    assert SECRET not in repr(embedder)


def test_the_api_key_is_redacted_from_an_echoed_body(server: FakeEmbeddingServer) -> None:
    _echo_key_500(server)

    with pytest.raises(EmbedderError, match=r"bad key \*\*\*"):
        client(server, api_key=SECRET).embed(["t1"])


def test_batch_size_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        OpenAICompatibleEmbedder("http://127.0.0.1:1/v1", "m", batch_size=0)


# --- the disabled embedder and sentence-transformers -----------------------------------------------


def test_the_none_embedder_is_disabled_and_refuses_to_embed() -> None:
    embedder = NoneEmbedder()

    assert embedder.name == "none"
    assert embedder.enabled is False
    with pytest.raises(EmbedderError, match="no embedder configured"):
        embedder.embed(["t1"])


def test_real_embedders_are_enabled(server: FakeEmbeddingServer) -> None:
    assert client(server).enabled is True
    assert client(server).name == "openai"
    assert SentenceTransformerEmbedder("/nowhere").enabled is True
    assert SentenceTransformerEmbedder("/nowhere").name == "sentence-transformers"


def test_sentence_transformers_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import raise ImportError

    with pytest.raises(EmbedderError, match="pip install sentence-transformers"):
        SentenceTransformerEmbedder(str(tmp_path)).embed(["t1"])


class _FakeSentenceTransformer:
    loaded: list[tuple[str, dict[str, Any]]] = []

    def __init__(self, path: str, **kwargs: Any) -> None:
        self.loaded.append((path, kwargs))

    def encode(self, texts: list[str], **kwargs: Any) -> Any:
        import numpy as np

        return np.asarray([[3.0, 4.0], [0.0, 2.0]][: len(texts)], dtype=np.float32)


@pytest.fixture
def fake_sentence_transformers(monkeypatch: pytest.MonkeyPatch) -> type[_FakeSentenceTransformer]:
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = _FakeSentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    _FakeSentenceTransformer.loaded = []
    return _FakeSentenceTransformer


def test_sentence_transformers_loads_locally_once_and_normalizes(
    fake_sentence_transformers: type[_FakeSentenceTransformer], tmp_path: Any
) -> None:
    embedder = SentenceTransformerEmbedder(str(tmp_path))

    vectors = embedder.embed(["t0", "t1"])
    embedder.embed(["t0"])

    assert vectors == [pytest.approx([0.6, 0.8]), pytest.approx([0.0, 1.0])]
    assert all(type(x) is float for vector in vectors for x in vector)
    assert embedder.dim == 2
    assert fake_sentence_transformers.loaded == [(str(tmp_path), {"local_files_only": True})]


def test_sentence_transformers_needs_an_existing_directory(
    fake_sentence_transformers: type[_FakeSentenceTransformer], tmp_path: Any
) -> None:
    with pytest.raises(EmbedderError, match="directory not found"):
        SentenceTransformerEmbedder(str(tmp_path / "missing")).embed(["t0"])
    assert fake_sentence_transformers.loaded == []


# --- embedder_build ---------------------------------------------------------------------------------


def ragspine(**overrides: Any) -> dict[str, Any]:
    base = {
        **settings.RAGSPINE,
        "EMBEDDER": "none",
        "EMBED_BASE_URL": "",
        "EMBED_MODEL": "",
        "EMBED_API_KEY": "",
        "EMBED_PATH": "",
        "EMBED_TIMEOUT": 30.0,
    }
    return {**base, **overrides}


def test_build_none() -> None:
    with override_settings(RAGSPINE=ragspine(EMBEDDER="none")):
        embedder = embedder_build()

    assert isinstance(embedder, NoneEmbedder)
    assert embedder.enabled is False


def test_build_openai_talks_to_the_configured_endpoint(server: FakeEmbeddingServer) -> None:
    config = ragspine(EMBEDDER="openai", EMBED_BASE_URL=server.url, EMBED_MODEL="bge-m3", EMBED_API_KEY=SECRET)
    with override_settings(RAGSPINE={**config, "EMBED_TIMEOUT": FAST}):
        embedder = embedder_build()

    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.timeout == FAST
    assert embedder.embed(["t2"]) == [vector_for("t2")]
    assert server.requests[0].payload["model"] == "bge-m3"
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_build_sentence_transformers_does_not_import_the_package_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with override_settings(RAGSPINE=ragspine(EMBEDDER="sentence-transformers", EMBED_PATH="/models/bge-m3")):
        embedder = embedder_build()

    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.path == "/models/bge-m3"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"EMBEDDER": "openai", "EMBED_MODEL": "bge-m3"}, "RAGSPINE_EMBED_BASE_URL"),
        ({"EMBEDDER": "openai", "EMBED_BASE_URL": "tei:8080/v1", "EMBED_MODEL": "bge-m3"}, "RAGSPINE_EMBED_BASE_URL"),
        ({"EMBEDDER": "openai", "EMBED_BASE_URL": "http://tei:8080/v1"}, "RAGSPINE_EMBED_MODEL"),
        ({"EMBEDDER": "sentence-transformers"}, "RAGSPINE_EMBED_PATH"),
        ({"EMBEDDER": "word2vec"}, "unknown RAGSPINE_EMBEDDER 'word2vec'"),
    ],
    ids=["openai-no-url", "openai-bad-url", "openai-no-model", "st-no-path", "unknown"],
)
def test_build_misconfigured_fails_loudly(overrides: dict[str, Any], message: str) -> None:
    with override_settings(RAGSPINE=ragspine(**overrides)), pytest.raises(ImproperlyConfigured, match=message):
        embedder_build()
