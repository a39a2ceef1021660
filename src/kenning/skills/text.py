"""The texts a skill is matched by."""

from __future__ import annotations


def passage(name: str, description: str) -> str:
    """The text a skill is embedded as (its tags count on the lexical side only: the near-duplicate
    threshold was measured on this text)."""
    return f"{name}: {' '.join(description.split())}"
