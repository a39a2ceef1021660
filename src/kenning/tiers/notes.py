"""The warm and cold tiers: daily notes, HISTORY.md, and the archive of old days.

Files are the truth (``notefile`` reads and writes their text); nothing about them is kept in the
database except the passage vectors of their paragraphs (``kenning.passages``, by SHA-256 of the
text) and the audit log. Every change takes one lock (``daily.lock`` for the days and their
archive, ``HISTORY.md.lock`` for the history), writes a whole file atomically, and is audited.

Notes have a scope, like every item: a ``Notes`` object is bound to one, and reads and writes only
its folder. The default scope's notes are at the top of the data directory (``daily/``,
``HISTORY.md``, ``archive/daily/``); another scope's are the same files under
``scopes/<kind>+<name>/`` (``scopes/user+alice/HISTORY.md``), so nothing written in one scope is
found from another.

Note ids name a paragraph where it lives, relative to the data directory: ``daily/2026-11-29.md#2``
(the second paragraph of that day's file), ``archive/daily/2026-11-29.md.gz#2`` once the day is
archived, ``HISTORY.md#7``, ``scopes/user+alice/HISTORY.md#1``. Appending never changes an id; a
hand edit above a paragraph, archiving and restoring do.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from functools import partial
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import audit
from ..blas import product
from ..embed import Embedder
from ..errors import InvalidInput, NotFound, StoreError
from ..fileio import atomic_write, fsync_dir, locked, private_dir, read_or_none
from ..gate import Gate
from ..passages import PassageVectors
from ..retrieval import LEXICAL_WEIGHT, Hits, check_k, check_min_relevance, check_query
from ..retrieval.fusion import idf, share_of, word_share
from ..retrieval.mixed import QueryNull
from ..retrieval.ranker import Candidate, Ranker, explain
from ..retrieval.relevance import DEFAULT_MIN_RELEVANCE
from ..checks import check_scope, scope_folder
from ..models import DEFAULT_SCOPE
from ..store import Store
from ..store.vectors import LANGUAGES, Scored
from ..text import clean_content, content_key, language, neutral_terms, query_words, segment
from .notefile import (
    ARCHIVE_DIR, DAILY_DIR, HISTORY_FILE, Paragraph, archive_name, check_day, daily_name, daily_paragraphs, day_of,
    decode, entry_bytes, gunzip, gzipped, history_paragraphs, merge, paragraph_bytes, stamp_of, without_paragraphs,
)

POOL = 50  # meaning is rescaled between the weakest and the strongest of this many nearest paragraphs
MAX_K = 1000
_ID = re.compile(r"(?P<folder>scopes/[^/#]+/)?"
                 r"(?:daily/(?P<day>[^/#]+)\.md|archive/daily/(?P<old>[^/#]+)\.md\.gz|(?P<history>HISTORY\.md))"
                 r"#(?P<n>[1-9]\d{0,8})")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")

DayLike = dt.date | dt.datetime | str


@dataclass(frozen=True)
class Note:
    """One paragraph of a note file, with the day and time of its entry (or history stamp)."""

    id: str
    text: str
    date: dt.date | None
    time: dt.time | None
    source: str  # "daily" | "archive" | "history"
    path: str  # relative to the data directory

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "date": self.date.isoformat() if self.date else None,
                "time": self.time.strftime("%H:%M") if self.time else None, "source": self.source,
                "path": self.path}


@dataclass(frozen=True)
class NoteHit(Note):
    """A note found by ``Notes.search``: its score in [0, 1], why it matched, and how likely it is
    relevant (``kenning.retrieval.relevance``, the scale of memory recall)."""

    score: float
    why: str
    relevance: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "score": round(self.score, 4), "relevance": round(self.relevance, 4),
                "why": self.why}


class NoteHits(Hits[NoteHit]):
    """The hits of one notes search, best first, and what the relevance floor left out."""

    noun = "note"


@dataclass(frozen=True)
class Move:
    """A day moved to the archive or back: what ``archive`` / ``restore`` did (or would do)."""

    date: dt.date
    action: str  # "archive" | "restore"
    source: str  # where the day's notes were, relative to the data directory
    target: str  # where they are now
    size: int  # bytes of the day's text now in ``target``
    merged: bool  # ``target`` existed already; both texts were kept
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date.isoformat(), "action": self.action, "source": self.source, "target": self.target,
                "size": self.size, "merged": self.merged, "dry_run": self.dry_run}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _whole(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidInput(f"{what} must be a whole number from {lo} to {hi}, got {value!r}")
    return value


def _local(moment: dt.datetime) -> dt.datetime:
    """A datetime in local time (naive ones are taken as local already): days are local days."""
    return moment.astimezone() if moment.tzinfo else moment


def _moment(value: object, what: str) -> dt.datetime:
    if value is None:
        return dt.datetime.now().astimezone()
    if not isinstance(value, dt.datetime):
        raise InvalidInput(f"{what} must be a datetime, got {type(value).__name__}")
    return _local(value)


class Notes:
    """Daily notes, HISTORY.md and the archive under one data directory."""

    def __init__(self, home: Path, store: Store, embedder: Embedder, *, actor: str = "api",
                 promote_to: Callable[[str, str], dict[str, Any]] | None = None, gate: Gate | None = None,
                 scope: str = DEFAULT_SCOPE) -> None:
        self.scope = check_scope(scope)
        folder = scope_folder(self.scope)
        self.prefix = folder + "/" if folder else ""  # of ids and paths: relative to the data directory
        self.data_dir = Path(home)
        self.home = self.data_dir / folder  # this scope's folder: every path below is relative to it
        self.promote_to = promote_to  # the hot tier's ``add(text, section)``, of the same scope
        self.store = store
        self.embedder = embedder
        self.actor = actor
        self.gate = gate or Gate(store, embedder, actor=actor)
        self.vectors = PassageVectors(store, embedder)
        self._read: dict[str, tuple[frozenset[str], str]] = {}  # text -> its terms and language

    # -- writing ------------------------------------------------------------------------------------

    def write(self, text: str, date: DayLike | None = None) -> list[Note]:
        """Append a timestamped entry to the day's file and return its paragraphs (with their ids).

        ``date``: a day (the entry is stamped with the current time) or a datetime (stamped with its
        time; naive is local); default now. Safe against other processes writing at the same time.
        Secrets and personal data are masked (or refused) first, as everywhere.
        """
        scrub = self.gate.scrub("note")
        body = scrub(clean_content(text, "note"), "text").replace("\r\n", "\n").replace("\r", "\n")
        if isinstance(date, dt.datetime) or date is None:
            moment = _moment(date, "date")
            day, clock = moment.date(), moment.time()
        else:
            day, clock = check_day(date), dt.datetime.now().astimezone().time()
        rel = daily_name(day)
        private_dir(self.data_dir, tighten=True)  # it holds every memory: no other user may read it
        with locked(self._days_lock):
            old = self._bytes(rel) or b""
            new = entry_bytes(old, day, clock, body)
            atomic_write(self.home / rel, new)
        before = len(daily_paragraphs(decode(old), day))
        notes = [self._note("daily", rel, p.index, p.text, p.date, p.time)
                 for p in daily_paragraphs(decode(new), day)[before:]]
        entry = body.encode("utf-8")
        self._audit("note_write",
                    before={"what": "daily notes", **self._about(rel, old)} if old else None,
                    after={"what": "daily notes", **self._about(rel, new), "entry_sha256": _sha(entry),
                           "entry_bytes": len(entry), "time": clock.strftime("%H:%M")},
                    reason=f"note for {day.isoformat()}")
        self.gate.audit(scrub, scope=self.scope, path=self.prefix + rel)
        return notes

    def history_append(self, paragraph: str, when: dt.datetime | None = None) -> Note:
        """Append one ``[YYYY-MM-DD HH:MM] paragraph`` to HISTORY.md (a stamp already at the start
        of ``paragraph`` is kept; else ``when``, default now). Blank lines inside are closed up so
        that it stays one paragraph."""
        scrub = self.gate.scrub("note")
        text = scrub(clean_content(paragraph, "history paragraph"), "history paragraph")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        text = _BLANK_LINES.sub("\n", text)
        stamp, rest = stamp_of(text)
        if stamp is not None and not rest:
            raise InvalidInput("the history paragraph is only a time stamp; write what happened after it")
        if stamp is None:
            text = f"[{_moment(when, 'when').strftime('%Y-%m-%d %H:%M')}] {text}"
        private_dir(self.data_dir, tighten=True)
        with locked(self.home / HISTORY_FILE):
            old = self._bytes(HISTORY_FILE) or b""
            new = paragraph_bytes(old, text)
            atomic_write(self.home / HISTORY_FILE, new)
        last = history_paragraphs(decode(new))[-1]
        added = text.encode("utf-8")
        self._audit("history_append",
                    before={"what": "history", **self._about(HISTORY_FILE, old)} if old else None,
                    after={"what": "history", **self._about(HISTORY_FILE, new), "paragraph_sha256": _sha(added),
                           "paragraph_bytes": len(added)},
                    reason="consolidation summary")
        self.gate.audit(scrub, scope=self.scope, path=self.prefix + HISTORY_FILE)
        return self._note("history", HISTORY_FILE, last.index, last.text, last.date, last.time)

    # -- reading ------------------------------------------------------------------------------------

    def read(self, date: DayLike) -> str:
        """The text of one day's notes, archived or not (both, archived first, if the day is in both)."""
        day = check_day(date)
        current = self._bytes(daily_name(day))
        archived = self._archived(day)
        if current is None and archived is None:
            raise NotFound(f"no notes for {day.isoformat()}: neither {daily_name(day)} nor {archive_name(day)} "
                           "exists; `kenning note add TEXT --date DAY` starts one")
        if archived is None or current is None:
            return decode(archived or current or b"")
        return decode(merge(archived, current, day))

    def get(self, note_id: str) -> Note:
        """One paragraph by its id (``daily/2026-11-29.md#2``, ``archive/daily/…md.gz#2``, ``HISTORY.md#7``)."""
        m = _ID.fullmatch(note_id) if isinstance(note_id, str) else None
        if m is None:
            raise InvalidInput(f"note id {note_id!r} is not valid; ids look like daily/2026-11-29.md#2, "
                               "archive/daily/2026-11-29.md.gz#2 or HISTORY.md#7 (search results show them)")
        if (m["folder"] or "") != self.prefix:
            raise NotFound(f"note {note_id} not found in scope {self.scope!r}; search the notes of that scope "
                           "for its ids")
        n = int(m["n"])
        if m["history"]:
            notes = self._history_notes()
        elif m["day"]:
            notes = self._daily_notes(check_day(m["day"], "the day in the note id"))
        else:
            notes = self._archive_notes(check_day(m["old"], "the day in the note id"))
        if notes is None:
            raise NotFound(f"note {note_id} not found: {note_id.split('#')[0]} does not exist"
                           f"{self._moved_hint(m['day'] or m['old'])}")
        if n > len(notes):
            raise NotFound(f"note {note_id} not found: {note_id.split('#')[0]} has {len(notes)} paragraphs "
                           "(a hand edit may have renumbered them; search again for the current ids)")
        return notes[n - 1]

    def search(
        self,
        query: str,
        days_back: int | None = 30,
        k: int = 10,
        include_archive: bool = False,
        include_history: bool = True,
        *,
        today: DayLike | None = None,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
    ) -> NoteHits:
        """The ``k`` paragraphs that best match ``query`` by words and meaning, best first.

        Only notes dated on or after ``today`` (default: the local day) minus ``days_back`` days
        (None: all of them); HISTORY.md paragraphs count by their stamp, archived days only with
        ``include_archive``. Scored like memory recall (``kenning.retrieval.fusion``); notes less likely
        relevant than ``min_relevance`` (default: recall's floor; 0 keeps the best ``k`` whatever
        they are) are left out, so a query about nothing the notes hold gets nothing back.
        """
        query = check_query(query)
        min_relevance = check_min_relevance(min_relevance)
        k = check_k(k, MAX_K)
        since = None
        if days_back is not None:
            end = check_day(today, "today") if today is not None else dt.date.today()
            since = end - dt.timedelta(days=_whole(days_back, "days_back", 0, 1_000_000))
        notes = list(self._searched(since, bool(include_archive), bool(include_history)))
        if not notes:
            return NoteHits([], min_relevance)
        return NoteHits.floored(self._ranked(query, notes), min_relevance, k)

    def repeated(self, *, min_days: int = 2, days_back: int = 30,
                 today: DayLike | None = None) -> list[tuple[str, int]]:
        """Paragraphs of the daily notes written (in the same words) on at least ``min_days``
        different days of the last ``days_back``: (text, number of days), most days first. What
        keeps coming back is a candidate for the hot tier."""
        end = check_day(today, "today") if today is not None else dt.date.today()
        since = end - dt.timedelta(days=_whole(days_back, "days_back", 0, 1_000_000))
        days: dict[str, set[dt.date]] = {}
        first: dict[str, str] = {}
        for note in self._searched(since, include_archive=False, include_history=False):
            key = content_key(note.text)
            if note.date is not None:
                days.setdefault(key, set()).add(note.date)
                first.setdefault(key, note.text)
        found = [(first[k], len(d)) for k, d in days.items() if len(d) >= max(1, int(min_days))]
        return sorted(found, key=lambda t: (-t[1], t[0]))

    def promote(self, text_or_id: str, section: str = "other") -> dict[str, Any]:
        """Put a note (by id, e.g. ``daily/2026-11-29.md#2``) or a text into the hot tier's ``section``."""
        if self.promote_to is None:
            raise InvalidInput("these notes are not connected to a hot memory; use kb.notes from Kenning.open")
        text = text_or_id
        if isinstance(text_or_id, str) and _looks_like_id(text_or_id):
            text = self.get(text_or_id).text
        return self.promote_to(text, section)

    # -- the cold tier ------------------------------------------------------------------------------

    def archive(self, older_than_days: int = 90, dry_run: bool = False, today: DayLike | None = None) -> list[Move]:
        """Move the daily files of days more than ``older_than_days`` before ``today`` into
        ``archive/daily/DAY.md.gz``, merging with an archive of that day if there is one. With
        ``dry_run`` nothing changes; the list says what would be done."""
        days = _whole(older_than_days, "older_than_days", 0, 1_000_000)
        end = check_day(today, "today") if today is not None else dt.date.today()
        old = [day for day, _ in self._days(DAILY_DIR, archived=False) if (end - day).days > days]
        if dry_run:  # reads only: no lock, so not even a lock file is created
            return [move for day in old if (move := self._archive_day(day, dry_run=True)) is not None]
        return [move for day in old if (move := self.archive_day(day)) is not None]

    def archive_day(self, date: DayLike) -> Move | None:
        """Move one day's file into the archive (merged with an archive of that day); None when the
        day has no file (another process archived it, or it never existed)."""
        day = check_day(date)
        with locked(self._days_lock):
            return self._archive_day(day, dry_run=False)

    def restore(self, date: DayLike) -> Move:
        """Move an archived day back to ``daily/``, merging with that day's file if one exists now."""
        day = check_day(date)
        src, dst = archive_name(day), daily_name(day)
        with locked(self._days_lock):
            archived = self._archived(day)
            if archived is None:
                raise NotFound(f"{day.isoformat()} is not archived: {src} does not exist"
                               f"{self._moved_hint(day.isoformat())}")
            current = self._bytes(dst)
            text = archived if current is None else merge(archived, current, day)
            self._replace(dst, text, text)
            self._remove(src)
        self._audit("note_restore",
                    before={"what": "archived daily notes", **self._about(src, archived)},
                    after={"what": "daily notes", **self._about(dst, text), "merged": current is not None},
                    reason=f"restored {day.isoformat()} from the archive")
        return Move(day, "restore", self.prefix + src, self.prefix + dst, len(text), current is not None)

    def count(self) -> int:
        """How many paragraphs this scope's notes hold: daily, archived and HISTORY.md."""
        return sum(1 for _ in self._searched(None, include_archive=True, include_history=True))

    def purge(self, needles: Sequence[str], *, dry_run: bool = False) -> list[str]:
        """Remove every paragraph holding one of ``needles`` (any case) from this scope's daily notes,
        their archive and HISTORY.md, for ``kenning purge``; returns the paragraphs removed (with
        ``dry_run``, that would be removed)."""
        removed: list[str] = []
        if not self.home.is_dir():
            return removed  # a scope without files: no folder or lock file is made for it
        with nullcontext() if dry_run else locked(self._days_lock):
            for day, _ in self._days(DAILY_DIR, archived=False):
                removed += self._purge_file(daily_name(day), needles, dry_run, partial(daily_paragraphs, day=day))
            for day, _ in self._days(ARCHIVE_DIR, archived=True):
                removed += self._purge_file(archive_name(day), needles, dry_run, partial(daily_paragraphs, day=day))
        with nullcontext() if dry_run else locked(self.home / HISTORY_FILE):
            removed += self._purge_file(HISTORY_FILE, needles, dry_run, history_paragraphs)
        return removed

    def _purge_file(self, rel: str, needles: Sequence[str], dry_run: bool,
                    paragraphs: Callable[[str], list[Paragraph]]) -> list[str]:
        """One file without the paragraphs holding a needle; the paragraphs gone, as search saw them."""
        archived = rel.endswith(".gz")
        data = self._bytes(rel)
        if data is None:
            return []
        if archived:
            data = gunzip(data, rel)
        text = without_paragraphs(decode(data), needles)
        before = Counter(p.text for p in paragraphs(decode(data)))
        gone = list((before - Counter(p.text for p in paragraphs(text))).elements())
        if gone and not dry_run:
            new = text.encode("utf-8")
            atomic_write(self.home / rel, gzipped(new) if archived else new)
            self._audit("note_purge", before=self._about(rel, data), after={**self._about(rel, new),
                                                                             "paragraphs_removed": len(gone)})
        return gone

    # -- internals ----------------------------------------------------------------------------------

    def _audit(self, action: str, **entry: Any) -> None:
        audit.record_event(self.store, action, kind="note", scope=self.scope, actor=self.actor, **entry)

    def _about(self, rel: str, data: bytes) -> dict[str, Any]:
        """What the audit log keeps of a file: where, its SHA-256 and size; never the text."""
        return {"path": self.prefix + rel, "sha256": _sha(data), "bytes": len(data)}

    @property
    def _days_lock(self) -> Path:
        # one lock for every day and its archive: archive and restore touch two files at once
        return self.home / DAILY_DIR

    def _archive_day(self, day: dt.date, *, dry_run: bool) -> Move | None:
        src, dst = daily_name(day), archive_name(day)
        current = self._bytes(src)
        if current is None:
            return None  # another process archived it since we listed the days
        archived = self._archived(day)
        text = current if archived is None else merge(archived, current, day)
        if dry_run:
            return Move(day, "archive", self.prefix + src, self.prefix + dst, len(text), archived is not None,
                        dry_run=True)
        self._replace(dst, gzipped(text), text)
        self._remove(src)
        self._audit("note_archive",
                    before={"what": "daily notes", **self._about(src, current)},
                    after={"what": "archived daily notes", **self._about(dst, text),
                           "merged": archived is not None},
                    reason=f"{day.isoformat()} archived")
        return Move(day, "archive", self.prefix + src, self.prefix + dst, len(text), archived is not None)

    def _replace(self, rel: str, data: bytes, text: bytes) -> None:
        """Write ``data`` atomically and read it back: the source is removed only once ``text`` is
        safely in ``rel``."""
        atomic_write(self.home / rel, data)
        back = self._bytes(rel) or b""
        if (gunzip(back, rel) if rel.endswith(".gz") else back) != text:
            raise StoreError(f"{rel} did not read back as written; nothing was removed. Check the disk "
                             "(space, errors) and run the command again")

    def _remove(self, rel: str) -> None:
        path = self.home / rel
        path.unlink()
        fsync_dir(path.parent)

    def _bytes(self, rel: str) -> bytes | None:
        return read_or_none(self.home / rel)

    def _archived(self, day: dt.date) -> bytes | None:
        data = self._bytes(archive_name(day))
        return None if data is None else gunzip(data, archive_name(day))

    def _moved_hint(self, day_text: str | None) -> str:
        """Where a day's notes are when they are not where an id or a restore looked."""
        if not day_text:
            return ""
        day = check_day(day_text)
        if (self.home / archive_name(day)).exists():
            return (f"; the day is archived: its notes are in {self.prefix}{archive_name(day)} "
                    f"(`kenning note restore {day}`)")
        if (self.home / daily_name(day)).exists():
            return f"; the day's notes are in {self.prefix}{daily_name(day)}"
        return ""

    def _days(self, folder: str, *, archived: bool) -> list[tuple[dt.date, Path]]:
        """The days with a file in ``folder``, oldest first; files with other names are ignored."""
        root = self.home / folder
        if not root.is_dir():
            return []
        found = [(day, path) for path in root.iterdir()
                 if (day := day_of(path.name, archived)) is not None and path.is_file()]
        return sorted(found)

    def _note(self, source: str, rel: str, index: int, text: str, day: dt.date | None,
              clock: dt.time | None) -> Note:
        return Note(f"{self.prefix}{rel}#{index}", text, day, clock, source, self.prefix + rel)

    def _daily_notes(self, day: dt.date) -> list[Note] | None:
        data = self._bytes(daily_name(day))
        if data is None:
            return None
        return [self._note("daily", daily_name(day), p.index, p.text, p.date, p.time)
                for p in daily_paragraphs(decode(data), day)]

    def _archive_notes(self, day: dt.date) -> list[Note] | None:
        data = self._archived(day)
        if data is None:
            return None
        return [self._note("archive", archive_name(day), p.index, p.text, p.date, p.time)
                for p in daily_paragraphs(decode(data), day)]

    def _history_notes(self) -> list[Note] | None:
        data = self._bytes(HISTORY_FILE)
        if data is None:
            return None
        return [self._note("history", HISTORY_FILE, p.index, p.text, p.date, p.time)
                for p in history_paragraphs(decode(data))]

    def _searched(self, since: dt.date | None, include_archive: bool, include_history: bool) -> Iterable[Note]:
        """Every paragraph dated on or after ``since`` (any date when None) in the chosen files."""
        for day, _ in self._days(DAILY_DIR, archived=False):
            if since is None or day >= since:
                yield from self._daily_notes(day) or []
        if include_archive:
            for day, _ in self._days(ARCHIVE_DIR, archived=True):
                if since is None or day >= since:
                    yield from self._archive_notes(day) or []
        if include_history:
            # an unstamped paragraph has no day: only a search over all time includes it
            yield from (n for n in self._history_notes() or []
                        if since is None or (n.date is not None and n.date >= since))

    def _ranked(self, query: str, notes: list[Note]) -> list[NoteHit]:
        """Every candidate scored by recall's ranker (``retrieval.ranker``): meaning (cosine rescaled
        over the ``POOL`` nearest) plus the IDF-weighted share of the query's words (IDF over the
        paragraphs searched)."""
        cos = product(self.vectors.of([n.text for n in notes]), self.embedder.embed_query(query))
        query_language = language(query)
        read = [self._read_of(n.text) for n in notes]
        langs = [lang for _, lang in read]
        # notes in two languages are ranked on one scale, as memory recall ranks them (kenning.retrieval.mixed)
        seen = Scored(np.arange(len(notes)), cos, np.array([LANGUAGES.index(x) for x in langs], dtype=np.int8))
        null = QueryNull.of(seen, query_language)
        ranked_cos = null.aligned(seen).cosines
        nearest = {int(i): rank for rank, i in enumerate(np.argsort(-ranked_cos, kind="stable")[:POOL], 1)}
        words = query_words(query)
        terms = [t for t, _ in read]
        df = Counter(t for doc in terms for t in words if t in doc)
        weights = {t: idf(len(terms), df[t]) for t in words}
        neutral = neutral_terms(query)
        found = [word_share(weights, doc) for doc in terms]
        # every note is handed to the ranker (notes of the query's language, found or not, decide
        # whether the others get the cross-language credit); those with no evidence are left out after
        candidates = [Candidate(cosine=float(cos[i]), scaled=float(ranked_cos[i]), language=langs[i], words=share,
                                neutral=share_of(weights, matched, neutral), nearest=nearest.get(i))
                      for i, (share, matched) in enumerate(found)]
        ranker = Ranker(query_language, LEXICAL_WEIGHT, null, len(notes))
        hits = [NoteHit(note.id, note.text, note.date, note.time, note.source, note.path, score,
                        explain(c.cosine, c.nearest, [words[t] for t in matched], share), ranker.relevance(c, share))
                for note, c, score, (share, matched) in zip(notes, candidates, ranker.scores(candidates), found)
                if c.nearest is not None or matched]
        hits.sort(key=lambda h: (-h.score, -(h.date.toordinal() if h.date else 0), h.id))
        return hits

    def _read_of(self, text: str) -> tuple[frozenset[str], str]:
        """A paragraph's segmented terms and its language, worked out once per text."""
        if text not in self._read:
            if len(self._read) > 50_000:
                self._read.clear()  # a bound, not an LRU: segmenting again is cheap
            self._read[text] = frozenset(segment(text).split()), language(text)
        return self._read[text]


def _looks_like_id(text: str) -> bool:
    return _ID.fullmatch(text.strip()) is not None
