"""Hostile input to skill writes: secrets in an installed skill (masked through the same gate as
``skill_manage``, in whatever encoding a file reads as; a binary file holding one refuses the
install), an archive naming one path as a file and a folder, text that cannot be written (a lone
surrogate). Real skill folders, real zip files, the real store and scanner."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.errors import InvalidInput
from kenning.skills import Skills
from kenning.skills.install import Installer, lock_path
from kenning.skills.versions import Location, files_of
from skillkit import skill_md, write_skill, zip_of

# made up, shaped like real ones
AWS = "AKIA" + "QWERTYUIOPASDFGH"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OPENAI = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765"
PRIVATE = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
           "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
           "QyNTUxOQAAACBkZXBsb3kta2V5LWZvci10ZXN0cy1vbmx5LW5vdC1yZWFsAAAAAAAAAA\n"
           "-----END OPENSSH PRIVATE KEY-----")
KEYS = (AWS, GITHUB, OPENAI, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")
BODY = (f"# Steps\n\n1. Export AWS_ACCESS_KEY_ID={AWS}.\n2. Clone with {GITHUB}.\n3. Call the API with {OPENAI}.\n"
        f"4. Save the deploy key:\n\n{PRIVATE}\n\n5. Done.\n")
DESCRIPTION = "Deploy the table service to staging and check it."
REFERENCE = f"# Keys\n\nnone here\n\naws: {AWS}\ngithub: {GITHUB}\n"


@pytest.fixture
def installer(kb: Kenning) -> Installer:
    return Installer(kb.skills, home=kb.home, cache_dir=kb.settings.cache_dir)


def holding_a_key(folder: Path) -> list[str]:
    """The files under ``folder`` holding one of the made-up keys, in any encoding they read as."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        views = {data, data.decode("latin-1").encode("utf-8")}
        if data.startswith(b"\xff\xfe"):
            views.add(data[2:].decode("utf-16-le").encode("utf-8"))
        if any(k.encode() in v for k in KEYS for v in views):
            found.append(str(path.relative_to(folder)))
    return found


def nothing_landed(kb: Kenning) -> None:
    skills_root = kb.home / "skills"
    assert not skills_root.exists() or not [p for p in skills_root.iterdir() if p.name != ".cache"]
    assert not lock_path(skills_root).exists()
    quarantine = kb.home / "quarantine"
    assert not quarantine.exists() or not list(quarantine.iterdir())


def stored_files(kb: Kenning, name: str, number: int = 1) -> dict[str, bytes]:
    state = files_of(kb.store, Location("user", kb.home / "skills", name, name), number)
    assert state is not None
    return state


# -- 1. an install passes the same gate as skill_manage ------------------------------------------------------


def test_an_installed_skill_is_masked_like_a_created_one_and_the_answer_says_where(
        kb: Kenning, installer: Installer, skills: Skills, tmp_path: Path) -> None:
    archive = zip_of(tmp_path / "tbl.zip", {"tbl/SKILL.md": skill_md("tbl", DESCRIPTION, BODY),
                                            "tbl/references/keys.md": REFERENCE})
    [done] = installer.install(str(archive), accept_caution=True)
    answer = done.to_dict()
    folder = kb.home / "skills" / "tbl"
    [redacted] = [e for e in kb.audit(limit=20) if e.action == "redact"]  # audited as any skill write is
    assert redacted.after and [m["file"] for m in redacted.after["masked"]][-2:] == ["references/keys.md"] * 2
    assert holding_a_key(folder) == [], "a key landed on disk unmasked"
    assert holding_a_key(kb.home) == [], "a key is kept somewhere in the data directory"
    made = skills.skill_manage("create", "tbl-copy", content=skill_md("tbl-copy", DESCRIPTION, BODY), force=True)
    assert answer["masked"] == [m for m in made["masked"] if m["file"] == "SKILL.md"] + [
        {"file": "references/keys.md", "line": 5, "kind": "aws_access_key_id", "count": 1},
        {"file": "references/keys.md", "line": 6, "kind": "github_token", "count": 1}]
    assert {m["kind"] for m in answer["masked"]} == {"aws_access_key_id", "github_token", "openai_key",
                                                    "private_key"}
    assert "masked 6 secrets before writing" in answer["message"]
    assert all(k.encode() not in data for data in stored_files(kb, "tbl").values() for k in KEYS)
    assert [d.status for d in installer.verify()] == ["ok", "not locked"]  # the lock hashes what landed
    assert "[REDACTED:openai_key]" in (folder / "SKILL.md").read_text()


def test_the_plan_says_what_will_be_masked_before_anything_lands(kb: Kenning, installer: Installer,
                                                                  tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "tbl", DESCRIPTION, body=BODY)
    with installer.prepare(str(source)) as plan:
        [candidate] = plan.candidates
        assert [m["file"] for m in candidate.to_dict()["masked"]] == ["SKILL.md"] * 4
        assert holding_a_key(candidate.folder) == []
        assert candidate.report.verdict == "safe"  # what is scanned is what lands: the masked text
    nothing_landed(kb)


def test_a_file_that_is_not_utf8_is_masked_in_its_own_encoding_and_says_which(
        kb: Kenning, installer: Installer, tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "tbl", DESCRIPTION)
    latin = f"Caf\xe9 cr\xe8me\n\naws: {AWS}\n".encode("latin-1")
    utf16 = b"\xff\xfe" + f"Stra\xdfe\ngithub: {GITHUB}\n".encode("utf-16-le")
    (source / "references").mkdir()
    (source / "references" / "latin.txt").write_bytes(latin)
    (source / "references" / "wide.txt").write_bytes(utf16)
    [done] = installer.install(str(source), accept_caution=True)
    folder = kb.home / "skills" / "tbl"
    assert holding_a_key(folder) == [] and holding_a_key(kb.home) == []
    assert (folder / "references" / "latin.txt").read_bytes() == latin.replace(
        AWS.encode(), b"[REDACTED:aws_access_key_id]")  # every other byte as it was
    assert (folder / "references" / "wide.txt").read_bytes() == b"\xff\xfe" + "Stra\xdfe\ngithub: " \
        "[REDACTED:github_token]\n".encode("utf-16-le")
    assert done.to_dict()["masked"] == [
        {"file": "references/latin.txt", "line": 3, "kind": "aws_access_key_id", "count": 1, "encoding": "latin-1"},
        {"file": "references/wide.txt", "line": 2, "kind": "github_token", "count": 1, "encoding": "utf-16-le"}]
    assert "references/latin.txt line 3 (read as latin-1)" in done.to_dict()["message"]
    assert all(k.encode() not in data for data in stored_files(kb, "tbl").values() for k in KEYS)


def test_a_binary_file_that_seems_to_hold_a_secret_refuses_the_install(kb: Kenning, installer: Installer,
                                                                       tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "tbl", DESCRIPTION)
    (source / "assets").mkdir()
    (source / "assets" / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + AWS.encode() + b"\x00\x01\x02")
    with pytest.raises(InvalidInput, match=r"'assets/blob.bin' is not text .* seems to hold a secret "
                                           r"\(1 aws_access_key_id\).*not installed"):
        installer.install(str(source), accept_caution=True)
    nothing_landed(kb)


def test_a_binary_asset_without_secrets_lands_byte_for_byte(kb: Kenning, installer: Installer,
                                                            tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "tbl", DESCRIPTION)
    image = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    (source / "assets").mkdir()
    (source / "assets" / "logo.png").write_bytes(image)
    [done] = installer.install(str(source), accept_caution=True)
    assert (kb.home / "skills" / "tbl" / "assets" / "logo.png").read_bytes() == image
    assert done.to_dict()["masked"] == []


def test_write_file_masks_bytes_in_their_encoding_and_refuses_a_binary_with_a_secret(
        kb: Kenning, skills: Skills) -> None:
    skills.skill_manage("create", "tbl", content=skill_md("tbl", DESCRIPTION))
    folder = kb.home / "skills" / "tbl"
    latin = f"Caf\xe9\naws: {AWS}\n".encode("latin-1")
    written = skills.skill_manage("write_file", "tbl", file_path="references/latin.txt", file_content=latin)
    assert written["masked"] == [{"file": "references/latin.txt", "line": 2, "kind": "aws_access_key_id",
                                  "count": 1, "encoding": "latin-1"}]
    assert (folder / "references" / "latin.txt").read_bytes() == b"Caf\xe9\naws: [REDACTED:aws_access_key_id]\n"
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    versions = len(skills.history("tbl"))
    with pytest.raises(InvalidInput, match=r"'assets/blob.bin' is not text"):
        skills.skill_manage("write_file", "tbl", file_path="assets/blob.bin",
                            file_content=b"\x00\xff" + GITHUB.encode() + b"\x00")
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert len(skills.history("tbl")) == versions


def test_a_hand_placed_file_that_is_not_utf8_is_masked_in_the_version_store(kb: Kenning, skills: Skills) -> None:
    skills.skill_manage("create", "tbl", content=skill_md("tbl", DESCRIPTION))
    folder = kb.home / "skills" / "tbl"
    (folder / "references").mkdir()
    (folder / "references" / "latin.txt").write_bytes(f"Caf\xe9 {AWS}\n".encode("latin-1"))  # by hand
    (folder / "assets").mkdir()
    (folder / "assets" / "blob.bin").write_bytes(b"\x00\xff" + OPENAI.encode() + b"\x00")
    skills.skill_manage("patch", "tbl", old_string="Do the thing.", new_string="Do it.")  # records the hand edit
    [observed] = [v for v in skills.history("tbl") if v.action == "observed"]
    stored = stored_files(kb, "tbl", observed.number)
    assert stored["references/latin.txt"] == b"Caf\xe9 [REDACTED:aws_access_key_id]\n"
    assert OPENAI.encode() not in stored["assets/blob.bin"]
    assert holding_a_key(kb.home) == ["skills/tbl/assets/blob.bin", "skills/tbl/references/latin.txt"]


# -- 2. one path as a file and as a folder ----------------------------------------------------------------------


@pytest.mark.parametrize("entries", [
    {"tbl/references": "x", "tbl/references/x.md": "y"},
    {"tbl/references/x.md": "y", "tbl/references": "x"},
    {"tbl/references": "x", "tbl/references/": ""},
])
def test_an_archive_with_a_file_and_a_folder_at_one_path_is_refused_naming_both(
        kb: Kenning, installer: Installer, tmp_path: Path, entries: dict[str, str]) -> None:
    archive = zip_of(tmp_path / "clash.zip", {"tbl/SKILL.md": skill_md("tbl", DESCRIPTION), **entries})
    with pytest.raises(InvalidInput) as err:
        installer.install(str(archive))
    message = str(err.value)
    assert "entry 'tbl/references' is a file" in message and "nothing was installed" in message
    assert "'tbl/references/x.md'" in message or "'tbl/references/'" in message
    nothing_landed(kb)


# -- 3. text that cannot be written -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["write_file", "patch", "edit", "create"])
def test_a_lone_surrogate_is_refused_naming_the_file_and_nothing_changes(kb: Kenning, skills: Skills,
                                                                       action: str) -> None:
    skills.skill_manage("create", "tbl", content=skill_md("tbl", DESCRIPTION))
    folder = kb.home / "skills"

    def state() -> dict[str, str]:
        return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}

    before, versions = state(), len(skills.history("tbl"))
    bad = "x \udcff"
    calls = {"write_file": lambda: skills.skill_manage("write_file", "tbl", file_path="references/s.md",
                                                       file_content=bad),
             "patch": lambda: skills.skill_manage("patch", "tbl", old_string="Do the thing.", new_string=bad),
             "edit": lambda: skills.skill_manage("edit", "tbl", content=skill_md("tbl", DESCRIPTION, bad)),
             "create": lambda: skills.skill_manage("create", "other", content=skill_md("other", DESCRIPTION, bad))}
    named = "references/s.md" if action == "write_file" else "SKILL.md"
    with pytest.raises(InvalidInput, match=rf"file '{named}' holds a character that is not valid Unicode"):
        calls[action]()
    assert state() == before and len(skills.history("tbl")) == versions
