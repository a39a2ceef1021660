"""Reading and checking ``SKILL.md``: YAML front matter between ``---`` lines, then Markdown.

Reading is lenient, because skills arrive from many clients and many hands: a name that differs
from its folder or runs long is a warning; a value with an unquoted ``: `` (a common slip that YAML
refuses) is quoted and parsed again, with a warning; only a missing description or front matter
that still cannot be read skips the skill, and the diagnostic says why. Writing is strict
(``validate_skill_md``): what kenning writes follows the Agent Skills format exactly.

Fields of other clients are folded into one ``Skill``: top-level ``tags``, ``platforms``,
``requires``, ``always``, ``related_skills``, ``category`` (Hermes and others), and the same under
``metadata.kenning``, ``metadata.hermes``, ``metadata.nanobot`` and ``metadata.openclaw``
(openclaw's ``os`` and ``requires.anyBins`` included). YAML is read with ``yaml.safe_load`` only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidInput
from .model import SKILL_MD_MAX_CHARS, Requirements, Skill

NAME_MAX = 64
DESCRIPTION_MAX = 1024
READ_MAX_BYTES = 1 << 20  # a SKILL.md beyond this is not a skill someone wrote by hand: skipped
CLIENTS = ("kenning", "hermes", "nanobot", "openclaw")

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
    data: dict[str, Any]
    body: str
    repaired: tuple[int, ...] = ()  # front-matter lines (1-based) whose value had to be quoted


def split_front_matter(text: str) -> tuple[str, str] | None:
    """(front matter, body) of a SKILL.md, line endings made ``\\n``; None without front matter."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]).lstrip("\n")
    return None


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
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _safe_load(text: str) -> Any:
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


def parse_front_matter(text: str, *, lenient: bool) -> FrontMatter:
    """The front matter as a mapping and the body; InvalidInput says what is wrong. ``lenient``
    allows the unquoted-colon repair."""
    parts = split_front_matter(text)
    if parts is None:
        raise InvalidInput("no front matter: SKILL.md must start with a '---' line, then 'name:' and "
                           "'description:', then a closing '---' line")
    front, body = parts
    repaired: tuple[int, ...] = ()
    try:
        data = _safe_load(front)
    except yaml.YAMLError as exc:
        fixed, repaired = _quote_plain_colons(front)
        problem = f"front matter is not valid YAML: {_yaml_problem(exc)}"
        if not repaired:
            raise InvalidInput(problem) from None
        if not lenient:
            raise InvalidInput(f"{problem}; quote the value on line {repaired[0] + 1}: it contains ': '") from None
        try:
            data = _safe_load(fixed)
        except yaml.YAMLError:
            raise InvalidInput(problem) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidInput(f"front matter must be a mapping of fields, got {type(data).__name__}")
    return FrontMatter({str(k): v for k, v in data.items()}, body, repaired)


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


def skill_from_front_matter(
    fm: FrontMatter, *, path: Path, source: str, root: Path, category: str | None
) -> tuple[Skill, list[str]]:
    """The Skill the front matter describes and the warnings about it. InvalidInput when it has no
    usable description (the one field a skill cannot do without)."""
    data, warnings = fm.data, []
    folder = path.name
    description = _text(data.get("description"))
    if not description:
        raise InvalidInput("no description: add 'description:' saying what the skill does and when to use it")
    if len(description) > DESCRIPTION_MAX:
        warnings.append(f"description is {len(description)} characters; the limit is {DESCRIPTION_MAX}")
    name = _text(data.get("name"))
    if name is None:
        warnings.append(f"no 'name:' in the front matter; using the folder name {folder!r}")
        name = folder
    elif name != folder:
        warnings.append(f"name {name!r} differs from its folder {folder!r}; rename one so they match")
    if len(name) > NAME_MAX:
        warnings.append(f"name is {len(name)} characters; the limit is {NAME_MAX}")
    elif not _NAME.match(name):
        warnings.append(f"name {name!r} should be lower-case letters, digits and single hyphens")
    if fm.repaired:
        lines = ", ".join(str(n + 1) for n in fm.repaired)
        warnings.append(f"unquoted ': ' in the value on line {lines}; read as if quoted: put it in quotes")
    metadata = _mapping(data.get("metadata"))
    if data.get("metadata") is not None and not metadata:
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
    """A skill name as the Agent Skills format allows it: 1-64 of a-z 0-9 and single inner hyphens."""
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"skill name must be text such as 'docker-deploy', got {name!r}")
    if len(name) > NAME_MAX:
        raise InvalidInput(f"skill name {name[:20]!r}… is {len(name)} characters; the limit is {NAME_MAX}")
    if not _NAME.match(name):
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
    problems = []
    name, description = fm.data.get("name"), fm.data.get("description")
    try:
        check_name(name)
        if name != folder:
            problems.append(f"name {name!r} must equal its folder name {folder!r}")
    except InvalidInput as exc:
        problems.append(str(exc))
    if not isinstance(description, str) or not description.strip():
        problems.append("description is missing: say what the skill does and when to use it (1-1024 characters)")
    elif len(description.strip()) > DESCRIPTION_MAX:
        problems.append(f"description is {len(description.strip())} characters; the limit is {DESCRIPTION_MAX}")
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
