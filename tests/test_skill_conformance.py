"""kenning's SKILL.md reader and writer against the Agent Skills reference validator, ``skills-ref``.

The corpus is ``tests/data/conformance``: a SKILL.md per case and ``cases.toml``, which gives each
case's folder name and the reference's verdict, computed by running the reference (``label.py``).
Each case goes through both of kenning's paths, on a real folder:

- the lenient reader (``skill list`` / ``skill check``): a case the reference calls valid must load
  with no diagnostic at all ("clean"); one it calls invalid must be noticed, with a warning
  ("warned", still loaded) or by skipping it ("skipped");
- the strict writer (``validate_skill_md``, used by ``skill create`` and every edit): it accepts
  exactly what the reference calls valid.

They agree on every case except the policy differences in ``POLICIES``, each named on its cases.
With ``KENNING_SKILLS_REF_PYTHON`` set to a Python that has ``skills-ref`` installed, the stored
labels are also checked against the reference itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kenning.errors import InvalidInput
from kenning.skills.frontmatter import text_to_write, validate_skill_md
from kenning.skills.index import Loader
from kenning.skills import Skills
from kenning.skills.model import Skill
from kenning.skills.sources import Source

CORPUS = Path(__file__).parent / "data" / "conformance"
CASES: list[dict[str, Any]] = tomllib.loads((CORPUS / "cases.toml").read_text(encoding="utf-8"))["case"]
BY_ID = {case["id"]: case for case in CASES}


@dataclass(frozen=True)
class Policy:
    """Where kenning differs from the reference on purpose: what each path does instead (None: it
    agrees on that path), and why."""

    lenient: str | None
    strict: str | None
    why: str


POLICIES = {
    "ascii-names": Policy(None, "refuse", "names of any script's lower-case letters are read, as the spec allows; "
                                          "kenning writes ASCII names only, so a folder's name is the same on "
                                          "every file system"),
    "other-fields": Policy("clean", "accept", "other clients' top-level fields (tags, version, always, ...) are "
                                              "read, not refused"),
    "yaml": Policy("clean", "accept", "front matter is YAML: flow lists and mappings, anchors and tags are read "
                                      "(skills-ref 0.1.1 parses StrictYAML, which refuses them; kenning's own "
                                      "skills write tags: [a, b])"),
    "metadata-mapping": Policy("warned", "refuse", "metadata must be a mapping, as the spec says; skills-ref "
                                                   "0.1.1 does not check it"),
    "bom": Policy("clean", "accept", "a byte-order mark is read, and never written: text_to_write drops it, "
                                     "and the reference accepts what is written"),
    "lower-case-file": Policy("warned", None, "skill.md is read like SKILL.md, with a warning to rename it"),
}


def case_bytes(case: dict[str, Any]) -> bytes:
    return (CORPUS / "cases" / f"{case['id']}.md").read_bytes()


def read_leniently(root: Path, case: dict[str, Any]) -> tuple[str, Skill | None, list[str]]:
    """("clean" | "warned" | "skipped", the skill, the diagnostics' messages) of one case as
    ``skill list`` reads it."""
    folder = root / case["folder"]
    folder.mkdir(parents=True)
    (folder / case.get("file", "SKILL.md")).write_bytes(case_bytes(case))
    index = Loader((Source("user", root, True),)).load()
    notes = [d for d in index.diagnostics if d.path == folder]
    skill = next((s for s in index.skills if s.path == folder), None)
    outcome = "skipped" if skill is None else ("warned" if notes else "clean")
    return outcome, skill, [d.message for d in notes]


def write_strictly(case: dict[str, Any]) -> tuple[str, str]:
    """("accept" | "refuse", the refusal) of one case as ``skill create --from`` checks it."""
    try:
        validate_skill_md(case_bytes(case).decode("utf-8"), case["folder"])
    except InvalidInput as exc:
        return "refuse", str(exc)
    return "accept", ""


def expected(case: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The lenient outcomes and the strict outcome that agree with the reference, or that the
    case's policy names instead."""
    valid = case["reference"] == "valid"
    lenient, strict = ({"clean"}, {"accept"}) if valid else ({"warned", "skipped"}, {"refuse"})
    policy = POLICIES[case["policy"]] if "policy" in case else None
    if policy is not None and policy.lenient is not None:
        lenient = {policy.lenient}
    if policy is not None and policy.strict is not None:
        strict = {policy.strict}
    return lenient, strict


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_case_agrees_with_the_reference_or_its_named_policy(case: dict[str, Any], tmp_path: Path) -> None:
    lenient, strict = expected(case)
    outcome, _, notes = read_leniently(tmp_path, case)
    assert outcome in lenient, f"{case['id']}: read {outcome} ({notes}), reference says {case['reference']}"
    verdict, why = write_strictly(case)
    assert verdict in strict, f"{case['id']}: write {verdict} ({why}), reference says {case['reference']}"


def test_the_corpus_covers_every_policy_and_both_verdicts() -> None:
    used = {c["policy"] for c in CASES if "policy" in c}
    assert used == set(POLICIES), "every policy difference is named on a case, and only those"
    assert {c["reference"] for c in CASES} == {"valid", "invalid"}
    assert len(CASES) >= 68 and len(BY_ID) == len(CASES)
    for case in CASES:
        assert (CORPUS / "cases" / f"{case['id']}.md").is_file()
    # a case names a policy exactly where kenning's expected outcome is not the reference's
    differing = {c["id"] for c in CASES if expected(c) != expected({k: v for k, v in c.items() if k != "policy"})}
    assert differing == {c["id"] for c in CASES if "policy" in c}


# -- what each fix of issue 21 reads and says -------------------------------------------------------


def test_name_and_description_are_read_as_the_text_written(tmp_path: Path) -> None:
    texts = {}
    for cid in ("name-yes", "name-on", "name-number", "name-octal-looking", "description-year",
                "description-boolean", "description-date", "description-float", "description-null-word"):
        _, skill, notes = read_leniently(tmp_path / cid, BY_ID[cid])
        assert skill is not None and notes == [], cid
        texts[cid] = (skill.name, skill.description)
    assert texts["name-yes"][0] == "yes" and texts["name-on"][0] == "on"
    assert texts["name-number"][0] == "123" and texts["name-octal-looking"][0] == "007"
    assert [texts[c][1] for c in ("description-year", "description-boolean", "description-date",
                                  "description-float", "description-null-word")] == \
        ["2024", "true", "2024-05-01", "1.50", "null"]
    _, skill, _ = read_leniently(tmp_path / "compat", BY_ID["compatibility-number"])
    assert skill is not None and skill.compatibility == "3.10"  # not the float 3.1
    _, skill, _ = read_leniently(tmp_path / "other", BY_ID["other-client-fields"])
    assert skill is not None and skill.version == "1.10"
    front = validate_skill_md(case_bytes(BY_ID["name-number"]).decode(), "123")
    assert front.data["name"] == "123"


def test_a_duplicated_key_is_named_with_both_lines(tmp_path: Path) -> None:
    outcome, skill, notes = read_leniently(tmp_path, BY_ID["duplicate-description"])
    assert outcome == "warned" and skill is not None
    assert skill.description == "The second description."  # YAML's choice, now said aloud
    assert any("'description'" in n and "lines 3 and 4" in n for n in notes)
    verdict, why = write_strictly(BY_ID["duplicate-metadata-key"])
    assert verdict == "refuse" and "'metadata.author'" in why and "lines 5 and 6" in why


def test_compatibility_is_limited_to_500_characters(tmp_path: Path) -> None:
    _, _, notes = read_leniently(tmp_path, BY_ID["compatibility-501"])
    assert any("compatibility is 501 characters; the limit is 500" in n for n in notes)
    assert "compatibility is 501 characters" in write_strictly(BY_ID["compatibility-501"])[1]
    assert "compatibility must be text" in write_strictly(BY_ID["compatibility-a-list"])[1]


def test_front_matter_closed_with_dots_is_read_with_a_warning_and_refused_on_write(tmp_path: Path) -> None:
    outcome, _, notes = read_leniently(tmp_path, BY_ID["closed-with-dots"])
    assert outcome == "warned" and any("'...' line (line 4)" in n and "'---'" in n for n in notes)
    assert "'...'" in write_strictly(BY_ID["closed-with-dots"])[1]


def test_names_are_compared_with_their_folder_in_nfkc(tmp_path: Path) -> None:
    for cid in ("name-decomposed-folder-composed", "name-composed-folder-decomposed", "name-full-width"):
        outcome, skill, notes = read_leniently(tmp_path / cid, BY_ID[cid])
        assert outcome == "clean", (cid, notes)
    _, skill, _ = read_leniently(tmp_path / "fw", BY_ID["name-full-width"])
    assert skill is not None and skill.name == "report"  # kept in NFKC form, as it is compared


def test_unicode_names_are_read_but_written_only_as_ascii_saying_whose_rule_it_is(tmp_path: Path) -> None:
    for cid in ("name-chinese", "name-russian-hyphens", "name-russian-lower", "name-greek"):
        outcome, skill, _ = read_leniently(tmp_path / cid, BY_ID[cid])
        assert outcome == "clean" and skill is not None and skill.name == BY_ID[cid]["folder"]
        verdict, why = write_strictly(BY_ID[cid])
        assert verdict == "refuse" and "kenning's rule, not the specification's" in why
    assert "write it as 'report'" in write_strictly(BY_ID["name-full-width"])[1]
    assert "is not allowed" in write_strictly(BY_ID["name-russian-upper"])[1]  # invalid for both


def test_a_byte_order_mark_is_read_but_never_written(tmp_path: Path) -> None:
    case = BY_ID["byte-order-mark"]
    text = case_bytes(case).decode("utf-8")
    assert text.startswith("\ufeff") and case["reference"] == "invalid" and case["written"] == "valid"
    outcome, skill, _ = read_leniently(tmp_path, case)
    assert outcome == "clean" and skill is not None and skill.name == "bom"
    written = text_to_write(text)
    assert written == text[1:] and written.startswith("---\n")
    assert validate_skill_md(written, "bom").data["name"] == "bom"
    assert text_to_write(written) == written


def test_create_edit_and_patch_never_write_a_byte_order_mark(skills: Skills) -> None:
    bom = "\ufeff---\nname: bom-skill\ndescription: Use it to check byte-order marks.\n---\n\n# Steps\n"
    made = skills.skill_manage("create", "bom-skill", content=bom)
    skill_md = Path(made["path"]) / "SKILL.md"
    assert skill_md.read_bytes().startswith(b"---\n")
    skills.skill_manage("edit", "bom-skill", content=bom + "\nEdited.\n")
    assert skill_md.read_bytes().startswith(b"---\n")
    skills.skill_manage("patch", "bom-skill", old_string="---\nname:", new_string="\ufeff---\nname:")
    assert skill_md.read_bytes().startswith(b"---\n")


def test_a_lower_case_skill_md_is_shown_from_its_own_file_and_not_written_over(skills: Skills) -> None:
    folder = skills.sources[3].root / "lower-file"  # the user root (after the three project roots)
    assert skills.sources[3].name == "user"
    folder.mkdir(parents=True)
    (folder / "skill.md").write_text("---\nname: lower-file\ndescription: A skill whose file is lower case.\n---\n"
                                     "\nRead me.\n", encoding="utf-8")
    assert "Read me." in skills.skill_view("lower-file")["content"]
    with pytest.raises(InvalidInput, match="rename the file to SKILL.md"):
        skills.skill_manage("edit", "lower-file", content="---\nname: lower-file\ndescription: x y z.\n---\n")
    assert sorted(p.name for p in folder.iterdir()) == ["skill.md"]


def test_a_lower_case_skill_md_is_read_with_a_warning_to_rename_it(tmp_path: Path) -> None:
    outcome, skill, notes = read_leniently(tmp_path, BY_ID["lower-case-file-name"])
    assert outcome == "warned" and skill is not None and skill.name == "lower-file"
    assert notes == ["the skill file is named skill.md; read, but rename it to SKILL.md, the name the Agent "
                     "Skills format and most clients use"]


def test_metadata_must_be_a_mapping(tmp_path: Path) -> None:
    outcome, skill, notes = read_leniently(tmp_path, BY_ID["metadata-not-a-mapping"])
    assert outcome == "warned" and skill is not None and notes == ["'metadata' is not a mapping; ignored"]
    assert "metadata must be a mapping" in write_strictly(BY_ID["metadata-not-a-mapping"])[1]


# -- the labels, computed live ---------------------------------------------------------------------


@pytest.mark.skipif(not os.environ.get("KENNING_SKILLS_REF_PYTHON"),
                    reason="KENNING_SKILLS_REF_PYTHON names no Python with skills-ref installed")
def test_the_stored_labels_are_the_reference_validators() -> None:
    python = os.environ["KENNING_SKILLS_REF_PYTHON"]
    done = subprocess.run([python, str(CORPUS / "label.py")], capture_output=True, text=True, check=True,
                          encoding="utf-8")
    live = json.loads(done.stdout)
    stored = tomllib.loads((CORPUS / "cases.toml").read_text(encoding="utf-8"))["reference"]
    assert live["version"] == stored["version"]
    for case in CASES:
        label = live["labels"][case["id"]]
        assert label["reference"] == case["reference"], (case["id"], label["errors"])
        assert label.get("written") == case.get("written"), case["id"]
