"""``Skills``: the skills library of one ``Kenning`` (``kb.skills``).

The operations named after agent tools (``skills_list``, ``skill_view``, ``skill_manage``,
``skill_feedback``) answer with the JSON those tools return, so the CLI and the MCP server print
what the library gives; the rest (``get``, ``check``, ``history``, ``diff``, ``stats``) return frozen
dataclasses. Errors are raised, never returned as ``success: false``: each face translates them
in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..embed import Embedder
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..gate import Gate
from ..retrieval import check_query
from ..store import Store
from ..tokens import count_tokens
from . import curate, files, usage, versions
from .availability import missing
from .catalog import Entry as CatalogEntry
from .catalog import build as build_catalog
from .catalog import check_budget, shorten
from .catalog_cache import CatalogCache, cache_file, environment_fingerprint
from .diff import state_diff
from .duplicates import DuplicateFinder
from .guard import Guarded, SkillGuard
from .index import Loader, SkillIndex
from .manage import Manager
from .model import SKILL_FILE, Diagnostic, Skill, SkillVersion
from .repair import Repairs
from .scanning.model import SCANNER_VERSION, ScanReport
from .relevance import DEFAULT_SKILL_MIN_RELEVANCE
from .search import SkillSearch
from .sources import SOURCE_NAMES, Source, default_sources
from .trust import trust_levels
from .usage import UsageEvent, UsageStats, check_outcome
from ..passages import PassageVectors
from .versions import Location

# with a task, the catalog puts up to this many matching skills first: those at or above the skill
# relevance floor scoring at least this share of the best match
TASK_MATCHES = 5
MATCH_SHARE_OF_BEST = 0.6
STALE_DESCRIPTION_TOKENS = 16  # a stale skill's catalog line: enough to recognise it
MANAGE_ACTIONS = ("create", "patch", "edit", "delete", "write_file", "remove_file")
CURRENT = "current"


@dataclass(frozen=True)
class SkillDiff:
    name: str
    old: str  # "3" or "current"
    new: str
    changed: tuple[str, ...]
    text: str  # unified diff of every changed file

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "name": self.name, "from": self.old, "to": self.new,
                "changed_files": list(self.changed), "diff": self.text}


class Skills:
    """Skills of the project, the user, kenning itself and the configured extra folders."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        user_root: Path,
        project_dir: Path | None = None,
        extra_dirs: tuple[Path, ...] = (),
        cache_dir: Path | None = None,
        actor: str = "api",
        gate: Gate | None = None,
        approvals_file: Path | None = None,
        trusted: tuple[str, ...] = (),
    ) -> None:
        self.store = store
        self.actor = actor
        self.trusted = trusted  # [skills] trusted: install sources and source names (see trust)
        self.sources: tuple[Source, ...] = default_sources(project_dir, user_root, extra_dirs)
        self.loader = Loader(self.sources)
        vectors = PassageVectors(store, embedder)
        self.finder = SkillSearch(vectors)
        self.gate = gate or Gate(store, embedder, actor=actor)
        self.manager = Manager(store, self.sources, self.loader, DuplicateFinder(vectors), actor, self._changed,
                               self.gate)
        self.repairs = Repairs(store, self.sources, actor)
        self.cache_dir = cache_dir or user_root.parent / "cache"
        self.catalog_cache = CatalogCache(cache_file(self.cache_dir, self.sources))
        self.guard = SkillGuard(store, cache_dir=self.cache_dir, actor=actor,
                                approvals_file=approvals_file or user_root.parent / "skill-approvals.json")

    def _changed(self) -> None:
        """Called after every write through kenning: drop whatever was derived from the files."""
        self.loader.invalidate()
        self.catalog_cache.invalidate()

    # -- reading ------------------------------------------------------------------------------------

    def index(self) -> SkillIndex:
        """Every skill as the files are now (see ``index.SkillIndex``). What a writer killed midway
        left behind is settled first (see ``repair``): every skill listed has a recorded version."""
        self.repairs.sweep_once()
        index = self.loader.load()
        self.repairs.record_unrecorded(index)
        return index

    def guarded(self) -> Guarded:
        """The scanner's verdict on every skill as the files are now, and which are held back as
        dangerous until a person approves them (see ``guard``)."""
        index = self.index()
        return self.guard.guarded(index, self.loader.manifest.digest)

    def model_index(self) -> SkillIndex:
        """The library a model is shown: ``index()`` without the skills held back as dangerous."""
        return self.guarded().model_index

    def get(self, name: str) -> Skill:
        """The skill ``name`` refers to: ``deploy``, ``devops/deploy``, ``project:deploy``, a folder path."""
        return self.index().resolve(name)

    def check(self) -> list[Diagnostic]:
        """What loading noticed: skipped folders and why, warnings, duplicates, shadowed skills."""
        index = self.index()
        notes = list(index.diagnostics)
        for group in index.duplicates():
            for skill in group:
                others = ", ".join(str(s.path) for s in group if s is not skill)
                notes.append(Diagnostic(skill.path, skill.source, "warning",
                                        f"another skill named {skill.name!r} is in the same source ({others}); "
                                        f"lookups must be qualified, e.g. {skill.qualified!r}"))
        for item in index.shadowed():
            notes.append(Diagnostic(item.skill.path, item.skill.source, "info",
                                    f"shadowed by {item.by.source} skill {item.by.path}"))
        guarded = self.guarded()
        for skill in index.skills:
            if skill.path in guarded.held:
                notes.append(Diagnostic(skill.path, skill.source, "warning", _held_message(skill, guarded)))
        return notes

    def skills_list(self, category: str | None = None) -> dict[str, Any]:
        """``{success, count, categories, skills: [{name, description, category, source, available,
        missing}], hint}``, plus ``shadowed`` (skills hidden by a higher source), ``duplicates`` (names
        that must be qualified) and ``skipped`` (folders that could not be loaded). Names and
        descriptions only, never bodies."""
        index = self.index()
        guarded = self.guarded()
        cat = category.strip().strip("/") if category else None
        shown = _in_category(guarded.model_index.visible(), cat)
        shown_paths = {s.path for s in shown}
        # a held skill is listed, marked, where it would be (not when a skill it shadows stands in for it)
        held = [s for s in _in_category(index.visible(), cat) if s.path in guarded.held]
        marks = curate.marks(self.store, index)
        levels = trust_levels(index, self.store, self.trusted)
        rows = []
        for skill in sorted([*shown, *(s for s in held if s.path not in shown_paths)],
                            key=lambda s: (s.category or "", s.name, s.path in guarded.held)):
            lacking = missing(skill.requires)
            mark = marks.get(skill.path)
            rows.append({"name": skill.name, "description": skill.description, "category": skill.category,
                         "source": skill.source, "available": not lacking, "missing": lacking,
                         "trust": levels.get(skill.path, "community"),
                         "verdict": guarded.verdict(skill) or "not scanned", "held": skill.path in guarded.held,
                         "stale": bool(mark and mark.stale), "failing": bool(mark and mark.failing),
                         "pinned": bool(mark and mark.pinned),
                         "last_used": mark.last_used.isoformat(timespec="seconds") if mark and mark.last_used
                         else None})
        skipped = sum(1 for d in index.diagnostics if d.level == "skipped")
        hint = "skill_view(name) shows a skill's instructions and linked files; skill_view(name, file_path) one file."
        if skipped:
            hint += f" {skipped} skill folder(s) could not be loaded: `kenning skill check` says why."
        if held:
            hint += (f" {len(held)} skill(s) scanned as dangerous are held back (not in the catalog, search or "
                     "context) until a person approves them: `kenning skill scan NAME`, `kenning skill approve NAME`.")
        return {
            "success": True,
            "count": len(rows),
            "categories": sorted({r["category"] for r in rows if r["category"]}),
            "skills": rows,
            "hint": hint,
            "shadowed": [s.to_dict() for s in index.shadowed()],
            "duplicates": [{"name": g[0].name, "source": g[0].source, "paths": [str(s.path) for s in g],
                            "use": [s.qualified for s in g]} for g in index.duplicates()],
            "skipped": skipped,
            "held": len(held),
        }

    def skill_view(self, name: str, file_path: str | None = None) -> dict[str, Any]:
        """``{success, name, content, linked_files: {references, templates, scripts, assets, ".", ...},
        files_not_listed, tags, related_skills, available, missing}`` (plus source, path, category,
        file_path); with ``file_path``, ``content`` is that file of the skill."""
        guarded = self.guarded()
        try:
            skill = guarded.model_index.resolve(name)  # a held skill gives way to one of the same name
        except NotFound:
            held = self.get(name)
            if held.path in guarded.held:
                raise Forbidden(_held_message(held, guarded)) from None
            raise
        rel = None
        if file_path in (None, "", SKILL_FILE):
            content = _read_text(skill.skill_md, SKILL_FILE)
        else:
            rel = files.clean_rel_path(file_path)
            target = files.inside_skill(skill.path, rel)
            if not target.is_file():
                listed = [f for group in files.linked_files(skill.path)[0].values() for f in group]
                raise NotFound(f"skill {skill.name!r} has no file {rel!r}; its files: {', '.join(listed) or 'none'}")
            content = _read_text(target, rel)
        usage.record(self.store, skill.name, "view", actor=self.actor, detail=rel or "", location=skill)
        lacking = missing(skill.requires)
        linked, more = files.linked_files(skill.path)
        return {
            "success": True,
            "name": skill.name,
            "content": content,
            "linked_files": linked,
            "files_not_listed": more,
            "tags": list(skill.tags),
            "related_skills": list(skill.related_skills),
            "available": not lacking,
            "missing": lacking,
            "source": skill.source,
            "path": str(skill.path),
            "category": skill.category,
            "file_path": rel,
        }

    def skills_search(self, task: str, k: int = 5, min_relevance: float | None = None) -> dict[str, Any]:
        """The skills that fit ``task`` best, by words and meaning: ``{success, task, count, skills:
        [{name, description, category, source, score, relevance, why, always, available, missing}],
        hint}``, and ``message`` saying why when no skill fits. Matches whose relevance is below
        ``min_relevance`` (default ``DEFAULT_SKILL_MIN_RELEVANCE``; 0 keeps all ``k``) are left out, so
        a task no skill fits gets none. Skills marked ``always: true`` are included after the matches."""
        floor = DEFAULT_SKILL_MIN_RELEVANCE if min_relevance is None else min_relevance
        matches = self.finder.search(self.model_index(), task, k, floor)
        answer = {
            "success": True,
            "task": task.strip(),
            "count": len(matches),
            "min_relevance": matches.min_relevance,
            "skills": [m.to_dict() for m in matches],
            "hint": "skill_view(name) shows a skill's instructions; skill_feedback(name, outcome) says "
                    "whether it helped.",
        }
        if not matches.fitting:
            answer["message"] = matches.empty_reason()
        return answer

    def skills_catalog(self, budget_tokens: int = 2000, task: str | None = None,
                       category: str | None = None) -> dict[str, Any]:
        """The skill index for a system prompt, within ``budget_tokens`` (see ``catalog``): ``{success,
        text, tokens, budget_tokens, skills, full, shortened, name_only, omitted, matched, cached}``.
        With ``task``, the skills matching it come first with their whole descriptions."""
        budget = check_budget(budget_tokens)
        task = check_query(task) if isinstance(task, str) and task.strip() else None
        cat = category.strip().strip("/") if isinstance(category, str) and category.strip() else None
        state = (f"{self.loader.current_manifest().digest}:{environment_fingerprint()}:{SCANNER_VERSION}:"
                 f"{self.guard.approvals_stamp()}")  # what the guard's verdicts depend on (see guard)
        key = f"{'task:' + task if task else 'all'}\0{cat or ''}\0{budget}"
        cached = self.catalog_cache.get(state, key)
        if cached is not None:
            return cached.to_dict() | {"cached": True}
        built = build_catalog(self._catalog_entries(task, cat), budget)
        self.catalog_cache.put(state, key, built, persist=task is None)
        return built.to_dict() | {"cached": False}

    def ranked(self, task: str | None = None, category: str | None = None) -> list[tuple[Skill, bool]]:
        """The skills a model is shown (of ``category``), in catalog priority order, each with whether it
        matches ``task``: ``always`` skills first (in use in every session), then the matching ones, then
        the most used (views and helpful outcomes: a failure does not raise a skill), then by name."""
        index = self.model_index()
        shown = _in_category(index.visible(), category)
        first: dict[int, int] = {}
        if task and shown:
            # only the skills that fit: the best of nothing is no match
            matches = self.finder.search(index, task, TASK_MATCHES, DEFAULT_SKILL_MIN_RELEVANCE).fitting
            ids = {id(s) for s in shown}
            best = matches[0].score if matches else 0.0
            first = {id(m.skill): i for i, m in enumerate(matches)
                     if m.score >= MATCH_SHARE_OF_BEST * best and id(m.skill) in ids}
        counts = usage.stats(self.store, by_location=True)
        here = {c.location: c.views + c.helped for c in counts if c.location}
        by_name: dict[str, int] = {}
        for c in counts:
            if not c.location:  # recorded before usage was kept per location: counts for the name
                by_name[c.name] = by_name.get(c.name, 0) + c.views + c.helped

        def used(s: Skill) -> int:
            return here.get((str(s.root), s.rel_path), 0) + by_name.get(s.name, 0)

        order = sorted(shown, key=lambda s: (not s.always, first.get(id(s), len(first)), -used(s), s.name))
        return [(s, id(s) in first) for s in order]

    def always(self) -> list[Skill]:
        """The ``always: true`` skills a model is shown: in every catalog and every context, in full."""
        return [s for s in self.model_index().visible() if s.always]

    def _catalog_entries(self, task: str | None, category: str | None) -> list[CatalogEntry]:
        """The catalog's lines in priority order; a stale skill (unused for a month, see ``curate``)
        keeps only the start of its description, unless it matches the task or is always in use."""
        ranked = self.ranked(task, category)
        marks = curate.marks(self.store, self.model_index())
        out = []
        for s, matched in ranked:
            stale = s.path in marks and marks[s.path].stale and not matched and not s.always
            text = shorten(s.description, STALE_DESCRIPTION_TOKENS, count_tokens(s.description), count_tokens) \
                if stale else s.description
            out.append(CatalogEntry(s.name, text, s.category, tuple(missing(s.requires)),
                                    matched=matched and not s.always, always=s.always))
        return out

    # -- writing ------------------------------------------------------------------------------------

    def skill_manage(
        self,
        action: str,
        name: str,
        *,
        content: str | None = None,
        old_string: str | None = None,
        new_string: str | None = None,
        replace_all: bool = False,
        file_path: str | None = None,
        file_content: str | bytes | None = None,
        category: str | None = None,
        target: str = "user",
        force: bool = False,
        reason: str = "",
    ) -> dict[str, Any]:
        """One change to a skill; answers ``{success, action, name, source, path, version, message}``.

        ``create`` (name, content: the whole SKILL.md, category, target "user" or "project", force),
        ``patch`` (old_string, new_string, replace_all; file_path for a linked file), ``edit``
        (content), ``delete``, ``write_file`` (file_path, file_content), ``remove_file`` (file_path).
        """
        reason = str(reason or "")
        if action == "create":
            return self._note_verdict(self.manager.create(self.index(), name, content, category=category,
                                                          target=target, force=bool(force), reason=reason).to_dict())
        if action not in MANAGE_ACTIONS:
            raise InvalidInput(f"action {action!r} is not one of {', '.join(MANAGE_ACTIONS)}")
        skill = self.get(name)
        if skill.file != SKILL_FILE and action != "delete":
            raise InvalidInput(f"skill {skill.name!r} keeps its instructions in {skill.skill_md}; rename the file to "
                               f"{SKILL_FILE} (the name the Agent Skills format uses), then change it")
        if action == "patch":
            if old_string is None or new_string is None:
                raise InvalidInput("patch needs old_string and new_string")
            change = self.manager.patch(skill, old_string, new_string, replace_all=bool(replace_all),
                                        file_path=file_path, reason=reason)
        elif action == "edit":
            change = self.manager.edit(skill, content, reason=reason)
        elif action == "delete":
            change = self.manager.delete(skill, reason=reason)
        elif action == "write_file":
            if file_path is None or file_content is None:
                raise InvalidInput("write_file needs file_path and file_content")
            change = self.manager.write_file(skill, file_path, file_content, reason=reason)
        else:
            if file_path is None:
                raise InvalidInput("remove_file needs file_path")
            change = self.manager.remove_file(skill, file_path, reason=reason)
        return change.to_dict() if action == "delete" else self._note_verdict(change.to_dict())

    def scan(self, name: str) -> ScanReport:
        """The scanner's report on skill ``name`` as its files are now."""
        from .scan import scan_skill  # the rules compile on first use

        return scan_skill(self.get(name).path, cache_dir=self.cache_dir)

    def approve(self, name: str, *, reason: str = "") -> dict[str, Any]:
        """Let skill ``name``, held back as dangerous, into the catalog, search and context as its files
        are now (a later change makes it a new state, scanned again). Audited."""
        skill = self.get(name)
        report = self.scan(name)
        if report.verdict != "dangerous":
            return {"success": True, "name": skill.name, "path": str(skill.path), "verdict": report.verdict,
                    "approved": False, "message": f"skill {skill.name!r} scans as {report.verdict}, so it is not "
                                                  "held back: there is nothing to approve"}
        self.guard.approve(skill, report, reason=str(reason or ""))
        self.catalog_cache.invalidate()
        counts = report.counts()
        return {"success": True, "name": skill.name, "path": str(skill.path), "verdict": report.verdict,
                "approved": True, "content_hash": report.content_hash,
                "message": f"approved skill {skill.name!r} as it is now ({counts['critical']} critical and "
                           f"{counts['high']} high finding(s)); a change to it will be scanned again"}

    def _note_verdict(self, result: dict[str, Any]) -> dict[str, Any]:
        """A written skill the scanner calls dangerous is held back like any other: say so in the answer."""
        path = result.get("path")
        guarded = self.guarded()
        verdict = guarded.verdicts.get(Path(path)) if isinstance(path, str) else None
        if verdict is None:
            return result
        result["verdict"] = verdict.verdict
        if Path(str(path)) in guarded.held:
            skill = next(s for s in self.index().skills if s.path == Path(str(path)))
            result["held"] = True
            result["message"] += "; " + _held_message(skill, guarded)
        return result

    # -- versions ----------------------------------------------------------------------------------

    def _locate(self, name: str) -> Location:
        """Where the history of ``name`` is kept: the skill on disk in a writable source; else the one
        writable place a skill of that name was recorded (a deleted skill, perhaps now hidden by a
        built-in one of the same name: read-only skills never have a history)."""
        found: Skill | None = None
        missing_error: NotFound | None = None
        try:
            found = self.get(name)
        except NotFound as exc:
            missing_error = exc
        writable = {s.root for s in self.sources if s.writable}
        if found is not None and found.root in writable:
            return Location(found.source, found.root, found.rel_path, found.name)
        source, _, rest = name.partition(":")
        qualified = bool(rest) and source in SOURCE_NAMES
        bare = (rest if qualified else name).rstrip("/").rsplit("/", 1)[-1]
        places = [p for p in versions.locations_named(self.store, bare)
                  if p.root in writable and (not qualified or p.source == source)]
        if len(places) > 1:
            raise Conflict(f"skill {name!r} was recorded in {len(places)} places: "
                           f"{', '.join(str(p.path) for p in places)}; qualify it (e.g. 'user:{bare}')")
        if places:
            return places[0]
        if found is not None:
            return Location(found.source, found.root, found.rel_path, found.name)
        assert missing_error is not None
        raise missing_error

    def history(self, name: str) -> list[SkillVersion]:
        """Every recorded version of a skill, oldest first (a deleted skill's too)."""
        return versions.history(self.store, self._locate(name))

    def modified_since_recorded(self, name: str) -> bool:
        """Whether the files on disk differ from the last recorded version (edited by hand)."""
        loc = self._locate(name)
        now = files.snapshot(loc.path) if loc.path.is_dir() else {}
        return bool(now) and versions.latest_checksum(self.store, loc) != versions.checksum(now)

    def diff(self, name: str, old: int | str, new: int | str = CURRENT) -> SkillDiff:
        """Unified diff of every file between two versions (``"current"``: the files on disk now)."""
        loc = self._locate(name)
        a_label, a = self._state(loc, old)
        b_label, b = self._state(loc, new)
        changed, text = state_diff(a, b, a_label, b_label)
        return SkillDiff(loc.name, a_label, b_label, changed, text)

    def _state(self, loc: Location, ref: int | str) -> tuple[str, dict[str, bytes]]:
        if isinstance(ref, str) and ref.strip().lower() == CURRENT:
            return CURRENT, files.snapshot(loc.path) if loc.path.is_dir() else {}
        number = _version_number(ref)
        state = versions.files_of(self.store, loc, number)
        if state is None:
            raise NotFound(f"skill {loc.name!r} has no version {number}; `kenning skill history {loc.name}` lists them")
        return str(number), state

    def rollback(self, name: str, version: int | str, *, reason: str = "") -> dict[str, Any]:
        """Restore version ``version``; the restored state is recorded as a new version (undoable)."""
        return self.manager.rollback(self._locate(name), _version_number(version), reason=str(reason or "")).to_dict()

    # -- usage --------------------------------------------------------------------------------------

    def skill_feedback(self, name: str, outcome: str, note: str = "") -> dict[str, Any]:
        """Record how a skill worked out: ``helped``, ``failed`` or ``not-relevant``, with a note.
        The note passes the write gate (the general policy, masked, never refused) before it is stored."""
        value = check_outcome(outcome)
        if not isinstance(note, str):
            raise InvalidInput(f"note must be text, got {type(note).__name__}")
        skill = self.get(name)
        scrub = self.gate.scrub("skill feedback", mask_only=True)
        text = scrub(note.strip(), "note")
        with self.store.transaction():
            usage.record(self.store, skill.name, "feedback", actor=self.actor, outcome=value, detail=text,
                         location=skill)
            self.gate.audit(scrub, scope=skill.source, name=skill.name, field="note")
        message = (f"recorded that skill {skill.name!r} {value.replace('-', ' ')}" if value != "not-relevant"
                   else f"recorded that skill {skill.name!r} was not relevant")
        if scrub.count:
            message += (f"; masked {scrub.count} item(s) in the note before storing it "
                        f"({', '.join(f'{n} {kind}' for kind, n in scrub.found)})")
        return {"success": True, "name": skill.name, "outcome": value, "note": text, "message": message,
                "masked": [{"kind": kind, "count": n} for kind, n in scrub.found]}

    def stats(self, name: str | None = None) -> list[UsageStats]:
        """Views and reported outcomes per skill, most used first."""
        return usage.stats(self.store, self._usage_name(name) if name else None)

    def recent_usage(self, name: str, limit: int = 20) -> list[UsageEvent]:
        return usage.recent(self.store, self._usage_name(name), limit)

    def _usage_name(self, name: str) -> str:
        try:
            return self.get(name).name
        except NotFound:
            return name


def _held_message(skill: Skill, guarded: Guarded) -> str:
    verdict = guarded.verdicts[skill.path]
    found = "; ".join(verdict.top)
    return (f"skill {skill.name!r} ({skill.path}) scanned as dangerous ({verdict.counts.get('critical', 0)} critical "
            f"finding(s): {found}) and is held back from the catalog, search and context until a person approves it: "
            f"`kenning skill scan {skill.qualified}` shows every finding, `kenning skill approve {skill.qualified}` "
            "lets it in as it is now")


def _in_category(skills: list[Skill], category: str | None) -> list[Skill]:
    if not category:
        return skills
    return [s for s in skills if s.category and (s.category == category or s.category.startswith(category + "/"))]


def _version_number(ref: object) -> int:
    text = str(ref).strip().lstrip("vV") if isinstance(ref, str | int) and not isinstance(ref, bool) else ""
    if not text.isdigit() or int(text) < 1:
        raise InvalidInput(f"version must be a number from `kenning skill history` (1, 2, …), got {ref!r}")
    return int(text)


def _read_text(path: Path, rel: str) -> str:
    data = files.read_limited(path, rel, files.MAX_FILE_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"[binary file, {len(data):,} bytes: not shown]"
