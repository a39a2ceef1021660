"""Near-duplicate pairs in a whole library, across languages, each with a merge suggestion.

Measured with the default embedder on 13 English skill descriptions (real ones such as Anthropic's
``pdf``, ``docx``, ``pptx``, ``xlsx``, and devops procedures), 11 Chinese translations of them and 6
Chinese rewordings of those (the language is told by the share of CJK letters in the description):

- two English skills are a pair when ``DuplicateFinder`` calls them near-duplicates
  (``NEAR_DUPLICATE``, 0.92, measured on English pairs: see ``duplicates``);
- two Chinese skills score higher alike: rewordings 0.939-0.979, related but different skills up to
  0.928 (``ppt`` beside ``word``), so they need ``CHINESE`` (0.935);
- across languages the same procedure scores far lower, and not apart from related skills: the 11
  translations 0.852-0.918, other pairs up to 0.864. So a cross-language pair needs
  ``CROSS_LANGUAGE`` (0.85) *and* to be each other's best match in the other language: that found
  all 11 translations and none of the 132 other cross-language pairs.

The pair's suggestion keeps the skill that is used more (a read-only one when only one of them can
be changed) and folds the other into it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..passages import PassageVectors
from .duplicates import CHINESE_NEAR_DUPLICATE as CHINESE
from .duplicates import DuplicateFinder, is_cjk
from .model import Skill
from .text import passage

if TYPE_CHECKING:
    from .curate import Mark

CROSS_LANGUAGE = 0.85
READ_ONLY = ("builtin", "extra")


@dataclass(frozen=True)
class Pair:
    """Two skills that say the same thing: ``merge`` folds into ``keep``."""

    keep: Skill
    merge: Skill
    similarity: float
    cross_language: bool

    @property
    def suggestion(self) -> str:
        keep, merge = self.keep, self.merge
        if merge.source in READ_ONLY:
            return (f"both are read-only ({keep.source}, {merge.source}); keep one by removing the other's folder "
                    "from the extra skill folders, or leave both")
        text = (f"merge {merge.qualified} into {keep.qualified}: move the steps only {merge.name!r} has into "
                f"{keep.name!r} (`kenning skill patch {keep.qualified} …`), then delete {merge.qualified} "
                "(its history keeps it)")
        if keep.source in READ_ONLY:
            text = (f"{keep.qualified} is read-only: keep it, and delete {merge.qualified} unless it adds steps "
                    f"{keep.name!r} lacks (its history keeps it)")
        if self.cross_language:
            text += (f"; they are one procedure in two languages: add the wording of {merge.name!r} to the description "
                     "you keep, so tasks in either language still find it")
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"keep": _side(self.keep), "merge": _side(self.merge), "similarity": round(self.similarity, 3),
                "cross_language": self.cross_language, "suggestion": self.suggestion}


def _side(skill: Skill) -> dict[str, str]:
    return {"name": skill.name, "source": skill.source, "path": str(skill.path), "qualified": skill.qualified}


class _Unsaved(PassageVectors):
    """Passage vectors that never write to the store: a dry run changes nothing, not even a cache."""

    def of(self, texts: Sequence[str], progress: Callable[[int], None] | None = None, *,
           persist: bool = True, queries: bool = False) -> Any:
        return super().of(texts, progress, persist=False, queries=queries)


def near_duplicates(finder: DuplicateFinder, skills: Sequence[Skill], marks: Mapping[Path, Mark] | None = None, *,
                    persist: bool = True, progress: Callable[[int, int], None] | None = None) -> list[Pair]:
    """Every near-duplicate pair among ``skills``, most alike first (``progress(done, total)`` while
    the descriptions are embedded; each is embedded once and kept)."""
    vectors = finder.vectors if persist else _Unsaved(finder.vectors.store, finder.vectors.embedder)
    wide = DuplicateFinder(vectors, threshold=min(finder.threshold, CROSS_LANGUAGE))
    texts = [passage(s.name, s.description) for s in skills]
    total = len(texts)
    vectors.of(texts, (lambda done: progress(done, total)) if progress else None)  # the slow part, once
    chinese = [is_cjk(s.description) for s in skills]
    same: dict[tuple[int, int], float] = {}
    best_across: dict[int, tuple[int, float]] = {}
    position = {id(s): i for i, s in enumerate(skills)}
    for i, skill in enumerate(skills):
        others = [s for s in skills if s is not skill]
        for hit in wide.similar(skill.name, skill.description, others):
            j = position[id(hit.skill)]
            if chinese[i] == chinese[j]:
                if hit.similarity >= (max(finder.threshold, CHINESE) if chinese[i] else finder.threshold):
                    same[(min(i, j), max(i, j))] = hit.similarity
            elif i not in best_across:  # hits come most alike first
                best_across[i] = (j, hit.similarity)
    across = {(min(i, j), max(i, j)): sim for i, (j, sim) in best_across.items()
              if best_across.get(j, (-1, 0.0))[0] == i}
    pairs = [_pair(skills[i], skills[j], sim, False, marks) for (i, j), sim in same.items()]
    pairs += [_pair(skills[i], skills[j], sim, True, marks) for (i, j), sim in across.items()]
    return sorted(pairs, key=lambda p: (-p.similarity, p.keep.name, p.merge.name))


def _pair(a: Skill, b: Skill, similarity: float, cross: bool, marks: Mapping[Path, Mark] | None) -> Pair:
    """Keep the one that cannot change, else the more used, else the one whose name sorts first."""

    def weight(skill: Skill) -> tuple[bool, int]:
        mark = marks.get(skill.path) if marks else None
        used = (mark.views + mark.outcomes - mark.failed) if mark else 0
        return (skill.source in READ_ONLY, used)

    if weight(a) == weight(b):
        keep, merge = sorted((a, b), key=lambda s: s.qualified)
    else:
        keep, merge = (a, b) if weight(a) > weight(b) else (b, a)
    return Pair(keep, merge, similarity, cross)
