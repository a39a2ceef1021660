"""Evidence fusion shared by memory recall and skill search: how much of the query's information a
document's words carry, and how that combines with meaning.

``words`` is the share of the query's IDF mass whose terms the document contains (0 when the
query and the document share no language); ``meaning`` is the cosine rescaled to [0, 1] between
the weakest and the strongest semantic candidate. ``fuse`` weighs them; a query whose words appear
nowhere keeps the semantic order, which is why this beats reciprocal-rank fusion across languages.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import numpy as np


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency of a term found in ``df`` of ``total`` documents."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def word_share(weights: Mapping[str, float], doc_terms: Collection[str]) -> tuple[float, list[str]]:
    """Share of the query's IDF mass (``weights``: term → idf) in a document, and the terms found."""
    mass = sum(weights.values())
    found = [t for t in weights if t in doc_terms]
    return (sum(weights[t] for t in found) / mass if mass else 0.0), found


def share_of(weights: Mapping[str, float], found: Collection[str], only: Collection[str]) -> float:
    """The share of the query's IDF mass in the ``found`` terms that are among ``only``."""
    mass = sum(weights.values())
    return sum(weights[t] for t in found if t in only) / mass if mass else 0.0


def rescale(cos: float | None, lo: float, hi: float) -> float:
    """A cosine placed between the weakest (0) and strongest (1) semantic candidate."""
    if cos is None:
        return 0.0
    return min(1.0, max(0.0, (cos - lo) / (hi - lo))) if hi > lo else 1.0


def rescale_all(cos: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``rescale`` of many cosines at once."""
    return np.clip((cos - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.ones_like(cos)


def fuse(meaning: float, share: float, lexical_weight: float) -> float:
    """Meaning and word evidence in one score in [0, 1]."""
    return (meaning + lexical_weight * share) / (1 + lexical_weight)
