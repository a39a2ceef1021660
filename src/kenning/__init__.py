"""kenning: lasting skills and memory for AI agents.

    from kenning import Kenning
    with Kenning.open() as kb:
        kb.remember("老板偏好简短的更新汇报", category="user_pref")
        kb.recall("what kind of report does the boss like")
"""

from .api import Kenning
from .errors import (
    Conflict,
    EmbedderError,
    EmbedderMismatch,
    InvalidInput,
    KenningError,
    NotFound,
    SchemaTooNew,
    StoreError,
)
from .models import AuditEntry, Entity, Fact, Hit, Lesson

__version__ = "0.1.0"

__all__ = [
    "Kenning",
    "Fact",
    "Lesson",
    "Entity",
    "Hit",
    "AuditEntry",
    "KenningError",
    "InvalidInput",
    "NotFound",
    "Conflict",
    "StoreError",
    "SchemaTooNew",
    "EmbedderMismatch",
    "EmbedderError",
]
