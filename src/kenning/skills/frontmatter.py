"""Reading and checking ``SKILL.md``: YAML front matter between ``---`` lines, then Markdown.

Reading is lenient, because skills arrive from many clients and many hands: a name that differs
from its folder or runs long is a warning; a value with an unquoted ``: `` (a common slip that YAML
refuses) is quoted and parsed again, with a warning; a duplicated key or a ``...`` closing line is a
warning; only a missing description or front matter that still cannot be read skips the skill, and
the diagnostic says why. Writing is strict (``validate_skill_md``): what kenning writes follows the
Agent Skills format, as its reference validator ``skills-ref`` reads it, except where kenning's
policy differs on purpose (names ASCII on write; other clients' fields kept; ``metadata`` a mapping;
YAML flow lists allowed; a byte-order mark read but never written: ``text_to_write``).

``name``, ``description``, ``license``, ``compatibility`` and ``version`` are read as the text
written in the file (a YAML scalar's source text: ``name: yes`` is "yes", ``version: 1.10`` is
"1.10"), as the reference reads every scalar. A name is compared with its folder, and kept, in
Unicode NFKC form; the lenient reader allows any Unicode lower-case letters and digits, as the
specification does.

Fields of other clients are folded into one ``Skill``: top-level ``tags``, ``platforms``,
``requires``, ``always``, ``related_skills``, ``category`` (Hermes and others), and the same under
``metadata.kenning``, ``metadata.hermes``, ``metadata.nanobot`` and ``metadata.openclaw``
(openclaw's ``os`` and ``requires.anyBins`` included). YAML is read with the safe loader only.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidInput
from .model import SKILL_FILE, SKILL_MD_MAX_CHARS, Requirements, Skill

NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
READ_MAX_BYTES = 1 << 20  # a SKILL.md beyond this is not a skill someone wrote by hand: skipped
CLIENTS = ("kenning", "hermes", "nanobot", "openclaw")
# fields read as the text written in the file, not as YAML types (``version: 1.10`` is "1.10", not 1.1)
TEXT_FIELDS = ("name", "description", "license", "compatibility", "version")
_REQUIRED_TEXT = ("name", "description")  # even a null-looking scalar (``~``) is their text, as in skills-ref
_BOM = "\ufeff"
_MAX_DUPLICATES_SHOWN = 5

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CATEGORY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
# `key: value` where value is a plain scalar: the lines the colon repair may quote
_PLAIN_PAIR = re.compile(r"^(?P<lead>\s*(?:-\s+)?[A-Za-z0-9_][\w.-]*\s*:\s+)(?P<value>[^\s'\"\[{|>&*!%@`#].*?)\s*$")
_TOOL = re.compile(r"[^\s,()]+(?:\([^)]*\))?")
_PLATFORM_ALIASES = {
    "linux": "linux",
    "darwin": "macos", "macos": "macos", "mac": "macos", "osx": "macos", "macosx": "macos",
    "windows": "windows", "win32": "windows", "win": "windows", "cygwin": "windows",
}


@dataclass(frozen=True)
class FrontMatter:
    """What a SKILL.md holds: the front matter's fields (``TEXT_FIELDS`` as the text written), the
    body, the lines the lenient colon repair quoted, and ``problems``: what the strict check refuses
    and the lenient reader warns about (a duplicated key, a ``...`` closing line)."""

    data: dict[str, Any]
    body: str
    repaired: tuple[int, ...] = ()  # front-matter lines (1-based) whose value had to be quoted
    problems: tuple[str, ...] = ()


def split_front_matter(text: str) -> tuple[str, str] | None:
    """(front matter, body) of a SKILL.md, line endings made ``\\n``; None without front matter.
    Accepts a ``...`` closing line too (``parse_front_matter`` says it is one)."""
    parts = _split(text)
    return None if parts is None else (parts[0], parts[1])


def _split(text: str) -> tuple[str, str, str, int] | None:
    """(front matter, body, closing line, its line number). The first ``---`` or ``...`` line closes the front
    matter, as YAML reads it; only ``---`` is the Agent Skills format."""
    lines = text.lstrip(_BOM).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        closing = lines[i].rstrip()
        if closing in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]).lstrip("\n"), closing, i + 1
    return None


def text_to_write(text: str) -> str:
    """The SKILL.md text kenning writes for ``text``: the same without a leading byte-order mark.
    Reading allows one (Windows editors add it), but the Agent Skills reference refuses a file that
    does not start with ``---``, so kenning never writes one."""
    return text.lstrip(_BOM)


def _quote_plain_colons(front: str) -> tuple[str, tuple[int, ...]]:
    """Quote plain values that contain ``: `` (``description: Deploy: build then ship``)."""
    out, fixed = [], []
    for number, line in enumerate(front.split("\n"), 1):
        m = _PLAIN_PAIR.match(line)
        value = m["value"] if m else ""
        if m and (": " in value or value.endswith(":")) and " #" not in value:
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m["lead"]}"{escaped}"'
            fixed.append(number)
        out.append(line)
    return "\n".join(out), tuple(fixed)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
    # the front matter starts on line 2 of the file
    return f"{problem} (line {mark.line + 2})" if mark is not None else str(problem)


# libyaml's safe loader when PyYAML was built with it: ten times faster on a library of 1,000 skills
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _or_text(build: Any) -> Any:
    """A YAML constructor that falls back to the scalar's text when ``build`` cannot make a value."""
    def construct(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        try:
            return build(loader, node)
        except (ValueError, TypeError, OverflowError):
            return loader.construct_scalar(node)
    return construct


class _Loader(_SAFE_LOADER):
    """The safe loader, except that a scalar YAML would build into an impossible value (the date
    ``2024-13-45``, ``!!int abc``, an integer of 5,000 digits) stays its text, as skills-ref keeps
    every scalar, instead of raising ValueError out of the whole library load."""

    yaml_constructors = {
        **_SAFE_LOADER.yaml_constructors,
        "tag:yaml.org,2002:timestamp": _or_text(yaml.SafeLoader.construct_yaml_timestamp),
        "tag:yaml.org,2002:int": _or_text(yaml.SafeLoader.construct_yaml_int),
        "tag:yaml.org,2002:float": _or_text(yaml.SafeLoader.construct_yaml_float),
    }


def _compose(text: str) -> tuple[yaml.Node | None, Any]:
    """The YAML node tree and the values built from it, in one parse: the tree keeps what the
    values lose (each scalar's source text, every duplicated key and its line)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def parse_front_matter(text: str, *, lenient: bool) -> FrontMatter:
    """The front matter as a mapping and the body; InvalidInput says what is wrong. ``lenient``
    allows the unquoted-colon repair."""
    parts = _split(text)
    if parts is None:
        raise InvalidInput("no front matter: SKILL.md must start with a '---' line, then 'name:' and "
                           "'description:', then a closing '---' line")
    front, body, closing, closing_line = parts
    repaired: tuple[int, ...] = ()
    try:
        node, data = _compose(front)
    except yaml.YAMLError as exc:
        fixed, repaired = _quote_plain_colons(front)
        problem = f"front matter is not valid YAML: {_yaml_problem(exc)}"
        if not repaired:
            raise InvalidInput(problem) from None
        if not lenient:
            raise InvalidInput(f"{problem}; quote the value on line {repaired[0] + 1}: it contains ': '") from None
        try:
            node, data = _compose(fixed)
        except yaml.YAMLError:
            raise InvalidInput(problem) from None
    if node is None:  # nothing between the lines
        node, data = yaml.MappingNode("tag:yaml.org,2002:map", []), {}
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise InvalidInput(f"front matter must be a mapping of fields, got {type(data).__name__}")
    problems = _duplicate_keys(node)
    if closing == "...":
        problems.append(f"the front matter ends with a '...' line (line {closing_line}); the Agent Skills "
                        "format closes it with '---': change that line to '---'")
    fields = {str(k): v for k, v in data.items()}
    fields.update(_source_texts(node))
    return FrontMatter(fields, body, repaired, tuple(problems))


def _source_texts(node: yaml.MappingNode) -> dict[str, str | None]:
    """``TEXT_FIELDS`` as written: a scalar's source text whatever type YAML would give it. An
    optional field left empty or written ``~`` / ``null`` stays absent (None)."""
    out: dict[str, str | None] = {}
    for key, value in node.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value in TEXT_FIELDS and isinstance(value, yaml.ScalarNode)):
            continue
        if value.tag == "tag:yaml.org,2002:null" and key.value not in _REQUIRED_TEXT:
            out[key.value] = None
        else:
            out[key.value] = value.value
    return out


def _duplicate_keys(root: yaml.Node) -> list[str]:
    """A message for each key written twice in one mapping (at any depth), naming both lines. YAML
    keeps the last silently, so a second ``description:`` would replace the first unseen."""
    found: list[tuple[int, str]] = []  # (line, message)
    seen_nodes: set[int] = set()  # an alias can make the tree a graph, even a cycle
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((item, where) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            first_line: dict[str, int] = {}
            for key, value in node.value:
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else ""
                line = key.start_mark.line + 2  # the front matter starts on line 2 of the file
                if name and name in first_line:
                    found.append((line, f"key {where + name!r} is written twice (lines {first_line[name]} and "
                                        f"{line}); YAML keeps only the last: delete one"))
                first_line.setdefault(name, line)
                stack.append((value, f"{where}{name}."))
    messages = [m for _, m in sorted(found)]  # in reading order: the stack visits the tree in none
    if len(messages) > _MAX_DUPLICATES_SHOWN:
        more = len(messages) - _MAX_DUPLICATES_SHOWN
        messages = [*messages[:_MAX_DUPLICATES_SHOWN], f"and {more} more duplicated key(s)"]
    return messages


# -- fields ----------------------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None


def _strings(value: Any, split: re.Pattern[str] | None = None) -> list[str]:
    """A list of short strings from a YAML list or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        items: Iterable[Any] = split.findall(value) if split else value.split(",")
    elif isinstance(value, list | tuple):
        items = value
    else:
        items = [value]
    return [str(v).strip() for v in items if isinstance(v, str | int | float) and str(v).strip()]


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def normalise_platform(name: str) -> str:
    return _PLATFORM_ALIASES.get(name.strip().lower(), name.strip().lower())


def _mapping(value: Any) -> dict[str, Any]:
    """A mapping, also from the JSON string some clients write (``metadata: '{"nanobot": …}'``)."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {}
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def _requires(sections: list[dict[str, Any]]) -> Requirements:
    bins: list[str] = []
    any_bins: list[str] = []
    env: list[str] = []
    platforms: list[str] = []
    for section in sections:
        req = section.get("requires")
        if isinstance(req, dict):
            bins += _strings(req.get("bins"))
            any_bins += _strings(req.get("anyBins", req.get("any_bins")))
            env += _strings(req.get("env"))
        elif isinstance(req, list):  # [{bin: docker}, {env: TOKEN}] or a plain list of binaries
            for entry in req:
                if isinstance(entry, dict):
                    bins += _strings(entry.get("bin") or entry.get("bins"))
                    env += _strings(entry.get("env"))
                elif isinstance(entry, str):
                    bins.append(entry.strip())
        platforms += _strings(section.get("platforms")) + _strings(section.get("os"))
    return Requirements(
        bins=_unique(bins), any_bins=_unique(any_bins), env=_unique(env),
        platforms=_unique(normalise_platform(p) for p in platforms),
    )


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"))


def nfkc(text: str) -> str:
    """``text`` in Unicode NFKC form: how names and folders are compared ("café" composed or
    decomposed, full-width letters), as the Agent Skills reference compares them."""
    return unicodedata.normalize("NFKC", text)


def spec_name_ok(name: str) -> bool:
    """Whether ``name`` (already NFKC) follows the Agent Skills name rule as its reference applies
    it: Unicode lower-case letters and digits (any script), single inner hyphens."""
    return (bool(name) and name == name.lower() and "--" not in name and not name.startswith("-")
            and not name.endswith("-") and all(c.isalnum() or c == "-" for c in name))


def _read_name(fm: FrontMatter, folder: str) -> tuple[str, list[str]]:
    """The name (NFKC) and the warnings about it; the folder name when the front matter has none."""
    written = _text(fm.data.get("name"))
    if written is None:
        return folder, [f"no 'name:' in the front matter; using the folder name {folder!r}"] + _name_rule(folder)
    name, warnings = nfkc(written), []
    if name != nfkc(folder):
        warnings.append(f"name {name!r} differs from its folder {folder!r}; rename one so they match")
    return name, warnings + _name_rule(name)


def _name_rule(name: str) -> list[str]:
    if len(name) > NAME_MAX:
        return [f"name is {len(name)} characters; the limit is {NAME_MAX}"]
    if not spec_name_ok(name):
        return [f"name {name!r} should be lower-case letters, digits and single hyphens"]
    return []


def _limits(data: dict[str, Any]) -> list[str]:
    """Warnings for the lengths and types the format limits (counted as written, as skills-ref counts)."""
    out = []
    description, compatibility = data.get("description"), data.get("compatibility")
    if isinstance(description, str) and len(description) > DESCRIPTION_MAX:
        out.append(f"description is {len(description)} characters; the limit is {DESCRIPTION_MAX}")
    if isinstance(compatibility, dict | list):
        out.append("compatibility is not text; ignored: write one line such as 'Requires git and docker'")
    elif isinstance(compatibility, str) and len(compatibility) > COMPATIBILITY_MAX:
        out.append(f"compatibility is {len(compatibility)} characters; the limit is {COMPATIBILITY_MAX}")
    return out


def skill_from_front_matter(
    fm: FrontMatter, *, path: Path, source: str, root: Path, category: str | None, file: str = SKILL_FILE
) -> tuple[Skill, list[str]]:
    """The Skill the front matter describes and the warnings about it. InvalidInput when it has no
    usable description (the one field a skill cannot do without)."""
    data, folder = fm.data, path.name
    description = _text(data.get("description"))
    if not description:
        raise InvalidInput("no description: add 'description:' saying what the skill does and when to use it")
    name, name_warnings = _read_name(fm, folder)
    warnings = [*fm.problems, *_limits(data), *name_warnings]
    if fm.repaired:
        lines = ", ".join(str(n + 1) for n in fm.repaired)
        warnings.append(f"unquoted ': ' in the value on line {lines}; read as if quoted: put it in quotes")
    metadata = _mapping(data.get("metadata"))
    if data.get("metadata") is not None and not metadata and not isinstance(data.get("metadata"), dict):
        warnings.append("'metadata' is not a mapping; ignored")
    clients = [_mapping(metadata.get(c)) for c in CLIENTS]
    sections = [data, *clients]
    skill = Skill(
        name=name,
        description=description,
        path=path,
        source=source,
        root=root,
        folder=folder,
        body=fm.body,
        category=category or _text(data.get("category")) or _first_text(clients, "category"),
        version=_text(data.get("version")) or _text(metadata.get("version")) or _first_text(clients, "version"),
        license=_text(data.get("license")),
        compatibility=_text(data.get("compatibility")),
        allowed_tools=_unique(_strings(data.get("allowed-tools", data.get("allowed_tools")), _TOOL)),
        tags=_unique(t for s in sections for t in _strings(s.get("tags"))),
        related_skills=_unique(
            r for s in sections for r in _strings(s.get("related_skills", s.get("related-skills")))
        ),
        requires=_requires(sections),
        always=any(_truthy(s.get("always")) for s in sections),
        metadata=metadata,
        file=file,
    )
    return skill, warnings


def _first_text(sections: list[dict[str, Any]], key: str) -> str | None:
    for section in sections:
        text = _text(section.get(key))
        if text:
            return text
    return None


# -- strict checks for writes --------------------------------------------------------------------


def check_name(name: object) -> str:
    """A skill name kenning writes: 1-64 of a-z 0-9 and single inner hyphens. The Agent Skills
    format also allows lower-case letters of any script; kenning's writes keep to ASCII, so that a
    folder's name is the same on every file system (macOS stores "café" decomposed) and in every shell."""
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"skill name must be text such as 'docker-deploy', got {name!r}")
    if len(name) > NAME_MAX:
        raise InvalidInput(f"skill name {name[:20]!r}… is {len(name)} characters; the limit is {NAME_MAX}")
    if not _NAME.match(name):
        folded = nfkc(name)
        if spec_name_ok(folded) and len(folded) <= NAME_MAX:
            hint = f": write it as {folded!r}" if _NAME.match(folded) else " (e.g. 'docker-deploy')"
            raise InvalidInput(
                f"skill name {name!r} is valid in the Agent Skills format, but kenning writes only ASCII names "
                "(kenning's rule, not the specification's, so that the folder name is the same on every file "
                f"system): use a-z, 0-9 and single hyphens{hint}"
            )
        raise InvalidInput(
            f"skill name {name!r} is not allowed: use lower-case letters, digits and single hyphens, "
            "not at the start or end (e.g. 'docker-deploy')"
        )
    return name


def check_category(category: object) -> str | None:
    """A category folder path such as "devops" or "devops/aws" (at most 4 levels)."""
    if category is None or category == "":
        return None
    if not isinstance(category, str):
        raise InvalidInput(f"category must be a folder name such as 'devops', got {category!r}")
    parts = category.strip().rstrip("/").split("/")
    if len(parts) > 4 or not all(_CATEGORY_PART.match(p) for p in parts):
        raise InvalidInput(
            f"category {category!r} is not allowed: use up to 4 folder names of letters, digits, '-' "
            "and '_', separated by '/' (e.g. 'devops' or 'devops/aws')"
        )
    return "/".join(parts)


def validate_skill_md(text: object, folder: str) -> FrontMatter:
    """Strict check of a SKILL.md about to be written into folder ``folder``; InvalidInput lists
    every problem found."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("SKILL.md content is empty; give the whole file: front matter, then the body")
    if len(text) > SKILL_MD_MAX_CHARS:
        raise InvalidInput(f"SKILL.md would be {len(text):,} characters; the limit is {SKILL_MD_MAX_CHARS:,}: "
                           "move detail into references/ files")
    if "\x00" in text:
        raise InvalidInput("SKILL.md contains a NUL byte; it must be text")
    fm = parse_front_matter(text, lenient=False)
    problems = [*fm.problems, *_strict_name(fm.data.get("name"), folder)]
    description, compatibility = fm.data.get("description"), fm.data.get("compatibility")
    if not isinstance(description, str) or not description.strip():
        problems.append("description is missing: say what the skill does and when to use it (1-1024 characters)")
    elif len(description) > DESCRIPTION_MAX:
        problems.append(f"description is {len(description)} characters; the limit is {DESCRIPTION_MAX}")
    if compatibility is not None and not isinstance(compatibility, str):
        problems.append("compatibility must be text, one line such as 'Requires git and docker'")
    elif compatibility is not None and len(compatibility) > COMPATIBILITY_MAX:
        problems.append(f"compatibility is {len(compatibility)} characters; the limit is {COMPATIBILITY_MAX}")
    if "metadata" in fm.data and not isinstance(fm.data["metadata"], dict):
        problems.append("metadata must be a mapping (metadata:\\n  kenning:\\n    tags: [...])")
    for key in ("tags", "related_skills", "platforms"):
        if key in fm.data and not isinstance(fm.data[key], list | str):
            problems.append(f"{key} must be a list")
    if "always" in fm.data and not isinstance(fm.data["always"], bool):
        problems.append("always must be true or false")
    if problems:
        raise InvalidInput("invalid SKILL.md: " + "; ".join(problems))
    return fm


def _strict_name(value: object, folder: str) -> list[str]:
    """What is wrong with the front-matter name of a skill written into ``folder`` (compared in
    NFKC form; surrounding spaces ignored, as the reference ignores them)."""
    name = value.strip() if isinstance(value, str) else value
    try:
        check_name(name)
    except InvalidInput as exc:
        return [str(exc)]
    if nfkc(str(name)) != nfkc(folder):
        return [f"name {name!r} must equal its folder name {folder!r}"]
    return []
