"""The text of the hot files, MEMORY.md and USER.md: sections, one entry per bullet line, each
entry linked to its stored fact by a trailing ``<!-- f_… -->`` marker.

Reading is lenient, because people edit these files: any heading names a section (one not
recognised falls into the file's catch-all section), a non-bullet line of text is an entry too,
a marker that does not look like a fact id is dropped, CRLF and stray spaces are fine. Writing is
canonical: title, the sections in a fixed order, ``- text <!-- id -->`` per entry. What a model
sees (``prompt_text``) is the same without the markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

MEMORY_FILE = "MEMORY.md"
USER_FILE = "USER.md"


@dataclass(frozen=True)
class Section:
    key: str  # the name callers use: "user", "project", "pitfalls", "other"
    file: str
    title: str
    category: str  # the category of the linked facts


SECTIONS = (
    Section("user", USER_FILE, "User preferences", "user_pref"),
    Section("project", MEMORY_FILE, "Project knowledge", "project"),
    Section("pitfalls", MEMORY_FILE, "Pitfalls", "pitfall"),
    Section("other", MEMORY_FILE, "Other", "general"),
)
BY_KEY = {s.key: s for s in SECTIONS}
FILES = (USER_FILE, MEMORY_FILE)
_CATCH_ALL = {USER_FILE: "user", MEMORY_FILE: "other"}
_ALIASES = {
    "user": "user", "users": "user", "user preferences": "user", "preferences": "user", "user_pref": "user",
    "user pref": "user", "about the user": "user", "用户偏好": "user", "偏好": "user",
    "project": "project", "project knowledge": "project", "projects": "project", "项目": "project",
    "项目知识": "project",
    "pitfalls": "pitfalls", "pitfall": "pitfalls", "gotchas": "pitfalls", "warnings": "pitfalls", "坑": "pitfalls",
    "注意事项": "pitfalls",
    "other": "other", "general": "other", "misc": "other", "notes": "other", "其他": "other",
}
_MARKER = re.compile(r"\s*<!--\s*(f_[0-9a-f]{6,32})?[^>]*-->\s*$")
_ID = re.compile(r"f_[0-9a-f]{6,32}")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")
DEPRECATED = re.compile(r"\[deprecated\]", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    text: str
    section: str
    item_id: str | None = None

    @property
    def deprecated(self) -> bool:
        return bool(DEPRECATED.search(self.text))

    def linked(self, item_id: str | None) -> Entry:
        return replace(self, item_id=item_id)


def section_key(name: object) -> str:
    """The section a caller means ("user", "pitfall", "Project knowledge", …); InvalidInput-worthy
    names return ""."""
    if not isinstance(name, str):
        return ""
    return _ALIASES.get(" ".join(name.replace("_", " ").lower().split()) if name.isascii() else name.strip(), "")


def parse(file: str, text: str) -> list[Entry]:
    """The entries of one hot file, in order."""
    current = _CATCH_ALL[file]
    entries: list[Entry] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if not line or line.startswith("<!--") and line.endswith("-->"):
            continue
        heading = _HEADING.match(line)
        if heading:
            title = heading.group(1)
            if title.strip().upper() in (MEMORY_FILE, USER_FILE):
                continue
            key = section_key(title)
            current = key if key and BY_KEY[key].file == file else _CATCH_ALL[file]
            continue
        bullet = _BULLET.match(line)
        body = bullet.group(1) if bullet else line
        marker = _MARKER.search(body)
        item_id = marker.group(1) if marker else None
        if marker:
            body = body[: marker.start()]
        body = " ".join(body.split())
        if body:
            entries.append(Entry(body, current, item_id))
    return entries


def render(file: str, entries: list[Entry], *, markers: bool = True) -> str:
    """The canonical text of one hot file (``markers=False``: what a model is shown)."""
    parts = [f"# {file}"]
    for section in SECTIONS:
        if section.file != file:
            continue
        lines = [f"- {e.text}" + (f" <!-- {e.item_id} -->" if markers and _is_id(e.item_id) else "")
                 for e in entries if e.section == section.key]
        if lines:
            parts.append(f"## {section.title}\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _is_id(item_id: str | None) -> bool:
    """Whether a marker can hold ``item_id``: only an id of the form ``parse`` reads back. Anything
    else (an id from a hostile import, ``f_a --> INJECTED <!--``) would close the comment and turn
    the rest into a new entry on the next read; such an entry is written unlinked instead."""
    return item_id is not None and _ID.fullmatch(item_id) is not None


def one_line(text: str) -> str:
    """An entry is one bullet line: line breaks become spaces, an id marker is not text."""
    return " ".join(_MARKER.sub("", text).split())
