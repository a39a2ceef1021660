"""How likely a skill fits a task, from evidence about that skill alone.

A skill's fused ``score`` ranks the skills against each other: the best of a library that holds
nothing for the task still scores high. ``skill_relevance`` answers the absolute question, on one
scale for every task and library, the way ``kenning.retrieval.relevance`` does for memory recall, but
calibrated on its own kind of text: a task against a skill's "name: description" (like a tool
description) is not a question against a remembered sentence, and recall's constants drop real
paraphrases of a skill while passing noise. The evidence:

* ``z``: the raw cosine standardised by the *null* of task-vs-skill-description text for the
  pair (task language, description language): the cosines of tasks with the skills that do not
  fit them, for the default embedder;
* ``share``: the IDF-weighted share of the task's terms the skill holds (``SkillMatch.share``);
* ``bm25``: the task's BM25 in the skill over the most its terms could score (``SkillMatch.bm25``);
* their agreement, ``max(z, 0) * share``.

``skill_relevance = sigmoid(B0 + B_Z z + B_SHARE share + B_BM25 bm25 + B_AGREE max(z, 0) share)``,
fitted by logistic regression on the dev split of ``bench/skills_relevance.py --fit`` (which prints
these constants): MetaTool and Seal-Tools queries asked of their own library (gold skills
positive, the rest negative) and tasks no skill fits asked of both (LoCoMo and MemDaily
questions, everyday tasks written by hand in English and Chinese; every match negative).
"""

from __future__ import annotations

import math

from ..retrieval.relevance import shown
from ..text import Language

# (task language, skill language) -> (mean, sd) of the cosine of a task with a skill that does not
# fit it, for the default embedder (multilingual-e5-small). Measured on the tool sets (dev tasks):
# English tasks (LoCoMo questions 0.723-0.724, hand-written everyday tasks 0.765-0.773) and Chinese
# tasks (MemDaily questions 0.751-0.775, hand-written 0.751-0.777) against the MetaTool and
# Seal-Tools descriptions; the mean of the sources' means, the sd their root mean variance. The
# tool sets hold no Chinese descriptions, so the pairs with a Chinese skill take the null memory
# recall had when this was fitted (XQuAD paragraphs, MemDaily and tool texts across languages).
NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.7464, 0.0181),
    ("zh", "en"): (0.7635, 0.0201),
    ("en", "zh"): (0.7273, 0.0363),
    ("zh", "zh"): (0.8152, 0.0196),
}

# fitted on the dev split: the gold skills of the MetaTool, Seal-Tools and hand-written Chinese
# MetaTool tasks against the matches of tasks no skill fits. Chinese tasks that fit an English skill
# share no words with it, so the word share, which English fits lean on, earns almost no weight once
# they count; BM25 and the agreement term did not help (``bench/skills_relevance.py --features``).
B0 = -3.688
B_Z = 1.442
B_SHARE = 0.453
B_BM25 = 0.0
B_AGREE = 0.0

# The default floor of ``skills_search`` and of the catalog's "matching this task": the highest at
# which dev Hit@1 and R@5 of every real query set drop by at most 2 points. Test split, MetaTool's
# library: no skill for 80% of LoCoMo and 51% of MemDaily questions, 43% of the hand-written Chinese
# and none of the English everyday tasks; Hit@1 58.1 -> 58.1, R@5 77.3 -> 76.5 (Chinese tasks:
# 57.9 -> 52.6 and 84.2 -> 73.7, 19 tasks). See the README for what it does not do.
DEFAULT_SKILL_MIN_RELEVANCE = 0.335


def skill_z(cosine: float, task_language: Language, skill_language: Language) -> float:
    """How many null standard deviations a task-skill cosine lies above skills that do not fit."""
    mean, sd = NULL[(task_language, skill_language)]
    return (cosine - mean) / sd


def skill_relevance(cosine: float, share: float, bm25: float, task_language: Language,
                    skill_language: Language) -> float:
    """The calibrated probability, in [0, 1], that a skill with this evidence fits the task."""
    z = skill_z(cosine, task_language, skill_language)
    logit = B0 + B_Z * z + B_SHARE * share + B_BM25 * bm25 + B_AGREE * max(z, 0.0) * share
    if logit < -40:  # exp overflows well before a probability this small matters
        return 0.0
    return shown(1.0 / (1.0 + math.exp(-logit)))
