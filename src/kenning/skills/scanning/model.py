"""What a scan reports: findings (kind, severity, where, what matched, why) and the verdict they add up to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCANNER_VERSION = "12"  # part of the cache key: bump when a rule changes what it finds
KINDS = ("prompt_injection", "exfiltration", "download_exec", "destructive", "reverse_shell", "credential_access",
         "defense_evasion", "persistence", "secret", "unicode", "binary", "archive", "symlink_escape", "oversize")
SEVERITIES = ("critical", "high", "medium", "low")  # most severe first
VERDICTS = ("safe", "caution", "dangerous")
MATCH_CHARS = 120


def short(text: str, limit: int = MATCH_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Finding:
    """One thing the scanner noticed in ``file`` (posix, relative to the skill folder) at ``line``
    (1-based; None for the file as a whole)."""

    kind: str
    severity: str
    file: str
    line: int | None
    match: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "file": self.file, "line": self.line,
                "match": self.match, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(str(data["kind"]), str(data["severity"]), str(data["file"]),
                   None if data["line"] is None else int(data["line"]), str(data["match"]), str(data["reason"]))


def verdict_of(findings: tuple[Finding, ...] | list[Finding]) -> str:
    """Any critical finding: dangerous; any high: caution; else safe."""
    severities = {f.severity for f in findings}
    return "dangerous" if "critical" in severities else "caution" if "high" in severities else "safe"


def ordered(findings: list[Finding]) -> tuple[Finding, ...]:
    """Most severe first, then by file and line; one finding per kind, file, line and reason."""
    unique = {(f.kind, f.file, f.line, f.reason): f for f in findings}
    return tuple(sorted(unique.values(), key=lambda f: (SEVERITIES.index(f.severity), f.file, f.line or 0, f.kind)))


@dataclass(frozen=True)
class ScanReport:
    """The scan of the skill folder ``path``; ``content_hash`` covers every file's path and bytes
    (and every link's target), so the same content gives the same hash wherever it lies."""

    path: Path
    verdict: str
    findings: tuple[Finding, ...]
    content_hash: str
    scanner_version: str = SCANNER_VERSION
    cached: bool = field(default=False, compare=False)

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "verdict": self.verdict, "counts": self.counts(),
                "findings": [f.to_dict() for f in self.findings], "content_hash": self.content_hash,
                "scanner_version": self.scanner_version, "cached": self.cached}
