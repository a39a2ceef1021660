"""Every error kenning raises on purpose.

    KenningError                  root: catch this to catch them all
    ├── InvalidInput              an argument is malformed (empty text, bad date, bad outcome, …)
    │   └── ConfigError           a setting (kenning.toml, the environment, --db) asks for what
    │                             this build cannot do, e.g. a database URL of an unknown scheme
    ├── NotFound                  no item with that id / name in that scope
    ├── Conflict                  the request clashes with the current state (e.g. superseding a
    │                             fact that was already superseded: the message names the head)
    ├── Forbidden                 a safety rule refuses it: changing a read-only skill source, a
    │                             file path leading outside its skill, deleting a link or a root
    ├── StoreError                the data directory or database cannot be used as asked
    │   ├── SchemaTooNew          written by a newer kenning
    │   └── EmbedderMismatch      opened with another embedder than the one that wrote the vectors
    ├── EmbedderError             the embedder failed (endpoint down, wrong dimension, …)
    └── LLMError                  the language model failed (endpoint down, refused, timed out, …)
        ├── LLMBudgetExceeded     the cost guard refused a call (calls or tokens per run or per hour)
        └── LLMAnswerError        the model's answer is not the JSON that was asked for

Messages name the object, what is wrong and how to fix it. Each face (CLI, MCP) translates these
in exactly one place.
"""

from __future__ import annotations


class KenningError(Exception):
    """Root of every error kenning raises on purpose."""


class InvalidInput(KenningError, ValueError):
    """An argument is malformed; the message says which and what is accepted."""


class ConfigError(InvalidInput):
    """A setting cannot be followed; the message names the setting and what it accepts."""


class NotFound(KenningError, LookupError):
    """No such item in the given scope."""


class Conflict(KenningError):
    """The request clashes with the current state of the store."""


class Forbidden(KenningError):
    """A safety rule refuses the operation however it is retried; the message names the rule."""


class StoreError(KenningError):
    """The data directory or database cannot be used as asked."""


class SchemaTooNew(StoreError):
    """The database was written by a newer kenning than this one."""


class EmbedderMismatch(StoreError):
    """The store's vectors were made by another embedder than the one configured."""


class EmbedderError(KenningError):
    """The embedder could not produce vectors."""


class LLMError(KenningError):
    """The language model could not answer; the message names the endpoint, never the key."""


class LLMBudgetExceeded(LLMError):
    """The cost guard refused a call before it was sent; the message names the limit."""


class LLMAnswerError(LLMError):
    """The model answered, but not with the JSON object or array that was asked for."""
