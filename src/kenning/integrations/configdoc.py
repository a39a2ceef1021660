"""The JSON side of a client config file, for ``install``: parsed strictly (a duplicated key is
refused, since rewriting would lose one), edited as text (``jsonedit``) so the rest keeps its
bytes, and the dict paths kenning's entries live at."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from . import jsonedit

KEPT = "kept: changed since install"


def decode(path: Path, data: bytes | None) -> str:
    try:
        return data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not UTF-8 text ({exc}); kenning leaves it alone: fix it and run again") from None


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def parse_json(path: Path, data: bytes | None, *, during: str = "install") -> dict[str, Any]:
    text = decode(path, data)
    if not text.strip():
        return {}  # an empty file holds nothing to lose
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InvalidInput(f"{path} has the key {exc.args[0]!r} twice; rewriting it would lose one of them. "
                           f"Fix the file, then run kenning {during} again") from None
    except ValueError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc}); kenning did not change it. Fix the file (or move "
                           f"it away), then run kenning {during} again") from None
    if not isinstance(doc, dict):
        raise InvalidInput(f"{path} holds a JSON {kind(doc)}, not an object; kenning did not change it")
    return doc


def edit_json(old: bytes | None, doc: dict[str, Any], new_doc: dict[str, Any]) -> bytes:
    """``new_doc`` written into the file's own text, splicing only what differs from ``doc``, so the
    rest keeps the user's layout byte for byte; if the text edit fails its own check, the whole
    document in the file's indentation and line endings."""
    try:
        return jsonedit.follow(old.decode("utf-8") if old else "", doc, new_doc).encode("utf-8")
    except ValueError:
        return dump_json(new_doc, old)


def dump_json(doc: dict[str, Any], like: bytes | None) -> bytes:
    """``doc`` in the layout of the file it came from: indentation, line endings, final newline."""
    indent: int | str = 2
    newline, final = "\n", True
    if like and like.strip():
        m = re.search(rb"\n([ \t]+)\S", like)
        if m:
            unit = m.group(1).decode()
            indent = unit if "\t" in unit else len(unit)
        newline = "\r\n" if b"\r\n" in like else "\n"
        final = like.endswith(b"\n")
    text = json.dumps(doc, indent=indent, ensure_ascii=False) + ("\n" if final else "")
    return text.replace("\n", newline).encode("utf-8")


def kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def get(doc: dict[str, Any], keys: tuple[str, ...], path: Path | None) -> tuple[bool, Any]:
    """(found, value) at ``keys``; a non-object on the way is refused (install) or means absent (uninstall)."""
    node: Any = doc
    for i, key in enumerate(keys):
        if not isinstance(node, dict):
            if path is None:
                return False, None
            raise InvalidInput(f"{path}: {'.'.join(keys[:i])} is a {kind(node)}, not an object, so kenning "
                               "cannot add its entry there; fix the file and run kenning install again")
        if key not in node:
            return False, None
        node = node[key]
    return True, node


def parent(doc: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    node = doc
    for key in keys[:-1]:
        node = node[key]
    return node


def make_parents(doc: dict[str, Any], keys: tuple[str, ...], leaf: Any = None) -> list[list[str]]:
    """Create the missing objects along ``keys`` (the last one as ``leaf`` when given); return their paths."""
    created: list[list[str]] = []
    node = doc
    for i, key in enumerate(keys):
        if key not in node:
            node[key] = [] if leaf is not None and i == len(keys) - 1 else {}
            created.append(list(keys[: i + 1]))
        node = node[key]
    return created


def prune(doc: dict[str, Any], created: list[list[str]]) -> None:
    """Remove the containers install created, deepest first, if they are empty again."""
    for keys in sorted(created, key=len, reverse=True):
        found, value = get(doc, tuple(keys), None)
        if found and value in ({}, []):
            del parent(doc, tuple(keys))[keys[-1]]


