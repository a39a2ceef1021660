"""How far a skill is trusted, and what that lets through the scanner.

    builtin    shipped inside kenning
    agent      written by an agent: the last recorded change to its files was made by an MCP client
               (actor "mcp" or "mcp:<client>") or by consolidation ("consolidation"); a person's later
               change (an approved draft, an edit, a hand edit kenning observed) makes it theirs again
    trusted    installed from a source listed in ``[skills] trusted`` (a git URL or local path prefix),
               or, not installed, found in a source named there ("project", "user", "extra")
    community  everything else: installed from anywhere else, or placed by hand

An installed skill (one with an entry in its root's ``skills.lock``) is trusted for where it came
from, never for where it landed: ``trusted = ["user"]`` vouches for the skills a person keeps in
``$KENNING_HOME/skills``, not for what is installed into it.

The policy (``decide``), for a scan verdict (``kenning.skills.scan``):

    level       safe    caution                         dangerous
    builtin     allow   allow                           allow
    trusted     allow   allow                           block
    community   allow   ask (accept_caution: allow)     block
    agent       allow   ask (accept_caution: allow)     block

Nothing accepts ``dangerous`` but built-in skills: ``--force`` and ``--yes`` accept ``caution`` only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidInput
from ..store import Store
from . import versions
from .index import SkillIndex
from .install.lock import LockEntry, lock_path, read_lock
from .model import Skill
from .versions import Location

LEVELS = ("builtin", "trusted", "community", "agent")
SOURCE_ENTRIES = ("project", "user", "extra")  # source names [skills] trusted may list
OUTCOMES = ("allow", "ask", "block")
_AGENT_ACTORS = ("mcp", "consolidation")
_NOT_CONTENT = ("archive", "restore")  # the curator moving a skill away and back: nobody wrote it


@dataclass(frozen=True)
class Decision:
    """What the policy says about installing (or keeping) a skill of ``level`` that scanned as
    ``verdict``: ``outcome`` is allow, ask or block; ``override`` is set when caution was accepted."""

    level: str
    verdict: str
    outcome: str
    reason: str
    override: bool = False

    @property
    def allowed(self) -> bool:
        return self.outcome == "allow"

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "verdict": self.verdict, "outcome": self.outcome, "reason": self.reason,
                "override": self.override}


def decide(level: str, verdict: str, *, accept_caution: bool = False) -> Decision:
    """The policy table of the module docstring."""
    if level not in LEVELS:
        raise InvalidInput(f"trust level {level!r} is not one of {', '.join(LEVELS)}")
    if verdict not in ("safe", "caution", "dangerous"):
        raise InvalidInput(f"scan verdict {verdict!r} is not one of safe, caution, dangerous")
    if level == "builtin" or verdict == "safe":
        return Decision(level, verdict, "allow", f"a {level} skill that scans as {verdict} is allowed")
    if verdict == "dangerous":
        return Decision(level, verdict, "block", f"a {level} skill that scans as dangerous is never installed; "
                                                 "nothing accepts a dangerous verdict")
    if level == "trusted":
        return Decision(level, verdict, "allow", "a skill from a trusted source may scan as caution")
    if accept_caution:
        return Decision(level, verdict, "allow", f"caution findings of a {level} skill accepted", override=True)
    return Decision(level, verdict, "ask", f"a {level} skill that scans as caution needs a person to accept "
                                           "its findings")


# -- where a skill comes from ---------------------------------------------------------------------


def is_url(location: str) -> bool:
    """Whether ``location`` is a remote git address (``scheme://…`` or ``user@host:path``), not a path."""
    if "://" in location:
        return True
    head, sep, _ = location.partition(":")
    return bool(sep) and "@" in head and "/" not in head


def normal_location(location: str) -> str:
    """A source location in the form trust entries are compared in: a URL with its scheme and host in
    lower case and no trailing ``/`` or ``.git``; a local path absolute and resolved."""
    location = location.strip()
    if not is_url(location):
        return str(Path(os.path.expanduser(location)).resolve())
    if "://" in location:
        parts = urlsplit(location)
        location = f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path}"
    else:
        head, _, tail = location.partition(":")
        location = f"{head.lower()}:{tail}"
    location = location.rstrip("/")
    return location[:-4] if location.endswith(".git") else location


def matches(location: str, entry: str) -> bool:
    """Whether the install source ``location`` is ``entry`` or below it: a local path inside the
    entry's folder, a URL starting with the entry at a boundary (``https://github.com/acme`` covers
    ``https://github.com/acme/skills``, not ``https://github.com/acme-evil/x``)."""
    if is_url(location) != is_url(entry):
        return False
    loc, prefix = normal_location(location), normal_location(entry)
    if not is_url(location):
        return Path(loc) == Path(prefix) or Path(prefix) in Path(loc).parents
    return loc == prefix or loc.startswith(prefix) and (prefix.endswith((":", "/")) or loc[len(prefix)] in "/:")


def source_trusted(location: str, trusted: Sequence[str]) -> bool:
    """Whether an install from ``location`` is trusted by one of the ``trusted`` entries."""
    return any(matches(location, entry) for entry in trusted if entry not in SOURCE_ENTRIES)


def install_level(location: str, trusted: Sequence[str]) -> str:
    """The level a skill installed from ``location`` gets: trusted or community."""
    return "trusted" if source_trusted(location, trusted) else "community"


# -- the level of every skill -----------------------------------------------------------------------


def is_agent_actor(actor: str) -> bool:
    """Whether ``actor`` (as recorded in skill versions) is an agent: an MCP client or consolidation."""
    return any(actor == a or actor.startswith(a + ":") for a in _AGENT_ACTORS)


def written_by_agent(store: Store, loc: Location) -> bool:
    """Whether the last recorded change to the files of the skill at ``loc`` was an agent's."""
    for version in reversed(versions.history(store, loc)):
        if version.action in _NOT_CONTENT:
            continue
        return version.action != "observed" and is_agent_actor(version.actor)
    return False


def _by_agent(last: tuple[str, str] | None) -> bool:
    return last is not None and last[0] != "observed" and is_agent_actor(last[1])


def skill_level(skill: Skill, store: Store, trusted: Sequence[str], locked: dict[str, LockEntry],
                writers: dict[tuple[str, str], tuple[str, str]] | None = None) -> str:
    """The level of one skill; ``locked`` is the lock of its root, by path inside the root;
    ``writers`` (``versions.last_writers``), when given, saves a query per skill."""
    if skill.source == "builtin":
        return "builtin"
    loc = Location(skill.source, skill.root, skill.rel_path, skill.name)
    if _by_agent(writers.get((str(loc.root), loc.rel_path))) if writers is not None else written_by_agent(store, loc):
        return "agent"
    entry = locked.get(skill.rel_path)
    if entry is not None:
        return install_level(entry.source, trusted)
    return "trusted" if skill.source in trusted else "community"


def locks_by_root(index: SkillIndex) -> dict[Path, dict[str, LockEntry]]:
    """The lock of every writable root, by root, each by skill path. A lock that cannot be read
    counts as empty here (its skills are community, the cautious side); ``kenning skill verify``
    reports it."""
    out: dict[Path, dict[str, LockEntry]] = {}
    for source in index.sources:
        if not source.writable:
            continue
        try:
            entries = read_lock(lock_path(source.root))
        except InvalidInput:
            entries = {}
        out[source.root] = {e.path: e for e in entries.values()}
    return out


def trust_levels(index: SkillIndex, store: Store, trusted: Sequence[str]) -> dict[Path, str]:
    """The level of every skill of ``index`` (all of them, shadowed ones too), by skill folder;
    ``trusted`` is ``Settings.skill_trusted``."""
    locks = locks_by_root(index)
    writers = versions.last_writers(store, _NOT_CONTENT)
    return {s.path: skill_level(s, store, trusted, locks.get(s.root, {}), writers) for s in index.skills}
