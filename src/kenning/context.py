"""``build_context(task, budget_tokens)``: everything an agent should know for a task, in one piece
of Markdown (or JSON) that never exceeds the budget, each part saying where it came from.

Sections, in this order (each takes at most its share of the budget and only what is left):

====================  =====  ===============================================================
section               share  what
====================  =====  ===============================================================
hot memory            40 %   USER.md then MEMORY.md, in file order under each file's name
always-on skills     100 %   every ``always: true`` skill, in full, before anything optional
skills catalog        15 %   the budgeted, task-aware index of every skill
matching skills       25 %   the 1-3 skills that match the task best (and are likely relevant), in full
facts                 15 %   pertinent to the task, warnings first (hot facts are already shown above)
lessons               10 %   pertinent lessons, negative outcomes first (what to avoid)
entities               5 %   entities the task names (by name or alias)
notes                 10 %   related daily notes and HISTORY.md of the last 30 days
====================  =====  ===============================================================

Shares add up to more than 100 %: a section that needs less leaves the rest to the next ones, and
what is still left once every section has had its share is dealt out one part at a time to the
sections that cut something, in turn in the order above (the earlier ones too). A section with
nothing relevant is absent, so its whole share goes to the rest. Facts and lessons are those an
agent about to do the task should see (``kenning.pertinence``: relevant to it, holding its words, or
near it in meaning; each source's ``why`` names the rule), pitfalls and preferences first; notes
search and skill search keep what reaches the relevance floor (``kenning.retrieval.relevance``).
Everything left out is listed in ``cut`` with the reason. ``max_chars`` adds a ceiling in
characters on top of the budget (parts that would pass it are cut the same way).

Each piece names its source inline, in the same short form as the session layout, so that a model
can tell memories apart and name one to change (``kb.get``, ``memory_supersede``, ``memory_forget``,
``kb.notes.get``, ``skill_view``): hot entries sit under
``### USER.md`` / ``### MEMORY.md``; ``- <fact> (fact f_3a9c1b2e4d5f, 2026-11-02)``,
``- [negative] <lesson> (lesson l_…)``, ``- <entity> (entity e_…)``,
``- [2026-11-30 14:02] <note> (daily/2026-11-30.md#2)``; a skill in full is headed
``### <name> (<folder of its SKILL.md>)``; the catalog names every skill. Ids are shown whole (12 hex
digits): no lookup takes a prefix, and the source costs about 15 tokens a line.

``layout="session"`` is the other arrangement, for the start of a session inside an agent client:
memory first, the skills as an index only, under a hard character ceiling (``session_context``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import Entity, Fact, Item, Lesson
from .records import item_from_row
from .pertinence import RELEVANT, count_accesses, pertinent, task_hits
from .retrieval import check_query
from .text import normalize
from .tokens import count_tokens

if TYPE_CHECKING:
    from .api import Kenning

MIN_BUDGET = 100
MAX_BUDGET = 200_000
MIN_CHARS = 500
MAX_CHARS = 1_000_000
LAYOUTS = ("task", "session")
SHARES = {"hot": 0.40, "always": 1.0, "catalog": 0.15, "skills": 0.25, "facts": 0.15, "lessons": 0.10, "entities": 0.05,
          "notes": 0.10}
TITLES = {"hot": "Hot memory", "always": "Skills always in use", "catalog": "Skills", "skills": "Matching skills", "facts": "Relevant facts",
          "lessons": "Lessons", "entities": "Entities", "notes": "Notes"}
MAX_SKILLS = 3
FACTS_POOL = 10  # recalled with no floor; ``kenning.pertinence`` keeps what the task should see
LESSONS_POOL = 5
SKILL_SHARE_OF_BEST = 0.6  # a skill is shown in full only if it scores at least this share of the best
NOTES_DAYS_BACK = 30
HEADING_TOKENS = 40
HEADING_SHARE = 0.1
ELLIPSIS = "…"
_OUTCOME_ORDER = {"negative": 0, "neutral": 1, "positive": 2}


@dataclass(frozen=True)
class Part:
    """One piece of a section: its text, where it came from, and the sub-heading it goes under
    (``group``: "USER.md" is shown as ``### USER.md`` above the first kept part of the group; the
    parts of a group come one after another)."""

    text: str
    source: dict[str, Any]
    group: str = ""


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    text: str
    tokens: int
    sources: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "text": self.text, "tokens": self.tokens,
                "sources": list(self.sources)}


@dataclass(frozen=True)
class Context:
    task: str
    budget_tokens: int
    sections: tuple[Section, ...]
    cut: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    heading: str = ""  # the first line: the task, shortened to fit its share of the budget
    layout: str = "task"
    max_chars: int | None = None
    left_out: str = ""  # the last paragraph: what was cut and how to get it (the session layout)

    @property
    def markdown(self) -> str:
        return _join(self.heading, [s.text for s in self.sections] + ([self.left_out] if self.left_out else []))

    @property
    def tokens(self) -> int:
        return count_tokens(self.markdown)

    def to_dict(self) -> dict[str, Any]:
        markdown = self.markdown
        return {"success": True, "task": self.task, "layout": self.layout, "budget_tokens": self.budget_tokens,
                "max_chars": self.max_chars, "tokens": count_tokens(markdown), "chars": len(markdown),
                "markdown": markdown, "sections": [s.to_dict() for s in self.sections], "cut": list(self.cut),
                "left_out": self.left_out}


def _join(head: str, texts: Sequence[str]) -> str:
    return "\n\n".join([head, *texts]) + "\n"


def heading(task: str, budget: int) -> str:
    """``# Context for: <task>``, the task cut (with "…") to at most ``HEADING_SHARE`` of the budget
    and ``HEADING_TOKENS``: the heading counts against the budget like everything else."""
    text = " ".join(task.split())
    limit = max(16, min(HEADING_TOKENS, int(budget * HEADING_SHARE)))
    if count_tokens(f"# Context for: {text}") <= limit:
        return f"# Context for: {text}"
    lo, hi = 0, len(text)  # the longest prefix that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(f"# Context for: {text[:mid].rstrip()}…") <= limit:
            lo = mid
        else:
            hi = mid - 1
    return f"# Context for: {text[:lo].rstrip()}…"


def check_budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidInput(f"budget_tokens must be a whole number from {MIN_BUDGET} to {MAX_BUDGET:,}, got {budget!r}")
    return budget


def check_max_chars(max_chars: object) -> int | None:
    if max_chars is None:
        return None
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or not MIN_CHARS <= max_chars <= MAX_CHARS:
        raise InvalidInput(f"max_chars must be a whole number from {MIN_CHARS} to {MAX_CHARS:,}, got {max_chars!r}")
    return max_chars


def check_layout(layout: object) -> str:
    if layout not in LAYOUTS:
        raise InvalidInput(f"layout must be one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    return str(layout)


@dataclass
class _Candidates:
    """One section's parts in order, which of them are kept, and why each of the others was cut."""

    name: str
    title: str
    parts: list[Part]
    kept: set[int] = field(default_factory=set)
    reasons: dict[int, str] = field(default_factory=dict)

    @property
    def heading(self) -> str:
        return f"## {self.title}"

    def extra(self, i: int) -> tuple[int, int]:
        """Tokens and characters that keeping part ``i`` adds: its line, its group's heading if no
        part of the group is kept yet, the section's heading (and the blank line before it) if it is
        the first. They add up exactly: a token count is the sum of the words' counts and the line
        breaks (``kenning.tokens``)."""
        part = self.parts[i]
        tokens, chars = count_tokens(part.text) + 1, len(part.text) + 1
        if part.group and all(self.parts[j].group != part.group for j in self.kept):
            line = _group_line(part.group)
            tokens, chars = tokens + count_tokens(line) + 1, chars + len(line) + 1
        if not self.kept:
            tokens, chars = tokens + count_tokens(self.heading) + 2, chars + len(self.heading) + 2
        return tokens, chars

    def section(self) -> Section | None:
        """The section of the kept parts, in their order (None when nothing is kept)."""
        if not self.kept:
            return None
        kept = [self.parts[i] for i in sorted(self.kept)]
        lines, group = [self.heading], ""
        for part in kept:
            if part.group and part.group != group:
                lines.append(_group_line(part.group))
            group = part.group
            lines.append(part.text)
        text = "\n".join(lines)
        return Section(self.name, self.title, text, count_tokens(text), tuple(p.source for p in kept))


def _group_line(group: str) -> str:
    return f"### {group}"


class _Assembly:
    """Sections added in order within what is left of the budget (and of ``max_chars``); what is
    left at the end goes to the sections that cut parts (``finish``)."""

    def __init__(self, task: str, budget: int, max_chars: int | None = None) -> None:
        self.task = task
        self.budget = budget
        self.max_chars = max_chars
        self.heading = heading(task, budget)
        self.candidates: list[_Candidates] = []
        self.cut: list[dict[str, Any]] = []  # what was left out besides single parts (a catalog with no room)
        self.used = count_tokens(_join(self.heading, []))
        self.chars = len(_join(self.heading, []))
        self.carry = 0  # what earlier sections left unused of their shares

    @property
    def sections(self) -> list[Section]:
        return [s for s in (c.section() for c in self.candidates) if s is not None]

    def chars_left(self) -> int:
        return (self.max_chars - self.chars) if self.max_chars is not None else MAX_CHARS

    def allowance(self, name: str) -> int:
        return min(self.budget - self.used, int(SHARES[name] * self.budget) + self.carry)

    def add(self, name: str, parts: Sequence[Part], *, title: str | None = None) -> None:
        """Add, in order, each part that still fits the section's allowance (a part that does not is
        passed over, and a smaller one after it may still fit); what the section leaves unused, all
        of its allowance when it has no parts, passes on to the next one."""
        title = title or TITLES[name]
        allowance = self.allowance(name)
        candidates = _Candidates(name, title, list(parts))
        self.candidates.append(candidates)
        spent = self._offer(candidates, allowance, f"left for {title.lower()}")
        if SHARES[name] < 1:  # a section that may take everything left passes on what came to it
            self.carry = max(0, allowance - spent)

    def _offer(self, candidates: _Candidates, tokens: int, where: str, *, one: bool = False) -> int:
        """Keep each part not kept yet that fits in ``tokens`` (and what is left of ``max_chars``),
        or only the first that fits (``one``); the tokens it cost."""
        spent = 0
        for i in range(len(candidates.parts)):
            if i in candidates.kept:
                continue
            extra, chars = candidates.extra(i)
            if spent + extra > tokens:
                candidates.reasons[i] = f"needs {extra} tokens; {max(0, tokens - spent)} {where}"
            elif chars > self.chars_left():
                candidates.reasons[i] = (f"needs {chars} characters; {max(0, self.chars_left())} left "
                                         f"of max_chars {self.max_chars}")
            else:
                candidates.kept.add(i)
                candidates.reasons.pop(i, None)
                spent, self.used, self.chars = spent + extra, self.used + extra, self.chars + chars
                if one:
                    break
        return spent

    def _share_out(self) -> None:
        """What every section left of the budget, dealt out one part at a time to the sections that
        cut something, in turn in their order: a section with nothing relevant gives its share to the
        facts before it as well as to the notes after it, and a tight budget still shows a part of
        each section that has one before any section gets its second helping."""
        while True:
            added = 0
            for candidates in self.candidates:
                if len(candidates.kept) < len(candidates.parts):
                    added += self._offer(candidates, self.budget - self.used, "left of the whole budget", one=True)
            if not added:
                return

    def _markdown(self) -> str:
        return _join(self.heading, [s.text for s in self.sections])

    def finish(self) -> Context:
        self._share_out()
        # the costs add up exactly, so this only guards that claim: drop from the end until it fits
        markdown = self._markdown()
        while self.sections and (count_tokens(markdown) > self.budget
                                 or (self.max_chars is not None and len(markdown) > self.max_chars)):
            gone = next(c for c in reversed(self.candidates) if c.kept)
            self.candidates.remove(gone)
            self.cut.append({"section": gone.name, "what": gone.title, "reason": "the whole context was over budget"})
            markdown = self._markdown()
        cut = [{"section": c.name, "what": _label(c.parts[i]), "reason": c.reasons.get(i, "no room left")}
               for c in self.candidates for i in range(len(c.parts)) if i not in c.kept]
        return Context(self.task, self.budget, tuple(self.sections), tuple(cut + self.cut), self.heading,
                       max_chars=self.max_chars)


def _label(part: Part) -> str:
    return str(part.source.get("id") or part.source.get("name") or part.source.get("path") or part.text[:60])


def build_context(kb: Kenning, task: str, budget_tokens: int = 4000, *, scope: str = "default",
                  layout: str = "task", max_chars: int | None = None) -> Context:
    """The context for ``task`` within ``budget_tokens`` (and ``max_chars``, when given), arranged
    for a task (see the module docstring) or for the start of a session (``session_context``)."""
    task = check_query(task)
    budget, chars = check_budget(budget_tokens), check_max_chars(max_chars)
    if check_layout(layout) == "session":
        from .session_context import build_session_context

        return build_session_context(kb, task, budget, scope=scope, max_chars=chars)
    ctx = _Assembly(task, budget, chars)
    _hot(kb, ctx, scope)
    _always(kb, ctx)
    _catalog(kb, ctx, task)
    _skills(kb, ctx, task)
    shown = {str(s.get("id")) for sec in ctx.sections for s in sec.sources if s.get("id")}
    _memories(kb, ctx, task, scope, shown)
    _entities(kb, ctx, task, scope)
    _notes(kb, ctx, task, scope)
    return ctx.finish()


def _hot(kb: Kenning, ctx: _Assembly, scope: str) -> None:
    """USER.md, then MEMORY.md, each in file order under its name (the snapshot's order)."""
    from .tiers.hotfile import BY_KEY, FILES

    entries = kb.hot_in(scope).entries()
    order = sorted(range(len(entries)), key=lambda n: (FILES.index(BY_KEY[entries[n].section].file), n))
    parts = []
    for entry in (entries[n] for n in order):
        file = BY_KEY[entry.section].file
        parts.append(Part(f"- {entry.text}", {"id": entry.item_id, "file": file, "section": entry.section},
                          group=file))
    ctx.add("hot", parts)


def _catalog(kb: Kenning, ctx: _Assembly, task: str) -> None:
    from .skills.catalog import MIN_BUDGET as CATALOG_MIN

    allowance = ctx.allowance("catalog") - count_tokens("## Skills") - 3
    if allowance < CATALOG_MIN:
        ctx.cut.append({"section": "catalog", "what": "skills catalog", "reason": "no room left"})
        ctx.add("catalog", [])
        return
    catalog = kb.skills.skills_catalog(allowance, task=task)
    body = re.sub(r"^## Skills\n", "", catalog["text"]).strip()
    ctx.add("catalog", [Part(body, {"name": "skills catalog", "skills": catalog["skills"],
                                    "omitted": catalog["omitted"], "name_only": catalog["name_only"]})])


def _always(kb: Kenning, ctx: _Assembly) -> None:
    parts = []
    for skill in kb.skills.always():
        view = kb.skills.skill_view(skill.qualified)
        parts.append(Part(f"### {view['name']} ({view['path']})\n{view['content'].strip()}",
                          {"name": view["name"], "path": view["path"], "always": True}))
    ctx.add("always", parts)


def _skills(kb: Kenning, ctx: _Assembly, task: str) -> None:
    # skills_search leaves out skills below the skill floor (kenning.skills.relevance): a skill is
    # loaded in full only when it likely fits; the best of nothing stays in the catalog
    found = kb.skills.skills_search(task, MAX_SKILLS)["skills"]
    matches = [s for s in found if not s["always"]]
    parts = []
    for match in matches:
        if match["score"] < SKILL_SHARE_OF_BEST * matches[0]["score"]:
            break
        view = kb.skills.skill_view(match["name"])
        parts.append(Part(f"### {view['name']} ({view['path']})\n{view['content'].strip()}",
                          {"name": view["name"], "path": view["path"], "score": match["score"]}))
    ctx.add("skills", parts)


def _memories(kb: Kenning, ctx: _Assembly, task: str, scope: str, shown: set[str]) -> None:
    """The facts and lessons pertinent to the task (``kenning.pertinence``), warnings first; the
    lessons with negative outcomes first (what to avoid). One search over both kinds: relevance
    weighs its evidence by how many memories were ranked, and a store's three lessons searched
    alone read as a tiny store, where any text seems likely."""
    hits = task_hits(kb.store, kb.embedder, task, scope=scope, kinds=["fact", "lesson"], k=FACTS_POOL + LESSONS_POOL)
    found = [p for p in pertinent(hits, RELEVANT) if p.hit.item.id not in shown]
    facts = [p for p in found if isinstance(p.hit.item, Fact)][:FACTS_POOL]
    ctx.add("facts", [Part(item_line(p.hit.item) or "", {"id": p.hit.item.id, "score": round(p.hit.score, 3),
                                                         "relevance": round(p.hit.relevance, 4), "why": p.why})
                      for p in facts])
    lessons = [(p, p.hit.item) for p in found if isinstance(p.hit.item, Lesson)][:LESSONS_POOL]
    lessons.sort(key=lambda t: _OUTCOME_ORDER.get(t[1].outcome, 1))
    count_accesses(kb.store, [*facts, *(p for p, _ in lessons)])  # only what the context shows
    ctx.add("lessons", [Part(item_line(lesson) or "", {"id": lesson.id, "outcome": lesson.outcome,
                                                       "relevance": round(p.hit.relevance, 4), "why": p.why})
                        for p, lesson in lessons])


def mentioned_entities(kb: Kenning, text: str, scope: str) -> list[Entity]:
    """The entities whose name or alias appears in ``text`` (whole words for Latin names); names
    are stored normalised (``entities.name_key`` is ``text.normalize``), so the text is too."""
    plain = normalize(text)
    rowids: list[int] = []
    for key, rowid in kb.store.entity_names(scope):
        if not key or rowid in rowids:
            continue
        if key.isascii():
            if re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", plain):
                rowids.append(rowid)
        elif key in plain:
            rowids.append(rowid)
    rows = (kb.store.get_rowid(rowid) for rowid in rowids)
    return [e for e in (item_from_row(r) for r in rows if r is not None) if isinstance(e, Entity)]


def _entities(kb: Kenning, ctx: _Assembly, task: str, scope: str) -> None:
    ctx.add("entities", [Part(entity_line(e), {"id": e.id}) for e in mentioned_entities(kb, task, scope)])


def _notes(kb: Kenning, ctx: _Assembly, task: str, scope: str) -> None:
    # the bar of a memory pertinent as relevant (``kenning.pertinence``): recall's own floor keeps
    # what a caller who reads each hit's relevance may still want, a context only what is likely
    hits = kb.notes_in(scope).search(task, days_back=NOTES_DAYS_BACK, k=5, min_relevance=RELEVANT)
    ctx.add("notes", [Part(note_line(h.text, h.date, h.time, h.id), {"id": h.id, "score": round(h.score, 3)})
                      for h in hits])


# -- lines: each names its source, in the same form in both layouts ----------------------------------


def item_line(item: Item, limit: int | None = None) -> str | None:
    """A fact (with its id and the day it last changed) or a lesson (with its id) as one list line,
    its text cut to ``limit`` characters when given; None for another kind."""
    if isinstance(item, Fact):
        when = f", {item.updated_at.date().isoformat()}" if item.updated_at else ""
        return f"- {shorten(' '.join(item.content.split()), limit)} (fact {item.id}{when})"
    if isinstance(item, Lesson):
        text = f"[{item.outcome}] {item.context}: {item.action} -> {item.insight}"
        return f"- {shorten(' '.join(text.split()), limit)} (lesson {item.id})"
    return None


def entity_line(entity: Entity, limit: int | None = None) -> str:
    """An entity, its kind, attributes and notes, and its id, as one list line."""
    attrs = ", ".join(f"{k}: {v}" for k, v in entity.attributes.items())
    extra = "; ".join(x for x in (attrs, entity.notes) if x)
    kind = f" ({entity.entity_kind})" if entity.entity_kind else ""
    text = f"{entity.name}{kind}" + (f": {extra}" if extra else "")
    return f"- {shorten(' '.join(text.split()), limit)} (entity {entity.id})"


def note_line(text: str, day: dt.date | None, clock: dt.time | None, note_id: str, limit: int | None = None) -> str:
    """A note paragraph as one list line: its stamp, its text, its id (which names its file)."""
    return f"- {_stamp(day, clock)}{shorten(' '.join(text.split()), limit)} ({note_id})"


def _stamp(day: dt.date | None, clock: dt.time | None) -> str:
    parts = [x for x in (day.isoformat() if day else "", clock.strftime("%H:%M") if clock else "") if x]
    return f"[{' '.join(parts)}] " if parts else ""


def shorten(text: str, limit: int | None) -> str:
    """``text`` cut to at most ``limit`` characters (None: whole), at a space when there is one in its
    second half."""
    if limit is None or len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)]
    if " " in cut[len(cut) // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.-") + ELLIPSIS

