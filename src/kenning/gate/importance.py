"""Importance (0-1) of a statement: its category, explicit emphasis, and how often it was made.

    base       pitfall 0.7, user_pref 0.6, project 0.5, general 0.4
    emphasis   + 0.3 when the text says "never", "always", "must", "don't", "不要", "千万", "务必", …
    recurrence + 0.1 for each time the same (or near-same) statement was made again, at most + 0.3

So a general fact said four times reaches 0.7, the importance that ``forget_stale`` never removes,
like a pitfall or an emphatic rule; a fact said once and never again stays forgettable.
"""

from __future__ import annotations

import re

CATEGORY_IMPORTANCE = {"pitfall": 0.7, "user_pref": 0.6, "project": 0.5, "general": 0.4}
EMPHASIS_BONUS = 0.3
RECURRENCE_STEP = 0.1
RECURRENCE_CAP = 0.3
EMPHASIS = re.compile(
    r"\b(never|always|must|mustn't|important|critical|crucial|do not|don't|avoid)\b"
    r"|千万|务必|一定要|绝不|绝对不|不要|永远|必须|重要|切记|禁止",
    re.IGNORECASE,
)


def infer_importance(content: str, category: str) -> float:
    """Category and emphasis: the importance of a statement made once."""
    base = CATEGORY_IMPORTANCE.get(category, 0.4)
    return round(min(1.0, base + (EMPHASIS_BONUS if EMPHASIS.search(content) else 0.0)), 2)


def with_recurrence(importance: float, times: int) -> float:
    """``importance`` raised for a statement made ``times`` times in all (1 = once: unchanged)."""
    bonus = min(RECURRENCE_CAP, RECURRENCE_STEP * max(0, int(times) - 1))
    return round(min(1.0, importance + bonus), 2)


def score(content: str, category: str, times: int = 1) -> float:
    """Category, emphasis and recurrence together."""
    return with_recurrence(infer_importance(content, category), times)
