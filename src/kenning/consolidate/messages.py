"""A conversation message, as a session keeps it and a consolidation reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..timeutil import utcnow

ROLES = ("user", "assistant", "system", "tool")
MAX_MESSAGE_CHARS = 100_000


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    at: datetime | None = field(default_factory=utcnow)

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content, "at": self.at.isoformat() if self.at else None}

    @classmethod
    def of(cls, value: object) -> Message:
        """A message from a ``Message``, a ``{"role", "content"}`` mapping or a ``(role, content)`` pair."""
        if isinstance(value, Message):
            return value
        if isinstance(value, dict):
            role, content, at = value.get("role"), value.get("content"), value.get("at")
        elif isinstance(value, tuple | list) and len(value) == 2:
            (role, content), at = value, None
        else:
            raise InvalidInput(f"a message must be {{'role': ..., 'content': ...}}, got {type(value).__name__}")
        if role not in ROLES:
            raise InvalidInput(f"message role must be one of {', '.join(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise InvalidInput(f"message content must be text, got {type(content).__name__}")
        if "\x00" in content or len(content) > MAX_MESSAGE_CHARS:
            raise InvalidInput(f"message content must be text without NUL bytes, at most {MAX_MESSAGE_CHARS:,} characters")
        when = datetime.fromisoformat(at) if isinstance(at, str) else at if isinstance(at, datetime) else utcnow()
        return cls(str(role), content, when)
