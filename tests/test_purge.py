"""``kenning purge``: an item, a scope or a text removed from everywhere kenning keeps it, down to
the bytes of the database file, audited without the text; and nothing else is touched."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import InvalidInput, Kenning
from kenning.cli import cli

SECRET = "Vault-Code-4711-ZQX"  # no redaction pattern knows it: only a purge removes it


def on_disk(home: Path, text: str) -> list[str]:
    """The files under ``home`` holding ``text`` (any case; gzip archives read too)."""
    import gzip

    found = []
    for path in sorted(home.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if text.lower().encode() in data.lower():
            found.append(str(path.relative_to(home)))
    return found


def digest(home: Path) -> dict[str, str]:
    """Every file by content (but SQLite's shared-memory index, which a read may touch)."""
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.rglob("*")) if p.is_file() and not p.name.endswith("-shm")}


def leave_traces(kb: Kenning, scope: str = "default") -> str:
    """The secret in a fact (superseded once), a hot entry, notes of two days (one archived),
    HISTORY.md, an archived transcript, a feedback note and many audit entries."""
    first = kb.remember(f"the vault code is {SECRET}", scope=scope)
    fact = kb.supersede(first.id, f"the vault code is {SECRET}, changed on Monday", reason=f"new code {SECRET}")
    kb.pin(fact.id, reason=f"keep {SECRET}")
    kb.hot_in(scope).add(f"Vault code: {SECRET}", "project")
    notes = kb.notes_in(scope)
    notes.write(f"opened the vault with {SECRET}")
    notes.write(f"old note: {SECRET} was set", date=dt.date.today() - dt.timedelta(days=200))
    notes.write("an unrelated note about lunch", date=dt.date.today() - dt.timedelta(days=200))
    notes.archive(90)
    notes.history_append(f"set up the vault ({SECRET})")
    session = kb.session(scope=scope, llm=False)
    session.add("user", f"remember that the vault code is {SECRET}")
    session.new()
    session.wait()
    kb.skills.skill_feedback("kenning-memory", "helped", note=f"used it for {SECRET}")
    return fact.id


def test_purging_an_item_removes_its_text_from_every_file_and_row(kb: Kenning) -> None:
    fact_id = leave_traces(kb)
    kb.remember("lunch is at noon")
    home = kb.home
    said = f"the vault code is {SECRET}"  # the first version's text: in a transcript, a consolidated fact, the audit
    kb.store.vacuum()
    assert {"kenning.db", "sessions"} <= {p.split("/")[0] for p in on_disk(home, said)}, "the test must plant it"
    report = kb.purge(fact_id)
    assert fact_id in report.items and len(report.items) == 2  # the whole supersede chain
    assert report.transcript_messages == 1 and report.note_paragraphs == 1  # the chat, and the note made of it
    assert report.audit_entries >= 4
    assert on_disk(home, said) == [], "the purged text is still on disk"
    # what only looks alike stays: another fact's hot entry and the notes that do not hold the text
    assert f"Vault code: {SECRET}" in [e.text for e in kb.hot.entries()]
    assert [h.item.content for h in kb.recall("lunch", k=3)][0] == "lunch is at noon"
    assert "an unrelated note about lunch" in kb.notes.read(dt.date.today() - dt.timedelta(days=200))
    [entry] = [e for e in kb.audit(limit=5) if e.action == "purge"]
    assert SECRET.lower() not in json.dumps(entry.to_dict()).lower() and entry.after["item_count"] == len(report.items)
    with sqlite3.connect(home / "kenning.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("items", "items_fts", "vectors")]
        assert counts[0] == counts[1] == counts[2]


def test_purging_a_text_removes_it_from_everywhere(kb: Kenning) -> None:
    leave_traces(kb)
    kb.remember("lunch is at noon")
    kb.store.vacuum()
    assert {"kenning.db", "MEMORY.md", "HISTORY.md", "daily", "archive", "sessions"} <= {
        p.split("/")[0] for p in on_disk(kb.home, SECRET)}, "the test must plant it"
    report = kb.purge(match=SECRET.upper())
    assert report.hot_entries == 1 and report.note_paragraphs >= 4 and report.feedback_notes == 1
    assert on_disk(kb.home, SECRET) == []
    assert [h.item.content for h in kb.recall("lunch", k=3)][0] == "lunch is at noon"
    assert "an unrelated note about lunch" in kb.notes.read(dt.date.today() - dt.timedelta(days=200))


def test_purging_a_scope_removes_it_and_only_it(kb: Kenning) -> None:
    leave_traces(kb, "user:alice")
    kb.remember(f"bob's note mentions {SECRET}", scope="user:bob")
    kb.hot.add("Deploys run from CI", "project")
    kb.close()
    with Kenning.open(kb.home, embedder=kb.embedder) as again:
        report = again.purge(scope="user:alice")
        assert report.removed_paths == ("scopes/user+alice",) and report.hot_entries == 1
        assert again.stats("user:alice")["counts"] == []
        assert [h.item.content for h in again.recall("vault", scope="user:bob")] == [f"bob's note mentions {SECRET}"]
        assert [e.text for e in again.hot.entries()] == ["Deploys run from CI"]
    assert on_disk(kb.home, SECRET) == ["kenning.db"]  # bob's fact, and nothing of alice's
    with sqlite3.connect(kb.home / "kenning.db") as conn:
        leftover = conn.execute("SELECT count(*) FROM audit WHERE scope = 'user:alice' AND action != 'purge' "
                                "AND (reason != '' OR before NOT LIKE '{\"purged\"%' OR after NOT LIKE '{\"purged\"%')"
                                ).fetchone()[0]
        assert leftover == 0


def test_purging_a_text_from_the_command_line(tmp_path: Path, embedder: object) -> None:
    home = tmp_path / "cli"
    with Kenning.open(home, embedder=embedder) as kb:  # type: ignore[arg-type]
        leave_traces(kb, "project:web")
        kb.remember(f"also in default: {SECRET}")
    runner = CliRunner(env={"COLUMNS": "200"})

    def run(*args: str) -> object:
        return runner.invoke(cli, ["--home", str(home), "purge", *args], prog_name="kenning")

    before = digest(home)
    looked = run("--match", SECRET.lower(), "--dry-run", "--json")
    assert looked.exit_code == 0, looked.output  # type: ignore[attr-defined]
    plan = json.loads(looked.stdout)  # type: ignore[attr-defined]
    assert plan["dry_run"] and len(plan["items"]) >= 3 and digest(home) == before
    refused = run("--match", SECRET)
    assert refused.exit_code == 2 and "--yes" in refused.output  # type: ignore[attr-defined]
    assert digest(home) == before
    done = run("--match", SECRET, "--yes", "--json")
    assert done.exit_code == 0, done.output  # type: ignore[attr-defined]
    assert json.loads(done.stdout)["items"] == plan["items"]  # type: ignore[attr-defined]
    assert on_disk(home, SECRET) == []


@pytest.mark.parametrize("args, message", [
    ({}, "exactly one"), ({"match": "ab"}, "too short"), ({"item_id": "f_x", "match": "abc"}, "exactly one"),
    ({"scope": "User:Alice"}, "not valid"), ({"item_id": "f_000000000000"}, "no item"),
])
def test_a_purge_that_names_nothing_clearly_is_refused(kb: Kenning, args: dict[str, str], message: str) -> None:
    kb.remember("lunch is at noon")
    before = digest(kb.home)
    with pytest.raises(Exception, match=message) as err:
        kb.purge(**args)  # type: ignore[arg-type]
    assert isinstance(err.value, (InvalidInput, LookupError))
    assert digest(kb.home) == before


def test_the_audit_log_stays_append_only_but_for_a_purge_blank(kb: Kenning) -> None:
    kb.remember("lunch is at noon")
    with sqlite3.connect(kb.home / "kenning.db") as conn:
        for sql in ("UPDATE audit SET reason = 'edited'", "UPDATE audit SET after = '{}'", "DELETE FROM audit",
                    "UPDATE audit SET action = 'x', reason = '', after = '{\"purged\": \"sha256:0\"}'"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(sql)
        conn.execute("UPDATE audit SET reason = '', before = NULL, after = '{\"purged\": \"sha256:0\"}'")


def test_purging_an_item_takes_every_item_holding_its_text_and_nothing_else(kb: Kenning) -> None:
    said = kb.remember(f"the door code is {SECRET}")
    also = kb.lessons.record(action=f"told a visitor the door code is {SECRET}", context="office",
                             outcome="negative", insight="never say codes aloud")
    other = kb.remember("the door code changes monthly", scope="user:bob")
    report = kb.purge(said.id)
    assert set(report.items) == {said.id, also.id}
    assert kb.get(other.id).content == "the door code changes monthly"
    assert on_disk(kb.home, SECRET) == []


def test_a_short_chinese_match_is_enough(kb: Kenning) -> None:
    kb.remember("门禁密码在前台")
    kb.remember("前台九点开门")
    report = kb.purge(match="门禁")
    assert len(report.items) == 1 and [h.item.content for h in kb.recall("前台", k=5)] == ["前台九点开门"]


def test_a_purge_makes_no_folder_for_a_scope_without_files(kb: Kenning) -> None:
    kb.remember(f"the key is {SECRET}", scope="team:ops")
    kb.purge(match=SECRET)
    assert not (kb.home / "scopes").exists()
