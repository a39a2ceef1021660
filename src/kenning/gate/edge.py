"""The last redaction before disk: what the store applies to every string it writes.

Writers scrub their fields at the front door (``Gate.scrub``), where a finding can be refused with
a message naming the field. But a writer can forget a field (a ``source`` label, an audit reason,
a feedback note), so the store passes every string of every row it writes, audit entries included,
through this same redaction once more. It masks and never refuses: by the time a row reaches the
store, refusing is the front door's job, and masking an old value written while redaction was off
is better than failing an unrelated update of its row.

Skills hold instructions and scripts where example addresses are normal, so their tables mask
secrets only (``secrets_only=True``), as their files do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..text import check_unicode
from .redact import Redaction, RedactPolicy, redact


_KEPT = 20_000  # strings whose redaction is remembered
_KEPT_CHARS = 2_000  # the longest of them


class EdgeRedactor:
    """Masks secrets (and, unless ``secrets_only``, personal data) in strings and JSON values."""

    def __init__(self, policy: RedactPolicy | None = None) -> None:
        self.policy = policy or RedactPolicy()
        self.skill_policy = RedactPolicy(self.policy.mode, self.policy.categories & {"secrets"})
        # the same strings come by again and again (a fact's text in its row and in its audit entry,
        # field names, scopes, kinds): their results are kept, for short strings, so that the edge
        # costs a write ~0.3 ms instead of ~3 ms (bench/write_path.py)
        self._known: dict[tuple[str, bool], Redaction] = {}

    def text(self, value: str, *, secrets_only: bool = False, what: str = "a text") -> str:
        """``value`` masked; InvalidInput naming ``what`` when it is not valid Unicode (a lone
        surrogate cannot be written, and would fail the write halfway as a bare UnicodeEncodeError)."""
        return self.redaction(value, secrets_only=secrets_only, what=what).text

    def redaction(self, value: str, *, secrets_only: bool = False, what: str = "a text") -> Redaction:
        """``value`` masked, and what was found (kinds and counts, for the audit log)."""
        key = (value, secrets_only)
        known = self._known.get(key)
        if known is not None:
            return known
        check_unicode(value, what)
        result = redact(value, self.skill_policy if secrets_only else self.policy)
        if len(value) <= _KEPT_CHARS:
            if len(self._known) >= _KEPT:
                self._known.clear()  # a bound, not an LRU: redacting again is cheap enough
            self._known[key] = result
        return result

    def value(self, value: Any, *, secrets_only: bool = False, what: str = "a value") -> Any:
        """Every string in a JSON-like value masked, keys included; other values kept."""
        if isinstance(value, str):
            return self.text(value, secrets_only=secrets_only, what=what)
        if isinstance(value, Mapping):
            return {self.value(k, secrets_only=secrets_only, what=what): self.value(v, secrets_only=secrets_only,
                                                                                    what=what)
                    for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v, secrets_only=secrets_only, what=what) for v in value]
        return value

    def data(self, content: bytes, *, secrets_only: bool = False) -> bytes:
        """File bytes: UTF-8 text is masked; anything else (an image, an archive) is kept as it is."""
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return content
        masked = self.text(text, secrets_only=secrets_only)
        return content if masked == text else masked.encode("utf-8")
