"""Scopes: one rule for their names, and nothing written in one scope is read from another, in the
store and in the files (daily notes, HISTORY.md, MEMORY.md / USER.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import InvalidInput, Kenning, NotFound
from kenning.checks import check_scope, scope_folder
from kenning.cli import cli


@pytest.mark.parametrize("name", ["default", "work", "user:alice", "project:web", "user:张三", "team:a.b-c_d"])
def test_valid_scope_names_are_kept_as_written(name: str) -> None:
    assert check_scope(name) == name
    assert check_scope(f"  {name} ") == name


@pytest.mark.parametrize("name, hint", [
    ("User:Alice", "user:alice"), ("DEFAULT", "default"), ("ｕｓｅｒ:bob", "user:bob"),
    ("user:", None), (":alice", None), ("user:a:b", None), ("user:../x", None), ("a/b", None), ("..", None),
    ("user alice", None), ("user:.hidden", None), ("_x", None), ("user+alice", None), ("x" * 201, None),
])
def test_invalid_scope_names_are_refused_naming_the_rule(name: str, hint: str | None) -> None:
    with pytest.raises(InvalidInput) as err:
        check_scope(name)
    message = str(err.value)
    assert "lower-case word" in message and "kind:name" in message
    if hint:
        assert f"did you mean {hint!r}" in message


def test_a_scope_folder_names_one_scope_and_the_default_keeps_the_top() -> None:
    assert scope_folder("default") == ""
    assert scope_folder("user:alice") == "scopes/user+alice"
    assert scope_folder("work") == "scopes/work"
    assert scope_folder("user:alice") != scope_folder("user") != scope_folder("alice")


def test_the_cli_refuses_a_bad_scope_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(tmp_path / "h"), "recall", "x", "--scope", "User:Alice"],
                                  prog_name="kenning")
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "did you mean 'user:alice'" in result.output


def test_notes_and_history_of_one_scope_are_not_found_from_another(kb: Kenning) -> None:
    alice, bob = kb.notes_in("user:alice"), kb.notes_in("user:bob")
    [note] = alice.write("the vault code is 4711")
    entry = alice.history_append("Alice set up the vault; its code is 4711")
    assert note.id.startswith("scopes/user+alice/daily/") and entry.id == "scopes/user+alice/HISTORY.md#1"
    assert (kb.home / note.path).is_file() and (kb.home / entry.path).is_file()
    assert {h.id for h in alice.search("vault code", days_back=None)} == {note.id, entry.id}
    for other in (bob, kb.notes):
        assert other.search("vault code", days_back=None) == []
        for note_id in (note.id, entry.id, note.id.removeprefix("scopes/user+alice/")):
            with pytest.raises(NotFound):
                other.get(note_id)
    assert alice.get(note.id).text == "the vault code is 4711"
    assert not (kb.home / "HISTORY.md").exists() and not (kb.home / "daily").exists()


def test_hot_memory_of_one_scope_stays_in_its_files_and_facts(kb: Kenning) -> None:
    kb.hot_in("user:alice").add("Alice's vault code is 4711", "user")
    kb.hot.add("Deploys run from CI", "project")
    assert (kb.home / "scopes/user+alice/USER.md").read_text().count("4711") == 1
    assert "4711" not in (kb.home / "MEMORY.md").read_text()
    assert "4711" not in kb.hot.prompt_text() and "4711" not in kb.hot_in("user:bob").prompt_text()
    [hit] = [h for h in kb.recall("vault code", scope="user:alice") if "4711" in h.item.content]
    assert hit.item.pinned and hit.item.scope == "user:alice"
    assert all("4711" not in h.item.content for h in kb.recall("vault code"))
    # a hand-copied line, id marker and all, links nothing in another scope: it becomes bob's own fact
    line = next(ln for ln in (kb.home / "scopes/user+alice/USER.md").read_text().splitlines() if "4711" in ln)
    bob_file = kb.home / "scopes/user+bob/USER.md"
    bob_file.parent.mkdir(parents=True, exist_ok=True)
    bob_file.write_text(f"# User\n\n{line}\n")
    [entry] = kb.hot_in("user:bob").entries()
    assert entry.item_id != hit.item.id
    assert kb.get(entry.item_id).scope == "user:bob"
    assert kb.get(hit.item.id).pinned  # alice's fact is untouched


def test_context_for_one_scope_shows_nothing_of_another(kb: Kenning) -> None:
    kb.remember("the vault code is 4711", scope="user:alice")
    kb.notes_in("user:alice").write("opened the vault with code 4711")
    kb.notes_in("user:alice").history_append("Alice opened the vault (code 4711)")
    kb.hot_in("user:alice").add("vault code: 4711", "user")
    for scope in ("user:bob", "default"):
        ctx = kb.context("vault code", scope=scope)
        assert "4711" not in ctx.markdown and "4711" not in json.dumps(ctx.to_dict(), ensure_ascii=False)
    assert kb.context("vault code", scope="user:alice").markdown.count("4711") >= 3


def test_a_consolidation_in_one_scope_is_not_in_another_scopes_context(tmp_path: Path) -> None:
    """The issue's reproduction: consolidated for alice, asked for by bob."""
    home = tmp_path / "h"
    chat = tmp_path / "c.json"
    chat.write_text(json.dumps([{"role": "user", "content": "remember that the vault code is 4711"},
                                {"role": "assistant", "content": "Noted."}]), encoding="utf-8")
    runner = CliRunner(env={"COLUMNS": "200"})

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--home", str(home), *args], prog_name="kenning")
        assert result.exit_code == 0, result.output
        return result.stdout

    run("consolidate", str(chat), "--scope", "user:alice")
    assert "4711" in run("context", "vault code", "--scope", "user:alice")
    for scope in ("user:bob", "default"):
        out = run("context", "vault code", "--scope", scope, "--json")
        assert "4711" not in out
        assert "4711" not in run("note", "search", "vault code", "--scope", scope, "--json")
