"""Vectors of texts that live outside the memory items (skill descriptions, note paragraphs), kept
in the store by embedder and SHA-256 of the text, and in process memory.

A library of 1,000 skills costs about a minute to embed on two cores; kept, it is embedded once,
and a changed text is simply a new key. The rows are the store's (``Store.passage_vectors``).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from .embed import Embedder
from .store import Store

_MEMORY_SIZE = 20_000
QUERY_SUFFIX = "#query"  # the embedder name under which texts embedded as queries are kept
# shared by every store in the process: the same skills are searched and compared again and again
_memory: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PassageVectors:
    """Passage vectors for texts: from memory, else from the store, else embedded; whatever this
    store lacks is saved to it."""

    def __init__(self, store: Store | None, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._in_store: set[tuple[str, str]] = set()

    def of(self, texts: Sequence[str], progress: Callable[[int], None] | None = None, *,
           persist: bool = True, queries: bool = False) -> np.ndarray:
        """One unit vector per text, in order (``progress(done)`` while embedding); ``persist=False``
        (a dry run) reads the store but writes nothing to it. ``queries=True`` embeds the texts as
        search queries (kept apart: the default embedder marks a query and a passage differently)."""
        name = self.embedder.name + (QUERY_SUFFIX if queries else "")
        keys = [(name, _sha(t)) for t in texts]
        if not keys:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        unsure = [k for k in dict.fromkeys(keys) if k not in self._in_store]
        stored = self._load(unsure) if unsure else {}
        self._in_store.update(stored)
        found: dict[tuple[str, str], np.ndarray] = {}
        with _lock:
            for key in keys:
                if key in _memory:
                    _memory.move_to_end(key)
                    found[key] = _memory[key]
        found = stored | found
        todo = {k: t for k, t in zip(keys, texts) if k not in found}
        if todo:
            made = (np.stack([self.embedder.embed_query(t) for t in todo.values()]) if queries
                    else self.embedder.embed_passages(list(todo.values()), progress=progress))
            found.update(zip(todo, np.asarray(made, dtype=np.float32)))
        if persist:
            unsaved = {k: found[k] for k in unsure if k not in stored}
            self._save(unsaved)
            self._in_store.update(unsaved)
        with _lock:
            for key in keys:
                _memory[key] = found[key]
                _memory.move_to_end(key)
            while len(_memory) > _MEMORY_SIZE:
                _memory.popitem(last=False)
        return np.stack([found[k] for k in keys])

    def _load(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        if self.store is None:
            return {}
        out: dict[tuple[str, str], np.ndarray] = {}
        dim = self.embedder.dim
        for name, shas in _by_embedder(keys).items():
            for sha, vec in self.store.passage_vectors(name, shas).items():
                if vec.shape == (dim,):
                    out[(name, sha)] = vec
        return out

    def _save(self, fresh: dict[tuple[str, str], np.ndarray]) -> None:
        if self.store is None or not fresh:
            return
        now = time.time()
        with self.store.transaction():
            for name, shas in _by_embedder(list(fresh)).items():
                self.store.save_passage_vectors(name, {sha: fresh[(name, sha)] for sha in shas}, now)

    def forget(self, texts: Sequence[str]) -> int:
        """Remove the vectors of ``texts`` (of every embedder), in the store and in memory: a purge
        leaves not even an embedding of what it removed. Returns how many rows were deleted."""
        shas = list(dict.fromkeys(_sha(t) for t in texts))
        gone = set(shas)
        with _lock:
            for key in [k for k in _memory if k[1] in gone]:
                del _memory[key]
        self._in_store = {k for k in self._in_store if k[1] not in gone}
        if self.store is None or not shas:
            return 0
        return self.store.forget_passage_vectors(shas)


def _by_embedder(keys: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, sha in keys:
        out.setdefault(name, []).append(sha)
    return out
