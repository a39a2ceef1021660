"""The TOML side of a client config file (Codex's ``config.toml``), for ``install``. tomllib only
reads, so kenning's table is a block of text: appended (or put where the table was), checked by
parsing the result, and taken out by the same text later. Nothing else is re-rendered."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from . import configdoc
from .clients import TomlTable

TOML_MARK = "# added by `kenning install`; `kenning uninstall` takes it out again"

_HEADER_LINE = re.compile(r"(?m)^[ \t]*\[.*$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def parse_toml(path: Path, text: str, *, during: str = "install") -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{path} is not valid TOML ({exc}); kenning did not change it. Fix the file (or move "
                           f"it away), then run kenning {during} again") from None


def install_toml(path: Path, text: str, change: TomlTable,
                  previous: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None, str]:
    doc = parse_toml(path, text)
    found, current = configdoc.get(doc, change.path, path)
    if found and current == change.value:
        return text, previous, "unchanged"
    block = _toml_block(change.path, change.value)
    record: dict[str, Any] = {"kind": "toml_table", "path": list(change.path), "value": change.value}
    if previous is not None and found and current == previous["value"] and text.count(previous["text"]) == 1:
        old = previous["text"]
        inserted = old[: len(old) - len(old.lstrip("\n"))] + block  # keep the blank line it was appended after
        new = text.replace(old, inserted)
        record.update({k: previous[k] for k in ("previous", "previous_text") if k in previous})
        action = "updated"
    elif not found:
        end_line = "\n" if text and not text.endswith("\n") else ""
        gap = end_line + ("\n" if text.strip() and not text.endswith("\n\n") else "")  # one blank line before it
        inserted, new = gap + block, text + gap + block
        record["previous_text"] = ""
        action = "added"
    else:
        span = _table_span(text, change.path)
        if span is None:
            raise InvalidInput(f"{path} defines {change.label} in a form kenning cannot edit safely (it is not one "
                               f"{change.label} table); kenning did not change it. Replace that definition with "
                               f"{_toml_hint(change)}")
        start, end = span
        inserted, new = block, text[:start] + block + text[end:]
        record.update({"previous": current, "previous_text": text[start:end]})
        action = "replaced"
    expected = copy.deepcopy(doc)
    configdoc.make_parents(expected, change.path[:-1])
    configdoc.parent(expected, change.path)[change.path[-1]] = change.value
    if _try_toml(new) != expected:
        raise InvalidInput(f"cannot add {change.label} to {path} without changing its other settings (an inline "
                           f"or dotted 'mcp_servers' definition?); kenning did not change it. Add by hand "
                           f"{_toml_hint(change)}")
    record["text"] = inserted
    return new, record, action


def uninstall_toml(path: Path, text: str, change: dict[str, Any]) -> tuple[str, str]:
    keys = tuple(change["path"])
    doc = parse_toml(path, text, during="uninstall")
    found, current = configdoc.get(doc, keys, None)
    if not found:
        return text, "absent"
    if current != change["value"]:
        return text, configdoc.KEPT
    before = change.get("previous_text", "")
    if text.count(change["text"]) == 1:
        new = text.replace(change["text"], before)
    else:
        span = _table_span(text, keys)
        if span is None:
            return text, "kept: cannot be told apart safely"
        new = text[:span[0]] + before + text[span[1]:]
    expected = copy.deepcopy(doc)
    if "previous" in change:
        configdoc.parent(expected, keys)[keys[-1]] = change["previous"]
    else:
        del configdoc.parent(expected, keys)[keys[-1]]
    if _without_empty(_try_toml(new)) != _without_empty(expected):
        raise InvalidInput(f"cannot take [{'.'.join(keys)}] out of {path} without changing its other settings; "
                           "remove it by hand")
    return new, "restored" if "previous" in change else "removed"


def _try_toml(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _without_empty(value: Any) -> Any:
    # a table that only held kenning's table disappears with it ([mcp_servers] is implied by its header)
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v != {}}
    return value


def _table_span(text: str, keys: tuple[str, ...]) -> tuple[int, int] | None:
    """Where ``[keys]`` and its sub-tables are written: from its header to the next other header, less
    the comments and blank lines just above that header (they belong to it). None if not one table."""
    headers = _toml_headers(text)
    starts = [at for at, path in headers if path == keys and _at_top_level(text, at)]
    if len(starts) != 1:
        return None
    start, end = starts[0], len(text)
    for at, path in headers:
        if at > start and path[: len(keys)] != keys and _at_top_level(text, at):
            end = at
            break
    lines = text[start:end].splitlines(keepends=True)
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return start, start + len("".join(lines))


def _toml_headers(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """(offset, key path) of every line that reads as a table header on its own."""
    out = []
    for m in _HEADER_LINE.finditer(text):
        parsed = _try_toml(m.group(0))
        keys: list[str] = []
        node: Any = parsed
        while isinstance(node, dict) and len(node) == 1:
            key, node = next(iter(node.items()))
            keys.append(key)
            node = node[-1] if isinstance(node, list) and node else node  # [[array of tables]]
        if parsed is not None and keys and node == {}:
            out.append((m.start(), tuple(keys)))
    return out


def _at_top_level(text: str, offset: int) -> bool:
    # a "[header]" inside a multi-line string or array leaves the text before it unparseable
    return _try_toml(text[:offset]) is not None


def _toml_block(keys: tuple[str, ...], value: dict[str, Any]) -> str:
    lines = [f"[{'.'.join(_toml_key(k) for k in keys)}]", TOML_MARK]
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()]
    return "\n".join(lines) + "\n"


def _toml_hint(change: TomlTable) -> str:
    """The table in one line, for an error message (which is one line)."""
    return f"a {change.label} table holding " + "; ".join(f"{_toml_key(k)} = {_toml_value(v)}"
                                                          for k, v in change.value.items())


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string; the parse checks it
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        pairs = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return f"{{ {pairs} }}" if value else "{}"
    raise InvalidInput(f"cannot write {value!r} as TOML")
