"""Unified differences between two states of a skill's files (``kenning skill diff``, a draft's conflict)."""

from __future__ import annotations

import difflib


def file_diff(path: str, a: bytes | None, b: bytes | None, a_label: str, b_label: str) -> str:
    """The unified diff of one file (None: the file is absent on that side)."""
    try:
        a_text = a.decode("utf-8") if a is not None else ""
        b_text = b.decode("utf-8") if b is not None else ""
    except UnicodeDecodeError:
        return f"Binary file {path} differs ({a_label} -> {b_label})\n"
    lines = list(difflib.unified_diff(
        a_text.splitlines(keepends=True), b_text.splitlines(keepends=True),
        fromfile=f"a/{path} ({a_label})" if a is not None else "/dev/null",
        tofile=f"b/{path} ({b_label})" if b is not None else "/dev/null",
    ))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def state_diff(a: dict[str, bytes], b: dict[str, bytes], a_label: str, b_label: str) -> tuple[tuple[str, ...], str]:
    """The files that differ between two states, and their unified diffs."""
    changed = tuple(p for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p))
    return changed, "".join(file_diff(p, a.get(p), b.get(p), a_label, b_label) for p in changed)
