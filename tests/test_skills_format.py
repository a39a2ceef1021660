"""SKILL.md read leniently (with diagnostics) and checked strictly before writes; other clients'
fields folded into one Skill."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.errors import InvalidInput
from kenning.skills.frontmatter import check_category, check_name, text_to_write, validate_skill_md
from kenning.skills.index import Loader
from kenning.skills.model import Skill
from kenning.skills.sources import Source
from skillkit import skill_md, write_skill


def load(root: Path) -> tuple[list[Skill], list[tuple[str, str, str]]]:
    index = Loader((Source("user", root, True),)).load()
    return list(index.skills), [(d.path.name, d.level, d.message) for d in index.diagnostics]


def test_a_plain_skill_loads_with_its_fields(tmp_path: Path) -> None:
    write_skill(tmp_path, "docker-deploy", "Deploy with docker compose.", category="devops",
                front="version: 1.2.0\nlicense: MIT\ntags: [docker, deploy]\nallowed-tools: Bash(git:*) Read\n")
    skills, notes = load(tmp_path)
    assert notes == []
    (skill,) = skills
    assert (skill.name, skill.folder, skill.category) == ("docker-deploy", "docker-deploy", "devops")
    assert skill.description == "Deploy with docker compose."
    assert (skill.version, skill.license, skill.tags) == ("1.2.0", "MIT", ("docker", "deploy"))
    assert skill.allowed_tools == ("Bash(git:*)", "Read")
    assert skill.body.startswith("# Steps") and skill.rel_path == "devops/docker-deploy"


def test_unquoted_colon_in_a_value_is_quoted_and_retried_with_a_warning(tmp_path: Path) -> None:
    write_skill(tmp_path, "ship", raw="---\nname: ship\ndescription: Ship it: build, test, then deploy\n---\nbody\n")
    skills, notes = load(tmp_path)
    assert skills[0].description == "Ship it: build, test, then deploy"
    assert [(n, lvl) for n, lvl, _ in notes] == [("ship", "warning")]
    assert "line 3" in notes[0][2] and "quote" in notes[0][2]


def test_folded_and_literal_descriptions_work(tmp_path: Path) -> None:
    write_skill(tmp_path, "folded", raw="---\nname: folded\ndescription: >\n  one\n  two\n---\n")
    write_skill(tmp_path, "literal", raw="---\nname: literal\ndescription: |\n  line one\n  line two\n---\n")
    skills, notes = load(tmp_path)
    by = {s.name: s.description for s in skills}
    assert by == {"folded": "one two", "literal": "line one\nline two"} and notes == []


def test_missing_description_skips_the_skill_and_says_why(tmp_path: Path) -> None:
    write_skill(tmp_path, "nodesc", raw="---\nname: nodesc\n---\nbody\n")
    skills, notes = load(tmp_path)
    assert skills == []
    assert notes[0][:2] == ("nodesc", "skipped") and "description" in notes[0][2]


def test_unreadable_yaml_skips_the_skill_with_the_yaml_problem(tmp_path: Path) -> None:
    write_skill(tmp_path, "broken", raw="---\nname: broken\ndescription: [unclosed\n---\n")
    write_skill(tmp_path, "nofront", raw="# just markdown\n")
    skills, notes = load(tmp_path)
    assert skills == []
    reasons = {name: (level, msg) for name, level, msg in notes}
    assert reasons["broken"][0] == "skipped" and "not valid YAML" in reasons["broken"][1]
    assert reasons["nofront"][0] == "skipped" and "no front matter" in reasons["nofront"][1]


def test_name_folder_mismatch_and_long_name_are_warnings_not_skips(tmp_path: Path) -> None:
    write_skill(tmp_path, "folder-name", raw=skill_md("other-name", "Does a thing."))
    long = "a" * 70
    write_skill(tmp_path, long, raw=skill_md(long, "Long name."))
    skills, notes = load(tmp_path)
    assert sorted(s.name for s in skills) == sorted(["other-name", long])
    messages = " ".join(m for _, level, m in notes if level == "warning")
    assert "differs from its folder" in messages and "limit is 64" in messages


def test_crlf_bom_and_non_utf8_files(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "crlf", raw="")
    (folder / "SKILL.md").write_bytes(b"\xef\xbb\xbf---\r\nname: crlf\r\ndescription: Windows file.\r\n---\r\nbody\r\n")
    bad = write_skill(tmp_path, "latin", raw="")
    (bad / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    skills, notes = load(tmp_path)
    assert [s.description for s in skills] == ["Windows file."]
    assert notes[0][:2] == ("latin", "skipped") and "UTF-8" in notes[0][2]


def test_other_clients_requirements_tags_and_always_are_understood(tmp_path: Path) -> None:
    front = (
        "platforms: [macos, linux]\n"
        "related_skills: [git-basics]\n"
        "metadata:\n"
        "  hermes:\n    tags: [git]\n    related_skills: [gh-cli]\n"
        '  openclaw: {"requires": {"bins": ["gh"], "anyBins": ["python3", "python"], "env": ["GH_TOKEN"]},'
        ' "os": ["darwin"]}\n'
        "  kenning:\n    tags: [review]\n    always: true\n"
    )
    write_skill(tmp_path, "pr-review", "Review pull requests.", front=front)
    (skill,), notes = load(tmp_path)
    assert notes == []
    assert skill.tags == ("review", "git")  # top level, then kenning, hermes, nanobot, openclaw
    assert skill.related_skills == ("git-basics", "gh-cli")
    assert skill.requires.bins == ("gh",) and skill.requires.any_bins == ("python3", "python")
    assert skill.requires.env == ("GH_TOKEN",) and skill.requires.platforms == ("macos", "linux")
    assert skill.always is True and "openclaw" in skill.metadata


def test_nanobot_metadata_as_a_json_string_is_read(tmp_path: Path) -> None:
    front = """metadata: '{"nanobot": {"requires": {"bins": ["tmux"]}, "always": true}}'\n"""
    write_skill(tmp_path, "tmux", "Drive tmux sessions.", front=front)
    (skill,), _ = load(tmp_path)
    assert skill.requires.bins == ("tmux",) and skill.always


# -- strict checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "-lead", "trail-", "dou--ble", "Upper", "under_score", "a" * 65, "sp ace"])
def test_bad_names_are_refused_on_write(name: str) -> None:
    with pytest.raises(InvalidInput):
        check_name(name)


def test_good_names_pass() -> None:
    for name in ("a", "docker-deploy", "k8s-rollout-v2", "a" * 64):
        assert check_name(name) == name


def test_strict_validation_lists_every_problem() -> None:
    with pytest.raises(InvalidInput) as err:
        validate_skill_md("---\nname: Wrong_Name\ndescription: ''\n---\n", "right-name")
    message = str(err.value)
    assert "lower-case" in message and "description is missing" in message


def test_strict_validation_refuses_what_lenient_reading_repairs() -> None:
    with pytest.raises(InvalidInput, match="quote the value on line 3"):
        validate_skill_md("---\nname: ship\ndescription: Ship it: now\n---\n", "ship")


def test_strict_validation_limits_name_folder_description_and_size() -> None:
    with pytest.raises(InvalidInput, match="must equal its folder"):
        validate_skill_md(skill_md("alpha", "x"), "beta")
    with pytest.raises(InvalidInput, match="limit is 1024"):
        validate_skill_md(skill_md("alpha", "x" * 1025), "alpha")
    with pytest.raises(InvalidInput, match="100,000"):
        validate_skill_md(skill_md("alpha", "x", body="y" * 100_001), "alpha")
    assert validate_skill_md(skill_md("alpha", "Does alpha."), "alpha").data["name"] == "alpha"


def test_categories_are_folder_paths() -> None:
    assert check_category("devops/aws") == "devops/aws" and check_category(None) is None
    for bad in ("../x", "a/../b", "/abs", "a b", "a/b/c/d/e"):
        with pytest.raises(InvalidInput):
            check_category(bad)


# -- conformance details (see also test_skill_conformance.py) ---------------------------------------


def test_scalars_of_text_fields_keep_their_written_form(tmp_path: Path) -> None:
    write_skill(tmp_path, "typed", raw="---\nname: typed\ndescription: 2024-01-01\nversion: 1.10\n"
                                       "license: ~\ncompatibility:\n---\n")
    (skill,), notes = load(tmp_path)
    assert (skill.description, skill.version, skill.license, skill.compatibility) == ("2024-01-01", "1.10", None, None)
    assert notes == []


def test_duplicated_keys_are_named_capped_and_refused_on_write(tmp_path: Path) -> None:
    repeated = "".join(f"k{i}: one\nk{i}: two\n" for i in range(200))
    write_skill(tmp_path, "many", raw=f"---\nname: many\ndescription: Many duplicates.\n{repeated}---\n")
    (skill,), notes = load(tmp_path)
    duplicates = [m for _, level, m in notes if level == "warning"]
    assert len(duplicates) == 6 and duplicates[-1] == "and 195 more duplicated key(s)"
    assert duplicates[0] == "key 'k0' is written twice (lines 4 and 5); YAML keeps only the last: delete one"
    assert duplicates[4].startswith("key 'k4'")  # in reading order
    with pytest.raises(InvalidInput, match=r"key 'name' is written twice \(lines 2 and 3\)"):
        validate_skill_md("---\nname: dup\nname: dup\ndescription: Twice.\n---\n", "dup")


def test_aliases_that_loop_or_fan_out_are_read_once(tmp_path: Path) -> None:
    write_skill(tmp_path, "loop", raw="---\nname: loop\ndescription: A looping alias.\nmetadata: &m\n  self: *m\n---\n")
    laughs = "".join(f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}]\n"
                     for i in range(1, 12))
    write_skill(tmp_path, "laughs", raw=f"---\nname: laughs\ndescription: Fans out.\nl0: &l0 [x]\n{laughs}---\n")
    skills, notes = load(tmp_path)
    assert sorted(s.name for s in skills) == ["laughs", "loop"] and notes == []


def test_hostile_yaml_is_skipped_with_a_reason(tmp_path: Path) -> None:
    write_skill(tmp_path, "unhashable", raw="---\nname: unhashable\ndescription: x\n? [a, b]\n: c\n---\n")
    write_skill(tmp_path, "deep", raw="---\nname: deep\ndescription: x\nk: " + "[" * 5000 + "]" * 5000 + "\n---\n")
    write_skill(tmp_path, "python-tag", raw="---\nname: python-tag\ndescription: !!python/object:os.system x\n---\n")
    skills, notes = load(tmp_path)
    assert skills == []
    assert {(name, level) for name, level, _ in notes} == {("unhashable", "skipped"), ("deep", "skipped"),
                                                          ("python-tag", "skipped")}
    assert all("YAML" in message for _, _, message in notes)


def test_an_empty_or_comment_only_front_matter_says_what_is_missing(tmp_path: Path) -> None:
    write_skill(tmp_path, "empty", raw="---\n---\nbody\n")
    write_skill(tmp_path, "comment", raw="---\n# nothing yet\n---\nbody\n")
    skills, notes = load(tmp_path)
    assert skills == [] and all(level == "skipped" and "no description" in m for _, level, m in notes)


def test_strict_names_ignore_surrounding_spaces_and_explain_kennings_ascii_rule() -> None:
    assert validate_skill_md("---\nname: '  spaced  '\ndescription: Spaces.\n---\n", "spaced").data["name"]
    with pytest.raises(InvalidInput, match="kenning's rule, not the specification's"):
        check_name("навык")
    with pytest.raises(InvalidInput, match="write it as 'demo'"):
        check_name("ｄｅｍｏ")
    with pytest.raises(InvalidInput, match="is not allowed"):
        check_name("НАВЫК")


def test_text_to_write_never_keeps_a_byte_order_mark() -> None:
    text = "\ufeff" + skill_md("bom", "Has a mark.")
    assert validate_skill_md(text, "bom").data["name"] == "bom"  # read past it, as the lenient reader does
    assert text_to_write(text) == skill_md("bom", "Has a mark.")
    assert text_to_write(skill_md("bom", "No mark.")) == skill_md("bom", "No mark.")


def test_a_scalar_yaml_cannot_build_stays_text_instead_of_breaking_the_load(tmp_path: Path) -> None:
    # once a ValueError out of the YAML constructor, which no skill diagnostic caught
    write_skill(tmp_path, "bad-date", raw="---\nname: bad-date\ndescription: 2024-13-45\nreviewed: 2024-13-45\n"
                                          "count: !!int many\nbig: " + "9" * 5000 + "\n---\n")
    write_skill(tmp_path, "fine", "Still loads.")
    skills, notes = load(tmp_path)
    by = {s.name: s for s in skills}
    assert by["bad-date"].description == "2024-13-45" and "fine" in by and notes == []
