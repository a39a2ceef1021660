"""Installing skills from elsewhere: fetch, quarantine, scan, decide, move into place, lock.

``Installer.prepare(SOURCE)`` fetches the source (``fetch``), copies each skill asked for into a
quarantine folder under the data directory with every entry checked on the way (``unpack``), passes
its files through the write gate as ``skill_manage`` does (secrets masked, by file and line; a binary
file that seems to hold one refuses the skill: ``masking``), checks its SKILL.md strictly, scans it
(``kenning.skills.scan``) and asks the policy (``trust.decide``): the ``Plan`` says, per skill, its
verdict, findings, trust level, what was masked and whether the policy allows, asks or blocks.
Nothing is in a skills root yet. ``Installer.apply(plan, accept_caution=…)`` refuses the whole
plan if any skill is blocked (or asks and caution was not accepted), auditing each refusal; else each
skill is moved beside its target folder (a rename when the quarantine is on the same file system, a
copy otherwise), then renamed into place by ``Manager.install``, which records it as a skill version
(history, diff and rollback work) with an audit row, and puts the old files back if anything fails.
The root's ``skills.lock`` (``lock``) gets the skill's entry in the same step, and is put back too.

``verify`` re-hashes every locked skill; ``prepare_update`` / ``apply_update`` fetch a locked skill's
source again and replace it, refusing to overwrite local edits (its files' hash is not the locked one)
unless forced; ``uninstall`` deletes an installed skill through ``Manager.delete`` (its history keeps
it) and drops its lock entry.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import audit, fileio
from ...errors import Conflict, Forbidden, InvalidInput, NotFound
from ...timeutil import utcnow
from .. import files, versions
from ..diff import state_diff
from ..frontmatter import check_name, parse_front_matter, validate_skill_md
from ..manage import Change
from ..masking import Masker
from ..model import SKILL_FILE
from ..scan import ScanReport, scan_skill
from ..sources import Source
from ..trust import Decision, decide, install_level
from ..versions import Location
from .fetch import GIT_TIMEOUT_S, Fetched, SourceSpec, fetched, parse_source
from .lock import LockEntry, lock_path, put_back, read_lock, snapshot_bytes, with_entry, without, write_lock
from .unpack import discover, extract

if TYPE_CHECKING:
    from ..library import Skills

QUARANTINE_DIR = "quarantine"
STAGING_MARK = ".installing-"  # .<name>.installing-<hex>: a prepared folder beside its target
_FRONT = re.compile(r"\A(\ufeff?---[ \t]*\r?\n)(.*?\r?\n)?(---[ \t]*(?:\r?\n|\Z))", re.DOTALL)
_NAME_LINE = re.compile(r"^name:[^\n]*$", re.MULTILINE)


@dataclass(frozen=True)
class Candidate:
    """One skill of a plan, in quarantine: where it sat in the source, its scan, its trust level and
    the policy's decision (before any caution is accepted), and where it would go."""

    name: str
    subdir: str
    folder: Path
    report: ScanReport
    checksum: str
    level: str
    decision: Decision
    dest: Location
    replaces: bool
    left_out: tuple[str, ...] = ()
    masker: Masker | None = field(default=None, repr=False, compare=False)  # what masked its files

    def to_dict(self) -> dict[str, Any]:
        masked = self.masker.found if self.masker else []
        return {"name": self.name, "subdir": self.subdir, "path": str(self.dest.path), "verdict": self.report.verdict,
                "counts": self.report.counts(), "findings": [f.to_dict() for f in self.report.findings],
                "trust": self.level, "decision": self.decision.to_dict(), "replaces": self.replaces,
                "hash": f"sha256:{self.checksum}", "left_out": list(self.left_out),
                "masked": [m.to_dict() for m in masked]}


@dataclass(frozen=True)
class Plan:
    """What ``prepare`` found in one source, ready to ``apply``."""

    spec: SourceSpec
    commit: str | None
    target: Source
    candidates: tuple[Candidate, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"source": str(self.spec), "kind": self.spec.kind, "commit": self.commit, "target": self.target.name,
                "skills": [c.to_dict() for c in self.candidates]}


@dataclass(frozen=True)
class Installed:
    """One skill put in place: the recorded change and its lock entry."""

    change: Change
    entry: LockEntry
    candidate: Candidate
    decision: Decision

    def to_dict(self) -> dict[str, Any]:
        out = self.change.to_dict()
        out.update({"verdict": self.entry.verdict, "trust": self.entry.trust, "hash": self.entry.hash,
                    "lock": self.entry.to_dict(), "counts": self.candidate.report.counts(),
                    "override": self.decision.override, "left_out": list(self.candidate.left_out)})
        return out


@dataclass(frozen=True)
class Drift:
    """One line of ``verify``: ``status`` is ok, changed, missing or not locked."""

    name: str
    source: str  # the skills source (user, project)
    path: Path
    status: str
    locked_hash: str | None = None
    current_hash: str | None = None
    installed_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "path": str(self.path), "status": self.status,
                "locked_hash": self.locked_hash, "current_hash": self.current_hash,
                "installed_from": self.installed_from}


@dataclass(frozen=True)
class Update:
    """One locked skill fetched again: ``status`` is up-to-date, changed, or local-edits (its files
    differ from the locked hash: refused unless forced); ``diff`` is installed -> fetched."""

    entry: LockEntry
    root: Source
    status: str
    commit: str | None
    candidate: Candidate | None
    changed_files: tuple[str, ...] = ()
    diff: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.entry.name, "source": self.root.name, "installed_from": self.entry.source,
                "status": self.status, "commit": self.commit, "locked_ref": self.entry.ref or None,
                "changed_files": list(self.changed_files), "diff": self.diff,
                "scan": self.candidate.to_dict() if self.candidate else None}


class Installer:
    """Install, verify, update and uninstall skills of ``skills`` (a ``Skills`` library); ``home`` is
    the data directory (its ``quarantine/`` holds what is being checked), ``trusted`` the
    ``[skills] trusted`` entries (``Settings.skill_trusted``)."""

    def __init__(self, skills: Skills, *, home: Path, trusted: Sequence[str] = (), cache_dir: Path | None = None,
                 git: str = "git", timeout: float = GIT_TIMEOUT_S) -> None:
        self.skills = skills
        self.home = Path(home)
        self.trusted = tuple(trusted)
        self.cache_dir = cache_dir
        self.git = git
        self.timeout = timeout

    @property
    def actor(self) -> str:
        return self.skills.manager.actor

    # -- install ------------------------------------------------------------------------------------

    @contextmanager
    def prepare(self, source: str, *, target: str = "user", name: str | None = None, only: Sequence[str] = (),
                force: bool = False, cwd: Path | None = None) -> Iterator[Plan]:
        """Fetch ``source``, quarantine and scan the skills asked for (``only``: names or paths inside
        the source; none: the one skill it holds), under ``name`` when given (one skill only). A
        skill of the same name in the target source is a Conflict unless ``force`` (replace it)."""
        spec = parse_source(source, cwd)
        root = self.skills.manager.target_root(target)
        if name is not None:
            name = check_name(name)
        with self._quarantine() as work, fetched(spec, work, git=self.git, timeout=self.timeout) as got:
            picked = _pick(got, discover(got.members, spec.subdir), only)
            if name is not None and len(picked) > 1:
                raise InvalidInput(f"--name gives one skill a name, but {len(picked)} were asked for from {got.where}")
            level = install_level(spec.location, self.trusted)
            candidates = tuple(self._candidate(got, sub, work / "skills" / str(i), root, level, name=name,
                                               replace=force) for i, sub in enumerate(picked))
            yield Plan(spec, got.commit, root, candidates)

    def apply(self, plan: Plan, *, accept_caution: bool = False, reason: str = "") -> list[Installed]:
        """Put the skills of ``plan`` in place. Refused whole, before any is moved, with Forbidden
        (audited) when the policy blocks one, or asks and ``accept_caution`` is not set; past that,
        each skill is its own recorded change (one failing leaves those before it installed)."""
        decisions = self._gate(plan.candidates, [str(plan.spec)] * len(plan.candidates), accept_caution, "install")
        return [self._put(plan.spec, plan.commit, plan.target, c, d, "install",
                          reason or f"installed from {plan.spec}") for c, d in zip(plan.candidates, decisions)]

    def install(self, source: str, *, target: str = "user", name: str | None = None, only: Sequence[str] = (),
                force: bool = False, accept_caution: bool = False, reason: str = "",
                cwd: Path | None = None) -> list[Installed]:
        """``prepare`` then ``apply``, for callers that decide up front (the CLI asks in between)."""
        with self.prepare(source, target=target, name=name, only=only, force=force, cwd=cwd) as plan:
            return self.apply(plan, accept_caution=accept_caution, reason=reason)

    # -- verify, update, uninstall -------------------------------------------------------------------

    def locks(self) -> list[tuple[Source, dict[str, LockEntry]]]:
        """Every writable root that has a lock file, with its entries."""
        out = []
        for source in self.skills.sources:
            path = lock_path(source.root)
            if source.writable and path.is_file():
                out.append((source, read_lock(path)))
        return out

    def verify(self) -> list[Drift]:
        """Every locked skill re-hashed (ok, changed, missing), and the skills in a locked root that
        its lock does not name (not locked)."""
        index = self.skills.index()
        out: list[Drift] = []
        for root, entries in self.locks():
            for entry in sorted(entries.values(), key=lambda e: e.name):
                folder = root.root / entry.path
                current = _current_hash(folder)
                status = "missing" if current is None else "ok" if current == entry.hash else "changed"
                out.append(Drift(entry.name, root.name, folder, status, entry.hash, current, entry.source))
            locked = {e.path for e in entries.values()}
            for skill in index.skills:
                if skill.root == root.root and skill.rel_path not in locked:
                    out.append(Drift(skill.name, root.name, skill.path, "not locked"))
        return out

    @contextmanager
    def prepare_update(self, name: str | None = None, *, force: bool = False) -> Iterator[list[Update]]:
        """Fetch the source of every locked skill (or of ``name``) again, quarantine and scan it, and
        compare it with the files in place."""
        wanted = self._locked(name)
        with self._quarantine() as work:
            out = []
            for i, (root, entry) in enumerate(wanted):
                spec = SourceSpec(entry.kind, entry.source, entry.track or None, entry.subdir)
                if spec.kind != "git" and not Path(spec.location).exists():
                    raise NotFound(f"skill {entry.name!r} was installed from {spec.location}, which is gone; install "
                                   "it again from where it lives now (--force replaces it)")
                with fetched(spec, work / f"fetch-{i}", git=self.git, timeout=self.timeout) as got:
                    level = install_level(entry.source, self.trusted)
                    candidate = self._candidate(got, entry.subdir, work / "skills" / str(i), root, level,
                                                name=entry.name, replace=True, at=entry.path)
                    out.append(self._compare(root, entry, got.commit, candidate, force))
            yield out

    def apply_update(self, updates: Sequence[Update], *, accept_caution: bool = False,
                     reason: str = "") -> list[Installed]:
        """Replace every skill of ``updates`` that changed upstream; Conflict when one has local edits
        (unless prepared with ``force``), Forbidden (audited) when the policy refuses one."""
        edited = [u for u in updates if u.status == "local-edits"]
        if edited:
            names = ", ".join(repr(u.entry.name) for u in edited)
            raise Conflict(f"skill(s) {names} were changed here since they were installed (their files no longer "
                           "match skills.lock); nothing was updated: look with `kenning skill diff NAME` and "
                           "`kenning skill verify`, or pass --force to overwrite the local edits (they stay in the "
                           "skill's history)")
        todo = [u for u in updates if u.status in ("changed", "forced") and u.candidate is not None]
        decisions = self._gate([u.candidate for u in todo if u.candidate], [u.entry.source for u in todo],
                               accept_caution, "update")
        done = []
        for update, decision in zip(todo, decisions):
            assert update.candidate is not None
            spec = SourceSpec(update.entry.kind, update.entry.source, update.entry.track or None, update.entry.subdir)
            done.append(self._put(spec, update.commit, update.root, update.candidate, decision, "update",
                                  reason or f"updated from {spec}"))
        for update in updates:  # same files, newer commit: the lock follows the source
            if update.status == "up-to-date" and update.commit and update.commit != update.entry.ref:
                self._relock(update.root, LockEntry(**{**update.entry.to_dict(), "ref": update.commit}))
        return done

    def uninstall(self, name: str, *, reason: str = "") -> dict[str, Any]:
        """Delete the installed skill ``name`` (its history keeps it: rollback brings it back) and its
        lock entry; NotFound when the skill was not installed."""
        skill = self.skills.get(name)
        source = next((s for s in self.skills.sources if s.root == skill.root), None)
        path = lock_path(skill.root)
        entries = read_lock(path) if source is not None and source.writable else {}
        entry = next((e for e in entries.values() if e.path == skill.rel_path), None)
        if entry is None:
            raise NotFound(f"skill {skill.name!r} at {skill.path} was not installed with `kenning skill install` (no "
                           f"entry in {path}); `kenning skill delete {skill.name}` removes it")
        with self.skills.store.transaction():  # serialises the lock's read-modify-write across kenning writers
            before = snapshot_bytes(path)
            write_lock(path, without(read_lock(path), entry.name))
            try:
                change = self.skills.manager.delete(skill, reason=reason or f"uninstalled (installed from "
                                                                            f"{entry.source})")
            except BaseException:
                put_back(path, before)
                raise
        out = change.to_dict()
        out.update({"action": "uninstall", "installed_from": entry.source,
                    "message": f"uninstalled skill {skill.name!r} (installed from {entry.source}) and removed it "
                               f"from {path}; `kenning skill rollback {skill.name} {change.version - 1}` brings it "
                               "back"})
        return out

    # -- the steps ------------------------------------------------------------------------------------

    @contextmanager
    def _quarantine(self) -> Iterator[Path]:
        """A fresh folder under ``<home>/quarantine``, removed afterwards (leftovers of a killed run,
        an hour old, are removed first)."""
        base = self.home / QUARANTINE_DIR
        base.mkdir(parents=True, exist_ok=True)
        now = time.time()
        for old in base.iterdir():
            try:
                if old.is_dir() and not old.is_symlink() and now - old.stat().st_mtime > fileio.ABANDONED_AFTER_S:
                    shutil.rmtree(old, ignore_errors=True)
            except OSError:
                continue
        work = base / f"{int(now)}-{os.getpid()}-{secrets.token_hex(4)}"
        work.mkdir()
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _candidate(self, got: Fetched, subdir: str, folder: Path, root: Source, level: str, *,
                   name: str | None, replace: bool, at: str | None = None) -> Candidate:
        """Copy the skill at ``subdir`` of the source into ``folder``, check its SKILL.md, mask its
        files, scan them (what is scanned is what lands: the masked files)."""
        where = f"{got.where}, skill {subdir or '(top)'}"
        extracted = extract(got.members, subdir, folder, where)
        skill_file = folder / SKILL_FILE
        if not skill_file.is_file():
            raise NotFound(f"{got.where} has no skill at {subdir or 'its top'!r} (no SKILL.md there)")
        try:
            text = skill_file.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(f"{where}: SKILL.md is not UTF-8 text") from None
        own = parse_front_matter(text, lenient=True).data.get("name")
        final = check_name(name or (own.strip() if isinstance(own, str) else "") or Path(subdir).name or "")
        if final != own:  # installed under another name: the front matter must say it (folder name = name)
            files.atomic_write(skill_file, _renamed(text, final).encode("utf-8"))
        masker = self.skills.manager.masker()
        state = _masked(folder, masker, where)
        try:
            validate_skill_md(state[SKILL_FILE].decode("utf-8"), final)
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}; fix it at the source, or copy the skill by hand") from None
        report = scan_skill(folder, cache_dir=self.cache_dir)
        dest, replaces = self._destination(root, final, replace, at)
        return Candidate(final, subdir, folder, report, versions.checksum(state), level,
                         decide(level, report.verdict), dest, replaces, extracted.left_out, masker)

    def _destination(self, root: Source, name: str, replace: bool, at: str | None) -> tuple[Location, bool]:
        """Where skill ``name`` goes in ``root`` (``at``: the path an update keeps), and whether a folder
        is there already (only with ``replace``)."""
        if at is not None:
            loc = Location(root.name, root.root, at, name)
            return loc, loc.path.exists()
        same = [s for s in self.skills.index().skills if s.root == root.root and s.name == name]
        if same:
            if not replace:
                raise Conflict(f"skill {name!r} is already in the {root.name} source at {same[0].path}; "
                               f"`kenning skill update {name}` brings an installed skill up to date, --force replaces "
                               "it (the old files stay in its history)")
            return Location(root.name, root.root, same[0].rel_path, name), True
        folder = root.root / name
        if folder.exists() or folder.is_symlink():
            raise Conflict(f"{folder} exists and is not a skill kenning loads; move it away, then install again")
        return Location(root.name, root.root, name, name), False

    def _gate(self, candidates: Sequence[Candidate], sources: Sequence[str], accept_caution: bool,
              action: str) -> list[Decision]:
        """The policy's decision for each candidate (from ``sources``, one each); if any is not allowed,
        each refusal is audited and Forbidden raised before anything is installed. An accepted caution
        is audited as an override."""
        decisions = [decide(c.level, c.report.verdict, accept_caution=accept_caution) for c in candidates]
        rows = list(zip(candidates, decisions, sources))
        refused = [(c, d, s) for c, d, s in rows if not d.allowed]
        for c, d, s in refused:
            audit.record_event(self.skills.store, f"skill_{action}_block", kind="skill", scope=c.dest.source,
                               actor=self.actor, reason=d.reason, after=_scan_summary(c, s))
        if refused:
            raise Forbidden("; ".join(_refusal(c, d, s) for c, d, s in refused))
        for c, d, s in rows:
            if d.override:
                audit.record_event(self.skills.store, f"skill_{action}_override", kind="skill", scope=c.dest.source,
                                   actor=self.actor, reason=d.reason, after=_scan_summary(c, s))
        return decisions

    def _put(self, spec: SourceSpec, commit: str | None, root: Source, c: Candidate, decision: Decision,
             action: str, reason: str) -> Installed:
        """Stage the quarantined skill beside its target, then install it and its lock entry in one step."""
        entry = LockEntry(name=c.name, path=c.dest.rel_path, source=spec.location, kind=spec.kind,
                          hash=f"sha256:{c.checksum}", verdict=c.report.verdict,
                          scanner_version=c.report.scanner_version,
                          installed_at=utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), trust=c.level,
                          ref=commit or "", track=spec.ref or "", subdir=c.subdir)
        staged = _stage(c.folder, c.dest.path)
        try:
            why = f"{reason} ({c.report.verdict}, trust {c.level}" + (", caution accepted)" if decision.override
                                                                       else ")")
            change = self._relock(root, entry, lambda: self.skills.manager.install(
                c.dest, staged, expected=c.checksum, action=action, reason=why, masker=c.masker))
        finally:
            if staged.exists():
                shutil.rmtree(staged, ignore_errors=True)
        assert change is not None
        return Installed(change, entry, c, decision)

    def _relock(self, root: Source, entry: LockEntry, change: Callable[[], Change] | None = None) -> Change | None:
        """Write ``entry`` into the root's lock, then run ``change`` (a callable); if it fails, the lock
        is put back as it was."""
        path = lock_path(root.root)
        with self.skills.store.transaction():  # serialises the lock's read-modify-write across kenning writers
            before = snapshot_bytes(path)
            write_lock(path, with_entry(read_lock(path), entry))
            try:
                return change() if change is not None else None
            except BaseException:
                put_back(path, before)
                raise

    def _locked(self, name: str | None) -> list[tuple[Source, LockEntry]]:
        every = [(root, e) for root, entries in self.locks() for e in entries.values()]
        if name is None:
            return every
        skill = self.skills.get(name)
        found = [(root, e) for root, e in every if root.root == skill.root and e.path == skill.rel_path]
        if not found:
            raise NotFound(f"skill {skill.name!r} at {skill.path} was not installed with `kenning skill install` (its "
                           f"source's skills.lock has no entry for it), so there is nothing to update it from")
        return found

    @staticmethod
    def _compare(root: Source, entry: LockEntry, commit: str | None, candidate: Candidate, force: bool) -> Update:
        folder = root.root / entry.path
        current = files.snapshot(folder) if folder.is_dir() else {}
        fetched_files = files.snapshot(candidate.folder)
        changed, text = state_diff(current, fetched_files, "installed", "upstream")
        edited = not current or f"sha256:{versions.checksum(current)}" != entry.hash
        if f"sha256:{candidate.checksum}" == entry.hash and not edited:
            return Update(entry, root, "up-to-date", commit, None)
        status = ("forced" if force else "local-edits") if edited else "changed"
        return Update(entry, root, status, commit, candidate, changed, text)


def _pick(got: Fetched, found: list[str], only: Sequence[str]) -> list[str]:
    """The skill folders of the source to install: the ones named in ``only`` (by folder name or path
    inside the source), else the only one there is."""
    where = got.where + (f" under {got.spec.subdir!r}" if got.spec.subdir else "")
    if not found:
        raise NotFound(f"{where} holds no skill (a folder with a SKILL.md); give the folder inside it as SOURCE#subdir")
    listing = ", ".join(f"{Path(f).name or '(top)'} ({f or '.'})" for f in found[:30]) + \
        (f" and {len(found) - 30} more" if len(found) > 30 else "")
    if not only:
        if len(found) > 1:
            raise InvalidInput(f"{where} holds {len(found)} skills: {listing}; pick with --skill NAME (repeatable)")
        return found
    out: list[str] = []
    for want in only:
        want = want.strip().strip("/")
        hits = [f for f in found if f == want or Path(f).name == want]
        if len(hits) != 1:
            said = "is ambiguous" if hits else "is not there"
            raise NotFound(f"skill {want!r} {said} in {where}; it holds: {listing}")
        out.extend(h for h in hits if h not in out)
    return out


def _renamed(text: str, name: str) -> str:
    """SKILL.md with its front-matter ``name`` set to ``name`` (added when missing)."""
    match = _FRONT.match(text)
    if match is None:
        return text  # no front matter: the strict check says what is missing
    body = match.group(2) or ""
    body = _NAME_LINE.sub(f"name: {name}", body, count=1) if _NAME_LINE.search(body) else f"name: {name}\n{body}"
    return match.group(1) + body + match.group(3) + text[match.end():]


def _masked(folder: Path, masker: Masker, where: str) -> dict[str, bytes]:
    """Pass every file of the quarantined skill through the write gate, as ``skill_manage`` passes
    what it writes, rewriting the ones it masks; the files as they are then. InvalidInput (nothing
    installed) when a binary file seems to hold a secret."""
    state = files.snapshot(folder)
    for rel, raw in sorted(state.items()):
        try:
            data = masker.data(raw, rel)
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}; the skill was not installed") from None
        if data != raw:
            files.atomic_write(folder / rel, data)
            state[rel] = data
    return state


def _stage(quarantined: Path, dest: Path) -> Path:
    """Move the quarantined folder beside ``dest`` under a hidden name (which no skill walk reads): a
    rename on the same file system, else a copy."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staged = dest.parent / f".{dest.name}{STAGING_MARK}{secrets.token_hex(4)}"
    try:
        os.rename(quarantined, staged)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        shutil.copytree(quarantined, staged, symlinks=True)  # Manager.install checks the copy's checksum
    return staged


def _current_hash(folder: Path) -> str | None:
    if not folder.is_dir() or folder.is_symlink() or not (folder / SKILL_FILE).is_file():
        return None
    try:
        return f"sha256:{versions.checksum(files.snapshot(folder))}"
    except Conflict:  # grown past what versions keep: certainly not what was installed
        return "too-large"


def _scan_summary(c: Candidate, source: str) -> dict[str, Any]:
    return {"name": c.name, "source": source, "verdict": c.report.verdict, "counts": c.report.counts(),
            "trust": c.level, "content_hash": c.report.content_hash, "scanner_version": c.report.scanner_version}


def _refusal(c: Candidate, d: Decision, source: str) -> str:
    counts = ", ".join(f"{n} {s}" for s, n in c.report.counts().items() if n) or "no findings"
    top = "; ".join(f"{f.severity} {f.kind} in {f.file}{f':{f.line}' if f.line else ''}: {f.reason}"
                    for f in c.report.findings[:3])
    if d.outcome == "block":
        return (f"skill {c.name!r} from {source} scans as dangerous ({counts}: {top}); it was not installed, and "
                "nothing accepts a dangerous verdict")
    return (f"skill {c.name!r} from {source} scans as caution ({counts}: {top}); it was not installed: review the "
            "findings and pass --yes (or --force) to accept them")
