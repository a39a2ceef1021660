"""How likely a skill fits a task, from evidence about that skill, its library and its task.

A skill's fused ``score`` ranks the skills against each other: the best of a library that holds
nothing for the task still scores high. ``skill_relevance`` answers the absolute question, on one
scale for every task and library, as ``kenning.retrieval.relevance`` does for memory recall, from the
same kind of evidence, measured on skills:

* the cosine search rates by: the task's cosine with the skill above what the skill scores for any
  task of that language (``retrieval.typical``);
* ``z``: that cosine standardised by the library's own null for this task (the median and spread of
  the other skills' cosines, one shift for both languages, ``retrieval.mixed.pooled``), blended with
  the shipped null (``NULL``) by ``RELEVANCE_ROWS`` pseudo-rows: how far the skill stands out of its
  library, for this task;
* ``shipped_z``: the cosine standardised by the shipped null alone: whether the task is near any
  skill at all;
* ``share``: the IDF-weighted share of the task's terms the skill holds (``SkillMatch.share``);
* ``rows``: how many skills were ranked, on a log scale (clamped to the 5-5,000 the fit saw): the best
  of thousands of unrelated skills stands out more than the best of twenty.

The constants are a logistic regression fitted by ``python bench/skills_relevance.py --fit`` on the
dev split of four libraries: MetaTool (201 skills) and Seal-Tools (4,078), asked their own queries,
and the two libraries of ``bench/data/skills_everyday`` (seventeen skills shaped like the public
Anthropic ones; the 50 benign skills of the scanner's corpus, in English and Chinese), asked tasks
written for them in both languages; each also asked tasks no skill of it fits (LoCoMo and MemDaily
questions, everyday acts, and for the small libraries everyday digital requests: a flight, the
weather). A fitting task's gold skills are positive; every match of a task no skill fits, and the
other matches of a hand-written task (which names every skill that fits it), negative.
"""

from __future__ import annotations

import math

from ..retrieval.relevance import shown
from ..text import Language

# (task language, skill language) -> (mean, sd) of the rated cosine of a task with a skill that does
# not fit it, for the default embedder (multilingual-e5-small), measured by ``--fit`` on the dev
# tasks no skill fits: the mean of the sources' (library x task set) means, the sd their root mean
# variance. LoCoMo's questions are left out (long, about people by name, they score every skill
# about 0.04 below the short tasks an agent searches skills with).
NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.7247, 0.0209),
    ("zh", "en"): (0.7277, 0.0157),
    ("en", "zh"): (0.7266, 0.0188),
    ("zh", "zh"): (0.7355, 0.0128),
}

# pseudo-rows of the shipped null blended into what the library's skills score for this task:
# ranking (``retrieval.mixed``), and the null relevance reads (dev AUROC of the best match 0.979,
# 0.977 and 0.976 with 20, 50 and 100); a language with at least MIN_ROWS skills has its own centre and spread to rank by
RANKING_ROWS = 20
RELEVANCE_ROWS = 50
MIN_ROWS = 5

B0 = -5.354
B_Z = 5.63
B_SHIPPED_Z = -4.061
B_SHARE = 5.091
B_ROWS = -0.41
B_ROWS_Z = -0.896
B_ROWS_SHIPPED_Z = 1.01
B_ROWS_SHARE = 0.352
ROWS_FLOOR = 5
ROWS_CEILING = 5000

# The default floor of ``skills_search`` and of the catalog's "matching this task": the highest at
# which dev Hit@1 and R@5 of every query set drop by at most 2 points (or one query of a set too
# small to measure finer). What it does on the test split is in docs/benchmarks.md.
DEFAULT_SKILL_MIN_RELEVANCE = 0.08


def skill_z(cosine: float, task_language: Language, skill_language: Language) -> float:
    """How many shipped-null standard deviations a rated cosine lies above skills that do not fit."""
    mean, sd = NULL[(task_language, skill_language)]
    return (cosine - mean) / sd


def skill_relevance(z: float, shipped_z: float, share: float, rows: int) -> float:
    """The calibrated probability, in [0, 1], that a skill with this evidence, among ``rows`` visible
    skills, fits the task."""
    size = math.log(min(max(rows, ROWS_FLOOR), ROWS_CEILING))
    logit = (B0 + B_Z * z + B_SHIPPED_Z * shipped_z + B_SHARE * share
             + size * (B_ROWS + B_ROWS_Z * z + B_ROWS_SHIPPED_Z * shipped_z + B_ROWS_SHARE * share))
    if logit < -40:  # exp overflows well before a probability this small matters
        return 0.0
    return shown(1.0 / (1.0 + math.exp(-logit)))
