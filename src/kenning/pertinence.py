"""Which memories an agent about to do a task should see: pertinence, not only relevance.

Recall's relevance (``kenning.retrieval.relevance``) answers "does this memory answer the question?". A task
such as "deploy the web app" asks no question, and what serves it most is often what answers none:
the warning "never deploy on Friday afternoon", the user's preference for short updates, the
lesson from the last migration. Context assembly, in both layouts, asks instead "should an agent
about to do this see it?", and brings a memory in by the first of these rules that holds, which
its ``why`` names:

* ``relevant``: its relevance reaches ``RELEVANT`` (it likely answers the task as a question; recall's
  own floor, ``kenning.retrieval.relevance.DEFAULT_MIN_RELEVANCE``, keeps far more, for a caller who reads
  the relevance of each hit);
* ``words``: it holds the task's content words (at least ``WORDS_MIN_SHARE`` of their weight) and its
  meaning is at least ``WORDS_MIN_Z`` spreads above unrelated memories, so that a shared everyday
  word alone ("python" the language and the snake) brings in less; a warning needs only
  ``WARNING_WORDS_MIN_Z``;
* ``meaning``: it is among the ``NEAR_RANK`` nearest in meaning, at least ``NEAR_MIN_Z`` spreads above
  unrelated memories of its language (``kenning.retrieval.mixed``): a paraphrase or a symptom of its cause
  ("why was my build stopped after half an hour" for "CI jobs are killed after 30 minutes").

Among the pertinent, warnings come first: pitfalls, lessons with a negative outcome, the user's
preferences, pinned facts and rules said with emphasis (importance ``WARNING_IMPORTANCE`` or more);
then the rest, each group by recall's score. A task about nothing the store holds meets none of
the rules most of the time, not always: the default embedder (multilingual-e5-small) puts some
unrelated questions as near as real paraphrases in another language, and the rules were set to
keep the warnings (the figures are below and in ``bench/everyday.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .embed import Embedder
from .models import Fact, Lesson
from .retrieval import Filters, RecallHit, recall
from .store import Store
from .timeutil import to_epoch, utcnow

# Set on the dev split of ``bench/everyday.py`` (context recall of pertinent items / off-topic cases
# whose context shows a memory): these 77.6% / 20 of 53, recall's old floor in the context 77.6% / 21
# (on the test split its Chinese null let 16 of 17 Chinese off-topic tasks through); a stricter bar
# traded recall for silence (a relevance of 0.15: 71.0% / 18; 0.2: 67.1% / 15).
RELEVANT = 0.1  # a hit this likely to answer the task as a question (``kenning.retrieval.relevance``)
WORDS_MIN_SHARE = 0.2
WORDS_MIN_Z = 0.0
WARNING_WORDS_MIN_Z = -1.0  # a warning that names the task's action needs less: e5 puts "never deploy
# on Friday" no nearer to "deploy the web app" than unrelated text (0.1 spreads)
NEAR_RANK = 3
NEAR_MIN_Z = 1.5
WARNING_CATEGORIES = ("pitfall", "user_pref")
# a fact this important is a rule said with emphasis ("never", "always", "必须") or said again and again
# (``kenning.gate.importance``): a warning whatever its category
WARNING_IMPORTANCE = 0.7


@dataclass(frozen=True)
class Pertinent:
    """A recall hit an agent doing the task should see, and the rule that brought it in."""

    hit: RecallHit
    rule: str  # "relevant", "words", "meaning"; or "nearest" (the session layout's weak task, below)
    warning: bool  # a pitfall, a negative lesson, a preference, a pinned or emphatic fact: shown first

    @property
    def why(self) -> str:
        hit = self.hit
        if self.rule == "relevant":
            reason = f"relevant {hit.relevance:.2f}"
        elif self.rule == "words":
            reason = f"holds the task's words ({hit.word_share:.0%} of them)"
        elif self.rule == "nearest":
            reason = "among the nearest to the session's task"
        else:
            reason = f"near in meaning ({hit.z:.1f} spreads above unrelated memories)"
        kind = warning_label(hit)
        return f"{kind}: {reason}" if kind else reason


def warning_label(hit: RecallHit) -> str:
    """What makes a memory a warning for the task ("pitfall", "negative lesson", …), or ""."""
    item = hit.item
    if isinstance(item, Lesson):
        return "negative lesson" if item.outcome == "negative" else ""
    if isinstance(item, Fact):
        if item.category in WARNING_CATEGORIES:
            return item.category.replace("_", " ")
        if item.pinned:
            return "pinned"
        if item.importance >= WARNING_IMPORTANCE:
            return "emphatic"
    return ""


def rule_of(hit: RecallHit, nearness: int, floor: float) -> str:
    """The first rule that brings ``hit`` in ("" for none); ``nearness`` is its rank by meaning."""
    if hit.relevance >= floor:
        return "relevant"
    lowest = WARNING_WORDS_MIN_Z if warning_label(hit) else WORDS_MIN_Z
    if hit.word_share >= WORDS_MIN_SHARE and hit.z >= lowest:
        return "words"
    if nearness <= NEAR_RANK and hit.z >= NEAR_MIN_Z:
        return "meaning"
    return ""


def pertinent(hits: Sequence[RecallHit], floor: float) -> list[Pertinent]:
    """The hits (recalled with no floor, best first) an agent doing the task should see, warnings
    first, each group in recall's order."""
    by_meaning = sorted(range(len(hits)), key=lambda i: -hits[i].z)
    nearness = {i: rank for rank, i in enumerate(by_meaning, 1)}
    out = []
    for i, hit in enumerate(hits):
        rule = rule_of(hit, nearness[i], floor)
        if rule:
            out.append(Pertinent(hit, rule, bool(warning_label(hit))))
    return sorted(out, key=lambda p: not p.warning)  # stable: recall's order within each group


def task_hits(store: Store, embedder: Embedder, task: str, *, scope: str, kinds: Sequence[str], k: int) -> list[RecallHit]:
    """The ``k`` memories of ``kinds`` recall ranks best for ``task``, with no floor and counting no
    access (``count_accesses`` counts those shown)."""
    return list(recall(store, embedder, task, k=k, scope=scope, filters=Filters(kinds=tuple(kinds)), touch=False))


def count_accesses(store: Store, shown: Sequence[Pertinent]) -> None:
    """Count an access on each memory shown, as recall counts what it returns."""
    rows = (store.get(p.hit.item.id) for p in shown)
    store.touch([int(r["rowid"]) for r in rows if r is not None], to_epoch(utcnow()))

