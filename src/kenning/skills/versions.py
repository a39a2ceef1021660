"""Skill versions in the store: every state of a skill folder that kenning wrote, or found on
disk just before changing it (a hand edit, a skill that was never recorded).

A skill's history is keyed by where it lives (source root + path inside it), numbered from 1. A
version lists its files; their bytes sit in ``skill_blobs`` under their SHA-256, so an unchanged
reference file costs nothing in the next version. Deleting a skill records a last, empty version
marked deleted, so its history (and a rollback) survive it. The rows are the store's
(``Store.add_skill_version`` and the reads beside it), append-only like the audit log; only a purge
(``purge``) changes what a version's files hold, cutting out the lines with the purged text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..store import Store
from ..text import holds
from ..timeutil import from_epoch, to_epoch, utcnow
from .masking import decoded, encoded
from .model import SkillVersion


@dataclass(frozen=True)
class Location:
    """Where a skill lives: the key of its history."""

    source: str
    root: Path
    rel_path: str
    name: str

    @property
    def path(self) -> Path:
        return self.root / self.rel_path


def checksum(files: dict[str, bytes]) -> str:
    """SHA-256 over the sorted paths and the hashes of their contents."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return digest.hexdigest()


def latest_checksum(store: Store, loc: Location) -> str | None:
    last = store.skill_history(str(loc.root), loc.rel_path, last=True)
    return None if not last or last[0]["deleted"] else last[0]["checksum"]


def recorded_locations(store: Store) -> set[tuple[str, str]]:
    """Every (root, rel_path) that has a history."""
    return {(r["root"], r["rel_path"]) for r in store.last_skill_versions()}


def recorded_files(store: Store, loc: Location) -> set[tuple[str, str]]:
    """Every (path, SHA-256) any recorded state of the skill at ``loc`` had."""
    return store.skill_file_hashes(str(loc.root), loc.rel_path)


def last_writers(store: Store, skip_actions: tuple[str, ...] = ()) -> dict[tuple[str, str], tuple[str, str]]:
    """For every recorded location, by (root, rel_path): the action and actor of its last version,
    versions whose action is in ``skip_actions`` passed over. One query (``trust`` asks it of the
    whole library)."""
    return {(r["root"], r["rel_path"]): (r["action"], r["actor"]) for r in store.last_skill_versions(skip_actions)}


def latest_deleted(store: Store, loc: Location) -> bool:
    """Whether the last recorded state of the skill at ``loc`` is its deletion."""
    last = store.skill_history(str(loc.root), loc.rel_path, last=True)
    return bool(last and last[0]["deleted"])


def record(
    store: Store,
    loc: Location,
    files: dict[str, bytes],
    *,
    action: str,
    actor: str,
    reason: str,
    version_field: str | None,
    deleted: bool = False,
) -> int:
    """Store one state of the skill at ``loc``; returns its number. Joins the caller's transaction.

    The checksum is of the files as they are (it tells a later hand edit); the stored bytes pass the
    store's edge like every other text (secrets masked, as in the skill files kenning writes), so a
    key pasted into a hand-made skill is not kept in the database (``_kept``: files that are not
    UTF-8 too)."""
    kept = {rel: _kept(store, data) for rel, data in files.items()}
    return store.add_skill_version(name=loc.name, source=loc.source, root=str(loc.root), rel_path=loc.rel_path,
                                   action=action, checksum=checksum(files), version_field=version_field,
                                   at=to_epoch(utcnow()), actor=actor, reason=reason, deleted=deleted, files=kept)


def _kept(store: Store, data: bytes) -> bytes:
    """The bytes of a file to store. The store's edge masks UTF-8 text; any other file is masked
    here, in the encoding it reads as (``masking.decoded``), a binary one byte for byte: only a file
    placed by hand gets here with a secret (kenning's own writes refuse it), and its copy in history
    is better broken than holding the secret."""
    read = decoded(data)
    if read is not None and read[1] == "utf-8":
        return data
    text, encoding = read or (data.decode("latin-1"), "latin-1")
    masked = store.redactor.text(text, secrets_only=True, what="a skill file")
    return data if masked == text else encoded(masked, encoding)


def history(store: Store, loc: Location) -> list[SkillVersion]:
    """Every recorded state of the skill at ``loc``, oldest first."""
    root = str(loc.root)
    rows = store.skill_history(root, loc.rel_path)
    sizes = store.skill_version_sizes(root, loc.rel_path) if rows else {}
    return [
        SkillVersion(
            number=r["number"], name=r["name"], source=r["source"], path=loc.path, action=r["action"],
            checksum=r["checksum"], version_field=r["version_field"], at=from_epoch(r["at"]) or utcnow(),
            actor=r["actor"], reason=r["reason"], deleted=r["deleted"], files=tuple(sizes.get(r["number"], ())),
        )
        for r in rows
    ]


def files_of(store: Store, loc: Location, number: int) -> dict[str, bytes] | None:
    """The files of version ``number`` (None when there is no such version)."""
    return store.skill_version_files(str(loc.root), loc.rel_path, number)


def locations_named(store: Store, name: str) -> list[Location]:
    """Every location that has recorded a skill called ``name`` (for skills no longer on disk),
    most recently changed first."""
    return [Location(source, Path(root), rel_path, name)
            for source, root, rel_path in store.skill_locations_named(name)]


PAGE = 200  # stored files read at a time by a purge


def purge(store: Store, needles: Sequence[str], *, dry_run: bool = False) -> int:
    """Cut the lines holding one of ``needles`` (any case and spacing, as ``text.holds``) out of
    every stored skill file, in every version that lists it; how many stored files held one. The
    versions stay (history is append-only), their files without those lines; joins the caller's
    transaction."""
    found = 0
    after: tuple[str] | None = None
    while page := store.transfer_page("skill_blobs", after, PAGE):
        for row in page:
            cut = _without(bytes(row["content"]), needles)
            if cut is not None:
                found += 1
                if not dry_run:  # its new key sorts anywhere: read again later, it holds no needle
                    store.replace_skill_blob(str(row["sha256"]), cut)
        after = (str(page[-1]["sha256"]),)
    return found


def _without(data: bytes, needles: Sequence[str]) -> bytes | None:
    """``data`` without its lines holding a needle, in the encoding it reads as (a binary file byte
    for byte); emptied when a needle spans lines; None when none is there."""
    text, encoding = decoded(data) or (data.decode("latin-1"), "latin-1")
    if not holds(text, needles):
        return None
    kept = "".join(line for line in text.splitlines(keepends=True) if not holds(line, needles))
    return encoded("" if holds(kept, needles) else kept, encoding)
