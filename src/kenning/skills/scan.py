"""Scan a skill before trusting it: ``scan_skill(folder, cache_dir=…, exclude=…) -> ScanReport``.

Findings have a kind (``KINDS``), a severity (critical, high, medium, low), the file (posix,
relative to the skill folder), the line, what matched (at most 120 characters; a secret's value
is never shown) and why. Verdict: any critical finding makes the skill "dangerous", any high one
"caution", else "safe". The rules live in ``kenning.skills.scanning``.
"""

from __future__ import annotations

from .scanning.folder import MAX_FILE_BYTES, MAX_FILES, scan_skill, scan_text
from .scanning.model import KINDS, SCANNER_VERSION, SEVERITIES, VERDICTS, Finding, ScanReport, verdict_of

__all__ = ["SCANNER_VERSION", "KINDS", "SEVERITIES", "VERDICTS", "Finding", "ScanReport", "scan_skill", "scan_text",
           "verdict_of", "MAX_FILES", "MAX_FILE_BYTES"]
