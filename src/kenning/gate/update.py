"""The model's update step: with ``[llm]`` configured, the gate asks the model what a new statement
does to the nearest stored facts, the way mem0's update step does, and falls back to the rule.

The model sees the new statement and the current facts of its scope at ``same_subject`` or closer
(at most ``CANDIDATES``, nearest first, by id and text) and answers one JSON object::

    {"event": "ADD" | "UPDATE" | "DELETE" | "NONE", "id": "<a listed id, or null for ADD>", "reason": "…"}

ADD: both hold (stored as new; no possible conflict is recorded, the model has settled it). UPDATE:
the statement corrects fact ``id``, and DELETE: it says fact ``id`` no longer holds; both supersede
``id`` (history kept: nothing is deleted). NONE: it says nothing ``id`` does not; ``id`` is reinforced.

The call goes through the model's own cost guard (``kenning.llm.CostGuard``: per hour always, and
inside a consolidation counted in that consolidation's run, whichever model's guard opened it).
What the model sees is masked already: the statement has passed redaction, the stored facts were
stored masked. Any failure, a refused call, an answer that is not that object, a
truncated one, an unknown event or an id that was not listed, leaves the decision to the rule
(``kenning.gate.novelty.find`` with ``kenning.gate.current``), and the reason says so.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import LLMAnswerError, LLMError
from ..llm_json import parse_json_answer
from .novelty import Novelty

if TYPE_CHECKING:
    from ..llm import LLM

CANDIDATES = 5
MAX_TOKENS = 200
EVENTS = {"ADD": "new", "UPDATE": "contradiction", "DELETE": "contradiction", "NONE": "near_duplicate"}

SYSTEM = """You keep an AI agent's long-term memory current. A new statement arrives; compare it with
the stored facts listed (each with an id) and decide what it does to them. Answer with one JSON
object and nothing else: {"event": "ADD" | "UPDATE" | "DELETE" | "NONE", "id": "<id or null>",
"reason": "<a few words>"}.
ADD: the statement is new information; every listed fact stays true beside it (two facts that may
both hold, such as reviewing backend and frontend code, are ADD). UPDATE: it corrects or replaces
the listed fact "id" (another value, place, time, count, version, owner or preferred choice for the
same thing). DELETE: it says the listed fact "id" no longer holds. NONE: it says nothing that the
listed fact "id" does not already say. When unsure, answer ADD."""


def ask(model: LLM, text: str, rule: Novelty) -> Novelty:
    """What ``model`` says ``text`` does to ``rule.nearest``; ``rule`` itself (its reason noting
    why) when the model fails or its answer cannot be used."""
    listed = rule.nearest[:CANDIDATES]
    stored = [{"id": item_id, "text": content} for item_id, content, _ in listed]
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": json.dumps({"new": text, "stored": stored}, ensure_ascii=False)}]
    try:
        completion = model.complete(messages, max_tokens=MAX_TOKENS, temperature=0.0, json_mode=True)
        event, target, why = _answer(completion.text, {item_id for item_id, _, _ in listed})
    except LLMError as exc:  # LLMBudgetExceeded and LLMAnswerError too
        return _fallback(rule, str(exc))
    kind = EVENTS[event]
    reason = f"the model ({model.name}) answered {event}" + (f": {why}" if why else "")
    if kind == "new":
        return Novelty("new", reason, nearest=rule.nearest, by="model")
    content, cosine = next((c, cos) for i, c, cos in listed if i == target)
    return Novelty(kind, reason, target, content, cosine, nearest=rule.nearest, by="model")


def _answer(text: str, ids: set[str]) -> tuple[str, str | None, str]:
    """(event, id, reason) from the model's text; ``LLMAnswerError`` saying what is wrong."""
    parsed = parse_json_answer(text)
    if parsed.truncated:
        raise LLMAnswerError(f"the answer was cut off inside a {parsed.unclosed}")
    value = parsed.value
    if not isinstance(value, dict):
        raise LLMAnswerError("the answer is a JSON array, not an object with an event")
    event = str(value.get("event", "")).strip().upper()
    if event not in EVENTS:
        raise LLMAnswerError(f"the event {value.get('event')!r} is not one of ADD, UPDATE, DELETE, NONE")
    target = value.get("id")
    if event != "ADD" and (not isinstance(target, str) or target not in ids):
        raise LLMAnswerError(f"{event} names the id {target!r}, which is not one of the listed facts")
    why = " ".join(str(value.get("reason") or "").split())[:200]
    return event, target if event != "ADD" else None, why


def _fallback(rule: Novelty, error: str) -> Novelty:
    short = " ".join(error.split())[:200]
    return Novelty(rule.kind, f"{rule.reason} (the rule decided: the model failed: {short})", rule.target_id,
                   rule.target_content, rule.cosine, rule.nearest, rule.suspects, by="rule")
