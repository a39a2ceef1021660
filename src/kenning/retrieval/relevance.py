"""How likely one recall hit is relevant: a probability on one scale for every query and store.

The fused score (``retrieval.fusion``) ranks the candidates of one query against each other: the
best candidate of a store that holds nothing on the subject still scores high. ``relevance`` answers
the absolute question from evidence about the hit and the size of the search:

* ``z``: the raw cosine standardised by the store's own null for this query, blended with the
  shipped one (``retrieval.mixed``, ``QueryNull.relevance_z``): how far the hit stands out from the
  rest of its store, for text of its kind;
* ``shipped_z``: the cosine standardised by the shipped null alone (``NULL``, per language pair: the
  embedder scores unrelated Chinese text higher against a Chinese question than unrelated English
  text, so one cosine threshold cannot serve every pair): whether the store holds anything near the
  question at all;
* ``share``: the IDF-weighted share of the query's terms the passage holds (``fusion.word_share``), and
  its agreement with ``z``;
* ``rows``: how many memories were ranked, on a log scale: the same evidence says less in a large
  store, where more memories match any question by chance.

The coefficients are a logistic regression fitted by ``python bench/everyday.py --fit`` on the dev
split of kenning's everyday set (small stores in English, Chinese and both: questions, paraphrases,
symptoms, tasks and off-topic questions) with LoCoMo, MemDaily and XQuAD; the test split measures it
(``docs/benchmarks.md``: expected calibration error 0.029 on the everyday test stores). ``python
bench/everyday.py --null`` measures the null of short memories again.

Another embedder has other nulls: for a store whose embedder is not the default, the z values still
use these constants (a best effort, documented in the README); the floor may need ``min_relevance``.
"""

from __future__ import annotations

import math

from ..text import Language
from ..text import language as language  # the language of a text, as the null's pairs name it; imported from here too

# (query language, passage language) -> (mean, standard deviation) of the cosine of unrelated text,
# the null a small store leans on (``kenning.retrieval.mixed`` blends in the store's own from its cosines, which
# decide from a few hundred memories on). Measured on short memories, the kind a small store holds:
# every dev question, task and off-topic case of ``bench/everyday.py --null`` against each item of its
# store not pertinent to it (3,396 / 1,211 / 1,176 / 3,017 pairs). The null measured before on
# paragraphs and tool texts (XQuAD, MetaTool, Seal-Tools, MemDaily) put en->zh at 0.727 and zh->zh
# at 0.815: short Chinese memories scored 1-2 of its deviations above it when unrelated, so an
# off-topic Chinese question passed the floor where an English one did not.
NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.7813, 0.0280),
    ("en", "zh"): (0.7651, 0.0278),
    ("zh", "en"): (0.7552, 0.0298),
    ("zh", "zh"): (0.8524, 0.0222),
}

# sigmoid(B0 + B_Z z + B_SHARE share + B_AGREE max(z, 0) share + B_SHIPPED_Z shipped_z + log(rows)
# (B_ROWS + B_ROWS_Z z + B_ROWS_SHARE share + B_ROWS_SHIPPED_Z shipped_z)), fitted by ``python
# bench/everyday.py --fit`` on the dev split of every set it has: the everyday stores of 5-50
# memories (twice the weight: the stores people have), LoCoMo conversations, MemDaily users and
# XQuAD within and across languages. ``z`` stands on the store's own null blended with the shipped
# one (``QueryNull.relevance_z``): it says how far a hit stands out from the rest of its store, which
# puts paragraphs and chat turns on the scale short memories were measured on (XQuAD en->zh lost 46
# points of Hit@1 to the floor on the shipped null alone). ``shipped_z`` stands on ``NULL`` alone: it
# says whether the store holds anything near the question at all, which the store's own null hides
# (an off-topic question lowers the store's median as much as its best hit: on ``z`` alone the best
# hit of a LoCoMo question told its own conversation from another one with AUROC 0.85, on both 0.97).
# ``rows`` is how many memories the search ranked (the scope, of the kinds asked for): the more a
# store holds, the more of them share a word or a meaning with any question by chance (fitted
# without it, relevance read 0.9 on XQuAD and LoCoMo for hits of which 0.4 were right: ECE 0.3).
B0 = -0.695
B_Z = 5.752
B_SHARE = 4.157
B_AGREE = -1.098
B_SHIPPED_Z = -4.244
B_ROWS = -1.009
B_ROWS_Z = -0.76
B_ROWS_SHARE = 0.289
B_ROWS_SHIPPED_Z = 0.747
# the store sizes the fit saw: a smaller or larger store is taken as one of these
ROWS_FLOOR = 5
ROWS_CEILING = 1000

# The default floor of ``Kenning.recall``: a step below the highest at which no set's dev R@10 or
# Hit@1 drops by more than 2 points (``bench/everyday.py --fit`` found 0.008, which cost XQuAD
# en->zh 2.5 points of R@10 on the test split; at 0.006 the most any set loses is 1.1 on dev, LoCoMo,
# and 0.3 on test). It keeps hits that are unlikely but not hopeless: e5-small puts some real answers in
# the other language no nearer than off-topic text, so a floor that empties the answer to an
# off-topic question in a small store would drop those answers too (``bench/everyday.py --floor``).
DEFAULT_MIN_RELEVANCE = 0.006


def cosine_z(cosine: float, query_language: Language, passage_language: Language) -> float:
    """How many null standard deviations a cosine lies above unrelated text of the same pair."""
    mean, sd = NULL[(query_language, passage_language)]
    return (cosine - mean) / sd


def shown(probability: float) -> float:
    """A relevance as every face shows it (4 decimals): a floor set to a shown value keeps that hit."""
    return round(probability, 4)


def relevance_of(z: float, shipped_z: float, share: float, rows: int) -> float:
    """The calibrated probability that a hit with this evidence, among ``rows`` ranked memories, is
    relevant, in [0, 1]."""
    size = math.log(min(max(rows, ROWS_FLOOR), ROWS_CEILING))
    logit = (B0 + B_Z * z + B_SHARE * share + B_AGREE * max(z, 0.0) * share + B_SHIPPED_Z * shipped_z
             + size * (B_ROWS + B_ROWS_Z * z + B_ROWS_SHARE * share + B_ROWS_SHIPPED_Z * shipped_z))
    if logit < -40:  # exp overflows well before a probability this small matters
        return 0.0
    return shown(1.0 / (1.0 + math.exp(-logit)))
