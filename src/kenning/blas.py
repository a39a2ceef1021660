"""numpy's BLAS on one thread while kenning multiplies vectors.

OpenBLAS wakes its worker threads for a matrix-vector product over a few thousand rows, and the
workers then spin for a while waiting for more work. On a two-core machine they take the cores
from the embedder's own threads, so the *next* query embedding runs two to three times slower.
Measured on a 10k-fact store (2 cores, 100 LoCoMo questions): a new query's recall took p50 47.5 /
p95 126 ms with the workers awake, 28.2 / 38.7 ms with BLAS on one thread; the embedding alone is
about 21 ms. Our products are one query against at most 20,000 rows (the vector search's exact
limit), a few ms on one thread.

The limit is set only while kenning's own products run and restored afterwards (threadpoolctl),
so a program that uses numpy for its own work keeps its thread count.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

_lock = threading.Lock()
_depth = 0
_restore: Any = None
_controller: Any = None


def _blas_controller() -> Any:
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController().select(user_api="blas")
    return _controller


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with BLAS on one thread (nested and concurrent uses share one limit)."""
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = _blas_controller().limit(limits=1)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _restore.restore_original_limits()
                _restore = None


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` with BLAS on one thread."""
    with one_blas_thread():
        return a @ b
