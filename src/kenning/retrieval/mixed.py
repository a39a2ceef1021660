"""Cosines made comparable across the languages of one store, for ranking one query's candidates.

The default embedder scores unrelated text in the query's own language higher than unrelated text in
the other: against a Chinese XQuAD question, unrelated Chinese paragraphs average 0.815 and English
ones 0.720. Ranked by raw cosine, a store holding both languages puts every same-language paragraph
above the answer written in the other language. ``retrieval.relevance`` standardises by a null shipped
as constants, but that null also moves with the kind of text (short facts score about 0.05 higher
than paragraphs against the same question, as much as the language gap), so its z values of two
kinds of text in two languages do not line up well enough to rank by.

The store itself says what unrelated text looks like for this query: nearly every stored memory is
unrelated to any one question, so the median and spread of the cosines of each language's memories,
in this query, are that language's null here. ``QueryNull.of`` measures them (median, and the
interquartile range / 1.349 as the spread, which one relevant memory cannot move), blended with the
shipped null by ``PRIOR_ROWS`` pseudo-rows so that a language with few memories in the store leans
on the constants. Measured on the XQuAD store of ``bench/mixed_language.py`` (half the articles in
each language), Hit@1 ranking by the standardised cosine alone: raw cosine 49.6, the shipped null
72.2, the store's null 78.2 (dense on the same questions over stores in one language: 79.9).

Within one language nothing changes: a store (or a scope) that holds one language keeps its raw
cosines, and standardising every candidate by the same centre and spread is an affine map, which
leaves the rescaled meaning of ``retrieval.fusion`` as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..store.vectors import LANGUAGES, NULL_SAMPLE, Scored
from ..text import Language
from .relevance import NULL

# The shipped null the ranking blends in: measured on paragraphs and tool texts (XQuAD, MetaTool,
# Seal-Tools, MemDaily; ``kenning.retrieval.relevance`` had it until it took the null of short memories). The
# cross-language credit of ``kenning.retrieval`` (``CROSS_LANGUAGE_Z_FROM`` / ``_FULL``) was set in its
# spreads; blended with the short memories' null instead, a Chinese question over a store of 13
# English and 15 Chinese memories ranked two Chinese ones above its English answer.
RANKING_NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.775, 0.0316),
    ("en", "zh"): (0.7273, 0.0363),
    ("zh", "en"): (0.7351, 0.0281),
    ("zh", "zh"): (0.8152, 0.0196),
}
# pseudo-rows of the shipped null blended into each language's measured one: with 20 memories of a
# language the two weigh alike, with 200 the store's own cosines decide (weight 0.91)
PRIOR_ROWS = 20
# below this many rows of either language the cosines are not moved: a handful of memories says too
# little about their language's null, and the shipped null was measured on other kinds of text
# (three English and three Chinese notes: "vehicle policy" put a Chinese note about contracts above
# the English one about car insurance once moved by the shipped null)
MIN_ROWS = 10
# pseudo-rows of the shipped null in the null relevance reads: a small store says little about what
# unrelated text scores, and an on-topic question lifts the median of a store about one subject
# (``bench/everyday.py``, the best hit of a question against that of an off-topic case, AUROC on the
# dev split: 0.910 with 20 pseudo-rows, 0.928 with 100, 0.934 with the shipped null alone; hits
# within a question 0.900 / 0.894 / 0.885); from a few hundred memories on, the store's own decides
RELEVANCE_PRIOR_ROWS = 100
MIN_SPREAD = 1e-3  # a language whose memories all score alike (one memory, or copies) still divides


@dataclass(frozen=True)
class ShippedNull:
    """What unrelated text of each language pair scores, measured once on a kind of text, and how
    many pseudo-rows of it are blended into what a search measures: one for ranking, one for relevance."""

    ranking: dict[tuple[Language, Language], tuple[float, float]]
    relevance: dict[tuple[Language, Language], tuple[float, float]]
    ranking_rows: int
    relevance_rows: int
    min_rows: int = 10  # ``MIN_ROWS``: fewer rows of either language leave the ranking's cosines as they are
    # relevance's null: one shift and scale for every language, measured over all rows (``pooled``),
    # instead of each language's own median and spread (ranking keeps each language's own)
    pooled: bool = False


# memories and notes: short remembered sentences (``retrieval.relevance.NULL``) and the paragraph null
MEMORIES = ShippedNull(RANKING_NULL, NULL, PRIOR_ROWS, RELEVANCE_PRIOR_ROWS, MIN_ROWS)


@dataclass(frozen=True)
class QueryNull:
    """The centre and spread of unrelated cosines of each language (``LANGUAGES`` order) for one query."""

    query_language: Language
    centre: tuple[float, ...]
    spread: tuple[float, ...]
    mixed: bool  # the searched rows hold both languages, at least ``MIN_ROWS`` of each
    # (centre, spread) of each language for relevance, leaning longer on the shipped null
    relevance_null: tuple[tuple[float, float], ...] = ()
    # (rows, median, spread) of each language as this search measured them, before any blending
    measured: tuple[tuple[int, float, float], ...] = ()

    @classmethod
    def of(cls, seen: Scored, query_language: Language, shipped: ShippedNull = MEMORIES) -> QueryNull:
        cosines, langs = seen.null_sample()
        if len(cosines) > 2 * NULL_SAMPLE:  # every row of a scope under the prefilter's size: an even part
            step = len(cosines) // NULL_SAMPLE
            cosines, langs = cosines[::step], langs[::step]
        # measured in a store of one language too: relevance reads its z (the null sample holds at
        # most ``NULL_SAMPLE`` rows, so the percentiles cost little); ranking moves nothing there
        every = tuple(_measured(cosines[langs == code]) for code in range(len(LANGUAGES)))
        present = all(rows >= shipped.min_rows for rows, _, _ in every)
        pairs = [(query_language, passage_language) for passage_language in LANGUAGES]
        ranking = _each([shipped.ranking[p] for p in pairs], every, shipped.ranking_rows)
        relevance = (pooled if shipped.pooled else _each)([shipped.relevance[p] for p in pairs], every,
                                                          shipped.relevance_rows)
        return cls(query_language, tuple(c for c, _ in ranking), tuple(s for _, s in ranking), present,
                   tuple(relevance), every)

    def z(self, cosine: float, passage_language: Language) -> float:
        """How many spreads a cosine lies above the unrelated memories of its language, here."""
        code = LANGUAGES.index(passage_language)
        return (cosine - self.centre[code]) / self.spread[code]

    def relevance_z(self, cosine: float, passage_language: Language) -> float:
        """``z`` with the store's own null blended in by ``RELEVANCE_PRIOR_ROWS`` pseudo-rows of the
        shipped one: the evidence ``kenning.retrieval.relevance`` weighs."""
        mean, sd = self.relevance_null[LANGUAGES.index(passage_language)]
        return (cosine - mean) / sd

    def ranking_z(self, cosine: float, passage_language: Language) -> float:
        """``z`` on the scale candidates are ranked by: each language's own null when both are
        measured (``mixed``), else the query language's for every row, which keeps the raw order.

        With a few memories of one language and many of the other, only the many have a measured
        null; the few stand on the shipped one, made on other text. Their z values do not line
        up: among 200 unrelated English turns the best reach 3 spreads by chance, as far as a
        Chinese user's own answer stands on the shipped null (MemDaily with 200 LoCoMo turns:
        R@10 93.8 ranked by those z values, dense 95.1)."""
        return self.z(cosine, passage_language if self.mixed else self.query_language)

    def aligned(self, seen: Scored) -> Scored:
        """The searched rows with each cosine moved onto the scale of the query's language (the
        same cosines unless the rows hold both languages), to choose the candidates by."""
        if not self.mixed:
            return seen
        centre, spread = np.array(self.centre)[seen.langs], np.array(self.spread)[seen.langs]
        ref = LANGUAGES.index(self.query_language)
        cosines = self.centre[ref] + self.spread[ref] * (seen.cosines - centre) / spread
        return Scored(seen.rowids, cosines.astype(np.float32), seen.langs)


def _measured(own: np.ndarray) -> tuple[int, float, float]:
    """How many cosines, their median and their spread (interquartile range / 1.349)."""
    if not len(own):
        return 0, 0.0, 0.0
    q1, median, q3 = np.percentile(own, [25, 50, 75])
    return len(own), float(median), max(float(q3 - q1) / 1.349, MIN_SPREAD)


def _each(shipped: list[tuple[float, float]], measured: tuple[tuple[int, float, float], ...],
          prior: int) -> list[tuple[float, float]]:
    """Each language's (centre, spread): its shipped null blended with its own measured rows."""
    return [blend(null, own, prior) for null, own in zip(shipped, measured)]


def pooled(shipped: list[tuple[float, float]], measured: tuple[tuple[int, float, float], ...],
           prior: int) -> list[tuple[float, float]]:
    """Each language's (centre, spread): its shipped null moved by one shift and scaled by one factor
    for all rows, measured in shipped spreads and weighed by rows, then blended with ``prior``
    pseudo-rows of no shift. How high a query scores unrelated text is a property of the query more
    than of the text's language: a short English task that scores the English skills of a library
    0.04 above the shipped null scores its Chinese skills as much above theirs, and a language with
    nine skills says too little about it alone."""
    rows = sum(n for n, _, _ in measured)
    if not rows:
        return list(shipped)
    shift = sum(n * (median - mean) / sd for (n, median, _), (mean, sd) in zip(measured, shipped)) / rows
    scale = sum(n * spread / sd for (n, _, spread), (_, sd) in zip(measured, shipped)) / rows
    weight = rows / (rows + prior)
    return [(mean + weight * shift * sd, sd * (weight * scale + 1 - weight)) for mean, sd in shipped]


def blend(shipped: tuple[float, float], measured: tuple[int, float, float], prior: int) -> tuple[float, float]:
    """The shipped (mean, sd) and the measured one, weighed as ``prior`` rows against the measured rows."""
    rows, median, spread = measured
    weight = rows / (rows + prior)
    return weight * median + (1 - weight) * shipped[0], weight * spread + (1 - weight) * shipped[1]
