"""The one ranking of a query's candidates, for memory recall, notes search and skill search.

Each source finds its candidates its own way (the store's vector and full-text indexes, the
paragraphs of the notes searched, the visible skills) and measures what each offers the query: a
``Candidate``. The ranker scores them the same way for all three:

* *meaning*: the cosine, on the scale the source ranks by, rescaled between the weakest (0) and the
  strongest (1) of the candidates nearest in meaning (``fusion.rescale``);
* *words*: the candidate's word evidence; a candidate in the other language than the query's cannot
  hold the query's words, so only those that read the same in any language count (names, numbers),
  raised to the credit its meaning earns (``cross_language_share``) when candidates of the query's
  language compete with it;
* the score: ``fusion.fuse`` of the two, with the source's lexical weight.

It gives a hit its relevance on recall's calibration (``retrieval.relevance``) and writes the ``why``
every hit shows. What differs is the source's and passed in: the scale (the per-language null of the
rows searched, ``retrieval.mixed``, with the shipped null of the source's kind of text; skills rate
the cosines above each skill's typical one, ``retrieval.typical``), the word evidence (the share of
the query's words; skills: BM25 relative to the best skill), the lexical weight, and all that comes
after the score (memory's filters and prior, each source's tie-breaks, skills' own calibration).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text import Language
from .fusion import fuse, rescale
from .mixed import QueryNull
from .relevance import cosine_z, relevance_of

# The word share credited to a memory in the other language than the query's, by how many spreads
# its cosine lies above the store's unrelated memories of its language (retrieval.mixed; see
# cross_language_share). Measured with bench/mixed_language.py (Hit@1 on the XQuAD store with half the
# articles in each language, one-language stores 81.9; then MemDaily with 200 LoCoMo turns, dense 90.0):
# full credit from 2 to 5 spreads 81.6 / 87.0, from 2.5 to 5 79.8 / 92.0, from 2.5 to 6 78.9 / 94.0,
# from 3 to 5 77.1 / 96.0. The English turns are unrelated to every MemDaily question, but 200 of them
# put their best at 2.5-3 spreads; XQuAD's cross-language answers lie far above that.
CROSS_LANGUAGE_SHARE = 1.0
CROSS_LANGUAGE_Z_FROM = 2.5
CROSS_LANGUAGE_Z_FULL = 5.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """What one candidate offers the query, as its source measured it."""

    cosine: float | None  # its raw cosine with the query; None: it has no vector
    scaled: float | None  # that cosine on the scale the source ranks by (None: no vector)
    language: Language
    words: float  # its word evidence, in [0, 1]
    # the share of the query's words it holds that read the same in any language
    # (``kenning.text.neutral_terms``): what counts when it is in the other language
    neutral: float = 0.0
    nearest: int | None = None  # its rank among the nearest in meaning, which set the scale; None: not among them


@dataclass(frozen=True)
class Ranker:
    """How one query ranks its candidates: its language, the weight of words against meaning, and
    what unrelated text of each language scores for it (``null``; None for a source without one,
    whose candidates' words count as they are, whatever their language)."""

    query_language: Language
    lexical_weight: float
    null: QueryNull | None = None
    rows: int = 0  # how many candidates were searched: relevance weighs the evidence by it

    def scores(self, candidates: Sequence[Candidate]) -> list[float]:
        """The score of each candidate in [0, 1], in their order."""
        nearest = [c.scaled for c in candidates if c.nearest is not None and c.scaled is not None]
        lo, hi = (min(nearest), max(nearest)) if nearest else (0.0, 1.0)
        # the credit levels a candidate in the other language against candidates in the query's;
        # among candidates all in the other language it would only blur the words they do share
        # (names, numbers): XQuAD zh->en Hit@1 69.2 without it, 68.1 with it
        level = any(c.language == self.query_language for c in candidates)
        return [fuse(rescale(c.scaled, lo, hi), self._words(c, level), self.lexical_weight) for c in candidates]

    def z(self, candidate: Candidate) -> float:
        """How many spreads its cosine lies above unrelated text of its language, for this query, on
        the null relevance reads (``QueryNull.relevance_z``); 0 (that of unrelated text) without a
        vector: its meaning is unknown, the words speak."""
        if candidate.cosine is None or self.null is None:
            return 0.0
        return self.null.relevance_z(candidate.cosine, candidate.language)

    def relevance(self, candidate: Candidate, share: float) -> float:
        """The probability that the candidate is relevant, holding ``share`` of the query's words, on
        recall's calibration (``retrieval.relevance``; skills have their own, ``skills.relevance``)."""
        shipped = 0.0 if candidate.cosine is None else cosine_z(candidate.cosine, self.query_language,
                                                                candidate.language)
        return relevance_of(self.z(candidate), shipped, share, self.rows)

    def _z(self, candidate: Candidate) -> float | None:
        if candidate.cosine is None or self.null is None:
            return None
        return self.null.z(candidate.cosine, candidate.language)

    def _words(self, candidate: Candidate, level: bool) -> float:
        if self.null is None or candidate.language == self.query_language:
            return candidate.words
        if not level:
            return candidate.neutral
        return max(candidate.neutral, cross_language_share(self._z(candidate)))


def cross_language_share(z: float | None) -> float:
    """The word share a memory in the other language is credited with, from its standardised cosine.

    Such a memory cannot hold the query's words: its word evidence is missing, not zero. Taken as
    zero, every memory of the query's language that shares one common word outranks the answer
    written in the other language. It is credited from the absolute evidence of its meaning
    instead: nothing at ``CROSS_LANGUAGE_Z_FROM`` null deviations or less (unrelated text reaches
    that), ``CROSS_LANGUAGE_SHARE`` from ``CROSS_LANGUAGE_Z_FULL`` on.
    """
    if z is None:
        return 0.0
    low, high = CROSS_LANGUAGE_Z_FROM, max(CROSS_LANGUAGE_Z_FULL, CROSS_LANGUAGE_Z_FROM + 1e-6)
    return CROSS_LANGUAGE_SHARE * min(1.0, max(0.0, (z - low) / (high - low)))


def explain(cosine: float | None, rank: int | None, words: Sequence[str], share: float, *, of: str = "query",
            word_rank: int | None = None) -> str:
    """A hit's ``why``: its cosine (and rank among the nearest in meaning), then the first of the
    query's words it holds, with their share of the query (and the rank of its word evidence)."""
    parts = []
    if cosine is not None:
        parts.append(f"meaning: cosine {cosine:.2f}" + (f" (#{rank})" if rank else ""))
    if words:
        ranked = f", #{word_rank}" if word_rank else ""
        parts.append(f"words: {', '.join(words[:6])} ({share:.0%} of the {of}{ranked})")
    return "; ".join(parts)
