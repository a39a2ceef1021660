"""The write gate: what every write passes through before anything is stored or embedded.

    redact      secrets and personal data -> [REDACTED:kind] (pure functions; mask / refuse / off)
    novelty     restatement (reinforce), correction (supersede) or new, against stored facts
    current     the rule for what is current: supersede, possible conflict, or both true
    update      with a model configured: its update step (add / update / delete / keep), rule as fallback
    conflicts   possible conflicts kept side by side: recorded, listed, settled
    importance  category + emphasis + recurrence
    decision    ``Gate`` (one per ``Kenning``, from ``[gate]`` in kenning.toml) and ``Decision``

Every writer takes the gate: ``Facts`` (remember, remember_many, supersede: redaction and novelty),
``Lessons``, ``Entities``, ``Notes`` (daily notes and HISTORY.md), the hot tier (its files too) and
skills written through ``skill_manage`` (secrets only). ``Gate.check_fact`` decides without
writing, for consolidation; ``Kenning.admit`` decides and carries the decision out, sending a
statement below ``min_importance`` to the daily notes.
"""

from . import conflicts
from .conflicts import PossibleConflict, Settlement
from .current import Judgement, judge
from .decision import ACTIONS, Admission, Decision, Gate, Scrub
from .importance import infer_importance, score, with_recurrence
from .novelty import Novelty, relation
from .redact import RedactPolicy, Redaction, redact

__all__ = [
    "ACTIONS",
    "Admission",
    "Decision",
    "Gate",
    "Judgement",
    "Novelty",
    "PossibleConflict",
    "RedactPolicy",
    "Redaction",
    "Scrub",
    "Settlement",
    "conflicts",
    "infer_importance",
    "judge",
    "redact",
    "relation",
    "score",
    "with_recurrence",
]
