"""The gate object: one per ``Kenning``, handed to every writer (facts, lessons, entities, notes, the
hot tier, skills), and the ``Decision`` it takes about a statement before it is stored."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checks import check_category, check_scope, check_unit
from ..config import GateConfig
from ..embed import Embedder, VectorLRU
from ..errors import InvalidInput
from ..text import content_key
from ..models import DEFAULT_SCOPE
from ..store import Store
from ..text import clean_content
from ..timeutil import to_epoch, utcnow
from .importance import score
from .novelty import Novelty, find
from .redact import RedactPolicy, placeholder, redact, secret_field

if TYPE_CHECKING:
    from ..llm import LLM
    from ..models import Fact
    from ..tiers.notes import Note

ACTIONS = ("store", "reinforce", "supersede", "note", "refuse")
_VECTOR_CACHE = 64  # a decision is usually followed by the write it decided: embed once
_ANSWER_CACHE = 64  # and asks the model once: admit decides, then remember carries it out


def redact_policy(config: GateConfig) -> RedactPolicy:
    """What ``[gate] redact`` and ``categories`` ask for: used by the gate and by the store's edge."""
    return RedactPolicy(config.redact, frozenset(config.categories))


def describe(found: tuple[tuple[str, int], ...]) -> str:
    """"1 openai_key, 2 email": what was found, never the values."""
    return ", ".join(f"{n} {kind}" for kind, n in found)


def refusal(what: str, field: str, found: tuple[tuple[str, int], ...]) -> str:
    """The message of a write refused in "refuse" mode: the kinds, never the values."""
    return (f"{what} {field} contains {describe(found)}: kenning is set to refuse secrets and personal data "
            "([gate] redact = \"refuse\" in kenning.toml), so nothing was stored. Remove them and write again, "
            "or set redact = \"mask\" to store the text with [REDACTED:…] placeholders")


class Scrub:
    """Redaction of the fields of one write: each field is masked as it passes, what was found is
    counted, and in "refuse" mode the first field with a finding raises ``InvalidInput`` naming
    the field and the kinds (never the values), before anything is written."""

    def __init__(self, policy: RedactPolicy, what: str, *, refuse: bool) -> None:
        self.policy = policy
        self.what = what
        self.refuse = refuse
        self._found: dict[str, int] = {}

    def __call__(self, text: str, field: str = "text") -> str:
        result = redact(text, self.policy)
        if result.found and self.refuse:
            raise InvalidInput(refusal(self.what, field, result.found))
        for kind, n in result.found:
            self._found[kind] = self._found.get(kind, 0) + n
        return result.text

    def value(self, value: Any, field: str = "value") -> Any:
        """A JSON value with every string in it scrubbed (numbers, booleans and keys are kept)."""
        if isinstance(value, str):
            return self(value, field)
        if isinstance(value, Mapping):
            return {k: self.value(v, field) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v, field) for v in value]
        return value

    def fields(self, mapping: Mapping[str, Any], field: str = "attribute") -> dict[str, Any]:
        """A JSON object scrubbed: names checked like identifiers (``check``), values scrubbed, and
        the whole value of a field named like a secret ("password", "api_key", "token", …)
        replaced by its placeholder."""
        out: dict[str, Any] = {}
        for key, value in mapping.items():
            name = self.check(key, f"{field} name")
            kind = secret_field(name) if "secrets" in self.policy.categories and self.policy.active else None
            if kind and value not in (None, "", [], {}) and not isinstance(value, bool):
                if self.refuse:
                    raise InvalidInput(refusal(self.what, f"{field} {name!r}", ((kind, 1),)))
                self._found[kind] = self._found.get(kind, 0) + 1
                out[name] = placeholder(kind)
            else:
                out[name] = self.value(value, f"{field} {name!r}")
        return out

    def check(self, text: str, field: str) -> str:
        """For identifiers (entity names and aliases): masking would make two different names one
        placeholder, so anything found is refused in "mask" mode too ("off" finds nothing)."""
        result = redact(text, self.policy)
        if result.found:
            raise InvalidInput(
                f"{self.what} {field} contains {describe(result.found)}; a name must not carry secrets or "
                "personal data (masked, two names would become the same [REDACTED:…]). Name it by something "
                "else and keep such details out of kenning"
            )
        return text

    @property
    def found(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted(self._found.items()))

    @property
    def count(self) -> int:
        return sum(self._found.values())


@dataclass(frozen=True)
class Decision:
    """What the gate would do with a statement: ``action`` is "store" (a new fact), "reinforce"
    (``target_id`` says the same), "supersede" (``target_id`` is corrected by it), "note" (below
    the importance floor: a daily note instead of a fact) or "refuse" (it carries secrets or
    personal data and the gate refuses them)."""

    action: str
    text: str  # as it would be stored, placeholders in; "" when refused
    reason: str
    target_id: str | None = None
    importance: float = 0.0
    cosine: float | None = None
    redacted: tuple[tuple[str, int], ...] = ()  # (kind, count), never the values

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "text": self.text, "reason": self.reason, "target_id": self.target_id,
                "importance": self.importance, "cosine": None if self.cosine is None else round(self.cosine, 4),
                "redacted": [{"kind": k, "count": n} for k, n in self.redacted]}


@dataclass(frozen=True)
class Admission:
    """What ``Kenning.admit`` did: the decision, and the fact or the daily notes it wrote."""

    decision: Decision
    fact: Fact | None = None
    notes: tuple[Note, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision.to_dict(), "fact": self.fact.to_dict() if self.fact else None,
                "notes": [n.to_dict() for n in self.notes]}


class Gate:
    """Redaction, novelty and importance for every write of one store. ``llm``: where the configured
    language model comes from (called when first needed; None, or a source giving None, means the
    rule alone decides what is current)."""

    def __init__(self, store: Store, embedder: Embedder, config: GateConfig | None = None, *,
                 actor: str = "api", llm: Callable[[], LLM | None] | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config or GateConfig()
        self.actor = actor
        self.policy = redact_policy(self.config)
        self.llm_source = llm
        self._vectors = VectorLRU(_VECTOR_CACHE)
        self._answers: OrderedDict[tuple[object, ...], Novelty] = OrderedDict()

    # -- redaction -----------------------------------------------------------------------------------

    def scrub(self, what: str, *, secrets_only: bool = False, mask_only: bool = False) -> Scrub:
        """A ``Scrub`` for one write of ``what`` ("fact", "lesson", …). ``secrets_only`` (skills:
        instructions and scripts, where example addresses are normal) masks secrets only and never
        refuses; ``mask_only`` never refuses (text already on disk, such as a hand edit)."""
        if secrets_only:
            cats = self.policy.categories & {"secrets"}
            return Scrub(RedactPolicy(self.policy.mode, frozenset(cats)), what, refuse=False)
        return Scrub(self.policy, what, refuse=self.config.redact == "refuse" and not mask_only)

    def audit(self, scrub: Scrub, *, scope: str | None = None, item_id: str | None = None,
              **about: Any) -> None:
        """One audit row saying what was masked (kinds and counts; never the values). Call it inside
        the write's transaction when there is one."""
        if not scrub.count:
            return
        after = {"kinds": [k for k, _ in scrub.found], "count": scrub.count, "found": dict(scrub.found), **about}
        # like ``audit.record_event``, but filed under the item, so `kenning audit ID` shows it
        self.store.append_audit({"at": to_epoch(utcnow()), "action": "redact", "item_id": item_id,
                                 "kind": scrub.what, "scope": scope, "actor": self.actor,
                                 "reason": f"masked before storing: {describe(scrub.found)}", "before": None,
                                 "after": after})

    # -- novelty and importance ----------------------------------------------------------------------

    def vector(self, text: str) -> np.ndarray:
        """The passage vector of ``text`` (the last few are kept: decide, then write, embeds once)."""
        return self._vectors.get_or_make(
            text, lambda t: np.asarray(self.embedder.embed_passages([t])[0], dtype=np.float32))

    def novelty(self, scope: str, text: str, vector: np.ndarray | None = None) -> Novelty:
        """How ``text`` relates to the current facts of ``scope`` (see ``kenning.gate.novelty``)."""
        vec = self.vector(text) if vector is None else vector
        return find(self.store, scope, text, vec, near_duplicate=self.config.near_duplicate,
                            same_subject=self.config.same_subject)

    def decide(self, scope: str, text: str, vector: np.ndarray | None = None) -> Novelty:
        """``novelty``, then, when a model is configured and current facts are near, the model's
        update step (``kenning.gate.update``), which falls back to the rule when it fails. The
        same question about the same facts is asked once."""
        rule = self.novelty(scope, text, vector)
        if rule.kind in ("duplicate", "near_duplicate") or not rule.nearest:
            return rule  # a restatement is sure, and with nothing near there is nothing to ask
        model = self.model()
        if model is None:
            return rule
        from .update import ask

        key = (scope, content_key(text), rule.nearest)
        if key not in self._answers:
            self._answers[key] = ask(model, text, rule)
            while len(self._answers) > _ANSWER_CACHE:
                self._answers.popitem(last=False)
        return self._answers[key]

    def model(self) -> LLM | None:
        """The model the gate asks (None: the rule alone decides); a consolidation opens its cost
        guard's run on it when the run has no guarded model of its own."""
        if self.llm_source is None:
            return None
        try:
            return self.llm_source()
        except InvalidInput:  # [llm] half configured: the rule decides; consolidation reports it
            return None

    def check_fact(
        self,
        text: str,
        *,
        category: str | None = None,
        scope: str = DEFAULT_SCOPE,
        importance: float | None = None,
        mentions: int = 1,
        min_importance: float | None = None,
    ) -> Decision:
        """What storing ``text`` as a fact would do; nothing is written. ``mentions``: how many times
        the statement was made (recurrence raises an inferred importance); ``min_importance``
        (default ``[gate] min_importance``): a new statement below it becomes a daily note.
        Restatements and corrections of stored facts are never sent to the notes."""
        cat = check_category(category)
        where = check_scope(scope)
        times = _mentions(mentions)
        floor = self.config.min_importance if min_importance is None else check_unit(min_importance, "min_importance")
        masked = redact(clean_content(text), self.policy)
        if masked.found and self.config.redact == "refuse":
            return Decision("refuse", "", refusal("fact", "content", masked.found), redacted=masked.found)
        clean = masked.text
        near = self.decide(where, clean)
        base = score(clean, cat, times) if importance is None else check_unit(importance, "importance")
        if near.kind in ("duplicate", "near_duplicate"):
            target = self.store.get(near.target_id or "")
            stated = int(target["reinforced"]) + 1 if target else 0
            value = score(clean, cat, times + stated) if importance is None else base
            return Decision("reinforce", clean, f"{near.reason}: reinforces {near.target_id}", near.target_id,
                            value, near.cosine, masked.found)
        if near.kind == "contradiction":
            return Decision("supersede", clean, f"{near.reason}: supersedes {near.target_id}", near.target_id,
                            base, near.cosine, masked.found)
        if base < floor:
            return Decision("note", clean, f"importance {base:.2f} is below {floor:.2f}: kept as a daily note",
                            importance=base, redacted=masked.found)
        return Decision("store", clean, near.reason, importance=base, redacted=masked.found)


def _mentions(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(f"mentions must be a whole number >= 1 (how many times it was said), got {value!r}")
    return value


