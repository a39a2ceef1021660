"""The session layout of ``build_context`` (``layout="session"``): what an agent is shown when a
session starts inside a client (Claude Code's SessionStart hook, an MCP client), memory first.

Sections, in this order; every line names where it came from:

================  =====  ===================================================================
section           floor  what
================  =====  ===================================================================
hot memory        45 %   USER.md and MEMORY.md, under a heading per file
relevant memory   25 %   entities the task names; facts and lessons pertinent to the task
                         (``kenning.pertinence``, warnings first), then those nearest to it;
                         older notes likely relevant to it
recent sessions   10 %   the newest HISTORY.md entries and daily notes (those that match the
                         task first); the facts and lessons sessions wrote in the last days
skills            20 %   one index line per skill (name, source, description), never a body
================  =====  ===================================================================

Two ceilings hold at once: ``budget_tokens`` and ``max_chars`` (default ``SESSION_MAX_CHARS``).
Each section is filled up to its floor (that share of both ceilings) with its entries in priority
order, then what is left goes to the sections in the order above: a hot memory at its budget
cannot push out the one fact that matches the task, and the skill index, which the agent can
search instead, gives way first. Entries are kept or cut whole (one that does not fit is passed
over; a smaller one after it may still fit); the last paragraph says what was cut and which tool
finds it. Priority: hot entries by the hot tier's own score (its order of demotion, reversed),
shown in file order; relevant memory as listed above, each group by score; recent notes matching
the task, then newest first;
skills as in the catalog (``always``, matching the task, most used, by name). The ``always: true``
skills are shown whole after hot memory, taking what they need of the rest before anything else.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .context import Context, Section, entity_line, heading, item_line, mentioned_entities, note_line, shorten
from .errors import NotFound
from .fileio import read_or_none
from .pertinence import RELEVANT, Pertinent, count_accesses, pertinent, task_hits, warning_label
from .records import item_from_row
from .store import ItemQuery
from .skills.availability import missing
from .tiers.hotfile import BY_KEY, FILES
from .tiers.notefile import HISTORY_FILE, daily_name, daily_paragraphs, decode, history_paragraphs
from .tiers.notes import MAX_K as MAX_NOTES
from .tiers.notes import Note, NoteHit, Notes
from .timeutil import to_epoch, utcnow
from .tokens import count_tokens

if TYPE_CHECKING:
    from .api import Kenning
    from .skills.model import Skill

# Claude Code passes hook output of up to 10,000 characters to the model whole (longer output goes
# to a file and only a preview is shown): a margin for the hook's own wrapping
SESSION_MAX_CHARS = 9_500
# "always": the ``always: true`` skills, in full, take what they need of what hot memory's share leaves
SHARES = {"hot": 0.45, "always": 0.55, "relevant": 0.25, "recent": 0.10, "catalog": 0.20}
TITLES = {"hot": "Hot memory", "always": "Skills always in use", "relevant": "Relevant memory",
          "recent": "Recent sessions", "catalog": "Skills"}
CATALOG_HINT = "Read a skill with skill_view(name) before following it."
# The task of a session is weak (a folder name, a branch): recall ranks every item against it, so
# only hits within this share of the best score count as matching (a hit that shares the project's
# name scores far above one that is merely near in meaning).
RELEVANT_SHARE_OF_BEST = 0.5
RELEVANT_ITEMS = 10
RELEVANT_NOTES = 5
NOTES_DAYS_BACK = 30
# What the last sessions did and learned is what a new session most often continues, and a folder
# name does not find it: HISTORY.md gets one summary per consolidation (the hooks consolidate at
# compaction and at the session's end), daily notes are the journal agents write during a session
# (notes_write), and the facts and lessons sessions wrote in the last days are what they learned.
RECENT_HISTORY_DAYS = 14
RECENT_DAILY_DAYS = 2
RECENT_NOTES = 5
RECENT_ITEM_DAYS = 7
RECENT_ITEMS = 5
ENTRY_CHARS = 500  # one fact or note; the whole text is a memory_recall / notes_search away
DESCRIPTION_CHARS = 240  # an index line is for choosing; skill_view shows the rest
TASK_CHARS = 120  # of the heading
NOTICE_SHARE = 0.25
SHORT_NOTICE = "Some entries were left out: hot_memory, memory_recall, notes_search and skills_search find them."
SOURCE_LABELS = {"builtin": "built-in"}


@dataclass(frozen=True)
class Line:
    """One entry of a section, one line: its text, where it came from, the sub-heading it goes under."""

    text: str
    source: dict[str, Any]
    group: str = ""  # "USER.md": shown as "### USER.md" above the first kept entry of the group
    order: int = 0  # where it is shown in its section; its place in the section's list is its priority


@dataclass
class _Candidates:
    """A section's entries in priority order and which of them are kept."""

    name: str
    head: str  # the section's own lines: "## Title" and what follows it
    entries: list[Line]
    kept: set[int] = field(default_factory=set)
    used: tuple[int, int] = (0, 0)  # characters, tokens

    def extra(self, i: int, costs: dict[str, tuple[int, int]]) -> tuple[int, int]:
        """What keeping entry ``i`` adds: its line, its group's heading if new, the section's own
        lines if it is the first (costs add up exactly: see ``_cost``)."""
        entry = self.entries[i]
        add = [costs[entry.text]]
        if entry.group and all(self.entries[j].group != entry.group for j in self.kept):
            add.append(costs[_group_line(entry.group)])
        if not self.kept:
            add.append(_plus(costs[self.head], (1, 1)))  # and the blank line before the section
        return _sum(add)

    def text(self) -> str:
        lines, groups = [self.head], set()
        for entry in sorted((self.entries[i] for i in self.kept), key=lambda e: e.order):
            if entry.group and entry.group not in groups:
                groups.add(entry.group)
                lines.append(_group_line(entry.group))
            lines.append(entry.text)
        return "\n".join(lines)


def _group_line(group: str) -> str:
    return f"### {group}"


def _cost(text: str) -> tuple[int, int]:
    """Characters and tokens a line adds, with the line break before it: both add up exactly over
    lines, since a token count is the sum of the words' counts and the line breaks."""
    return len(text) + 1, count_tokens(text) + 1


def _plus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return a[0] + b[0], a[1] + b[1]


def _sum(costs: Sequence[tuple[int, int]]) -> tuple[int, int]:
    return sum(c[0] for c in costs), sum(c[1] for c in costs)


def _fits(cost: tuple[int, int], room: tuple[int, int]) -> bool:
    return cost[0] <= room[0] and cost[1] <= room[1]


def build_session_context(kb: Kenning, task: str, budget: int, *, scope: str = "default",
                          max_chars: int | None = None) -> Context:
    """The session layout (see the module docstring); ``task`` and ``budget`` are checked already."""
    limit = max_chars if max_chars is not None else SESSION_MAX_CHARS
    head = heading(shorten(task, TASK_CHARS), budget)
    hot = _hot(kb, scope)
    shown = {str(e.source["id"]) for e in hot if e.source.get("id")}
    notes = kb.notes_in(scope)
    latest = _recent_notes(notes, dt.date.today())
    # notes likely to answer the task (``kenning.pertinence.RELEVANT``), the nearest of them (``_matching``)
    hits = notes.search(task, days_back=NOTES_DAYS_BACK, k=min(MAX_NOTES, RELEVANT_NOTES + len(latest)),
                        min_relevance=RELEVANT)
    matching = _matching(hits, lambda n: n.score)
    older = [h for h in matching if h.id not in {n.id for n in latest}][:RELEVANT_NOTES]
    relevant = _relevant(kb, task, scope, shown, older)
    shown |= {str(e.source["id"]) for e in relevant}
    recent = _recent(kb, scope, shown, latest, {h.id for h in matching})
    memory = [_Candidates("hot", f"## {TITLES['hot']}", hot),
              _Candidates("always", f"## {TITLES['always']}", _always(kb)),
              _Candidates("relevant", f"## {TITLES['relevant']}", relevant),
              _Candidates("recent", f"## {TITLES['recent']}", recent)]
    room = (limit - len(head) - 1, budget - count_tokens(head) - 1)  # the heading and the final line break
    costs = _costs(memory)
    index = _index(kb, task, _sum([_total(s, costs) for s in memory if s.entries]), room)
    costs |= _costs([index])
    sections = [s for s in [*memory, index] if s.entries]
    notice = None
    if not _fits(_sum([_total(s, costs) for s in sections]), room):
        notice, reserve = _notice_room(sections, limit, budget, room)
        room = (room[0] - reserve[0], room[1] - reserve[1])
    _fill(sections, room, costs)
    return _finish(task, budget, limit, head, sections, notice)


def _notice_room(sections: list[_Candidates], limit: int, budget: int,
                 room: tuple[int, int]) -> tuple[bool | None, tuple[int, int]]:
    """Which notice of what was cut to give (True: the full one, False: the short one, None: none)
    and the room to keep for it: the full one only while it takes at most ``NOTICE_SHARE`` of the
    room, so that under a tight limit the notice does not push out the memory itself."""
    for full in (True, False):
        text = _left_out(sections, limit, budget, worst=True) if full else SHORT_NOTICE
        reserve = _plus(_cost(text), (1, 1))  # and the blank line before it
        share = NOTICE_SHARE if full else 1.0
        if _fits(reserve, (int(room[0] * share), int(room[1] * share))):
            return full, reserve
    return None, (0, 0)


def _index(kb: Kenning, task: str, need: tuple[int, int], room: tuple[int, int]) -> _Candidates:
    """The skill index: descriptions whole when every line fits in what memory (needing ``need``)
    leaves of ``room``, at least the index's floor; else cut to ``DESCRIPTION_CHARS``."""
    skills = _skills(kb, task)
    head = f"## {TITLES['catalog']}\n{CATALOG_HINT}"
    full = _Candidates("catalog", head, [_skill_line(s, n, m, None) for n, (s, m) in enumerate(skills)])
    others = 1 - SHARES["catalog"]
    space = (room[0] - min(need[0], int(room[0] * others)), room[1] - min(need[1], int(room[1] * others)))
    if full.entries and _fits(_total(full, _costs([full])), space):
        return full
    return _Candidates("catalog", head, [_skill_line(s, n, m, DESCRIPTION_CHARS) for n, (s, m) in enumerate(skills)])


def _costs(sections: list[_Candidates]) -> dict[str, tuple[int, int]]:
    return {text: _cost(text) for s in sections
            for text in [s.head, *(e.text for e in s.entries), *(_group_line(e.group) for e in s.entries if e.group)]}


def _total(section: _Candidates, costs: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """What the whole section costs, every entry kept."""
    groups = {e.group for e in section.entries if e.group}
    return _sum([_plus(costs[section.head], (1, 1)), *(costs[e.text] for e in section.entries),
                 *(costs[_group_line(g)] for g in groups)])


def _fill(sections: list[_Candidates], room: tuple[int, int], costs: dict[str, tuple[int, int]]) -> None:
    """Each section up to its floor (within what the sections before it left), then what is left to
    the sections in order."""
    for section in sections:
        floor = (int(room[0] * SHARES[section.name]), int(room[1] * SHARES[section.name]))
        left = (room[0] - sum(s.used[0] for s in sections), room[1] - sum(s.used[1] for s in sections))
        _take(section, (min(floor[0], left[0]), min(floor[1], left[1])), costs)
    for section in sections:
        left = (room[0] - sum(s.used[0] for s in sections), room[1] - sum(s.used[1] for s in sections))
        _take(section, _plus(left, section.used), costs)


def _take(section: _Candidates, allowance: tuple[int, int], costs: dict[str, tuple[int, int]]) -> None:
    for i in range(len(section.entries)):
        if i in section.kept:
            continue
        extra = section.extra(i, costs)
        if _fits(_plus(section.used, extra), allowance):
            section.kept.add(i)
            section.used = _plus(section.used, extra)


def _finish(task: str, budget: int, limit: int, head: str, sections: list[_Candidates],
            notice: bool | None) -> Context:
    """The context of the kept entries, with the notice of what was cut when there is room for it."""
    cut = [{"section": s.name, "what": _label(e), "reason": "no room left within the session context's limit"}
           for s in sections for i, e in enumerate(s.entries) if i not in s.kept]
    while True:
        kept = [s for s in sections if s.kept]
        left_out = "" if not cut or notice is None else _left_out(sections, limit, budget) if notice else SHORT_NOTICE
        context = Context(task, budget, tuple(_section(s) for s in kept), tuple(cut), head, layout="session",
                          max_chars=limit, left_out=left_out)
        markdown = context.markdown
        if (len(markdown) <= limit and count_tokens(markdown) <= budget) or not kept:
            return context
        # the costs add up exactly, so this only guards that claim: drop the last kept entry of the
        # lowest section and try again
        last = kept[-1]
        gone = max(last.kept)
        last.kept.discard(gone)
        cut.append({"section": last.name, "what": _label(last.entries[gone]), "reason": "over the limit once joined"})


def _section(candidates: _Candidates) -> Section:
    text = candidates.text()
    ordered = sorted(candidates.kept, key=lambda i: candidates.entries[i].order)
    return Section(candidates.name, TITLES[candidates.name], text, count_tokens(text),
                   tuple(candidates.entries[i].source for i in ordered))


def _label(entry: Line) -> str:
    source = entry.source
    return str(source.get("id") or source.get("name") or entry.text[:60])


def _left_out(sections: list[_Candidates], limit: int, budget: int, *, worst: bool = False) -> str:
    """What was cut and which tool finds it (``worst``: as long as it can get, for the reserve)."""
    parts = []
    for s in sections:
        total = len(s.entries)
        gone = total if worst else total - len(s.kept)
        if not gone:
            continue
        if s.name == "hot":
            parts.append(f"{gone:,} of {total:,} hot-memory entries (hot_memory action=show lists them all)")
        elif s.name == "relevant":
            parts.append(f"{gone:,} relevant memories (memory_recall, notes_search)")
        elif s.name == "recent":
            parts.append(f"{gone:,} recent entries (notes_search, memory_recall)")
        else:
            parts.append(f"{gone:,} of {total:,} skills (skills_search finds one for a task, skills_list lists all)")
    return f"Left out to stay within {limit:,} characters and {budget:,} tokens: {'; '.join(parts)}."


# -- the sections ----------------------------------------------------------------------------------


def _hot(kb: Kenning, scope: str) -> list[Line]:
    """USER.md, then MEMORY.md, each in file order; best first by the hot tier's score."""
    hot = kb.hot_in(scope)
    entries = sorted(enumerate(hot.entries()), key=lambda t: (FILES.index(BY_KEY[t[1].section].file), t[0]))
    score = {s.entry: s.score for s in hot.ranked()}
    lines = []
    for n, (_, entry) in enumerate(entries):
        file = BY_KEY[entry.section].file
        lines.append(Line(f"- {entry.text}", {"id": entry.item_id, "file": file, "section": entry.section},
                          group=file, order=n))
    return [lines[n] for n in sorted(range(len(lines)), key=lambda n: (-score.get(entries[n][1], 0.0), n))]


def _relevant(kb: Kenning, task: str, scope: str, shown: set[str], notes: Sequence[NoteHit]) -> list[Line]:
    """Entities the task names, then the facts, lessons and (older) notes matching it, by score."""
    named = [e for e in mentioned_entities(kb, task, scope) if e.id not in shown]
    # a session's task is a folder or branch name, which nothing answers as a question: what the
    # agent should see is what is pertinent to it (``kenning.pertinence``), warnings first, then the
    # memories nearest to it (within ``RELEVANT_SHARE_OF_BEST`` of the best score): what the project
    # knows, when its name is all the task says
    hits = [h for h in task_hits(kb.store, kb.embedder, task, scope=scope, kinds=["fact", "lesson"], k=RELEVANT_ITEMS)
            if h.item.id not in shown]
    chosen = pertinent(hits, RELEVANT)
    taken = {p.hit.item.id for p in chosen}
    chosen += [Pertinent(h, "nearest", bool(warning_label(h))) for h in _matching(hits, lambda h: h.score)
               if h.item.id not in taken]
    count_accesses(kb.store, chosen)
    memories: list[Line] = []
    for p in chosen:
        line = item_line(p.hit.item, ENTRY_CHARS)
        if line is not None:
            memories.append(Line(line, {"id": p.hit.item.id, "kind": p.hit.item.kind, "score": round(p.hit.score, 3),
                                        "relevance": round(p.hit.relevance, 4), "why": p.why}))
    scored = [(note.score, Line(note_line(note.text, note.date, note.time, note.id, ENTRY_CHARS),
                                {"id": note.id, "kind": "note", "score": round(note.score, 3)})) for note in notes]
    scored.sort(key=lambda t: -t[0])
    entries = [Line(entity_line(e, ENTRY_CHARS), {"id": e.id, "kind": "entity"}) for e in named]
    entries += memories + [e for _, e in scored]
    return [Line(e.text, e.source, order=n) for n, e in enumerate(entries)]


def _matching(hits: Sequence[Any], score: Any) -> list[Any]:
    if not hits:
        return []
    best = max(score(h) for h in hits)
    return [h for h in hits if score(h) >= RELEVANT_SHARE_OF_BEST * best]


def _recent(kb: Kenning, scope: str, shown: set[str], latest: list[Note], matching: set[str]) -> list[Line]:
    """The newest session summaries and notes (those matching the task first), then the facts and
    lessons sessions wrote in the last days."""
    # newest first; of two in the same minute, the later in its file
    order = sorted(range(len(latest)), key=lambda i: (latest[i].id in matching, latest[i].date or dt.date.min,
                                                      latest[i].time or dt.time(), i), reverse=True)
    notes = [latest[i] for i in order if latest[i].id not in shown][:RECENT_NOTES]
    entries = [Line(note_line(n.text, n.date, n.time, n.id, ENTRY_CHARS), {"id": n.id, "kind": "note"})
               for n in notes]
    now = utcnow()
    # written by a session: consolidated from its transcript, or by an agent through the MCP tools
    # (a bulk import through the API or the command line is not what a session learned)
    rows = kb.store.select(ItemQuery(
        kinds=("fact", "lesson"), scopes=(scope,), superseded=False, live_at=to_epoch(now),
        created_since=to_epoch(now - dt.timedelta(days=RECENT_ITEM_DAYS)), sources=("consolidation", "mcp:*"),
        order="newest", limit=RECENT_ITEMS + len(shown)))
    for item in [i for i in map(item_from_row, rows) if i.id not in shown][:RECENT_ITEMS]:
        line = item_line(item, ENTRY_CHARS)
        if line is not None:
            entries.append(Line(line, {"id": item.id, "kind": item.kind}))
    return [Line(e.text, e.source, order=n) for n, e in enumerate(entries)]


def _recent_notes(notes: Notes, today: dt.date) -> list[Note]:
    """The HISTORY.md entries and the daily-note paragraphs of the last days."""
    out = []
    data = read_or_none(notes.home / HISTORY_FILE, what=notes.prefix + HISTORY_FILE)
    since = today - dt.timedelta(days=RECENT_HISTORY_DAYS)
    for p in history_paragraphs(decode(data)) if data else []:
        if p.date is not None and p.date >= since:
            out.append(Note(f"{notes.prefix}{HISTORY_FILE}#{p.index}", p.text, p.date, p.time, "history",
                            notes.prefix + HISTORY_FILE))
    for back in range(RECENT_DAILY_DAYS):
        day = today - dt.timedelta(days=back)
        try:
            text = notes.read(day)
        except NotFound:
            continue
        rel = daily_name(day)
        out.extend(Note(f"{notes.prefix}{rel}#{p.index}", p.text, day, p.time, "daily", notes.prefix + rel)
                   for p in daily_paragraphs(text, day))
    return out


def _skills(kb: Kenning, task: str) -> list[tuple[Skill, bool]]:
    """Every skill a model is shown, in the catalog's priority order (always, matching the task, most
    used, by name), and whether it matches the task."""
    return kb.skills.ranked(task)


def _always(kb: Kenning) -> list[Line]:
    """The ``always: true`` skills, each whole: in use in every session, they are not an index entry."""
    out = []
    for n, skill in enumerate(kb.skills.always()):
        body = kb.skills.skill_view(skill.qualified)["content"].strip()
        out.append(Line(f"### {skill.name} ({skill.path})\n{body}",
                        {"name": skill.name, "path": str(skill.path), "always": True}, order=n))
    return out


def _skill_line(skill: Skill, order: int, matched: bool, limit: int | None) -> Line:
    lacking = missing(skill.requires)
    mark = f" (unavailable: needs {', '.join(lacking)})" if lacking else ""
    label = SOURCE_LABELS.get(skill.source, skill.source)
    description = " ".join(skill.description.split())
    if limit is not None:
        description = shorten(description, limit)
    return Line(f"- {skill.name} ({label}){mark}: {description}",
                 {"name": skill.name, "source": skill.source, "category": skill.category, "matched": matched},
                 order=order)
