"""Facts: remember, reinforce, supersede, expire, pin, forget, delete.

A fact is one statement in one scope. Every write passes the gate (``kenning.gate``) first:
secrets and personal data are masked (or refused) before anything is stored or embedded. Writing
the same content again in the same scope, or a near duplicate of it (the same content words,
cosine >= 0.95), reinforces the existing fact (confidence, tags and importance merged,
``reinforced`` counted) instead of adding a copy. A changed fact is *superseded*: the old one keeps
``superseded_by`` and leaves recall, and ``history`` shows the chain; ``remember`` supersedes by
itself when the new statement only changes a value or a negation of a stored one (the exact rule is
in ``kenning.gate.novelty``). Expired facts leave recall but stay until forgotten.

Importance (0-1) protects facts from ``forget_stale``. When the caller gives none, it is inferred:
a base per category (pitfall 0.7, user_pref 0.6, project 0.5, general 0.4), plus 0.3 when the text
carries emphasis ("never", "always", "must", "don't", "不要", "千万", "务必", …), plus 0.1 for each
time the statement was made again (at most 0.3).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from . import audit
from .embed import Embedder
from .errors import Conflict, InvalidInput, NotFound
from .gate import Gate, Novelty, Scrub, conflicts
from .gate.importance import CATEGORY_IMPORTANCE as CATEGORY_IMPORTANCE  # moved to the gate; kept here too
from .gate.importance import EMPHASIS, score
from .gate.importance import infer_importance as infer_importance
from .checks import MAX_SCOPE as MAX_SCOPE  # the checks every kind shares; imported from here too
from .checks import MAX_TAGS as MAX_TAGS
from .checks import check_category, check_scope, check_tags, check_unit
from .models import DEFAULT_SCOPE, Fact, Item
from .records import item_from_row
from .store import ItemQuery, Store
from .text import clean_content, content_key
from .timeutil import parse_when, to_epoch, utcnow

HIGH_IMPORTANCE = 0.7
_EMPHASIS = EMPHASIS  # the name the hot tier imports
_PREFIX = {"fact": "f", "lesson": "l", "entity": "e"}

When = datetime | date | str | float | int | None


# -- validation shared by every kind -------------------------------------------------------------


def new_id(kind: str) -> str:
    return f"{_PREFIX[kind]}_{secrets.token_hex(6)}"


class Facts:
    """Fact operations over one store and embedder (``Kenning`` exposes them at the top level)."""

    def __init__(self, store: Store, embedder: Embedder, actor: str = "api", gate: Gate | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.actor = actor
        self.gate = gate or Gate(store, embedder, actor=actor)

    # -- writing ------------------------------------------------------------------------------

    def _prepare(
        self,
        content: object,
        *,
        tags: object,
        scope: object,
        category: object,
        confidence: object,
        expires_at: When,
        importance: object,
        source: object,
        pinned: bool,
        scrub: Scrub,
        mentions: object = 1,
    ) -> dict[str, Any]:
        """A validated, redacted row. Two private keys travel with it and are never stored:
        ``_said`` (times stated, when the importance is inferred: recurrence raises it) and
        ``_category_given`` (whether a correction keeps the corrected fact's category)."""
        text = scrub(clean_content(content), "content")
        cat = check_category(category)
        expires = parse_when(expires_at, "expires_at")
        if expires is not None and expires <= utcnow():
            raise InvalidInput(
                f"expires_at {expires_at!s} is in the past ({expires:%Y-%m-%d %H:%M} UTC): the fact would never be "
                "recalled. Give a future time ('30d', '2027-01-31'), or to mark a stored fact as no longer true "
                "run `kenning expire ID`")
        if not isinstance(source, str) or not source.strip():
            raise InvalidInput(f"source must be a short label such as 'api' or 'chat', got {source!r}")
        if isinstance(mentions, bool) or not isinstance(mentions, int) or mentions < 1:
            raise InvalidInput(f"mentions must be a whole number >= 1 (how many times it was said), got {mentions!r}")
        now = to_epoch(utcnow())
        return {
            "kind": "fact",
            "scope": check_scope(scope),
            "content": text,
            "content_key": content_key(text),
            "tags": [scrub(t, "tag") for t in check_tags(tags)],
            "source": source.strip()[:200],
            "confidence": check_unit(1.0 if confidence is None else confidence, "confidence"),
            "category": cat,
            "importance": score(text, cat, mentions) if importance is None else check_unit(importance, "importance"),
            "created_at": now,
            "updated_at": now,
            "expires_at": to_epoch(expires) if expires else None,
            "pinned": bool(pinned),
            "_said": mentions if importance is None else None,
            "_category_given": category is not None,
        }

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
        novelty: bool = True,
        mentions: int = 1,
    ) -> Fact:
        """Store a fact and return it. The same content again in the same scope reinforces it; with
        ``novelty`` (the default), so does a near duplicate, and a correction of a stored fact (a
        changed value or negation) supersedes it. ``mentions``: how many times it was said."""
        scrub = self.gate.scrub("fact")
        row = self._prepare(
            content, tags=tags, scope=scope, category=category, confidence=confidence,
            expires_at=expires_at, importance=importance, source=source, pinned=pinned, scrub=scrub,
            mentions=mentions,
        )
        reason = scrub(reason, "reason")
        existing = self.store.find_current(row["scope"], "fact", row["content_key"])
        vec = None if existing else self.gate.vector(row["content"])
        # decided before the write lock is taken: the gate may ask a language model
        judged = self.gate.decide(row["scope"], row["content"], vec) if novelty and not existing else None
        with self.store.transaction():
            fact = self._place(row, vec, reason, novelty=novelty, judged=judged)
            self.gate.audit(scrub, scope=row["scope"], item_id=fact.id)
        return fact

    def remember_many(
        self,
        contents: Sequence[str],
        *,
        tags: Sequence[str] | None = None,
        scope: str = DEFAULT_SCOPE,
        category: str | None = None,
        confidence: float | None = None,
        source: str = "api",
        progress: Callable[[int], None] | None = None,
        novelty: bool = False,
    ) -> list[Fact]:
        """Store many facts with one batched embedding pass (the fast path for ingest).

        All inputs are validated and redacted before anything is written; the same content again
        (also within the batch) reinforces. Near duplicates and corrections are looked for only with
        ``novelty=True``: ingesting a corpus (a conversation log, documents) should keep every
        passage, and the check costs a vector search per text.
        """
        if isinstance(contents, str):
            raise InvalidInput("remember_many takes a list of texts; for one text use remember()")
        scrub = self.gate.scrub("fact")
        rows = [
            self._prepare(c, tags=tags, scope=scope, category=category, confidence=confidence,
                          expires_at=None, importance=None, source=source, pinned=False, scrub=scrub)
            for c in contents
        ]
        fresh: dict[str, int] = {}
        stored = self.store.current_keys(rows[0]["scope"], "fact", [r["content_key"] for r in rows]) if rows else set()
        for i, row in enumerate(rows):
            if row["content_key"] not in fresh and row["content_key"] not in stored:
                fresh[row["content_key"]] = i
        todo = list(fresh.values())
        vecs = self.embedder.embed_passages([rows[i]["content"] for i in todo], progress=progress)
        vec_of = dict(zip(todo, vecs))
        with self.store.transaction():
            out = [self._place(row, vec_of.get(i), "", novelty=novelty) for i, row in enumerate(rows)]
            self.gate.audit(scrub, scope=rows[0]["scope"] if rows else None, items=len(rows))
        return out

    def _place(self, row: dict[str, Any], vec: Any, reason: str, *, novelty: bool,
               judged: Novelty | None = None) -> Fact:
        """Reinforce, supersede or insert (call inside a transaction, so that what was compared is
        what is changed). ``judged``: the gate's decision taken before the transaction; it holds
        while the fact it names is still current, else the rule decides again here. A statement
        stored beside facts it may contradict records them as possible conflicts."""
        existing = self.store.find_current(row["scope"], "fact", row["content_key"])
        if existing:
            return self._reinforce(existing, row, reason)
        if vec is None:  # the stored copy was removed since we looked: embed after all
            vec = self.gate.vector(row["content"])
        if not novelty:
            return self._insert(row, vec, reason, checked=True)
        found = judged if judged is not None and self._holds(judged) else None
        if found is None:
            found = self.gate.novelty(row["scope"], row["content"], vec)
        if found.kind == "near_duplicate" and found.target_id:
            return self._reinforce(self._row(found.target_id), row, _why(reason, found))
        if found.kind == "contradiction" and found.target_id:
            return self._correct(self._row(found.target_id), row, vec, _why(reason, found))
        fact = self._insert(row, vec, reason, checked=True)
        if found.suspects and fact.supersedes is None and fact.reinforced == 0:
            conflicts.record(self.store, fact.scope, fact.id, found.suspects, actor=self.actor)
        return fact

    def _holds(self, judged: Novelty) -> bool:
        """The fact a decision taken outside the transaction names is still current."""
        if judged.target_id is None:
            return True
        row = self.store.get(judged.target_id)
        return row is not None and row["superseded_by"] is None

    def _insert(self, row: dict[str, Any], vec: Any, reason: str, action: str = "remember", *,
                checked: bool = False) -> Fact:
        """Insert ``row`` as a new fact. ``checked``: the caller found no current fact of this content
        in the same transaction (a third look costs a round trip per fact on PostgreSQL)."""
        with self.store.transaction():
            # another process may have stored the same content since we looked
            existing = None if checked else self.store.find_current(row["scope"], row["kind"], row["content_key"])
            if existing:
                return self._reinforce(existing, row, reason)
            row = {**row, "id": new_id("fact")}
            rowid = self.store.insert_item(row, row["content"], vec)
            fact = item_from_row(self.store.get_rowid(rowid))  # type: ignore[arg-type]
            audit.record(self.store, action, after=fact, actor=self.actor, reason=reason)
        return fact  # type: ignore[return-value]

    def _reinforce(self, existing: dict[str, Any], row: dict[str, Any], reason: str) -> Fact:
        before = item_from_row(existing)
        old_tags = list(before.tags)  # type: ignore[union-attr]
        importance = row["importance"]
        if row.get("_said"):  # inferred: the statement has now been made once more
            importance = score(row["content"], row["category"], int(existing["reinforced"]) + 1 + row["_said"])
        changes = {
            "reinforced": int(existing["reinforced"]) + 1,
            "confidence": max(float(existing["confidence"]), row["confidence"]),
            "importance": max(float(existing["importance"]), importance),
            "tags": old_tags + [t for t in row["tags"] if t not in old_tags],
            "pinned": bool(existing["pinned"]) or row["pinned"],
            "updated_at": row["updated_at"],
        }
        if row["expires_at"] is not None:
            changes["expires_at"] = row["expires_at"]
        with self.store.transaction():
            self.store.update_item(existing["rowid"], changes)
            after = self._load(existing["id"])
            audit.record(self.store, "reinforce", before=before, after=after, actor=self.actor, reason=reason)
        return after  # type: ignore[return-value]

    def _correct(self, old_row: dict[str, Any], row: dict[str, Any], vec: Any, reason: str) -> Fact:
        """``row`` supersedes the stored fact it corrects, keeping its tags and pin (and its category
        and importance unless given), so a corrected hot entry stays hot."""
        old: Fact = item_from_row(old_row)  # type: ignore[assignment]
        merged = {
            **row,
            "supersedes": old.id,
            "tags": list(old.tags) + [t for t in row["tags"] if t not in old.tags],
            "pinned": old.pinned or row["pinned"],
            "category": row["category"] if row["_category_given"] else old.category,
            "importance": max(row["importance"], old.importance) if row["_said"] else row["importance"],
        }
        with self.store.transaction():
            new = self._insert(merged, vec, reason, action="supersede", checked=True)
            self.store.update_item(old_row["rowid"], {"superseded_by": new.id, "updated_at": row["updated_at"]})
            audit.record(self.store, "superseded", before=old, after=self._load(old.id), actor=self.actor,
                         reason=reason)
        return new

    # -- reading --------------------------------------------------------------------------------

    def _row(self, item_id: object, scope: str | None = None) -> dict[str, Any]:
        """The row of ``item_id``; with ``scope``, an item of another scope is not found."""
        if not isinstance(item_id, str) or not item_id.strip():
            raise InvalidInput(f"an item id such as 'f_1a2b3c4d5e6f' is needed, got {item_id!r}")
        row = self.store.get(item_id.strip())
        if row is None or (scope is not None and row["scope"] != check_scope(scope)):
            where = f" in scope {scope!r}" if scope is not None else ""
            raise NotFound(f"no item with id {item_id!r}{where}; `kenning list` shows what is stored")
        return row

    def _load(self, item_id: str, scope: str | None = None) -> Item:
        return item_from_row(self._row(item_id, scope))

    def get(self, item_id: str, scope: str | None = None) -> Item:
        """Any item by id (ids are unique across scopes); with ``scope``, only from that scope."""
        return self._load(item_id, scope)

    def _fact(self, item_id: str, scope: str | None = None) -> Fact:
        item = self._load(item_id, scope)
        if not isinstance(item, Fact):
            raise InvalidInput(f"{item_id} is a {item.kind}, not a fact")
        return item

    def head_of(self, fact: Fact) -> Fact:
        """The current end of ``fact``'s supersede chain."""
        seen = {fact.id}
        while fact.superseded_by and fact.superseded_by not in seen:
            row = self.store.get(fact.superseded_by)
            if row is None:
                break
            fact = item_from_row(row)  # type: ignore[assignment]
            seen.add(fact.id)
        return fact

    def history(self, item_id: str, scope: str | None = None) -> list[Fact]:
        """The whole supersede chain that ``item_id`` belongs to, oldest first."""
        fact = self._fact(item_id, scope)
        seen = {fact.id}
        while fact.supersedes and fact.supersedes not in seen:
            row = self.store.get(fact.supersedes)
            if row is None:
                break
            fact = item_from_row(row)  # type: ignore[assignment]
            seen.add(fact.id)
        chain = [fact]
        while chain[-1].superseded_by:
            row = self.store.get(chain[-1].superseded_by)
            if row is None or row["id"] in {f.id for f in chain}:
                break
            chain.append(item_from_row(row))  # type: ignore[arg-type]
        return chain

    # -- changing -------------------------------------------------------------------------------

    def supersede(
        self, old_id: str, new_content: str, *, reason: str = "", scope: str | None = None, **overrides: Any
    ) -> Fact:
        """Replace a fact by a new one; the old one keeps ``superseded_by`` and leaves recall.

        ``overrides`` (tags, category, confidence, importance, expires_at, source) default to the
        old fact's values. Superseding a fact that is already superseded is a ``Conflict`` naming the
        current head, which is what the caller should supersede instead.
        """
        old = self._fact(old_id, scope)
        if old.superseded_by:
            head = self.head_of(old)
            raise Conflict(
                f"fact {old.id} was already superseded by {old.superseded_by}; the current version is "
                f"{head.id} ({head.content[:60]!r}): supersede {head.id} instead"
            )
        unknown = set(overrides) - {"tags", "category", "confidence", "importance", "expires_at", "source"}
        if unknown:
            raise InvalidInput(f"supersede cannot set {', '.join(sorted(unknown))}")
        scrub = self.gate.scrub("fact")
        text = scrub(clean_content(new_content, "new content"), "new content")
        if content_key(text) == content_key(old.content):
            raise InvalidInput(f"the new content is the same as fact {old.id}'s; nothing to supersede")
        row = self._prepare(
            text,
            tags=overrides.get("tags", list(old.tags)),
            scope=old.scope,
            category=overrides.get("category", old.category),
            confidence=overrides.get("confidence", old.confidence),
            # an expiry that has passed is not inherited: the new statement is what holds now
            expires_at=overrides.get("expires_at", None if old.is_expired(utcnow()) else old.expires_at),
            importance=overrides.get("importance", old.importance),
            source=overrides.get("source", old.source),
            pinned=old.pinned,
            scrub=scrub,
        )
        reason = scrub(reason, "reason")
        existing = self.store.find_current(old.scope, "fact", row["content_key"])
        vec = None if existing else self.gate.vector(text)
        with self.store.transaction():
            if existing:  # the new statement is already known: link to it and reinforce it
                new = self._reinforce(existing, row, reason)
            else:
                new = self._insert({**row, "supersedes": old.id}, vec, reason, action="supersede")
            self.store.update_item(self._row(old.id)["rowid"], {"superseded_by": new.id, "updated_at": row["updated_at"]})
            audit.record(self.store, "superseded", before=old, after=self._load(old.id), actor=self.actor, reason=reason)
            self.gate.audit(scrub, scope=old.scope, item_id=new.id)
        return new

    def _set(self, item_id: str, action: str, changes: dict[str, Any], reason: str, scope: str | None) -> Item:
        row = self._row(item_id, scope)
        before = item_from_row(row)
        with self.store.transaction():
            self.store.update_item(row["rowid"], {**changes, "updated_at": to_epoch(utcnow())})
            after = self._load(before.id)
            audit.record(self.store, action, before=before, after=after, actor=self.actor, reason=reason)
        return after

    def pin(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Fact:
        """Pinned facts are never forgotten automatically."""
        self._fact(item_id, scope)
        return self._set(item_id, "pin", {"pinned": True}, reason, scope)  # type: ignore[return-value]

    def unpin(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Fact:
        self._fact(item_id, scope)
        return self._set(item_id, "unpin", {"pinned": False}, reason, scope)  # type: ignore[return-value]

    def expire(self, item_id: str, when: When = None, reason: str = "", *, scope: str | None = None) -> Fact:
        """Set (or with ``when=None``, set to now) the time a fact leaves recall."""
        self._fact(item_id, scope)
        at = parse_when(when, "expires_at") or utcnow()
        return self._set(item_id, "expire", {"expires_at": to_epoch(at)}, reason, scope)  # type: ignore[return-value]

    def delete(self, item_id: str, reason: str = "", *, scope: str | None = None) -> Item:
        """Remove any item for good (its last state stays in the audit log).

        A fact in a supersede chain is cut out of it: its predecessor now points to its successor,
        or, when the deleted fact was the current version, the predecessor becomes current again.
        """
        row = self._row(item_id, scope)
        item = item_from_row(row)
        with self.store.transaction():
            self.store.delete_item(row["rowid"])
            if isinstance(item, Fact):
                self.relink(item, reason)
            audit.record(self.store, "delete", before=item, actor=self.actor, reason=reason)
        return item

    def relink(self, gone: Fact, reason: str) -> None:
        """Close the gap a deleted fact leaves in its supersede chain."""
        prev = self.store.get(gone.supersedes) if gone.supersedes else None
        succ = self.store.get(gone.superseded_by) if gone.superseded_by else None
        if succ is not None:
            self._audited_update(succ, {"supersedes": prev["id"] if prev else None}, reason)
        if prev is not None:
            successor = succ["id"] if succ else None
            if successor is None:  # the predecessor becomes current, unless its text is current elsewhere
                twin = self.store.find_current(prev["scope"], "fact", prev["content_key"])
                successor = twin["id"] if twin else None
            self._audited_update(prev, {"superseded_by": successor}, reason)

    def _audited_update(self, row: dict[str, Any], changes: dict[str, Any], reason: str) -> None:
        before = item_from_row(row)
        self.store.update_item(row["rowid"], {**changes, "updated_at": to_epoch(utcnow())})
        after = self._load(before.id)
        audit.record(self.store, "relink", before=before, after=after, actor=self.actor, reason=reason)

    def forget_stale(
        self,
        days: float = 90,
        max_access: int = 1,
        *,
        scope: str | None = None,
        dry_run: bool = False,
        importance_below: float = HIGH_IMPORTANCE,
    ) -> list[Fact]:
        """Remove facts nobody needed: idle for more than ``days`` and recalled at most ``max_access``
        times, plus facts whose expiry has passed. Returns what was (or, with ``dry_run``, would be)
        removed; each removal is audited with the fact's full content.

        Never removed: pinned facts, lessons and entities (only facts are considered), superseded
        history (any fact in a supersede chain), and facts with importance >= ``importance_below``
        (0.7). That last rule is what protects a rarely needed but valuable fact such as "never
        deploy on Friday afternoon": stored without an explicit importance, its emphasis ("never")
        gives it 0.4 + 0.3 = 0.7, so the default keeps it however long it sits unused. Pitfalls
        start at 0.7 for the same reason.
        """
        if isinstance(days, bool) or not isinstance(days, int | float) or days < 0:
            raise InvalidInput(f"days must be a number >= 0, got {days!r}")
        if isinstance(max_access, bool) or not isinstance(max_access, int) or max_access < 0:
            raise InvalidInput(f"max_access must be a whole number >= 0, got {max_access!r}")
        now = utcnow()
        cutoff = to_epoch(now - timedelta(days=float(days)))
        # unpinned facts outside any supersede chain, expired or idle: two queries, as ItemQuery has no OR
        base = ItemQuery(kinds=("fact",), scopes=None if scope is None else (check_scope(scope),), pinned=False,
                         superseded=False, supersedes=False, order="created_at")
        expired = self.store.select(replace(base, expired_at=to_epoch(now)))
        idle = self.store.select(replace(base, idle_before=cutoff, max_access=max_access,
                                         importance_below=importance_below))
        rows = {int(r["rowid"]): r for r in [*expired, *idle]}.values()
        stale = [item_from_row(r) for r in sorted(rows, key=lambda r: (r["created_at"], r["rowid"]))]
        if dry_run or not stale:
            return stale  # type: ignore[return-value]
        with self.store.transaction():
            for fact in stale:
                self.store.delete_item(self._row(fact.id)["rowid"])
                audit.record(self.store, "forget", before=fact, actor=self.actor,
                             reason=f"idle > {days:g} days, recalled <= {max_access} times, or expired")
        return stale  # type: ignore[return-value]


def _why(reason: str, found: Novelty) -> str:
    """The audit reason of a write the gate turned into a reinforcement or a correction."""
    what = {"near_duplicate": "near duplicate of", "contradiction": "corrects"}[found.kind]
    if found.by == "model":
        what = {"near_duplicate": "restates", "contradiction": "supersedes"}[found.kind]
    return "; ".join(p for p in (reason, f"{what} {found.target_id}: {found.reason}") if p)
