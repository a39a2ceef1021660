"""The request a model gets: the current hot memory, the conversation, and the answer's schema."""

from __future__ import annotations

from collections.abc import Sequence

from ..timeutil import utcnow
from .messages import Message

MAX_CONVERSATION_CHARS = 60_000

SYSTEM = """You consolidate an AI agent's conversation into lasting memory.
Answer with ONE JSON object and nothing else, with these keys:
- "history_entry": 2-5 sentences starting with "[YYYY-MM-DD HH:MM] " (the time given below): what was
  done, decided or learned, for a grep-able log.
- "memory_update": changes to the hot memory shown below, as a list of operations, never a whole new
  file: {"op": "add", "section": "user"|"project"|"pitfalls"|"other", "text": "..."},
  {"op": "replace", "old": "<a piece of an existing entry>", "text": "<the new entry>"},
  {"op": "remove", "old": "<a piece of an existing entry>"}. Only durable things that matter in every
  session (preferences, key project facts, pitfalls). Usually zero to three operations.
- "facts": durable facts worth recalling later: {"text", "category": "user_pref"|"project"|"pitfall"|"general",
  "importance": 0..1}. One self-contained statement each; no chit-chat, no secrets.
- "lessons": what was tried and how it went: {"action", "context", "outcome": "positive"|"negative"|"neutral",
  "insight"}.
- "entities": people, services, hosts, projects named: {"name", "kind", "aliases": [], "attributes": {}, "notes"}.
- "skill_draft": null, or when the conversation shows a multi-step procedure that succeeded and will be
  needed again: {"name": "lowercase-with-hyphens", "description": "what it does and when to use it",
  "body": "# Steps\\n1. ...\\n\\n# Pitfalls\\n...\\n\\n# Verification\\n..."}.
Write in the language of the conversation. Empty lists are fine."""


def conversation_text(messages: Sequence[Message]) -> str:
    lines = [(f"[{m.at.astimezone().strftime('%Y-%m-%d %H:%M')}] " if m.at else "") + f"{m.role}: {m.content}"
             for m in messages]
    text = "\n".join(lines)
    if len(text) > MAX_CONVERSATION_CHARS:  # keep the end: it holds the outcome
        text = "[… earlier messages cut …]\n" + text[-MAX_CONVERSATION_CHARS:]
    return text


def build(hot_text: str, messages: Sequence[Message]) -> list[dict[str, str]]:
    now = utcnow().astimezone().strftime("%Y-%m-%d %H:%M")
    user = (f"Current time: {now}\n\n## Current hot memory\n{hot_text.strip() or '(empty)'}\n\n"
            f"## Conversation\n{conversation_text(messages)}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
