"""What the write gate masked in a skill write, and where: file, line, kind, count (never the value).

Skill text passes the gate for secrets only (``Gate.scrub("skill", secrets_only=True)``), which
answers with the masked text and counts by kind. Where each placeholder landed is found by comparing
the text as given with the text as written, line by line: outside the masked spans the two are the
same, so a line differs only where something was masked, and the new ``[REDACTED:kind]`` on it are
the ones the gate put there (placeholders already in the text are never rewritten, so they are
subtracted). Line numbers are those of the file as written, where the placeholder can be seen.

File bytes (``Masker.data``) are masked as text when they read as text: UTF-8; UTF-16 with a
byte-order mark; else Latin-1 when they hold no control bytes (every byte is one character there,
so the bytes around a placeholder come back exactly as they were); the encoding is named in the
answer. A binary file (an image, an archive) is kept as it is, unless its bytes seem to hold a
secret: masking would break the file and keeping it would store the secret, so it is refused.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidInput
from ..gate import Gate, Scrub, redact
from ..text import check_unicode

PLACEHOLDER = re.compile(r"\[REDACTED:([A-Za-z0-9_]+)\]")
_LISTED = 8  # places named in a message; the response lists them all
_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_CONTROL = frozenset(range(0x20)) - frozenset(b"\t\n\r\f\v\x1b")  # what text files do not hold


@dataclass(frozen=True)
class Masked:
    """``count`` secrets of ``kind`` masked on ``line`` of ``file`` (None: the reason for the change)."""

    file: str | None
    line: int
    kind: str
    count: int
    encoding: str | None = None  # how a file that is not UTF-8 was read to mask it

    @property
    def where(self) -> str:
        if not self.file:
            return "the reason"
        return f"{self.file} line {self.line}" + (f" (read as {self.encoding})" if self.encoding else "")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "kind": self.kind, "count": self.count}
        return out | ({"encoding": self.encoding} if self.encoding else {})


def decoded(raw: bytes) -> tuple[str, str] | None:
    """``raw`` as text and the encoding it was read in (see the module docstring); None: binary."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(encoding), encoding
            except UnicodeDecodeError:
                return None
    if _CONTROL.isdisjoint(raw):
        return raw.decode("latin-1"), "latin-1"
    return None


def encoded(text: str, encoding: str) -> bytes:
    """``text`` back in the encoding ``decoded`` read it in (a UTF-16 file keeps its byte-order mark)."""
    bom = next((b for b, e in _BOMS if e == encoding), b"")
    return bom + text.encode(encoding)


def _binary_secrets(raw: bytes, scrub: Scrub) -> tuple[tuple[str, int], ...]:
    """What looks like a secret in the bytes of a binary file (read byte for byte), by kind."""
    return redact(raw.decode("latin-1"), scrub.policy).found


def locate(given: str, written: str, file: str | None) -> list[Masked]:
    """The placeholders ``written`` has and ``given`` had not, by line of ``written``."""
    a, b = given.split("\n"), written.split("\n")
    if len(a) == len(b):  # nothing masked across lines: line i is line i
        blocks = [(i, i + 1, i, i + 1) for i in range(len(a)) if a[i] != b[i]]
    else:  # a private key block became one line
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        blocks = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    out: list[Masked] = []
    for i1, i2, j1, j2 in blocks:
        before = Counter(k for line in a[i1:i2] for k in PLACEHOLDER.findall(line))
        for j in range(j1, j2):
            for kind, n in sorted(Counter(PLACEHOLDER.findall(b[j])).items()):
                kept = min(n, before[kind])
                before[kind] -= kept
                if n > kept:
                    out.append(Masked(file, j + 1, kind, n - kept))
    return out


class Masker:
    """The redaction of one skill write: masks each text as it passes and keeps where it masked."""

    def __init__(self, scrub: Scrub) -> None:
        self.scrub = scrub
        self.found: list[Masked] = []

    def text(self, text: str, file: str | None) -> str:
        """``text`` masked; what was masked is kept with its lines (in ``file``). InvalidInput naming
        the file when the text cannot be written (a lone surrogate), before anything is."""
        written = self.passage(text, file)
        if written != text:
            self.found += locate(text, written, file)
        return written

    def passage(self, text: str, file: str | None) -> str:
        """``text`` checked and masked, where it lands left to the caller (``placed``: a patch)."""
        check_unicode(text, f"the text for file {file!r}" if file else "the reason")
        return self.scrub(text, file or "reason")

    def data(self, raw: bytes, file: str) -> bytes:
        """A file's bytes masked, as text when they read as text (see the module docstring);
        InvalidInput naming the file when a binary file seems to hold a secret."""
        read = decoded(raw)
        if read is None:
            found = _binary_secrets(raw, self.scrub)
            if found:
                kinds = ", ".join(f"{n} {kind}" for kind, n in found)
                raise InvalidInput(f"file {file!r} is not text (not UTF-8, UTF-16 or Latin-1) and seems to hold a "
                                   f"secret ({kinds}); kenning masks secrets in text only, and masking this file "
                                   "would break it: take the secret out of the file and write it again")
            return raw
        text, encoding = read
        written = self.scrub(text, file)
        if written == text:
            return raw
        places = locate(text, written, file)
        self.found += places if encoding == "utf-8" else [replace(m, encoding=encoding) for m in places]
        return encoded(written, encoding)

    def placed(self, given: str, written: str, file: str) -> None:
        """Keep where masked text landed in a file built from it (a patch: the file with the caller's
        words, and with the masked ones)."""
        if written != given:
            self.found += locate(given, written, file)

    def audit(self, gate: Gate, scope: str, name: str) -> None:
        """One audit row for the whole write (kinds, counts and places; never the values)."""
        gate.audit(self.scrub, scope=scope, name=name, masked=[m.to_dict() for m in self.found])


def sentence(masked: tuple[Masked, ...]) -> str:
    """The part of a write's message that says what was masked ("" when nothing was)."""
    if not masked:
        return ""
    total = sum(m.count for m in masked)
    places = [f"{m.where} ({m.count} {m.kind})" for m in masked[:_LISTED]]
    if len(masked) > _LISTED:
        places.append(f"and {len(masked) - _LISTED} more places")
    noun = "secret" if total == 1 else "secrets"
    return (f"; masked {total} {noun} before writing: {', '.join(places)}. The text now holds [REDACTED:kind] "
            "there and the value was not stored; if it was only an example, write a placeholder such as "
            "$PASSWORD or <token> instead")
