"""What the write gate masked in a skill write, and where: file, line, kind, count (never the value).

Skill text passes the gate for secrets only (``Gate.scrub("skill", secrets_only=True)``), which
answers with the masked text and counts by kind. Where each placeholder landed is found by comparing
the text as given with the text as written, line by line: outside the masked spans the two are the
same, so a line differs only where something was masked, and the new ``[REDACTED:kind]`` on it are
the ones the gate put there (placeholders already in the text are never rewritten, so they are
subtracted). Line numbers are those of the file as written, where the placeholder can be seen.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..gate import Gate, Scrub

_PLACEHOLDER = re.compile(r"\[REDACTED:([A-Za-z0-9_]+)\]")
_LISTED = 8  # places named in a message; the response lists them all


@dataclass(frozen=True)
class Masked:
    """``count`` secrets of ``kind`` masked on ``line`` of ``file`` (None: the reason for the change)."""

    file: str | None
    line: int
    kind: str
    count: int

    @property
    def where(self) -> str:
        return f"{self.file} line {self.line}" if self.file else "the reason"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "kind": self.kind, "count": self.count}


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
        before = Counter(k for line in a[i1:i2] for k in _PLACEHOLDER.findall(line))
        for j in range(j1, j2):
            for kind, n in sorted(Counter(_PLACEHOLDER.findall(b[j])).items()):
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
        """``text`` masked; what was masked is kept with its lines (in ``file``)."""
        written = self.scrub(text, file or "reason")
        if written != text:
            self.found += locate(text, written, file)
        return written

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
