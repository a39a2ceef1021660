"""Consolidation without a language model: deterministic, conservative, and saying so.

* The history entry: the timestamp of the last message, who spoke, how many messages, and the key
  sentences (the first request, then sentences with a decision or emphasis), at most 5 sentences.
* Facts only from explicit statements by the user: "remember that …", "I prefer …", "always …",
  "never …", "don't …", "记住…", "我喜欢…", "我更喜欢…", "不要…", "永远…", "务必…". Nothing is
  guessed: a conversation with no such statement yields no fact.
* No hot-memory operations, lessons, entities or skill drafts: those need understanding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..timeutil import utcnow
from .answer import Extraction, FactDraft
from .messages import Message

# a sentence ends at . ! ? followed by a space (not inside "db-stg.internal" or "v1.2"), at 。！？, or a line end
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
# (pattern, category): the statement is the whole sentence, minus a "remember that" lead-in
_EXPLICIT = (
    (re.compile(r"^\s*(?:please\s+)?remember\s+(?:that\s+)?(?P<s>.+)", re.I), None),
    (re.compile(r"^\s*(?:记住|请记住|记得)[：:，,\s]*(?P<s>.+)"), None),
    (re.compile(r"^\s*(?P<s>i\s+(?:prefer|like|want|use|always|never|don't|do not)\b.+)", re.I), "user_pref"),
    (re.compile(r"^\s*(?P<s>(?:always|never|don't|do not)\b.+)", re.I), "pitfall"),
    (re.compile(r"^\s*(?P<s>我(?:更)?(?:喜欢|偏好|习惯|希望|想要|总是|从不).+)"), "user_pref"),
    (re.compile(r"^\s*(?P<s>(?:不要|别|永远不要|永远|务必|一定要|千万).+)"), "pitfall"),
)
_DECISION = re.compile(r"\b(decided|decide|agreed|will|fixed|failed|works|broke|因为|决定|修复|失败|成功)\b",
                       re.I)
MAX_SENTENCES = 5


def sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text) if len(s.strip()) > 2]


def explicit_facts(messages: Sequence[Message]) -> list[FactDraft]:
    """The statements the user made explicitly, with a category when the wording says one."""
    out: list[FactDraft] = []
    seen: set[str] = set()
    for message in messages:
        if message.role != "user":
            continue
        for sentence in sentences(message.content):
            for pattern, category in _EXPLICIT:
                m = pattern.match(sentence)
                if not m:
                    continue
                text = m.group("s").strip().rstrip("。.")
                text = text[:1].upper() + text[1:]
                if text.lower() not in seen and len(text) >= 3:
                    seen.add(text.lower())
                    out.append(FactDraft(text, category or "general"))
                break
    return out


def history_entry(messages: Sequence[Message], now: datetime | None = None) -> str:
    last = next((m.at for m in reversed(messages) if m.at is not None), None) or now or utcnow()
    stamp = last.astimezone().strftime("%Y-%m-%d %H:%M")
    speakers = sorted({m.role for m in messages})
    first_request = next((sentences(m.content)[0] for m in messages if m.role == "user" and sentences(m.content)),
                         None)
    picked = [f"{len(messages)} messages between {' and '.join(speakers)} (summarised without a language model)."]
    if first_request:
        picked.append(f"It began with: {first_request}")
    for message in messages:
        for sentence in sentences(message.content):
            if len(picked) >= MAX_SENTENCES:
                break
            if sentence != first_request and _DECISION.search(sentence):
                picked.append(f"{message.role}: {sentence}")
    return f"[{stamp}] " + " ".join(picked)


def extract(messages: Sequence[Message], now: datetime | None = None) -> Extraction:
    return Extraction(history_entry(messages, now), facts=tuple(explicit_facts(messages)))
