"""``build_context(task, budget_tokens)``: everything an agent should know for a task, in one piece
of Markdown (or JSON) that never exceeds the budget, each part saying where it came from.

Sections, in this order (each takes at most its share of the budget and only what is left):

====================  =====  ===============================================================
section               share  what
====================  =====  ===============================================================
hot memory            40 %   USER.md and MEMORY.md as a session snapshot (cut from the end)
always-on skills     100 %   every ``always: true`` skill, in full, before anything optional
skills catalog        15 %   the budgeted, task-aware index of every skill
matching skills       25 %   the 1-3 skills that match the task best (and are likely relevant), in full
facts                 15 %   recalled for the task (hot facts are already shown above)
lessons               10 %   related lessons, negative outcomes first (what to avoid)
entities               5 %   entities the task names (by name or alias)
notes                 10 %   related daily notes and HISTORY.md of the last 30 days
====================  =====  ===============================================================

Shares add up to more than 100 %: a section that needs less leaves the rest to the next ones.
Everything left out is listed in ``cut`` with the reason. ``max_chars`` adds a ceiling in
characters on top of the budget (parts that would pass it are cut the same way).

``layout="session"`` is the other arrangement, for the start of a session inside an agent client:
memory first, the skills as an index only, under a hard character ceiling (``session_context``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import Entity, Fact, Lesson
from .records import item_from_row
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
SKILL_SHARE_OF_BEST = 0.6  # a skill is shown in full only if it scores at least this share of the best
NOTES_DAYS_BACK = 30
HEADING_TOKENS = 40
HEADING_SHARE = 0.1
_OUTCOME_ORDER = {"negative": 0, "neutral": 1, "positive": 2}


@dataclass(frozen=True)
class Part:
    """One piece of a section: its text and where it came from."""

    text: str
    source: dict[str, Any]


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


class _Assembly:
    """Sections added in order within what is left of the budget (and of ``max_chars``)."""

    def __init__(self, task: str, budget: int, max_chars: int | None = None) -> None:
        self.task = task
        self.budget = budget
        self.max_chars = max_chars
        self.heading = heading(task, budget)
        self.sections: list[Section] = []
        self.cut: list[dict[str, Any]] = []
        self.used = count_tokens(_join(self.heading, []))
        self.chars = len(_join(self.heading, []))
        self.carry = 0  # what earlier sections left unused of their shares

    def chars_left(self) -> int:
        return (self.max_chars - self.chars) if self.max_chars is not None else MAX_CHARS

    def allowance(self, name: str) -> int:
        return min(self.budget - self.used, int(SHARES[name] * self.budget) + self.carry)

    def add(self, name: str, parts: Sequence[Part], *, title: str | None = None) -> None:
        """Add, in order, each part that still fits the section's allowance (a part that does not is
        listed in ``cut``); what the section leaves unused passes on to the next one."""
        title = title or TITLES[name]
        heading = f"## {title}"
        allowance = self.allowance(name)
        cost = count_tokens(heading) + 2  # the heading line and the blank line before the section
        chars, room = len(heading) + 2, self.chars_left()
        kept: list[Part] = []
        for part in parts:
            extra = count_tokens(part.text) + 1
            if cost + extra > allowance:
                self.cut.append({"section": name, "what": _label(part),
                                 "reason": f"needs {extra} tokens; {max(0, allowance - cost)} left for {title.lower()}"})
                continue
            if chars + len(part.text) + 1 > room:
                self.cut.append({"section": name, "what": _label(part),
                                 "reason": f"needs {len(part.text) + 1} characters; {max(0, room - chars)} left "
                                           f"of max_chars {self.max_chars}"})
                continue
            kept.append(part)
            cost += extra
            chars += len(part.text) + 1
        before = self.used
        if kept:
            text = heading + "\n" + "\n".join(p.text for p in kept)
            self.sections.append(Section(name, title, text, count_tokens(text), tuple(p.source for p in kept)))
            self.used = count_tokens(self._markdown())
            self.chars = len(self._markdown())
        if SHARES[name] < 1:  # a section that may take everything left passes on what came to it
            self.carry = max(0, allowance - (self.used - before))

    def _markdown(self) -> str:
        return _join(self.heading, [s.text for s in self.sections])

    def finish(self) -> Context:
        # the parts were counted one by one; if joining them cost more, drop from the end until it fits
        while self.sections and (self.used > self.budget or self.chars_left() < 0):
            gone = self.sections.pop()
            self.cut.append({"section": gone.name, "what": gone.title, "reason": "the whole context was over budget"})
            self.used = count_tokens(self._markdown())
            self.chars = len(self._markdown())
        return Context(self.task, self.budget, tuple(self.sections), tuple(self.cut), self.heading,
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
    _facts(kb, ctx, task, scope, shown)
    _lessons(kb, ctx, task, scope)
    _entities(kb, ctx, task, scope)
    _notes(kb, ctx, task, scope)
    return ctx.finish()


def _hot(kb: Kenning, ctx: _Assembly, scope: str) -> None:
    entries = kb.hot_in(scope).entries()
    parts = []
    for entry in entries:
        parts.append(Part(f"- {entry.text}", {"id": entry.item_id, "file": _hot_file(entry.section),
                                              "section": entry.section}))
    ctx.add("hot", parts)


def _hot_file(section: str) -> str:
    from .tiers.hotfile import BY_KEY

    return BY_KEY[section].file


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
    from .relevance import DEFAULT_MIN_RELEVANCE

    found = kb.skills.skills_search(task, MAX_SKILLS)["skills"]
    # a skill is loaded in full only when it is likely relevant: the best of nothing stays in the catalog
    matches = [s for s in found if not s["always"] and s["relevance"] >= DEFAULT_MIN_RELEVANCE]
    parts = []
    for match in matches:
        if match["score"] < SKILL_SHARE_OF_BEST * matches[0]["score"]:
            break
        view = kb.skills.skill_view(match["name"])
        parts.append(Part(f"### {view['name']} ({view['path']})\n{view['content'].strip()}",
                          {"name": view["name"], "path": view["path"], "score": match["score"]}))
    ctx.add("skills", parts)


def _facts(kb: Kenning, ctx: _Assembly, task: str, scope: str, shown: set[str]) -> None:
    parts = []
    for hit in kb.recall(task, k=10, scope=scope, kinds=["fact"]):
        fact = hit.item
        if not isinstance(fact, Fact) or fact.id in shown:
            continue
        when = fact.updated_at.date().isoformat() if fact.updated_at else ""
        parts.append(Part(f"- {fact.content} ({when})", {"id": fact.id, "score": round(hit.score, 3)}))
    ctx.add("facts", parts)


def _lessons(kb: Kenning, ctx: _Assembly, task: str, scope: str) -> None:
    hits = [h for h in kb.recall(task, k=5, scope=scope, kinds=["lesson"]) if isinstance(h.item, Lesson)]
    hits.sort(key=lambda h: _OUTCOME_ORDER.get(h.item.outcome, 1))  # type: ignore[union-attr]
    parts = []
    for hit in hits:
        lesson = hit.item
        assert isinstance(lesson, Lesson)
        parts.append(Part(f"- [{lesson.outcome}] {lesson.context}: {lesson.action} -> {lesson.insight}",
                          {"id": lesson.id, "outcome": lesson.outcome}))
    ctx.add("lessons", parts)


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
    parts = []
    for entity in mentioned_entities(kb, task, scope):
        attrs = ", ".join(f"{k}: {v}" for k, v in entity.attributes.items())
        extra = "; ".join(x for x in (attrs, entity.notes) if x)
        kind = f" ({entity.entity_kind})" if entity.entity_kind else ""
        parts.append(Part(f"- {entity.name}{kind}" + (f": {extra}" if extra else ""), {"id": entity.id}))
    ctx.add("entities", parts)


def _notes(kb: Kenning, ctx: _Assembly, task: str, scope: str) -> None:
    parts = []
    for hit in kb.notes_in(scope).search(task, days_back=NOTES_DAYS_BACK, k=5):
        stamp = " ".join(x for x in (hit.date.isoformat() if hit.date else "",
                                     hit.time.strftime("%H:%M") if hit.time else "") if x)
        parts.append(Part(f"- [{stamp}] {' '.join(hit.text.split())}", {"id": hit.id, "score": round(hit.score, 3)}))
    ctx.add("notes", parts)

