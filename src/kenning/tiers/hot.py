"""The hot tier: MEMORY.md and USER.md, loaded into every session, each under a hard token budget.

Each entry is a bullet line linked to a stored fact (``pinned``, tagged ``hot``), so recall and the
files never disagree: adding an entry remembers a fact, replacing one supersedes it, removing one
expires it, demoting one unpins it (it stays in recall: the warm tier). The files are the truth
for what is hot, and people may edit them: every operation re-reads both files under a lock and
reconciles them with the store first (a new line becomes a fact, an edited line supersedes its fact,
a deleted line unpins it; a fact superseded or expired elsewhere updates its line), and a write only
replaces the file if it still holds what was read, so an edit made meanwhile is merged, never lost.

Budgets count the text a model is shown (``prompt_text``: without the id markers) with
``kenning.tokens``. A write over budget is refused, naming the budget, the use and what could be
demoted, unless the caller asks to make room, which runs ``compress``:

1. drop entries marked ``[deprecated]`` (their facts expire);
2. merge restatements: two entries the write gate would call the same statement (its
   ``relation``: the same content words, numbers and names in the same order, cosine >= the gate's
   ``near_duplicate``); the lower-scored one's fact is superseded by the other's. Entries only alike
   in meaning (cosine >= ``SIMILAR``: "Alice owns the billing service" / "Bob owns …", "用户喜欢简短的
   回答" / "用户喜欢详细的回答") are never merged: they are listed as ``similar``, for a person;
3. demote the lowest-scored entries to the warm tier until the file fits.

A compression is planned first (``plan_compression``: nothing changes) and the plan is what is
carried out (``carry_out``), entry by entry as the plan names them, so what a dry run prints is
exactly what the real run does; an entry a hand edit removed in between is skipped and reported.

Score of an entry = category weight (pitfall 1.0, project 0.75, user preference 0.5, other 0.25)
+ recency (0.5 ** (days since its fact was last used or changed / 30))
+ references (log(1 + times recalled or restated) / log(21), at most 1)
+ emphasis (0.5 when it says never / always / must / 千万 / 必须 …, or its importance is >= 0.7).

A write that would leave a file with fewer than half of its entries is refused unless forced (the
failure of systems where a truncated model answer replaced the file); the previous text is kept as
``MEMORY.md.bak`` / ``USER.md.bak`` before every write.

Entries pass the write gate like every fact: secrets and personal data are masked (or refused) in
the file as in the store. A hand-written line carrying some is masked when it is picked up, and
the backup holds the masked text too.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from .. import audit, fileio
from ..blas import product
from ..config import HotConfig
from ..errors import Conflict, InvalidInput, NotFound
from ..gate.novelty import relation
from ..checks import check_scope, scope_folder
from ..memory import _EMPHASIS, Facts
from ..models import DEFAULT_SCOPE, Fact
from ..passages import PassageVectors
from ..records import item_from_row
from ..store import ItemQuery
from ..text import clean_content, content_key, holds
from ..timeutil import utcnow
from ..tokens import count_tokens
from . import hotfile
from .hotfile import BY_KEY, FILES, MEMORY_FILE, SECTIONS, USER_FILE, Entry

HOT_TAG = "hot"
SIMILAR = 0.92  # alike enough in meaning to show a person (the skills' near-duplicate threshold)
CATEGORY_WEIGHT = {"pitfalls": 1.0, "project": 0.75, "user": 0.5, "other": 0.25}
RECENCY_HALF_LIFE_DAYS = 30.0
MAX_ENTRY_CHARS = 1000


@dataclass(frozen=True)
class Scored:
    entry: Entry
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.entry.text, "section": self.entry.section, "id": self.entry.item_id,
                "score": round(self.score, 3)}


@dataclass(frozen=True)
class Compression:
    """What ``compress`` did (or, in a dry run, would do) to one file."""

    file: str
    tokens_before: int
    tokens_after: int
    budget: int
    dropped: tuple[str, ...] = ()  # [deprecated] entries
    merged: tuple[tuple[str, str], ...] = ()  # (removed, kept)
    demoted: tuple[str, ...] = ()
    dry_run: bool = False
    similar: tuple[tuple[str, str], ...] = ()  # alike in meaning, not the same statement: never merged
    skipped: tuple[str, ...] = ()  # planned, but gone from the file when the plan was carried out

    @property
    def changes(self) -> bool:
        return bool(self.dropped or self.merged or self.demoted)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "tokens_before": self.tokens_before, "tokens_after": self.tokens_after,
                "budget": self.budget, "dropped_deprecated": list(self.dropped),
                "merged": [{"removed": a, "kept": b} for a, b in self.merged], "demoted": list(self.demoted),
                "similar": [{"entry": a, "alike": b} for a, b in self.similar], "skipped": list(self.skipped),
                "dry_run": self.dry_run}


@dataclass(frozen=True)
class HotSnapshot:
    """The hot text frozen for a session: writes after it do not change it, so a prompt prefix
    built from it stays cacheable."""

    text: str
    tokens: int
    files: dict[str, str] = field(default_factory=dict)
    taken_at: datetime = field(default_factory=utcnow)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


_Plan = tuple[list[Entry], list[tuple[Entry, Entry]], list[Entry]]  # dropped, merged (gone, kept), demoted


class _State:
    """Both files as read under the lock: their raw bytes and their entries."""

    def __init__(self, home: Path) -> None:
        self.raw: dict[str, bytes | None] = {}
        self.entries: list[Entry] = []
        for name in FILES:
            self.raw[name] = fileio.read_or_none(home / name)
            text = (self.raw[name] or b"").decode("utf-8", errors="replace")
            self.entries += hotfile.parse(name, text)

    def of(self, file: str) -> list[Entry]:
        return [e for e in self.entries if BY_KEY[e.section].file == file]


class HotMemory:
    """``kb.hot``: add / replace / remove entries, compress, budgets, snapshots."""

    def __init__(self, home: Path, facts: Facts, vectors: PassageVectors, config: HotConfig, *,
                 actor: str = "api", scope: str = DEFAULT_SCOPE) -> None:
        self.scope = check_scope(scope)
        self.data_dir = home
        self.home = home / scope_folder(self.scope)  # the default scope's files are at the top of ``home``
        self.facts = facts
        self.store = facts.store
        self.vectors = vectors
        self.budgets = {MEMORY_FILE: config.memory_tokens, USER_FILE: config.user_tokens}
        self.actor = actor

    # -- reading ------------------------------------------------------------------------------------

    def entries(self, *, pick_up_edits: bool = True) -> list[Entry]:
        """Every hot entry, hand edits picked up (and linked to facts; ``pick_up_edits=False``: as
        the files say now, changing nothing)."""
        if pick_up_edits and not self._has_files() and not self._hot_facts():
            pick_up_edits = False  # no file and no hot fact: no edit to pick up, so no folder or lock is made
        with self._session(write=pick_up_edits) as state:
            return list(state.entries)

    def prompt_text(self, file: str | None = None) -> str:
        """What a model is shown: USER.md then MEMORY.md (or one file), without id markers."""
        entries = self.entries()
        return "\n".join(hotfile.render(f, _in(entries, f), markers=False) for f in _files(file)
                         if _in(entries, f))

    def snapshot(self) -> HotSnapshot:
        entries = self.entries()
        files = {f: hotfile.render(f, _in(entries, f), markers=False) for f in FILES if _in(entries, f)}
        text = "\n".join(files.values())
        return HotSnapshot(text, count_tokens(text), files)

    def budget(self) -> list[dict[str, Any]]:
        """Tokens used and allowed per file."""
        entries = self.entries()
        out = []
        for name in FILES:
            mine = _in(entries, name)
            used = _tokens(name, mine)
            out.append({"file": name, "path": str(self.home / name), "tokens": used, "budget": self.budgets[name],
                        "entries": len(mine), "share": round(used / self.budgets[name], 3)})
        return out

    def show(self, file: str | None = None) -> dict[str, Any]:
        entries = self.entries()
        return {
            "success": True,
            "files": [{"file": f, "text": hotfile.render(f, _in(entries, f), markers=False),
                       "tokens": _tokens(f, _in(entries, f)), "budget": self.budgets[f],
                       "entries": [{"text": e.text, "section": e.section, "id": e.item_id} for e in _in(entries, f)]}
                      for f in _files(file)],
        }

    def ranked(self, file: str | None = None) -> list[Scored]:
        """Entries with their scores, lowest first (the order of demotion)."""
        entries = [e for e in self.entries() if file is None or BY_KEY[e.section].file == file]
        return sorted(self._scores(entries), key=lambda s: (s.score, s.entry.text))

    # -- writing ------------------------------------------------------------------------------------

    def add(self, text: str, section: str = "other", *, make_room: bool = False, reason: str = "") -> dict[str, Any]:
        """Add an entry to a section ("user" goes to USER.md; "project", "pitfalls", "other" to
        MEMORY.md). The same statement again reinforces the entry instead."""
        key = _section(section)
        scrub = self.facts.gate.scrub("hot")
        line = scrub(_entry_text(text), "entry")
        with self._session() as state:
            same = [e for e in state.entries if content_key(e.text) == content_key(line)]
            if same:
                fact = self._remember(same[0], reason or "restated as a hot entry")  # reinforces it
                return {"success": True, "action": "unchanged", "file": BY_KEY[same[0].section].file,
                        "entry": same[0].text, "id": fact.id, "message": "already in hot memory: reinforced"}
            file = BY_KEY[key].file
            candidate = Entry(line, key)
            report = self._fit(state, file, candidate, make_room)
            with self.store.transaction():
                fact = self._remember(candidate, reason or "added to hot memory")
                entries = state.entries + [candidate.linked(fact.id)]
                self._write(state, entries, file, action="hot_add", reason=reason, after=candidate.text,
                            force=report is not None)
                self.facts.gate.audit(scrub, scope=file)
        out = {"success": True, "action": "added", "file": file, "entry": line, "id": fact.id,
               "message": f"added to {file} ({BY_KEY[key].title})"}
        if report:
            out["compression"] = report.to_dict()
        return out

    def replace(self, old_substring: str, new_text: str, *, reason: str = "") -> dict[str, Any]:
        """Replace the one entry containing ``old_substring`` by ``new_text`` (its fact is superseded)."""
        scrub = self.facts.gate.scrub("hot")
        line = scrub(_entry_text(new_text), "entry")
        with self._session() as state:
            entry = _unique(state.entries, old_substring)
            file = BY_KEY[entry.section].file
            updated = Entry(line, entry.section)
            trial = [updated if e is entry else e for e in state.entries]
            used = _tokens(file, _in(trial, file))
            if used > self.budgets[file] and used > _tokens(file, _in(state.entries, file)):
                raise Conflict(self._over_budget(state, file, used))
            with self.store.transaction():
                fact = self._supersede(entry, line, reason or "replaced in hot memory")
                entries = [updated.linked(fact.id) if e is entry else e for e in state.entries]
                self._write(state, entries, file, action="hot_replace", reason=reason, before=entry.text, after=line)
                self.facts.gate.audit(scrub, scope=file)
        return {"success": True, "action": "replaced", "file": file, "old": entry.text, "entry": line, "id": fact.id,
                "message": f"replaced in {file}"}

    def remove(self, substring: str, *, reason: str = "", force: bool = False) -> dict[str, Any]:
        """Remove the one entry containing ``substring``; its fact expires (no longer held true)."""
        with self._session() as state:
            entry = _unique(state.entries, substring)
            file = BY_KEY[entry.section].file
            with self.store.transaction():
                if entry.item_id:
                    self.facts.expire(entry.item_id, reason=reason or "removed from hot memory")
                entries = [e for e in state.entries if e is not entry]
                self._write(state, entries, file, action="hot_remove", reason=reason, before=entry.text, force=force)
        return {"success": True, "action": "removed", "file": file, "entry": entry.text, "id": entry.item_id,
                "message": f"removed from {file}"}

    def compress(self, file: str | None = None, *, dry_run: bool = False, reason: str = "",
                 force: bool = False) -> list[Compression]:
        """Bring each file (or ``file``) within its budget; see the module docstring for the steps.
        With ``dry_run``, only the plan."""
        plans = self.plan_compression(file)
        return plans if dry_run else self.carry_out(plans, reason=reason, force=force)

    def plan_compression(self, file: str | None = None, *, over_budget_only: bool = False) -> list[Compression]:
        """What ``compress`` would do to each file (or ``file``; with ``over_budget_only``, only to
        the files over their budget); nothing changes, not even a hand edit is picked up."""
        out = []
        with self._session(write=False) as state:
            for name in _files(file):
                if over_budget_only and _tokens(name, _in(state.entries, name)) <= self.budgets[name]:
                    continue
                out.append(self._compress(state.entries, name, self.budgets[name], dry_run=True)[1])
        return out

    def carry_out(self, plans: list[Compression], *, reason: str = "", force: bool = False) -> list[Compression]:
        """Carry out planned compressions as planned: the entries they name, found by their text."""
        out = []
        for plan in plans:
            if not plan.changes:
                out.append(replace(plan, dry_run=False))
                continue
            with self._session() as state:
                entries, done, steps = self._as_planned(state, plan)
                if steps != ([], [], []):
                    with self.store.transaction():
                        self._apply_compression(steps)
                        self._write(state, entries, plan.file, action="hot_compress", reason=reason,
                                    after=f"{len(done.dropped)} dropped, {len(done.merged)} merged, "
                                          f"{len(done.demoted)} demoted", force=force)
            out.append(done)
        return out

    def _as_planned(self, state: _State, plan: Compression) -> tuple[list[Entry], Compression, _Plan]:
        """The entries of ``state`` that ``plan`` names (by text), and the file without them."""
        here = {content_key(e.text): e for e in _in(state.entries, plan.file)}

        def there(*texts: str) -> bool:
            return all(content_key(t) in here for t in texts)

        def entry(text: str) -> Entry:
            return here[content_key(text)]

        dropped = [entry(t) for t in plan.dropped if there(t)]
        merged = [(entry(a), entry(b)) for a, b in plan.merged if there(a, b)]
        demoted = [entry(t) for t in plan.demoted if there(t)]
        skipped = [t for t in plan.dropped + plan.demoted if not there(t)]
        skipped += [a for a, b in plan.merged if not there(a, b)]
        gone = {id(e) for e in dropped + [g for g, _ in merged] + demoted}
        entries = [e for e in state.entries if id(e) not in gone]
        done = replace(plan, dry_run=False, tokens_before=_tokens(plan.file, _in(state.entries, plan.file)),
                       tokens_after=_tokens(plan.file, _in(entries, plan.file)),
                       dropped=tuple(e.text for e in dropped), merged=tuple((a.text, b.text) for a, b in merged),
                       demoted=tuple(e.text for e in demoted), skipped=tuple(skipped))
        return entries, done, (dropped, merged, demoted)

    # -- internals ----------------------------------------------------------------------------------

    def purge(self, item_ids: set[str], needles: Sequence[str], *, dry_run: bool = False) -> list[Entry]:
        """Remove every entry linked to one of ``item_ids`` or holding one of ``needles`` (any case),
        and every backup holding one, for ``kenning purge``; returns the entries. Nothing is picked
        up first: reconciling would store a removed line again as a new fact."""
        if not self._has_files():
            return []  # nothing to purge, and no folder or lock file is made for it
        with self._session(write=not dry_run, reconcile=False) as state:
            gone = [e for e in state.entries if e.item_id in item_ids or holds(e.text, needles)]
            if dry_run or not gone:
                return gone
            kept = [e for e in state.entries if all(e is not g for g in gone)]
            for file in FILES:
                if _in(kept, file) != state.of(file):
                    self._write(state, kept, file, action="hot_purge", reason="", force=True, backup=False)
            for file in FILES:
                backup = self.home / (file + ".bak")
                data = fileio.read_or_none(backup)
                if data is not None and holds(data.decode("utf-8", errors="replace"),
                                              [*needles, *(e.text for e in gone)]):
                    backup.unlink()
        return gone

    @contextmanager
    def _session(self, *, write: bool = True, reconcile: bool = True) -> Iterator[_State]:
        """Both files locked, read, and reconciled with the store (``write=False``: in memory only,
        for dry runs: nothing in the files or the store changes)."""
        with ExitStack() as stack:
            if not write and not self._has_files():  # a read creates nothing
                yield _State(self.home)
                return
            if write:  # the data directory holds every memory: no other user may read it
                fileio.private_dir(self.data_dir, tighten=True)
            for name in FILES:
                stack.enter_context(fileio.locked(self.home / name))
            state = _State(self.home)
            if reconcile:
                self._reconcile(state, write)
            yield state

    def _has_files(self) -> bool:
        return any((self.home / name).exists() for name in FILES)

    def _reconcile(self, state: _State, write: bool = True) -> None:
        """Make the files and the store agree (see the module docstring); writes only if needed."""
        scrub = self.facts.gate.scrub("hot", mask_only=True)  # already on disk: refusing would block every write
        masked = [Entry(scrub(e.text, "entry written by hand"), e.section, e.item_id) for e in state.entries]
        changed = masked != state.entries
        entries = []
        for entry in masked:
            linked = self._linked_fact(entry)
            if not write:
                if linked is None or linked.expires_at is None or not linked.is_expired(utcnow()):
                    entries.append(entry if linked is None or entry.item_id == linked.id
                                   else Entry(linked.content, entry.section, linked.id))
                continue
            if linked is None:
                fact = self._remember(entry, "written into hot memory by hand")
                entries.append(entry.linked(fact.id))
                changed = True
            elif linked.expires_at is not None and linked.is_expired(utcnow()):
                self.facts.unpin(linked.id, reason="expired: leaves hot memory")  # no longer true, no longer hot
                changed = True
            elif content_key(linked.content) != content_key(entry.text):
                if entry.item_id != linked.id:  # superseded elsewhere: show the current statement
                    entries.append(Entry(linked.content, entry.section, linked.id))
                else:  # edited by hand
                    fact = self._supersede(entry, entry.text, "edited by hand in hot memory")
                    entries.append(entry.linked(fact.id))
                changed = True
            else:
                if entry.item_id != linked.id:
                    changed = True
                if not linked.pinned:
                    self.facts.pin(linked.id, reason="in hot memory")
                entries.append(entry.linked(linked.id))
        if not write:
            state.entries = entries
            return
        kept = {e.item_id for e in entries}
        for fact in self._hot_facts():
            if fact.id not in kept:  # its line was deleted by hand: no longer hot, still recalled
                self.facts.unpin(fact.id, reason="removed from hot memory by hand")
        if changed:
            for name in FILES:
                if _in(entries, name) != _in(state.entries, name):
                    self._write(state, entries, name, action="hot_reconcile", reason="picked up a hand edit",
                                force=True)
            self.facts.gate.audit(scrub, what="entries written by hand")
        state.entries = entries

    def _linked_fact(self, entry: Entry) -> Fact | None:
        """The current fact an entry stands for (following supersessions), or None."""
        if not entry.item_id:
            return None
        try:
            fact = self.facts.get(entry.item_id, self.scope)  # a marker copied from another scope links nothing
        except NotFound:
            return None
        if not isinstance(fact, Fact):
            return None
        return self.facts.head_of(fact) if fact.superseded_by else fact

    def _hot_facts(self) -> list[Fact]:
        rows = self.store.select(ItemQuery(kinds=("fact",), scopes=(self.scope,), pinned=True, superseded=False,
                                           tags=(HOT_TAG,)))
        return [f for f in map(item_from_row, rows) if isinstance(f, Fact)]

    def _remember(self, entry: Entry, reason: str) -> Fact:
        # one line, one fact: a line alike in meaning to another is merged by ``compress``, not here
        return self.facts.remember(entry.text, category=BY_KEY[entry.section].category, tags=[HOT_TAG],
                                   pinned=True, source="hot", reason=reason, novelty=False, scope=self.scope)

    def _supersede(self, entry: Entry, text: str, reason: str) -> Fact:
        linked = self._linked_fact(entry)
        if linked is None:
            return self._remember(Entry(text, entry.section), reason)
        if content_key(linked.content) == content_key(text):
            return linked
        return self.facts.supersede(linked.id, text, reason=reason, category=BY_KEY[entry.section].category,
                                    tags=sorted({*linked.tags, HOT_TAG}))

    def _fit(self, state: _State, file: str, candidate: Entry, make_room: bool) -> Compression | None:
        """Check that ``candidate`` fits ``file``'s budget; with ``make_room``, compress (applied to
        ``state``) until it does."""
        used = _tokens(file, _in(state.entries + [candidate], file))
        budget = self.budgets[file]
        if used <= budget:
            return None
        if not make_room:
            raise Conflict(self._over_budget(state, file, used))
        need = used - _tokens(file, _in(state.entries, file))
        entries, report, plan = self._compress(state.entries, file, budget - need, dry_run=False)
        if _tokens(file, _in(entries + [candidate], file)) > budget:
            raise Conflict(f"{file} cannot make room: even after compression the new entry does not fit its "
                           f"budget of {budget} tokens; shorten the entry or raise [hot] budgets in kenning.toml")
        with self.store.transaction():
            self._apply_compression(plan)
        state.entries = entries
        return report

    def _over_budget(self, state: _State, file: str, used: int) -> str:
        budget = self.budgets[file]
        current = _tokens(file, _in(state.entries, file))
        lowest = sorted(self._scores(_in(state.entries, file)), key=lambda s: s.score)[:3]
        hint = "; lowest-scored entries that could be demoted: " + "; ".join(
            f"{s.entry.text[:60]!r} ({s.score:.2f})" for s in lowest) if lowest else ""
        return (f"{file} would use {used} of its {budget}-token budget (now {current}){hint}. "
                "Pass make_room=True (CLI: --make-room) to compress, or remove or shorten an entry")

    def _scores(self, entries: list[Entry]) -> list[Scored]:
        now = utcnow()
        out = []
        for entry in entries:
            fact = self._linked_fact(entry)
            score = CATEGORY_WEIGHT[entry.section]
            if fact is not None:
                last = fact.last_accessed or fact.updated_at or fact.created_at or now
                age_days = max(0.0, (now - last).total_seconds() / 86400)
                score += math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
                score += min(1.0, math.log1p(fact.access_count + fact.reinforced) / math.log(21))
            if (fact is not None and fact.importance >= 0.7) or _EMPHASIS.search(entry.text):
                score += 0.5
            out.append(Scored(entry, score))
        return out

    def _compress(self, entries: list[Entry], file: str, target: int, *,
                  dry_run: bool) -> tuple[list[Entry], Compression, _Plan]:
        """The entries of ``file`` brought within ``target`` tokens, and the report."""
        before = _tokens(file, _in(entries, file))
        mine = _in(entries, file)
        dropped = [e for e in mine if e.deprecated]
        mine = [e for e in mine if not e.deprecated]
        scores = {id(s.entry): s.score for s in self._scores(mine)}
        merged: list[tuple[Entry, Entry]] = []
        similar: list[tuple[Entry, Entry]] = []
        if len(mine) > 1:
            vecs = self.vectors.of([e.text for e in mine], persist=not dry_run)
            sims = product(vecs, vecs.T)
            gone: set[int] = set()
            gate = self.facts.gate.config
            for i, j in zip(*np.triu_indices(len(mine), 1)):
                if i in gone or j in gone or sims[i, j] < min(SIMILAR, gate.near_duplicate):
                    continue
                kind, _ = relation(mine[i].text, mine[j].text, float(sims[i, j]), near_duplicate=gate.near_duplicate,
                                   same_subject=gate.same_subject)
                if kind not in ("duplicate", "near_duplicate"):
                    similar.append((mine[i], mine[j]))
                    continue
                keep, drop = (i, j) if (scores[id(mine[i])], mine[j].text) >= (scores[id(mine[j])], mine[i].text) \
                    else (j, i)
                gone.add(int(drop))
                merged.append((mine[drop], mine[keep]))
            mine = [e for k, e in enumerate(mine) if k not in gone]
        demoted: list[Entry] = []
        ranked = sorted(mine, key=lambda e: (scores[id(e)], e.text))
        while ranked and _tokens(file, mine) > target:
            lowest = ranked.pop(0)
            demoted.append(lowest)
            mine = [e for e in mine if e is not lowest]
        kept = {id(e) for e in mine}
        result = [e for e in entries if BY_KEY[e.section].file != file or id(e) in kept]
        report = Compression(file, before, _tokens(file, _in(result, file)), self.budgets[file],
                             tuple(e.text for e in dropped), tuple((a.text, b.text) for a, b in merged),
                             tuple(e.text for e in demoted), dry_run, tuple((a.text, b.text) for a, b in similar))
        return result, report, (dropped, merged, demoted)

    def _apply_compression(self, plan: _Plan) -> None:
        """The store side of a compression: expire dropped, supersede merged, unpin demoted."""
        dropped, merged, demoted = plan
        for entry in dropped:
            if entry.item_id:
                self.facts.expire(entry.item_id, reason="[deprecated] entry dropped from hot memory")
        for gone, kept in merged:
            old, new = self._linked_fact(gone), self._linked_fact(kept)
            if old is not None and new is not None and old.id != new.id:
                self.facts.supersede(old.id, new.content, reason="merged into a near-duplicate hot entry")
        for entry in demoted:
            fact = self._linked_fact(entry)
            if fact is not None:
                self.facts.unpin(fact.id, reason="demoted from hot memory to the warm tier")

    def _write(self, state: _State, entries: list[Entry], file: str, *, action: str, reason: str,
               before: str | None = None, after: str | None = None, force: bool = False,
               backup: bool = True) -> None:
        """Replace ``file`` with ``entries`` if it still holds what ``state`` read; keep a backup
        (unless ``backup`` is False: a purge must not copy what it removes)."""
        path = self.home / file
        old = state.of(file)
        new = _in(entries, file)
        if not force and len(old) >= 4 and len(new) < len(old) / 2:
            raise Conflict(f"this change would leave {file} with {len(new)} of its {len(old)} entries; "
                           "refused to protect against a truncated rewrite (pass force=True if intended)")
        current = fileio.read_or_none(path)
        if current != state.raw[file]:
            raise Conflict(f"{file} changed while kenning was writing it (an editor saved it?); nothing was "
                           "written: run the command again to merge the edit")
        text = hotfile.render(file, new).encode("utf-8")
        if backup and current is not None and current != text:
            fileio.atomic_write(path.with_name(file + ".bak"), self._masked_backup(current))
        fileio.atomic_write(path, text)
        state.raw[file] = text
        audit.record_event(self.store, action, kind="hot", scope=file, actor=self.actor, reason=reason,
                           before={"entry": before} if before else None,
                           after={"entry": after, "entries": len(new), "sha256": hashlib.sha256(text).hexdigest()})


    def _masked_backup(self, current: bytes) -> bytes:
        """The backup is kenning's copy too: a secret written into the file by hand stays out of it
        (a file that is not UTF-8 is kept byte for byte)."""
        try:
            text = current.decode("utf-8")
        except UnicodeDecodeError:
            return current
        return self.facts.gate.scrub("hot", mask_only=True)(text, "backup").encode("utf-8")


def _files(file: str | None) -> tuple[str, ...]:
    if file is None:
        return FILES
    name = file.strip()
    for known in FILES:
        if name.upper() in (known.upper(), known[:-3].upper()):
            return (known,)
    raise InvalidInput(f"unknown hot file {file!r}: use MEMORY.md or USER.md")


def _in(entries: list[Entry], file: str) -> list[Entry]:
    return [e for e in entries if BY_KEY[e.section].file == file]


def _tokens(file: str, entries: list[Entry]) -> int:
    return count_tokens(hotfile.render(file, entries, markers=False)) if entries else 0


def _section(section: object) -> str:
    key = hotfile.section_key(section)
    if not key:
        names = ", ".join(s.key for s in SECTIONS)
        raise InvalidInput(f"unknown section {section!r}: use one of {names}")
    return key


def _entry_text(text: object) -> str:
    line = hotfile.one_line(clean_content(text, "entry", MAX_ENTRY_CHARS))
    if not line:
        raise InvalidInput("the entry is empty; say what to keep in hot memory")
    return line


def _unique(entries: list[Entry], substring: object) -> Entry:
    if not isinstance(substring, str) or not substring.strip():
        raise InvalidInput("give a piece of the entry's text to find it")
    needle = " ".join(substring.split()).lower()
    found = [e for e in entries if needle in e.text.lower()]
    if not found:
        raise NotFound(f"no hot entry contains {substring!r}; `kenning hot show` lists them")
    if len(found) > 1:
        lines = "; ".join(f"{BY_KEY[e.section].file} [{e.section}] {e.text!r}" for e in found[:8])
        raise Conflict(f"{len(found)} hot entries contain {substring!r}: {lines}; give a longer piece of one")
    return found[0]

