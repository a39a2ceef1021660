"""The text of the note files: ``daily/YYYY-MM-DD.md`` (one per day) and ``HISTORY.md``.

A daily file is ``# YYYY-MM-DD``, then entries: a ``## HH:MM`` line and the text. HISTORY.md is
one paragraph per consolidation, each starting with a ``[YYYY-MM-DD HH:MM]`` stamp. Reading is
lenient, because people edit these files: any text outside an entry belongs to the day (with no
time), CRLF and stray bytes are fine, an unstamped history paragraph carries the stamp of the one
before it. Writing only appends bytes and never re-encodes what is already there, so a byte the
reader cannot decode survives every write, archive and restore.

A *paragraph* is a run of non-blank lines inside one entry; it is the unit that is searched and
that ``#n`` in a note id counts (1-based, in file order).
"""

from __future__ import annotations

import datetime as dt
import gzip
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInput, StoreError
from ..text import holds

DAILY_DIR = "daily"
ARCHIVE_DIR = "archive/daily"
HISTORY_FILE = "HISTORY.md"

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_DAILY_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})\.md")
_ARCHIVE_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})\.md\.gz")
_TITLE = re.compile(r"#[ \t]+(\d{4}-\d{2}-\d{2})[ \t]*")
_HEADING = re.compile(r"##[ \t]+(\d{1,2}):(\d{2})(?::(\d{2}))?[ \t]*")
_STAMP = re.compile(r"\[(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2})\][ \t]*")
_BLANK = re.compile(r"\n[ \t]*\n\s*")


@dataclass(frozen=True)
class Paragraph:
    """One paragraph as read from a file: its text, the entry's day and time, its place (1-based)."""

    index: int
    text: str
    date: dt.date | None
    time: dt.time | None


def check_day(value: object, what: str = "date") -> dt.date:
    """A day from a ``date``, a ``datetime`` (its own day) or ``YYYY-MM-DD`` text; nothing else."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a date or 'YYYY-MM-DD' text, got {type(value).__name__}")
    text = value.strip()
    if not _DAY.fullmatch(text):
        raise InvalidInput(f"{what} {value!r} is not a day; write it as YYYY-MM-DD, e.g. 2026-11-29")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a real calendar day; check the month and the day") from None


def daily_name(day: dt.date) -> str:
    return f"{DAILY_DIR}/{day.isoformat()}.md"


def archive_name(day: dt.date) -> str:
    return f"{ARCHIVE_DIR}/{day.isoformat()}.md.gz"


def day_of(filename: str, archived: bool) -> dt.date | None:
    """The day a file in ``daily/`` (or the archive) is about; None for any other file name."""
    m = (_ARCHIVE_NAME if archived else _DAILY_NAME).fullmatch(filename)
    if not m:
        return None
    try:
        return dt.date.fromisoformat(m.group(1))
    except ValueError:
        return None


def decode(data: bytes) -> str:
    """File bytes as text for reading and search: bad bytes become U+FFFD, any newline becomes LF."""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def newline_of(data: bytes) -> bytes:
    """The newline a file already uses (a hand-made file may use CRLF), so appends match it."""
    return b"\r\n" if b"\r\n" in data else b"\n"


def _clock(hour: str, minute: str, second: str | None = None) -> dt.time | None:
    try:
        return dt.time(int(hour), int(minute), int(second or 0))
    except ValueError:
        return None


def _paragraphs(body: list[str]) -> list[str]:
    return [p.strip() for p in _BLANK.split("\n".join(body)) if p.strip()]


def daily_paragraphs(text: str, day: dt.date) -> list[Paragraph]:
    """The paragraphs of a daily file, each with its entry's time (None before the first entry)."""
    out: list[Paragraph] = []
    clock: dt.time | None = None
    body: list[str] = []

    def flush() -> None:
        for para in _paragraphs(body):
            out.append(Paragraph(len(out) + 1, para, day, clock))
        body.clear()

    for line in text.split("\n"):
        heading = _HEADING.fullmatch(line)
        when = _clock(*heading.groups()) if heading else None
        if when is not None:
            flush()
            clock = when
        elif clock is None and not out and not "".join(body).strip() and _TITLE.fullmatch(line):
            continue  # the file's own title, not a note
        else:
            body.append(line)
    flush()
    return out


def stamp_of(paragraph: str) -> tuple[dt.datetime | None, str]:
    """The ``[YYYY-MM-DD HH:MM]`` stamp a history paragraph starts with (None if it has none or it
    is not a real time), and the paragraph without it."""
    m = _STAMP.match(paragraph)
    if not m:
        return None, paragraph
    try:
        when = dt.datetime.combine(dt.date.fromisoformat(m.group(1)), dt.time(int(m.group(2)), int(m.group(3))))
    except ValueError:
        return None, paragraph
    return when, paragraph[m.end():].strip()


def history_paragraphs(text: str) -> list[Paragraph]:
    """The paragraphs of HISTORY.md; one without a stamp continues the one before it (its day and
    time), and one before any stamp has none."""
    out: list[Paragraph] = []
    last: dt.datetime | None = None
    for para in _paragraphs(text.split("\n")):
        when, rest = stamp_of(para)
        if when is not None:
            last = when
        if rest:
            out.append(Paragraph(len(out) + 1, rest, last.date() if last else None, last.time() if last else None))
    return out


def entry_bytes(existing: bytes, day: dt.date, clock: dt.time, text: str) -> bytes:
    """``existing`` with one more entry appended (the title first if the file is new); the bytes
    already there are kept exactly."""
    nl = newline_of(existing)
    entry = f"## {clock.strftime('%H:%M')}\n{text}\n".replace("\n", nl.decode())
    if not existing.strip():
        return f"# {day.isoformat()}{nl.decode()}".encode() + nl + entry.encode("utf-8")
    return _joined(existing, nl) + entry.encode("utf-8")


def paragraph_bytes(existing: bytes, text: str) -> bytes:
    """``existing`` with one more paragraph appended after a blank line."""
    nl = newline_of(existing)
    para = (text + "\n").replace("\n", nl.decode()).encode("utf-8")
    return _joined(existing, nl) + para if existing.strip() else para


def _joined(existing: bytes, nl: bytes) -> bytes:
    """``existing`` ending in exactly one blank line, ready for what comes next."""
    return existing.rstrip(b"\r\n") + nl + nl


def without_paragraphs(text: str, needles: Sequence[str]) -> str:
    """``text`` without the paragraphs that hold one of ``needles`` (any case); an entry's
    ``## HH:MM`` heading goes with the last paragraph under it. For ``kenning purge``."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        body = "\n".join(line for line in block if not _HEADING.fullmatch(line)).strip()
        if body and holds(body, needles):
            out.extend(line for line in block if _HEADING.fullmatch(line))
        else:
            out.extend(block)
        block.clear()

    for line in text.split("\n"):
        if line.strip():
            block.append(line)
        else:
            flush()
            out.append(line)
    flush()
    kept = []
    for i, line in enumerate(out):
        following = next((n for n in out[i + 1:] if n.strip()), None)
        if _HEADING.fullmatch(line) and (following is None or _HEADING.fullmatch(following)):
            continue  # an entry left with nothing under it
        kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def merge(first: bytes, second: bytes, day: dt.date) -> bytes:
    """One day's file from two (the archived one first): ``second``'s title is dropped, and if one
    already contains the other (a run interrupted between writing and removing) it is kept as is,
    so merging twice never doubles the notes. Every other byte of both is kept."""
    if not second.strip():
        return first
    if not first.strip():
        return second
    body = _without_title(second, day)
    if body.strip() in first:
        return first
    if _without_title(first, day).strip() in second:
        return second
    nl = newline_of(first)
    return _joined(first, nl) + body.lstrip(b"\r\n")


def _without_title(data: bytes, day: dt.date) -> bytes:
    head, sep, rest = data.lstrip(b"\r\n").partition(b"\n")
    m = _TITLE.fullmatch(head.rstrip(b"\r").decode("utf-8", errors="replace"))
    return rest if m and m.group(1) == day.isoformat() else data


def gunzip(data: bytes, where: str) -> bytes:
    """The text of an archived day; a damaged archive is an error, never silently skipped."""
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise StoreError(
            f"the archived notes {where} are not a readable gzip file ({exc}); restore it from a backup "
            "or move it out of archive/daily"
        ) from None


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # no timestamp inside: the same text gives the same bytes
