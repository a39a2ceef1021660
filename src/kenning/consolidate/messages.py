"""A conversation message, as a session keeps it and a consolidation reads it, and its identity.

A message's identity (``identities``) is what lets a scope consolidate each message once:

* a message that carries the time it was said (``at``: Claude Code transcripts, a session's
  messages, a transcript file with ``"at"``) is ``sha256(role, at, content)``. Two conversations
  do not say the same thing at the same instant, so an "ok" in each is two messages, and the
  identity does not depend on where a batch starts (a hook that reads only a transcript's new
  lines names them as a full re-read would);
* a message without a time is ``sha256(identity of the message before it in the batch, role,
  content)``: a chain over the conversation so far. The same transcript sent again, or sent again
  with more messages at its end, gives its first messages the same identities, while an "ok" after
  different messages is a different message. Only a whole conversation repeated word for word, from
  its first message on, is taken for the same one: then it is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import InvalidInput

ROLES = ("user", "assistant", "system", "tool")
MAX_MESSAGE_CHARS = 100_000


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    at: datetime | None = None  # when it was said, if known (it is part of the message's identity)

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
        return cls(str(role), content, _moment(at))


def _moment(at: object) -> datetime | None:
    if at is None or isinstance(at, datetime):
        return at
    if isinstance(at, str):
        try:
            return datetime.fromisoformat(at)
        except ValueError:
            pass
    raise InvalidInput(f"message 'at' must be an ISO 8601 time such as 2026-11-30T14:05:00+00:00, got {at!r}"[:200])


def identities(messages: Sequence[Message]) -> list[str]:
    """The identity of each message of a batch, in order (see the module docstring)."""
    out: list[str] = []
    previous = ""
    for message in messages:
        if message.at is not None:
            parts = ("at", message.role, message.at.isoformat(), message.content)
        else:
            parts = ("after", previous, message.role, message.content)
        previous = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
        out.append(previous)
    return out
