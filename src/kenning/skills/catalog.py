"""The skill index a model sees in its system prompt, within a token budget.

Every visible skill is one line, ``- name: description``, grouped by category; a skill that cannot
work here is marked with what it lacks, never hidden. When the lines do not fit the budget, in
this order:

1. descriptions are shortened evenly: every description longer than a common cap is cut to it,
   the cap as high as the budget allows (never below ``MIN_DESCRIPTION_TOKENS``);
2. then the descriptions of the skills matching the task, the same way with a cap of their own;
3. the skills of lowest priority are listed by name only (the caps then rise again to fill what
   that freed);
4. then left out, with a line that says how many and where to find them.

Priority: ``always`` skills (in use in every session: their descriptions are never shortened and
they are the last to go), then the skills matching the task (only those at or above the skill
relevance floor, ``skills.relevance``: a task no skill fits marks none), then the most used, then
by name.
Token counts come from ``kenning.tokens``.
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
ALWAYS = "always in use"
HEADER = "## Skills\nRead a skill with skill_view(name) before following it."


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    category: str | None
    missing: tuple[str, ...] = ()
    matched: bool = False  # matches the task: shortened only after every other description
    always: bool = False  # ``always: true``: keeps its whole description

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

    def described_cost(self, i: int, cap: int, matched_cap: int) -> int:
        """Tokens of entry ``i``'s line when described: always skills whole, matching ones up to
        ``matched_cap``, the rest up to ``cap``."""
        entry, own = self.entries[i], self.desc[i]
        return self.prefix[i] + (own if entry.always else min(own, matched_cap if entry.matched else cap))

    def total(self, described: int, shown: int, cap: int, matched_cap: int) -> int:
        """Tokens with the first ``described`` entries described, the next ones up to ``shown`` by
        name, the rest omitted."""
        cost = self.header + sum(self.heading[g] for g in set(self.group[:described]))
        cost += sum(self.described_cost(i, cap, matched_cap) for i in range(described))
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


@dataclass(frozen=True)
class Plan:
    described: int  # the first entries, described
    shown: int  # the next ones up to here, by name
    cap: int  # tokens of a description (not matching, not always)
    matched_cap: int  # tokens of a matching skill's description


def plan(costs: _Costs, budget: int) -> Plan:
    """The fullest catalog within ``budget``: every entry described with the highest caps that fit,
    else the fewest entries by name only (and the caps raised again into what that freed), else the
    fewest left out."""
    n = len(costs.entries)
    top = max(costs.desc, default=0)
    floor = min(MIN_DESCRIPTION_TOKENS, top)

    def fits(d: int, s: int, cap: int, matched_cap: int) -> bool:
        return costs.total(d, s, cap, matched_cap) <= budget

    always = sum(1 for e in costs.entries if e.always)  # they lead the priority order
    most = _largest(0, n, lambda d: fits(d, n, floor, floor))
    if most is not None and most >= always:
        described = most
        if described < n:  # some go by name: the always and matching skills first keep what they can
            first = sum(1 for e in costs.entries if e.always or e.matched)  # they lead the priority order
            lead = min(first, described)
            matched_cap = _largest(floor, top, lambda m: fits(lead, n, floor, m)) or floor
            described = _largest(lead, n, lambda d: fits(d, n, floor, matched_cap)) or lead
        else:
            matched_cap = _largest(floor, top, lambda m: fits(n, n, floor, m)) or floor
        cap = _largest(floor, top, lambda c: fits(described, n, c, max(c, matched_cap))) or floor
        return Plan(described, n, cap, max(cap, matched_cap))
    # not every skill can even be named: the always skills stay described, then as many names as fit
    kept = _largest(0, always, lambda d: fits(d, d, floor, floor))
    if kept is None:
        raise InvalidInput(f"a budget of {budget} tokens cannot hold even the catalog's header; "
                           f"give at least {costs.total(0, 0, floor, floor)} tokens")
    shown = _largest(kept, n, lambda s: fits(kept, s, floor, floor)) or kept
    return Plan(kept, shown, floor, floor)


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
        chosen = plan(costs, target)
        text = render(entries, chosen, costs, count)
        used = count(text)
        if used <= budget or target <= MIN_BUDGET:
            break
        target -= max(1, used - budget)  # the parts' counts did not add up exactly: plan for less
    described, shown = chosen.described, chosen.shown
    shortened = sum(1 for i in range(described) if costs.described_cost(i, chosen.cap, chosen.matched_cap)
                    < costs.prefix[i] + costs.desc[i])
    return Catalog(text, used, budget, len(entries), described - shortened, shortened, shown - described,
                   len(entries) - shown, tuple(e.name for e in entries[:described] if e.matched))


def _group(entry: Entry) -> str:
    return ALWAYS if entry.always else MATCHING if entry.matched else (entry.category or UNCATEGORISED)


def render(entries: Sequence[Entry], chosen: Plan, costs: _Costs, count: Callable[[str], int]) -> str:
    described, shown = chosen.described, chosen.shown
    groups: dict[str, list[str]] = {}
    for i, e in enumerate(entries[:described]):
        cap = costs.desc[i] if e.always else chosen.matched_cap if e.matched else chosen.cap
        text = shorten(e.description, cap, costs.desc[i], count)
        groups.setdefault(_group(e), []).append(f"- {e.name}{e.mark}: {text}")
    order = sorted(groups, key=lambda g: (g != ALWAYS, g != MATCHING, g == UNCATEGORISED, g))
    parts = [HEADER]
    for group in order:
        lines = groups[group] if group in (ALWAYS, MATCHING) else sorted(groups[group])
        parts.append(f"\n### {group}\n" + "\n".join(lines))
    if not entries:
        parts.append("\nNo skills yet: skill_manage(action='create', ...) adds one.")
    if shown > described:
        parts.append("\n" + _names_line(sorted(e.name for e in entries[described:shown])))
    if shown < len(entries):
        parts.append("\n" + _omitted_line(len(entries) - shown))
    return "\n".join(parts) + "\n"
