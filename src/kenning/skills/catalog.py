"""The skill index a model sees in its system prompt, within a token budget.

Every visible skill is one line, ``- name: description``, grouped by category; a skill that cannot
work here is marked with what it lacks, never hidden. When the lines do not fit the budget, in
this order:

1. descriptions are shortened evenly: every description longer than a common cap is cut to it,
   the cap as high as the budget allows (never below ``MIN_DESCRIPTION_TOKENS``);
2. the skills of lowest priority are listed by name only;
3. then left out, with a line that says how many and where to find them.

Priority: skills that match the task (their descriptions are never shortened), then ``always``
skills, then the most used, then by name. Token counts come from ``kenning.tokens``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..tokens import count_tokens

MIN_DESCRIPTION_TOKENS = 12
MIN_BUDGET = 40
MAX_BUDGET = 200_000
ELLIPSIS = "…"
UNCATEGORISED = "other"
MATCHING = "matching this task"
HEADER = "## Skills\nRead a skill with skill_view(name) before following it."


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    category: str | None
    missing: tuple[str, ...] = ()
    matched: bool = False  # matches the task: keeps its whole description

    @property
    def mark(self) -> str:
        return f" (unavailable: needs {', '.join(self.missing)})" if self.missing else ""


@dataclass(frozen=True)
class Catalog:
    text: str
    tokens: int
    budget_tokens: int
    total: int
    full: int
    shortened: int
    name_only: int
    omitted: int
    matched: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "text": self.text, "tokens": self.tokens, "budget_tokens": self.budget_tokens,
                "skills": self.total, "full": self.full, "shortened": self.shortened, "name_only": self.name_only,
                "omitted": self.omitted, "matched": list(self.matched)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        return cls(str(data["text"]), int(data["tokens"]), int(data["budget_tokens"]), int(data["skills"]),
                   int(data["full"]), int(data["shortened"]), int(data["name_only"]), int(data["omitted"]),
                   tuple(data["matched"]))


def check_budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidInput(f"budget_tokens must be a whole number from {MIN_BUDGET} to {MAX_BUDGET:,}, got {budget!r}")
    return budget


def _names_line(names: Sequence[str]) -> str:
    return "Also available, by name only: " + ", ".join(names)


def _omitted_line(count: int) -> str:
    return f"{count} more skill{'s' if count != 1 else ''} not shown: skills_list lists every skill."


class _Costs:
    """Token costs of the parts of a catalog, counted once per entry."""

    def __init__(self, entries: Sequence[Entry], count: Callable[[str], int]) -> None:
        self.entries = entries
        self.header = count(HEADER) + 1
        self.group = [_group(e) for e in entries]
        self.heading = {g: count(f"### {g}") + 2 for g in set(self.group)}
        self.prefix = [count(f"- {e.name}{e.mark}: ") + 1 for e in entries]
        self.desc = [count(e.description) for e in entries]
        self.name = [count(e.name) + 2 for e in entries]
        self.names_line = count(_names_line([])) + 1
        self.omitted_line = count(_omitted_line(len(entries))) + 1

    def total(self, described: int, shown: int, cap: int) -> int:
        """Tokens with the first ``described`` entries described (capped at ``cap`` unless matched),
        the next ones up to ``shown`` by name, the rest omitted."""
        cost = self.header + sum(self.heading[g] for g in set(self.group[:described]))
        for i in range(described):
            own = self.desc[i]
            cost += self.prefix[i] + (own if self.entries[i].matched else min(own, cap))
        if shown > described:
            cost += self.names_line + sum(self.name[described:shown])
        if shown < len(self.entries):
            cost += self.omitted_line
        return cost


def _largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
    """The largest n in [lo, hi] with ok(n), ok being monotone (true up to some n); None if ok(lo) fails."""
    if not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def plan(costs: _Costs, budget: int) -> tuple[int, int, int]:
    """(described, shown, cap) of the fullest catalog within ``budget``."""
    n = len(costs.entries)
    top = max(costs.desc, default=0)
    floor = min(MIN_DESCRIPTION_TOKENS, top)
    if costs.total(n, n, top) <= budget:
        return n, n, top
    cap = _largest(floor, top, lambda c: costs.total(n, n, c) <= budget)
    if cap is not None:
        return n, n, cap
    described = _largest(0, n, lambda d: costs.total(d, n, floor) <= budget)
    if described is not None:
        cap = _largest(floor, top, lambda c: costs.total(described, n, c) <= budget) or floor
        return described, n, cap
    shown = _largest(0, n, lambda s: costs.total(0, s, floor) <= budget)
    if shown is None:
        raise InvalidInput(f"a budget of {budget} tokens cannot hold even the catalog's header; "
                           f"give at least {costs.total(0, 0, floor)} tokens")
    return 0, shown, floor


def shorten(text: str, cap: int, tokens: int, count: Callable[[str], int]) -> str:
    """``text`` cut to at most ``cap`` tokens (``tokens``: its own count), at a word boundary when
    it has spaces, ending with an ellipsis."""
    if tokens <= cap:
        return text
    chars = max(1, int(len(text) * cap / tokens))
    while chars > 1:
        cut = text[:chars]
        if " " in cut[chars // 2 :]:
            cut = cut[: cut.rindex(" ")]
        cut = cut.rstrip(" ,;:.-") + ELLIPSIS
        if count(cut) <= cap:
            return cut
        chars = int(chars * 0.85)
    return text[:1] + ELLIPSIS


def build(entries: Sequence[Entry], budget: int, count: Callable[[str], int] = count_tokens) -> Catalog:
    """The catalog of ``entries`` (in priority order) within ``budget`` tokens."""
    budget = check_budget(budget)
    costs = _Costs(entries, count)
    target = budget
    while True:
        described, shown, cap = plan(costs, target)
        text = render(entries, described, shown, cap, costs, count)
        used = count(text)
        if used <= budget or target <= MIN_BUDGET:
            break
        target -= max(1, used - budget)  # the parts' counts did not add up exactly: plan for less
    shortened = sum(1 for i in range(described) if not entries[i].matched and costs.desc[i] > cap)
    return Catalog(text, used, budget, len(entries), described - shortened, shortened, shown - described,
                   len(entries) - shown, tuple(e.name for e in entries[:described] if e.matched))


def _group(entry: Entry) -> str:
    return MATCHING if entry.matched else (entry.category or UNCATEGORISED)


def render(entries: Sequence[Entry], described: int, shown: int, cap: int, costs: _Costs,
           count: Callable[[str], int]) -> str:
    groups: dict[str, list[str]] = {}
    for i, e in enumerate(entries[:described]):
        text = e.description if e.matched else shorten(e.description, cap, costs.desc[i], count)
        groups.setdefault(_group(e), []).append(f"- {e.name}{e.mark}: {text}")
    order = sorted(groups, key=lambda g: (g != MATCHING, g == UNCATEGORISED, g))
    parts = [HEADER]
    for group in order:
        lines = groups[group] if group == MATCHING else sorted(groups[group])
        parts.append(f"\n### {group}\n" + "\n".join(lines))
    if not entries:
        parts.append("\nNo skills yet: skill_manage(action='create', ...) adds one.")
    if shown > described:
        parts.append("\n" + _names_line(sorted(e.name for e in entries[described:shown])))
    if shown < len(entries):
        parts.append("\n" + _omitted_line(len(entries) - shown))
    return "\n".join(parts) + "\n"
