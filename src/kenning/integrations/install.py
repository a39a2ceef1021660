"""``kenning install`` / ``kenning uninstall``: merge kenning's entries into a client's configuration
files, and later take out exactly those entries again.

For every file:

* it is parsed first; a file that is not valid JSON / TOML, or has the wrong shape where kenning
  writes, is refused before any file of the install is touched, and stays as it is;
* it is merged, never rewritten from scratch: other servers, settings and hooks stay; JSON is edited
  as text (``configdoc``, ``jsonedit``), so every byte outside kenning's entry stays as the user
  wrote it; TOML keeps every byte outside kenning's table (``tomltable``);
* it is backed up into ``$KENNING_HOME/backups/`` (``backups``: never beside the file, where it would
  get committed) before it changes, then replaced atomically, and only if nobody wrote it since it
  was read (a running client may);
* what is already there is not written again, so installing twice changes nothing.

What an install changed is recorded in ``$KENNING_HOME/integrations.json``, per client, scope and
project: each file, each key or hook added, the value it replaced, and the file's hash before and
after. Uninstall reverses exactly that: a file nobody touched since is restored byte for byte from
its backup (or removed, when the install created it); otherwise kenning's entries are taken out one
by one, only where they still hold what was written, and a replaced value is put back, so the
user's later edits stay.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fileio
from ..errors import Conflict, InvalidInput, NotFound, StoreError
from ..timeutil import utcnow
from . import backups, clients, codex_trust, configdoc, hookspecs, tomltable
from .clients import JsonHook, JsonKey, Launch, Target, TomlTable

MANIFEST_FILE = "integrations.json"


# -- reports ---------------------------------------------------------------------------------------


@dataclass
class FileReport:
    """What happened (or, in a dry run, would happen) to one file."""

    path: Path
    changes: list[dict[str, str]] = field(default_factory=list)  # {"change": label, "action": ...}
    backup: Path | None = None
    created: bool = False
    deleted: bool = False

    @property
    def written(self) -> bool:
        return any(c["action"] not in ("unchanged", "absent") and not c["action"].startswith("kept")
                   for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "changes": self.changes, "backup": str(self.backup) if self.backup else None,
                "created": self.created, "deleted": self.deleted, "written": self.written}


@dataclass
class Report:
    action: str  # "install" | "uninstall"
    client: str
    scope: str
    project: Path | None
    dry_run: bool
    files: list[FileReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the person must still do

    @property
    def changed(self) -> bool:
        return any(f.written for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "client": self.client, "scope": self.scope,
                "project": str(self.project) if self.project else None, "dry_run": self.dry_run,
                "changed": self.changed, "files": [f.to_dict() for f in self.files]}


@dataclass
class _Plan:
    """One file's edit, computed in full before anything is written."""

    path: Path
    old: bytes | None  # the file as read (None: missing)
    new: bytes | None  # what to write; None with ``delete`` unset: leave the file alone
    record: dict[str, Any] | None  # the manifest entry for the file after the edit (None: drop it)
    report: FileReport
    delete: bool = False
    backup: bool = True  # False when the file holds exactly what kenning wrote: nothing to keep
    created_dirs: list[str] = field(default_factory=list)  # removed with a deleted file, when empty


# -- install / uninstall ---------------------------------------------------------------------------


def install(client: str, scope: str, project: Path, data_home: Path, kenning_home: Path | None, *,
            dry_run: bool = False, launch: Launch | None = None) -> Report:
    """Add kenning's MCP server and hooks to ``client``'s config for ``scope``, run as ``launch``
    (default: this kenning by absolute path; the portable ``kenning`` for the project scope). For
    Codex, the hooks are then trusted the way Codex records a person's review (``codex_trust``)."""
    targets = clients.targets(client, scope, project, kenning_home, launch)
    key, project_key = _key(client, scope, project)
    report = Report("install", client, scope, project_key, dry_run)
    with _guard(data_home, dry_run):
        manifest = _load_manifest(data_home)
        entry = manifest["installs"].get(key) or {"client": client, "scope": scope,
                                                  "project": str(project_key) if project_key else None, "files": {}}
        plans = [_plan_install(t, entry["files"].get(str(_real(t.path)))) for t in targets]  # all refusals first
        for plan in plans:
            report.files.append(plan.report)
            if not dry_run:
                _apply(plan, data_home, manifest, key, entry)
        if client == "codex" and not dry_run:
            _trust_codex_hooks(targets, project_key or Path.cwd(), data_home, manifest, key, entry, report)
        if not dry_run:
            backups.prune(data_home, _kept_backups(manifest))
    return report


def _apply(plan: _Plan, data_home: Path, manifest: dict[str, Any], key: str, entry: dict[str, Any]) -> None:
    if plan.new is None:
        return
    _commit(plan, data_home)
    assert plan.record is not None
    entry["files"][str(plan.path)] = plan.record
    entry["installed_at"] = utcnow().isoformat()
    manifest["installs"][key] = entry
    _save_manifest(data_home, manifest)  # after each file: a later failure leaves this one undoable


def _trust_codex_hooks(targets: list[Target], cwd: Path, data_home: Path, manifest: dict[str, Any], key: str,
                       entry: dict[str, Any], report: Report) -> None:
    """Ask Codex for the keys and hashes of kenning's hooks, and record them as trusted in the
    user's config.toml, next to what the install put there (uninstall takes them out with it)."""
    codex = codex_trust.find_codex()
    if codex is None:
        report.notes.append("Codex runs a new hook only once you trust it: codex is not on this PATH, so open "
                            "/hooks in Codex and trust kenning's three hooks.")
        return
    commands = [c.group["hooks"][0]["command"] for t in targets for c in t.changes if isinstance(c, JsonHook)]
    try:
        trust = hookspecs.codex_trust(codex_trust.hooks_list(codex, clients.codex_home(), cwd), commands)
    except codex_trust.CodexUnavailable as exc:
        report.notes.append(f"{exc}; open /hooks in Codex and trust kenning's three hooks.")
        return
    config = _real(clients.codex_home() / "config.toml")
    record = entry["files"].get(str(config))
    # the file's other tables from this install stay in its record (and a trust entry not renewed now)
    kept = [TomlTable(tuple(c["path"]), c["value"]) for c in (record or {}).get("changes", [])
            if c["kind"] == "toml_table" and not (c["path"][:2] == ["hooks", "state"] and c["path"][2] in trust)]
    plan = _plan_install(Target(config, "toml", (*kept, *clients.codex_trust_tables(trust))), record)
    _apply(plan, data_home, manifest, key, entry)
    same = next((f for f in report.files if f.path == plan.path), None)
    if same is None:
        report.files.append(plan.report)
    else:
        same.changes += [c for c in plan.report.changes if c["change"].startswith("[hooks.state")]
        same.backup = same.backup or plan.report.backup


def uninstall(client: str, scope: str, project: Path, data_home: Path, *, dry_run: bool = False) -> Report:
    """Take out what ``install`` recorded for ``client`` and ``scope``; leave everything else."""
    clients.check_client(client)
    key, project_key = _key(client, scope, project)
    report = Report("uninstall", client, scope, project_key, dry_run)
    with _guard(data_home, dry_run):
        manifest = _load_manifest(data_home)
        entry = manifest["installs"].get(key)
        if entry is None:
            where = f" for {project_key}" if project_key else ""
            raise NotFound(f"kenning was not installed into {client} ({scope} scope){where} with this data "
                           f"directory: {data_home / MANIFEST_FILE} has no record of it, so there is nothing to "
                           "take out (a different --home or KENNING_HOME may have installed it)")
        plans = [_plan_uninstall(Path(path), record) for path, record in entry["files"].items()]
        for plan in plans:
            report.files.append(plan.report)
            if dry_run:
                continue
            if plan.new is not None or plan.delete:
                _commit(plan, data_home)
            _retire_legacy_backup(data_home, plan.path, entry["files"][str(plan.path)])
            del entry["files"][str(plan.path)]
            if entry["files"]:
                manifest["installs"][key] = entry
            else:
                manifest["installs"].pop(key, None)
            _save_manifest(data_home, manifest)
        if not dry_run:
            backups.prune(data_home, _kept_backups(manifest))
    return report


def ignore_warnings(report: Report) -> list[str]:
    """Personal files an install wrote inside a git work tree that git does not ignore (Claude Code
    makes git ignore .claude/settings.local.json when it creates that file itself; kenning may be
    first)."""
    git = shutil.which("git")
    if report.scope != "local" or report.project is None or git is None:
        return []
    out = []
    for f in report.files:
        if not f.written or report.project not in f.path.parents:
            continue
        done = subprocess.run([git, "-C", str(report.project), "check-ignore", "-q", str(f.path)],
                              capture_output=True, timeout=30)
        if done.returncode == 1:  # 0: ignored; 128: not a git work tree (or git failed): nothing to say
            relative = f.path.relative_to(report.project)
            out.append(f"git does not ignore {relative}, which holds your personal hooks: add it to .gitignore "
                       "(or .git/info/exclude) so it is not committed.")
    return out


def _key(client: str, scope: str, project: Path) -> tuple[str, Path | None]:
    clients.check_scope(client, scope)
    project_key = clients.project_root(project) if scope != "user" else None
    return f"{client}:{scope}:{project_key or ''}", project_key


def _kept_backups(manifest: dict[str, Any]) -> set[str]:
    """The copies an install record restores from on uninstall."""
    return {str(record["backup"]) for entry in manifest["installs"].values()
            for record in entry.get("files", {}).values() if record.get("backup")}


def _retire_legacy_backup(data_home: Path, path: Path, record: dict[str, Any]) -> None:
    """An older kenning kept its copy beside the file, in the project: move it among the others."""
    legacy = Path(record["backup"]) if record.get("backup") else None
    if legacy is None or not backups.is_legacy(legacy):
        return
    data = fileio.read_or_none(legacy)
    if data is not None:
        backups.save(data_home, path, data)
        legacy.unlink()


@contextmanager
def _guard(data_home: Path, dry_run: bool) -> Iterator[None]:
    # one kenning process edits client configs and the manifest at a time; a dry run writes nothing, not even a lock
    with nullcontext() if dry_run else fileio.locked(data_home / "locks" / "integrations"):
        yield


# -- planning an install ----------------------------------------------------------------------------


def _plan_install(target: Target, old_record: dict[str, Any] | None) -> _Plan:
    path = _real(target.path)
    old = fileio.read_or_none(path)
    report = FileReport(path, created=old is None)
    old_changes = {_change_id(c): c for c in (old_record or {}).get("changes", [])}
    records: list[dict[str, Any]] = []
    if target.format == "json":
        doc = configdoc.parse_json(path, old)
        new_doc = copy.deepcopy(doc)
        for change in target.changes:
            assert isinstance(change, JsonKey | JsonHook)
            previous = old_changes.get(_change_id(_describe(change)))
            apply = _install_key if isinstance(change, JsonKey) else _install_hook
            record, action = apply(new_doc, change, previous, path)
            report.changes.append({"change": change.label, "action": action})
            if record is not None:
                records.append(record)
        new = configdoc.edit_json(old, doc, new_doc) if new_doc != doc else None
    else:
        text = configdoc.decode(path, old)
        new_text: str | None = None
        for change in target.changes:
            assert isinstance(change, TomlTable)
            previous = old_changes.get(_change_id(_describe(change)))
            new_text, record, action = tomltable.install_toml(path, new_text if new_text is not None else text, change,
                                                      previous)
            report.changes.append({"change": change.label, "action": action})
            if record is not None:
                records.append(record)
        new = new_text.encode("utf-8") if new_text is not None and new_text != text else None
    if new is None:
        report.created = False
        return _Plan(path, old, None, old_record, report)
    record = {"format": target.format, "changes": records, "written_sha256": _sha(new)}
    if old_record is not None and old is not None:
        record.update({k: old_record[k] for k in ("created", "created_dirs", "original_sha256", "backup", "edited")
                       if k in old_record})
        if _sha(old) != old_record.get("written_sha256"):  # edited since: only a key-by-key uninstall keeps that
            record["edited"] = True
    else:
        record.update({"created": old is None, "created_dirs": [str(d) for d in _missing_dirs(path.parent)],
                       "original_sha256": _sha(old) if old is not None else None, "backup": None})
    return _Plan(path, old, new, record, report)


def _describe(change: JsonKey | JsonHook | TomlTable) -> dict[str, Any]:
    if isinstance(change, JsonHook):
        return {"kind": "hook", "event": change.event}
    return {"kind": "key" if isinstance(change, JsonKey) else "toml_table", "path": list(change.path)}


def _change_id(record: dict[str, Any]) -> str:
    return f"{record['kind']}:{record.get('event') or '.'.join(record.get('path', []))}"


def _install_key(doc: dict[str, Any], change: JsonKey | JsonHook, previous: dict[str, Any] | None,
                 path: Path) -> tuple[dict[str, Any] | None, str]:
    assert isinstance(change, JsonKey)
    found, current = configdoc.get(doc, change.path, path)
    if found and current == change.value:
        return previous, "unchanged"  # ours from an earlier install, or the user's identical entry (not ours to remove)
    if found and change.unless_set and (previous is None or current != previous["value"]):
        return None, "kept: set by you"
    record: dict[str, Any] = {**_describe(change), "value": change.value}
    if previous is not None and found and current == previous["value"]:  # ours, from an install with other settings
        record.update({k: previous[k] for k in ("previous", "created") if k in previous})
        action = "updated"
    else:
        if found:
            record["previous"] = current
        action = "replaced" if found else "added"
    created = configdoc.make_parents(doc, change.path[:-1])
    record.setdefault("created", created)
    configdoc.parent(doc, change.path)[change.path[-1]] = copy.deepcopy(change.value)
    return record, action


def _install_hook(doc: dict[str, Any], change: JsonKey | JsonHook, previous: dict[str, Any] | None,
                  path: Path) -> tuple[dict[str, Any] | None, str]:
    assert isinstance(change, JsonHook)
    found, groups = configdoc.get(doc, ("hooks", change.event), path)
    if found and not isinstance(groups, list):
        raise InvalidInput(f"{path}: hooks.{change.event} is a {configdoc.kind(groups)}, not a list of matcher groups; "
                           "fix it (see https://code.claude.com/docs/en/hooks) and run kenning install again")
    if found and change.group in groups:
        return previous, "unchanged"
    record: dict[str, Any] = {**_describe(change), "group": change.group}
    if found and previous is not None and previous["group"] in groups:  # ours, with other settings: update in place
        groups[groups.index(previous["group"])] = copy.deepcopy(change.group)
        record["created"] = previous.get("created", [])
        return record, "updated"
    record["created"] = configdoc.make_parents(doc, ("hooks", change.event), leaf=[])
    configdoc.get(doc, ("hooks", change.event), path)[1].append(copy.deepcopy(change.group))
    return record, "added"


# -- planning an uninstall --------------------------------------------------------------------------


def _plan_uninstall(path: Path, record: dict[str, Any]) -> _Plan:
    current = fileio.read_or_none(path)
    report = FileReport(path)
    changes: list[dict[str, Any]] = record.get("changes", [])
    labels = [_label(c) for c in changes]
    if current is None:
        report.changes = [{"change": label, "action": "absent"} for label in labels]
        return _Plan(path, None, None, None, report)
    if _sha(current) == record.get("written_sha256"):  # untouched since install: undo it to the byte
        restored = _restore_whole(record)
        if restored is not None:
            report.changes = [{"change": label, "action": "restored" if "previous" in c else "removed"}
                              for label, c in zip(labels, changes)]
            report.deleted = bool(record.get("created"))
            new, delete = restored
            return _Plan(path, current, new, None, report, delete=delete, backup=False,
                         created_dirs=record.get("created_dirs", []))
    if record.get("format") == "toml":
        text = configdoc.decode(path, current)
        for change in reversed(changes):
            text, action = tomltable.uninstall_toml(path, text, change)
            report.changes.insert(0, {"change": _label(change), "action": action})
        new = text.encode("utf-8")
        empty = not text.strip()
    else:
        doc = configdoc.parse_json(path, current, during="uninstall")
        before = copy.deepcopy(doc)
        for change in reversed(changes):
            action = _uninstall_key(doc, change) if change["kind"] == "key" else _uninstall_hook(doc, change)
            report.changes.insert(0, {"change": _label(change), "action": action})
        reversed_any = any(c["action"] in ("removed", "restored") for c in report.changes)
        new = configdoc.edit_json(current, before, doc) if reversed_any else current
        empty = doc == {}
    if new == current:
        return _Plan(path, current, None, None, report)
    delete = bool(record.get("created")) and empty  # the file was ours and holds nothing else now
    report.deleted = delete
    return _Plan(path, current, None if delete else new, None, report, delete=delete, backup=not delete,
                 created_dirs=record.get("created_dirs", []))


def _restore_whole(record: dict[str, Any]) -> tuple[bytes | None, bool] | None:
    """(bytes to write, delete?) that put the file back as it was before install, or None if unknown."""
    if record.get("edited"):  # someone wrote it between two installs: going back to the start would lose that
        return None
    if record.get("created"):
        return None, True
    backup = record.get("backup")
    original = fileio.read_or_none(Path(backup)) if backup else None
    if original is None or _sha(original) != record.get("original_sha256"):
        return None  # the backup was moved or edited: take the entries out one by one instead
    return original, False


def _label(change: dict[str, Any]) -> str:
    if change["kind"] == "hook":
        return f"hooks.{change['event']}"
    joined = ".".join(change["path"])
    return f"[{joined}]" if change["kind"] == "toml_table" else joined


def _uninstall_key(doc: dict[str, Any], change: dict[str, Any]) -> str:
    path = tuple(change["path"])
    found, current = configdoc.get(doc, path, None)
    if not found:
        return "absent"
    if current != change["value"]:
        return configdoc.KEPT
    parent = configdoc.parent(doc, path)
    if "previous" in change:
        parent[path[-1]] = change["previous"]
        return "restored"
    del parent[path[-1]]
    configdoc.prune(doc, change.get("created", []))
    return "removed"


def _uninstall_hook(doc: dict[str, Any], change: dict[str, Any]) -> str:
    found, groups = configdoc.get(doc, ("hooks", change["event"]), None)
    if not found or not isinstance(groups, list):
        return "absent"
    group = change["group"]
    if group in groups:
        groups.remove(group)
    else:  # the user put other handlers into kenning's group: take out only kenning's handler
        ours = group["hooks"][0]
        nested = [g for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)]
        holder = next((g for g in nested if ours in g["hooks"]), None)
        if holder is None:  # gone, or edited (another timeout, say): then it is the user's now
            edited = any(isinstance(h, dict) and h.get("command") == ours["command"]
                         for g in nested for h in g["hooks"])
            return configdoc.KEPT if edited else "absent"
        holder["hooks"].remove(ours)
        if not holder["hooks"]:
            groups.remove(holder)
    configdoc.prune(doc, change.get("created", []))
    return "removed"


# -- writing ---------------------------------------------------------------------------------------


def _commit(plan: _Plan, data_home: Path) -> None:
    if plan.old is not None and plan.backup:
        plan.report.backup = backups.save(data_home, plan.path, plan.old)
        if plan.record is not None and plan.record.get("original_sha256") == _sha(plan.old):
            plan.record["backup"] = str(plan.report.backup)  # the file as it was before kenning touched it
    # a client may have written the file since it was read: never replace what was not seen
    if fileio.read_or_none(plan.path) != plan.old:
        raise Conflict(f"{plan.path} changed while kenning was editing it; it was left as it is now. "
                       "Run the command again.")
    if plan.delete:
        plan.path.unlink()
        for folder in sorted(plan.created_dirs, key=len, reverse=True):
            try:
                Path(folder).rmdir()  # only when empty: anything the user put there stays
            except OSError:
                pass
        return
    assert plan.new is not None
    fileio.atomic_write(plan.path, plan.new)


def _missing_dirs(folder: Path) -> list[Path]:
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


def _real(path: Path) -> Path:
    # a dotfile manager's symlink must stay a symlink: edit the file it points to
    return Path(os.path.realpath(path.expanduser()))


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


# -- the manifest ----------------------------------------------------------------------------------


def _load_manifest(data_home: Path) -> dict[str, Any]:
    path = data_home / MANIFEST_FILE
    raw = fileio.read_or_none(path)
    if raw is None:
        return {"version": 1, "installs": {}}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise StoreError(f"{path} is not valid JSON ({exc}); it records what kenning install added: "
                         "fix it or move it away") from None
    if not isinstance(data, dict) or not isinstance(data.get("installs"), dict):
        raise StoreError(f"{path} is not a kenning integrations record; fix it or move it away")
    return data


def _save_manifest(data_home: Path, manifest: dict[str, Any]) -> None:
    text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    fileio.atomic_write(data_home / MANIFEST_FILE, text.encode("utf-8"))
