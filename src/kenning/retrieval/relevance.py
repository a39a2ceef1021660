"""How likely one recall hit is relevant, from evidence about that hit alone.

The fused score (``retrieval.fusion``) ranks the candidates of one query against each other: the
best candidate of a store that holds nothing on the subject still scores high. ``relevance`` answers
the absolute question, comparable across queries and stores, from three pieces of evidence that
do not depend on the other candidates:

* ``z``: the raw cosine standardised by the *null* for the pair (query language, passage language):
  what cosines of unrelated text look like for the default embedder (multilingual-e5-small). The
  embedder is biased by language (a Chinese question scores unrelated Chinese passages ~0.1 higher
  than unrelated English ones), so one cosine threshold cannot serve every pair; a z does.
* ``share``: the IDF-weighted share of the query's terms the passage holds (``fusion.word_share``).
* their agreement, ``max(z, 0) * share``: both kinds of evidence pointing the same way.

``relevance = sigmoid(b0 + b1 * z + b2 * share + b3 * agreement)``, with coefficients fitted by
logistic regression on the dev split of the memory sets: the even-numbered LoCoMo conversations and
sampled MemDaily users (``bench/relevance.py``'s ``dev`` split), each query asked of its own store
(gold hits positive, the rest negative) and of a foreign store, another conversation or user half the
list away (every hit negative). The odd-numbered ones are the test split. Fitted with

    python bench/relevance.py --fit

which prints this module's constants (``--null`` also measures the null again). The null was
measured on unrelated text: each query's cosine with every passage of a foreign store (MetaTool
questions against Seal-Tools and back, MemDaily questions against another user's messages), across
languages MetaTool questions against MemDaily messages and back, and XQuAD questions, in both
languages, against the paragraphs that do not answer them; the mean and standard deviation per
language pair, averaged over the sources that have the pair. Measured again with LoCoMo questions
in place of MetaTool's, the en->zh null narrows to 0.703 / 0.022 (paragraphs and chat messages)
and then credits short Chinese facts against an English question as if they were paragraphs
(unrelated ones reach relevance 0.1); the wider null, which spans kinds of text, is kept.

Another embedder has other nulls: for a store whose embedder is not the default, ``z`` still uses
these constants (a best effort, documented in the README); the floor may need ``min_relevance``.
"""

from __future__ import annotations

import math

from ..text import Language
from ..text import language as language  # the language of a text, as the null's pairs name it; imported from here too

# (query language, passage language) -> (mean, standard deviation) of the cosine of unrelated text.
# Each pair averages its sources (mean, and sd from the averaged second moment, so it includes the
# spread between kinds of text): en->en XQuAD paragraphs (0.743 / 0.025), MetaTool questions against
# Seal-Tools (0.793 / 0.021) and back (0.789 / 0.020); en->zh XQuAD (0.699 / 0.023) and MetaTool
# questions against MemDaily messages (0.756 / 0.023); zh->en XQuAD (0.719 / 0.022) and MemDaily
# questions against MetaTool (0.751 / 0.024); zh->zh XQuAD (0.815 / 0.020; MemDaily's 886 cosines
# were too few to count). Short texts score higher than paragraphs against the same question.
NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.775, 0.0316),
    ("en", "zh"): (0.7273, 0.0363),
    ("zh", "en"): (0.7351, 0.0281),
    ("zh", "zh"): (0.8152, 0.0196),
}

# sigmoid(B0 + B_Z * z + B_SHARE * share + B_AGREE * max(z, 0) * share), fitted on the dev split
B0 = -6.355
B_Z = 1.496
B_SHARE = 6.271
B_AGREE = -1.477

# The default floor of ``Kenning.recall``: the highest at which dev R@10, averaged over the memory
# sets, drops by at most 2 points (``bench/relevance.py --fit``). It empties the answer to a query
# about nothing the store holds ("quantum banana telescope"), and to 71% of LoCoMo questions asked of
# another conversation (test split); another MemDaily user's memories, written from the same
# templates, still answer most of theirs (see the README).
DEFAULT_MIN_RELEVANCE = 0.02


def cosine_z(cosine: float, query_language: Language, passage_language: Language) -> float:
    """How many null standard deviations a cosine lies above unrelated text of the same pair."""
    mean, sd = NULL[(query_language, passage_language)]
    return (cosine - mean) / sd


def shown(probability: float) -> float:
    """A relevance as every face shows it (4 decimals): a floor set to a shown value keeps that hit."""
    return round(probability, 4)


def relevance_of(z: float, share: float) -> float:
    """The calibrated probability that a hit with this evidence is relevant, in [0, 1]."""
    logit = B0 + B_Z * z + B_SHARE * share + B_AGREE * max(z, 0.0) * share
    if logit < -40:  # exp overflows well before a probability this small matters
        return 0.0
    return shown(1.0 / (1.0 + math.exp(-logit)))


def relevance(cosine: float | None, share: float, query_language: Language, passage_language: Language) -> float:
    """``relevance_of`` a hit's raw cosine (None: the hit has no vector) and word share."""
    if cosine is None:
        z = 0.0  # no vector: its meaning is unknown, taken as that of unrelated text; the words speak
    else:
        z = cosine_z(cosine, query_language, passage_language)
    return relevance_of(z, share)
