"""Checks of the arguments every kind of item shares (scope, tags, a 0-1 number, a category): one
place for the memory classes and the write gate, which memory itself imports."""

from __future__ import annotations

import re
import unicodedata

from .errors import InvalidInput
from .models import CATEGORIES, DEFAULT_SCOPE
from .text import check_unicode

MAX_TAGS = 50
MAX_SCOPE = 200


SCOPE_RULE = ("a scope is a lower-case word ('default', 'work') or kind:name ('user:alice', 'project:web'): "
              "letters, digits, '.', '_' and '-', one ':' between two non-empty parts, at most "
              f"{MAX_SCOPE} characters")
_SCOPE_PART = r"[^\W_][\w.-]*"
_SCOPE = re.compile(rf"{_SCOPE_PART}(?::{_SCOPE_PART})?")


def check_scope(scope: object) -> str:
    """The scope, or InvalidInput naming ``SCOPE_RULE``: ``User:Alice`` and ``user:alice`` must not be
    two silent scopes, and a scope names a folder of notes, so it can never hold a path."""
    if not isinstance(scope, str) or not scope.strip():
        raise InvalidInput(f"scope must be a non-empty name such as 'default' or 'user:alice', got {scope!r}")
    name = scope.strip()
    if len(name) > MAX_SCOPE or not _SCOPE.fullmatch(name) or name != _folded(name):
        hint = _folded(name)
        fix = f"; did you mean {hint!r}?" if hint != name and _SCOPE.fullmatch(hint) and len(hint) <= MAX_SCOPE else ""
        raise InvalidInput(f"scope {name[:60]!r} is not valid: {SCOPE_RULE}{fix}")
    return name


def scope_folder(scope: str) -> str:
    """Where a scope's files live, relative to the data directory: "" for the default scope (the
    top of it, as before scopes had folders), else ``scopes/<kind>+<name>`` (no ':' in a file name,
    and '+' is never part of a scope, so the folder names one scope only)."""
    return "" if scope == DEFAULT_SCOPE else "scopes/" + check_scope(scope).replace(":", "+")


def _folded(name: str) -> str:
    return unicodedata.normalize("NFKC", name).lower()


def check_tags(tags: object) -> list[str]:
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [t for t in tags.split(",")]
    if not isinstance(tags, list | tuple | set | frozenset):
        raise InvalidInput(f"tags must be a list of words, got {type(tags).__name__}")
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str) or "\x00" in tag or len(tag) > 100:
            raise InvalidInput(f"tag {tag!r} must be text of at most 100 characters")
        check_unicode(tag, "a tag")
        tag = tag.strip()
        if tag and tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"{len(out)} tags given; at most {MAX_TAGS} are kept per item")
    return out


def check_unit(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number between 0 and 1, got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(f"{what} must be between 0 and 1, got {value}")
    return float(value)


def check_category(category: object) -> str:
    if category is None:
        return "general"
    if category not in CATEGORIES:
        raise InvalidInput(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    return str(category)
