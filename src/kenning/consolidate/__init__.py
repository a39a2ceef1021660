"""Consolidation: conversations become lasting memory (see ``consolidator``), in the background
for a long session (``session``); skill drafts wait for a person's approval (``drafts``)."""

from .consolidator import Consolidator, Report
from .drafts import Draft, Drafts
from .messages import Message
from .session import Session

__all__ = ["Consolidator", "Draft", "Drafts", "Message", "Report", "Session"]
