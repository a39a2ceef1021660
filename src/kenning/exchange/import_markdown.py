"""Import a Markdown list (a CLAUDE.md, an AGENTS.md, a MEMORY.md): each bullet a fact, through the
whole write gate.

    # Deploy                      headings become tags ("deploy", "staging") of the bullets below them
    ## Staging
    - never deploy on Friday      a fact, tagged deploy and staging
    - Database:                   a bullet ending in ":" is a label: not a fact itself, but ...
      - runs PostgreSQL 18        ... "Database: runs PostgreSQL 18" (a nested bullet is joined to
                                  its parents as context)
      continued text              an indented line that is no bullet continues the bullet above

Everything else (paragraphs, tables, quotes, code blocks, front matter) is skipped and counted;
HTML comments in a bullet (the ``<!-- f_… -->`` marks of kenning's own MEMORY.md) are dropped.
The file is read a line at a time, a bullet at most ``MAX_CONTENT_CHARS`` long (longer ones are
refused one by one, with their line number).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import check_scope
from ..models import DEFAULT_SCOPE
from .gated import GatedWriter, Statement
from .reader import file_label, lines
from .summary import ImportSummary

if TYPE_CHECKING:
    from ..api import Kenning
    from .import_kenning import Progress

_HEADING = re.compile(r"#{1,6}(?=\s|$)")
_BULLET = re.compile(r"(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?P<text>.*)")
_CHECKBOX = re.compile(r"\[[ xX]\][ \t]+")
_FENCE = re.compile(r"[ \t]*(```|~~~)")
_RULE = re.compile(r"[ \t]*([-*_])([ \t]*\1){2,}[ \t]*")
_NOT_TAG = re.compile(r"[^\w.+-]+")
_COMMENT = re.compile(r"<!--.*?-->")  # kenning's own MEMORY.md marks an entry's fact so: ``- text <!-- f_… -->``


@dataclass
class Bullet:
    line: int
    indent: int
    text: str
    parents: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass
class Parsed:
    """What the parser counted besides bullets."""

    skipped: int = 0
    labels: list[int] = field(default_factory=list)


def tag_of(heading: str) -> str:
    """A heading as a tag: lower case, runs of other characters as "-" ("Build & test" -> "build-test")."""
    return _NOT_TAG.sub("-", heading.lower()).strip("-")[:100]


def _width(indent: str) -> int:
    return len(indent.replace("\t", "    "))


def bullets(path: Path, parsed: Parsed) -> Iterator[Bullet]:
    """Every bullet of the file with its parents' texts and its headings' tags, in file order."""
    headings: list[str] = []
    stack: list[tuple[int, str]] = []  # (indent, text) of the open bullets
    open_bullet: Bullet | None = None
    fence: str | None = None
    for number, text in lines(path):
        if number == 1 and text.strip() == "---":
            fence = "---"  # front matter, closed by the next "---"
            parsed.skipped += 1
            continue
        if fence is not None:
            parsed.skipped += 1
            if (fence == "---" and text.strip() == "---") or (fence != "---" and text.strip().startswith(fence)):
                fence = None
            continue
        if m := _FENCE.match(text):
            fence = m.group(1)
            parsed.skipped += 1
            continue
        if not text.strip():
            continue
        bullet = _BULLET.fullmatch(text)
        stripped = text.strip()
        if bullet is None and open_bullet is not None and not _HEADING.match(stripped) \
                and _width(text[: len(text) - len(text.lstrip())]) > open_bullet.indent:
            open_bullet.text = f"{open_bullet.text} {stripped}"  # a continuation line
            continue
        if open_bullet is not None:
            yield from _emit(open_bullet, parsed)
            open_bullet = None
        if _HEADING.match(stripped) and not text.startswith((" ", "\t")):
            level = len(stripped) - len(stripped.lstrip("#"))
            title = stripped.lstrip("#").strip().rstrip("#").strip()
            headings = headings[: level - 1] + [""] * max(0, level - 1 - len(headings)) + [title]
            stack = []
            continue
        if bullet is None or _RULE.fullmatch(text):
            parsed.skipped += 1
            continue
        indent = _width(bullet.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        body = _COMMENT.sub("", _CHECKBOX.sub("", bullet.group("text").strip(), count=1)).strip()
        tags = tuple(dict.fromkeys(t for t in (tag_of(h) for h in headings) if t))
        open_bullet = Bullet(number, indent, body, tuple(p for _, p in stack), tags)
        stack.append((indent, body))
    if open_bullet is not None:
        yield from _emit(open_bullet, parsed)


def _emit(bullet: Bullet, parsed: Parsed) -> Iterator[Bullet]:
    if not bullet.text:
        parsed.skipped += 1
    elif bullet.text.endswith(":") or bullet.text.endswith("："):
        parsed.labels.append(bullet.line)  # a label: its children carry it
    else:
        yield bullet


def statement_text(bullet: Bullet) -> str:
    context = [p.rstrip(":：").strip() for p in bullet.parents if p.rstrip(":：").strip()]
    return ": ".join([*context, bullet.text]) if context else bullet.text


def import_markdown(kb: Kenning, path: Path, summary: ImportSummary, *, scope: str | None, dry_run: bool,
                    progress: Progress | None) -> None:
    where = check_scope(scope) if scope else DEFAULT_SCOPE
    label = file_label(path)
    writer = GatedWriter(kb, summary, source=f"markdown:{label}", reason=f"imported from {label}", dry_run=dry_run)
    total = sum(1 for _ in bullets(path, Parsed()))  # a first, cheap pass: the progress bar's total
    parsed = Parsed()
    for done, bullet in enumerate(bullets(path, parsed), 1):
        writer.write(Statement(bullet.line, statement_text(bullet), where, bullet.tags))
        if progress is not None:
            progress(done, total)
    summary.skipped = parsed.skipped + len(parsed.labels)
