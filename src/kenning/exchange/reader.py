"""Reading an import file: the path checked, lines read as a stream with a bound on each, and the
format guessed from the first bytes when none is given.

A line over ``MAX_LINE_BYTES`` stops the import with its number (a kenning export line holds one
item and its history: far less, even with vectors); a whole-document format (mem0's JSON) is read
only when the file is under ``MAX_DOCUMENT_BYTES``. JSON nested more than ``MAX_NESTING`` deep is
refused by its line too: Python's parser would fail with a RecursionError, and every recursive
walk after it (redaction, the checks, ``json.dumps``) could.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInput
from ..fileio import size_text

MAX_LINE_BYTES = 16 << 20
MAX_DOCUMENT_BYTES = 256 << 20
FORMATS = ("kenning", "mem0", "markdown")
EXPORT_FORMAT = "kenning-export"
_SNIFF_BYTES = 64 << 10
MAX_NESTING = 32  # lists and objects; an export line nests about 12 (entry, audit, before, attributes)
_NESTING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}\n]')  # strings skipped whole: brackets in them do not count


def check_file(path: Path) -> Path:
    """``path`` if it names a readable file; otherwise a message saying what it is instead."""
    if not path.exists():
        raise InvalidInput(f"cannot import {path}: there is no such file")
    if path.is_dir():
        raise InvalidInput(f"cannot import {path}: it is a folder; give the file to import (an export, mem0 JSON "
                           "or a Markdown list)")
    if not path.is_file():
        raise InvalidInput(f"cannot import {path}: it is not a regular file")
    return path


def open_text(path: Path) -> IO[bytes]:
    try:
        return path.open("rb")
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None


def lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number from 1, text without the line end) of every line, read a bounded line at a time."""
    with open_text(path) as fh:
        number = 0
        while True:
            raw = fh.readline(limit + 1)
            if not raw:
                return
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                raise InvalidInput(f"{path.name} line {number}: longer than {size_text(limit)}; nothing was imported. "
                                   "Split the file, or check that it is the file you meant")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(f"{path.name} line {number}: not UTF-8 text (byte {exc.start + 1}); nothing was "
                                   "imported. Save the file as UTF-8") from None
            yield number, text.rstrip("\r\n")


def read_document(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The whole file as text, refused by its size before it is read when over ``limit``."""
    size = path.stat().st_size
    if size > limit:
        raise InvalidInput(f"{path.name} is {size:,} bytes; a JSON document is read whole and the limit is "
                           f"{size_text(limit)}. Export it as JSON lines (one memory per line) or split it")
    with open_text(path) as fh:
        data = fh.read(limit + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path.name}: not UTF-8 text (byte {exc.start + 1}); save it as UTF-8") from None


def guess(path: Path) -> tuple[str, str]:
    """(format, why): kenning's export starts with its header line, mem0's ``get_all`` is JSON (a
    list, an object with "results", or JSON lines with "memory"); anything else is read as Markdown."""
    with open_text(path) as fh:
        head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        first = head.split("\n", 1)[0]
        try:
            obj = json.loads(first)
        except (ValueError, RecursionError):  # the reader of the format says what is wrong, by its line
            return "mem0", "it starts with '{' (a JSON object, read as mem0's get_all)"
        if isinstance(obj, dict) and obj.get("format") == EXPORT_FORMAT:
            return "kenning", f"its first line is a {EXPORT_FORMAT} header"
        return "mem0", "it is JSON that is not a kenning export (read as mem0's get_all)"
    if head.startswith("["):
        return "mem0", "it starts with '[' (a JSON list, read as mem0's get_all)"
    return "markdown", "it is not JSON (read as a Markdown list)"


def check_format(value: object) -> str | None:
    if value is None:
        return None
    if value not in FORMATS:
        raise InvalidInput(f"import format {value!r} is not one of {', '.join(FORMATS)} (or leave it out to guess)")
    return str(value)


def file_label(path: Path) -> str:
    """The file's name as sources and audit rows show it: valid UTF-8 (a name of other bytes comes
    as lone surrogates, which cannot be stored), printable, at most 100 characters."""
    name = os.fsencode(path.name).decode("utf-8", "replace")
    return "".join(c if c.isprintable() else "?" for c in name)[:100] or "file"


def parse_json(text: str, name: str, line: int | None = None) -> Any:
    """``text`` as JSON (ValueError when it is not); InvalidInput naming the line (``line``, or the
    line of ``text`` where it happens) when it nests more than ``MAX_NESTING`` deep."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
    else:
        if within_nesting(value):
            return value
    where = line if line is not None else _deep_line(text)
    raise InvalidInput(f"{name} line {where}: nests lists and objects more than {MAX_NESTING} deep; nothing was "
                       "imported. No export or mem0 file nests so deep: check that it is the file you meant")


def within_nesting(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether ``value`` nests at most ``limit`` lists and objects (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def _deep_line(text: str) -> int:
    """The line of ``text`` where its nesting first passes ``MAX_NESTING``."""
    line, depth = 1, 0
    for token in _NESTING_TOKEN.finditer(text):
        mark = token.group()
        if mark == "\n":
            line += 1
        elif mark in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif mark in "]}":
            depth -= 1
    return line
