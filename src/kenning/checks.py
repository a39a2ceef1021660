"""Checks of the arguments every kind of item shares (scope, tags, a 0-1 number, a category): one
place for the memory classes and the write gate, which memory itself imports."""

from __future__ import annotations

from .errors import InvalidInput
from .models import CATEGORIES

MAX_TAGS = 50
MAX_SCOPE = 200


def check_scope(scope: object) -> str:
    if not isinstance(scope, str) or not scope.strip():
        raise InvalidInput(f"scope must be a non-empty name such as 'default' or 'user:alice', got {scope!r}")
    scope = scope.strip()
    if len(scope) > MAX_SCOPE or "\x00" in scope:
        raise InvalidInput(f"scope {scope[:40]!r}… is too long or contains a NUL byte (limit {MAX_SCOPE} chars)")
    return scope


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
