"""kenning: lasting skills and memory for AI agents.

    from kenning import Kenning
    with Kenning.open() as kb:
        kb.remember("老板偏好简短的更新汇报", category="user_pref")
        kb.recall("what kind of report does the boss like")
"""

from typing import TYPE_CHECKING, Any

from .errors import (
    Conflict,
    EmbedderError,
    EmbedderMismatch,
    Forbidden,
    InvalidInput,
    KenningError,
    NotFound,
    SchemaTooNew,
    StoreError,
)
from .models import AuditEntry, Entity, Fact, Hit, Lesson

if TYPE_CHECKING:
    from .api import Kenning

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `Kenning` pulls in numpy and the store: imported on first use, so `kenning --help` stays quick
    if name == "Kenning":
        from .api import Kenning

        return Kenning
    raise AttributeError(f"module 'kenning' has no attribute {name!r}")

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
    "Forbidden",
    "StoreError",
    "SchemaTooNew",
    "EmbedderMismatch",
    "EmbedderError",
]
