"""A payload split over files: the secret named in one script, the send in another that loads it.

Each script leaves ``Facts``: the names it loads (``from settings import …``, ``require('./x')``,
``. ./vars.sh``, ``. .\\lib.ps1``), the first line that names a credential store or the whole
environment, and its first network sink. A script with a sink that loads a sibling naming a
secret source sends that secret out, as if the two were one file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from .deobfuscate import Line
from .flow import Script
from .model import Finding, short
from .rules import ENV_DUMP_RE

_LOADS = re.compile(r"^\s*from\s+\.?([\w.]+)\s+import\b|^\s*import\s+([\w.]+(?:\s*,\s*[\w.]+)*)\s*$|"
                    r"\brequire\(\s*[\"']\.{1,2}/([\w./-]+?)(?:\.[cm]?js)?[\"']\s*\)|"
                    r"\bfrom\s+[\"']\.{1,2}/([\w./-]+?)(?:\.[cm]?js)?[\"']|"
                    r"(?:^|[;&]\s*)(?:source|\.)\s+[\"']?(?:\$\([^)]*\)/|\$\{?\w+\}?/|\.{1,2}[\\/])?([\w./\\-]+?)"
                    r"(?:\.(?:sh|bash|ps1))?[\"']?(?=\s|$|;)")


@dataclass(frozen=True)
class Facts:
    """What one script contributes to the files around it."""

    file: str
    loads: frozenset[str]  # the stems of the files it loads
    secret: int | None  # the first line naming a credential store or the whole environment
    sink: Line | None  # the first line that sends over the network


def facts(file: str, script: Script) -> Facts:
    loads: set[str] = set()
    for ln in script.lines:
        for m in _LOADS.finditer(ln.view) if ("import" in ln.view or "require" in ln.view or "source" in ln.view
                                              or "from" in ln.view or ". " in ln.view) else ():
            for group in m.groups():
                for name in (group or "").split(","):
                    if name.strip():
                        loads.add(PurePosixPath(name.strip().replace(".", "/") if m.group(1) or m.group(2)
                                                else name.strip().replace("\\", "/")).name)
    secret = next((ln.number for ln, named, clean in zip(script.lines, script.named, script.clean)
                   if named or ENV_DUMP_RE.search(clean)), None)
    return Facts(file, frozenset(loads), secret, script.first_sink())


def findings(scripts: list[Facts]) -> list[Finding]:
    """A send in one script of what a script it loads names."""
    by_stem: dict[str, list[Facts]] = {}
    for f in scripts:
        by_stem.setdefault(PurePosixPath(f.file).stem, []).append(f)
    out: list[Finding] = []
    for f in scripts:
        if f.sink is None:
            continue
        source = next((g for stem in sorted(f.loads) for g in by_stem.get(stem, ()) if g is not f and g.secret), None)
        if source is not None and source.secret is not None:
            out.append(Finding("exfiltration", "critical", f.file, f.sink.number, short(f.sink.view),
                               f"sends data out, and loads {source.file}, which names a credential store or the "
                               f"whole environment (line {source.secret})"))
    return out
