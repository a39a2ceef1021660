"""The write gate: what every write passes through before anything is stored or embedded.

    redact      secrets and personal data -> [REDACTED:kind] (pure functions; mask / refuse / off)
    novelty     restatement (reinforce), correction (supersede) or new, against stored facts
    importance  category + emphasis + recurrence
    decision    ``Gate`` (one per ``Kenning``, from ``[gate]`` in kenning.toml) and ``Decision``

Every writer takes the gate: ``Facts`` (remember, remember_many, supersede: redaction and novelty),
``Lessons``, ``Entities``, ``Notes`` (daily notes and HISTORY.md), the hot tier (its files too) and
skills written through ``skill_manage`` (secrets only). ``Gate.check_fact`` decides without
writing, for consolidation; ``Kenning.admit`` decides and carries the decision out, sending a
statement below ``min_importance`` to the daily notes.
"""

from .decision import ACTIONS, Admission, Decision, Gate, Scrub
from .importance import infer_importance, score, with_recurrence
from .novelty import Novelty, relation
from .redact import RedactPolicy, Redaction, redact

__all__ = [
    "ACTIONS",
    "Admission",
    "Decision",
    "Gate",
    "Novelty",
    "RedactPolicy",
    "Redaction",
    "Scrub",
    "infer_importance",
    "redact",
    "relation",
    "score",
    "with_recurrence",
]
