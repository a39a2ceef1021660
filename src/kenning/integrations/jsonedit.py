"""Edit a JSON document as text: change one member or array element and leave every other byte as it was.

A small scanner records where the containers along the edited path, their keys, members and
children sit in the text (strict RFC 8259 JSON: no comments, no NaN/Infinity). An edit splices only
the affected span; new text is written to fit its surroundings:

* a container written on one line gets the new member inline (``{"a": 1}`` -> ``{"a": 1, "b": 2}``),
  copying the separators around it (``", "``/``","``, ``": "``/``":"``);
* a container spread over lines gets a new line at the indentation of its last member, with a comma
  added straight after that member's value;
* an empty ``{}``/``[]`` becomes a properly indented container, unless it lies inside a one-line
  container, where it stays on one line;
* on its own line the value is ``json.dumps(indent=unit, ensure_ascii=False)`` (its objects and arrays
  over several lines), re-indented to its depth, where the unit (spaces or a tab) and the line ending
  (``\\n`` or ``\\r\\n``) come from the file; inline it is one line with the container's separators.

Removing what was added gives back the original bytes (an empty container must be written ``{}``/``[]``).
The end of the file (a final newline or none) is never touched; an empty text becomes ``{}`` plus a
newline before the edit.

Every result is parsed and compared with the edit made on the parsed document; a mismatch raises
ValueError, and so does text that is not strict JSON or a path through a non-object or non-array: the
caller can then fall back to re-dumping the whole document. A missing array or element for
remove_item / replace_item is the caller's mistake: KeyError / IndexError.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Keys = tuple[str, ...]

_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass
class _Node:
    start: int
    end: int
    kind: str  # "{", "[" or "" for a scalar
    items: list[_Item] = field(default_factory=list)


@dataclass
class _Item:
    start: int  # where the member's key, or the array element, starts
    key: str | None  # None in an array
    colon: str  # the text between key and value, "" in an array
    value: _Node


@dataclass
class _Fit:
    """How a new child of a container is written."""

    multi: bool  # on a line of its own
    indent: str  # that line's indentation
    unit: str
    sep: str  # after the comma, when inline
    colon: str


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Reads one token or one whole value and says where it ends, at C speed, as strictly as json.loads.
_DECODER = json.JSONDecoder(parse_constant=_refuse)


class _Scanner:
    """Spans of the containers along one path and of their children, plus the layout habits seen there.

    Containers off the path are not looked into: the decoder only finds where they end, which keeps
    an edit in a file of megabytes fast."""

    def __init__(self, text: str) -> None:
        self.text = text
        first = text.find("\n")
        self.nl = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
        self._unit: str | None = None
        self._colon: str | None = None
        self._comma: str | None = None  # the first one-line whitespace after a comma

    def parse(self, path: Keys) -> _Node:
        try:
            root = self._value(self._skip(0), path)
        except IndexError as e:
            raise ValueError("the JSON text ends too early") from e
        if self._skip(root.end) != len(self.text):
            raise ValueError(f"unexpected text after the JSON value at offset {root.end}")
        return root

    @property
    def unit(self) -> str:
        return self._unit or "  "

    @property
    def colon(self) -> str:
        return self._colon if self._colon is not None and "\n" not in self._colon else ": "

    @property
    def sep(self) -> str:
        return self._comma if self._comma is not None else ("" if self.colon == ":" else " ")

    def _skip(self, pos: int) -> int:
        m = _SPACE.match(self.text, pos)
        return m.end() if m else pos

    def _value(self, pos: int, path: Keys | None) -> _Node:
        """The value at ``pos``; its children too while ``path`` (the keys still to follow) is not None."""
        kind = self.text[pos] if self.text[pos] in "{[" else ""
        if kind and path is not None:
            return self._container(pos, path)
        return _Node(pos, _DECODER.raw_decode(self.text, pos)[1], kind)

    def _container(self, pos: int, path: Keys) -> _Node:
        text, node = self.text, _Node(pos, -1, self.text[pos])
        close = "}" if node.kind == "{" else "]"
        i = self._skip(pos + 1)
        if text[i] != close:
            self._learn_unit(pos, i)
            while True:
                node.items.append(self._item(i, path) if close == "}" else _Item(i, None, "", self._value(i, None)))
                i = self._skip(node.items[-1].value.end)
                if text[i] == close:
                    break
                if text[i] != ",":
                    raise ValueError(f"expected ',' or {close!r} at offset {i}")
                j = self._skip(i + 1)
                if self._comma is None and "\n" not in text[i + 1:j]:
                    self._comma = text[i + 1:j]
                i = j
        node.end = i + 1
        return node

    def _item(self, i: int, path: Keys) -> _Item:
        if self.text[i] != '"':
            raise ValueError(f"expected a key at offset {i}")
        key, end = _DECODER.raw_decode(self.text, i)
        j = self._skip(end)
        if self.text[j] != ":":
            raise ValueError(f"expected ':' at offset {j}")
        k = self._skip(j + 1)
        self._colon = self.text[end:k] if self._colon is None else self._colon
        return _Item(i, key, self.text[end:k], self._value(k, path[1:] if path and key == path[0] else None))

    def _learn_unit(self, open_at: int, child: int) -> None:
        """The file's indentation unit: the first child on its own line, less its container's indent."""
        before = self.text[open_at + 1:child]
        if self._unit is None and "\n" in before:
            inner, outer = before[before.rindex("\n") + 1:], _line_indent(self.text, open_at)
            if inner.startswith(outer) and len(inner) > len(outer):
                self._unit = inner[len(outer):]


def _line_indent(text: str, pos: int) -> str:
    start = end = text.rfind("\n", 0, pos) + 1
    while end < pos and text[end] in " \t":
        end += 1
    return text[start:end]


def _before(text: str, node: _Node, i: int) -> str:
    """The whitespace in front of child ``i``, after the comma that precedes it."""
    seg = text[node.items[i - 1].value.end if i else node.start + 1:node.items[i].start]
    return seg[seg.index(",") + 1:] if i else seg


def _fit(sc: _Scanner, node: _Node, parent: _Node | None, model: int | None) -> _Fit:
    """Layout for a child of ``node``, modelled on its child ``model`` (None: the container is empty)."""
    colon = sc.colon
    if model is not None and node.kind == "{" and "\n" not in node.items[model].colon:
        colon = node.items[model].colon
    outer = _line_indent(sc.text, node.start)
    if model is None:
        multi = parent is None or "\n" in sc.text[parent.start:parent.end]
        return _Fit(multi, outer + sc.unit, sc.unit, sc.sep, colon)
    before = _before(sc.text, node, model)
    if "\n" not in before:
        return _Fit(False, "", sc.unit, before if model else sc.sep, colon)
    indent = before[before.rindex("\n") + 1:]
    unit = indent[len(outer):] if indent.startswith(outer) and len(indent) > len(outer) else sc.unit
    return _Fit(True, indent, unit, "", colon)


def _render(value: Any, fit: _Fit, nl: str) -> str:
    if fit.multi:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=fit.unit, separators=(",", fit.colon))
        return text.replace("\n", nl + fit.indent)
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=("," + fit.sep, fit.colon))


def _append(sc: _Scanner, node: _Node, parent: _Node | None, key: str | None, value: Any) -> str:
    text = sc.text
    model = len(node.items) - 1 if node.items else None
    fit = _fit(sc, node, parent, model)
    child = _render(value, fit, sc.nl)
    if key is not None:
        child = json.dumps(key, ensure_ascii=False) + fit.colon + child
    if model is None:  # whitespace inside an empty container is dropped
        if fit.multi:
            child = sc.nl + fit.indent + child + sc.nl + _line_indent(text, node.start)
        return text[:node.start + 1] + child + text[node.end - 1:]
    at = node.items[-1].value.end
    return text[:at] + "," + (sc.nl + fit.indent if fit.multi else fit.sep) + child + text[at:]


def _remove(text: str, node: _Node, i: int) -> str:
    items = node.items
    if len(items) == 1:
        return text[:node.start + 1] + text[node.end - 1:]
    if i == len(items) - 1:  # the comma in front of it goes too, what follows it stays
        return text[:items[i - 1].value.end] + text[items[i].value.end:]
    return text[:items[i].start] + text[items[i + 1].start:]


def _replace(sc: _Scanner, node: _Node, i: int, value: Any) -> str:
    old = node.items[i].value
    if json.dumps(json.loads(sc.text[old.start:old.end])) == json.dumps(value):
        return sc.text  # the same value stays written the way it was
    new = _render(value, _fit(sc, node, None, i), sc.nl)
    return sc.text[:old.start] + new + sc.text[old.end:]


def _open(text: str, path: Keys) -> tuple[Any, _Scanner, _Node]:
    try:
        doc = json.loads(text)  # refuses what is not JSON before the scanner sees it
    except RecursionError as e:
        raise ValueError("the JSON text is nested too deeply") from e
    sc = _Scanner(text)
    return doc, sc, sc.parse(path)


def _index(node: _Node, key: str) -> int | None:
    found = [i for i, item in enumerate(node.items) if item.key == key]
    if len(found) > 1:
        raise ValueError(f"key {key!r} appears {len(found)} times")
    return found[0] if found else None


def _walk(root: _Node, path: Keys) -> list[_Node]:
    """The nodes from the root along ``path``, as far as they exist."""
    chain = [root]
    for n, key in enumerate(path):
        if chain[-1].kind != "{":
            raise ValueError(f"{_name(path[:n])} is not an object")
        i = _index(chain[-1], key)
        if i is None:
            break
        chain.append(chain[-1].items[i].value)
    return chain


def _name(path: Keys) -> str:
    return ".".join(path) or "the document"


def _get(doc: Any, path: Keys) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _verified(result: str, expected: Any) -> str:
    try:
        got = json.loads(result)
    except ValueError as e:
        raise ValueError(f"the edit gave invalid JSON: {e}") from e
    if json.dumps(got) != json.dumps(expected):  # dumps also compares key order and 1 vs 1.0 vs true
        raise ValueError("the edit did not give the expected document")
    return result


def set_value(text: str, path: Keys, value: Any) -> str:
    """``text`` with ``value`` at ``path``: the old value's span replaced, or a new last member of the
    deepest existing object, holding the missing objects as nested text. Empty text counts as ``{}\\n``."""
    if not path:
        raise ValueError("set_value needs at least one key")
    if not text.strip():
        text = "{}" + ("\r\n" if "\r\n" in text else "\n")
    doc, sc, root = _open(text, path)
    chain = _walk(root, path)
    parent = doc
    for key in path[:-1]:
        parent = parent.setdefault(key, {})
    parent[path[-1]] = value
    if len(chain) == len(path) + 1:
        container = chain[-2]
        i = _index(container, path[-1])
        assert i is not None
        return _verified(_replace(sc, container, i, value), doc)
    found = len(chain) - 1
    for key in reversed(path[found + 1:]):
        value = {key: value}
    return _verified(_append(sc, chain[-1], chain[-2] if found else None, path[found], value), doc)


def delete_key(text: str, path: Keys) -> str:
    """``text`` without the member at ``path`` (its key, value, one comma and its line's whitespace);
    unchanged if it is not there. The last member of an object leaves ``{}``."""
    if not path:
        raise ValueError("delete_key needs at least one key")
    if not text.strip():
        return text
    doc, _, root = _open(text, path)
    chain = _walk(root, path)
    if len(chain) <= len(path):
        return text
    i = _index(chain[-2], path[-1])
    assert i is not None
    del _get(doc, path[:-1])[path[-1]]
    return _verified(_remove(text, chain[-2], i), doc)


def append_item(text: str, path: Keys, value: Any) -> str:
    """``text`` with ``value`` appended to the array at ``path`` (``()``: the root), inline if the array
    is written on one line; a missing key is set to ``[value]`` with :func:`set_value`."""
    if not text.strip():
        return set_value(text, path, [value])
    doc, sc, root = _open(text, path)
    chain = _walk(root, path)
    if len(chain) <= len(path):
        return set_value(text, path, [value])
    _array(chain[-1], path)
    _get(doc, path).append(value)
    return _verified(_append(sc, chain[-1], chain[-2] if path else None, None, value), doc)


def remove_item(text: str, path: Keys, index: int) -> str:
    """``text`` without element ``index`` (negative counts from the end) of the array at ``path``;
    the inverse of :func:`append_item` on an existing array. KeyError / IndexError if it is not there."""
    doc, _, root = _open(text, path)
    node, i = _element(root, path, index)
    del _get(doc, path)[i]
    return _verified(_remove(text, node, i), doc)


def replace_item(text: str, path: Keys, index: int, value: Any) -> str:
    """``text`` with element ``index`` of the array at ``path`` replaced by ``value``, only its span changed."""
    doc, sc, root = _open(text, path)
    node, i = _element(root, path, index)
    _get(doc, path)[i] = value
    return _verified(_replace(sc, node, i, value), doc)


def _array(node: _Node, path: Keys) -> None:
    if node.kind != "[":
        raise ValueError(f"{_name(path)} is not an array")


def _element(root: _Node, path: Keys, index: int) -> tuple[_Node, int]:
    chain = _walk(root, path)
    if len(chain) <= len(path):
        raise KeyError(_name(path))
    node = chain[-1]
    _array(node, path)
    i = index + len(node.items) if index < 0 else index
    if not 0 <= i < len(node.items):
        raise IndexError(f"{_name(path)} has no element {index}")
    return node, i


def follow(text: str, old: Any, new: Any, path: Keys = ()) -> str:
    """Edit ``text`` (which holds ``old`` at ``path``) until it holds ``new`` there, with the fewest
    splices: removed keys deleted, added keys appended, changed members followed into; an array
    that only gained or lost elements at known places gets those elements added or removed, one of
    the same length has its changed elements replaced, anything else is rewritten whole."""
    if _same(old, new):
        return text
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            text = delete_key(text, (*path, key))
        for key, value in new.items():
            text = follow(text, old[key], value, (*path, key)) if key in old else set_value(text, (*path, key), value)
        return text
    if isinstance(old, list) and isinstance(new, list) and path:
        return _follow_list(text, old, new, path)
    if not path:
        raise ValueError("the document's root must stay an object")
    return set_value(text, path, new)


def _follow_list(text: str, old: list[Any], new: list[Any], path: Keys) -> str:
    if len(new) == len(old):
        for i, (a, b) in enumerate(zip(old, new)):
            if not _same(a, b):
                text = replace_item(text, path, i, b)
        return text
    if len(new) > len(old) and all(_same(a, b) for a, b in zip(old, new)):
        for value in new[len(old):]:
            text = append_item(text, path, value)
        return text
    if len(new) == len(old) - 1:
        gone = next((i for i, (a, b) in enumerate(zip(old, new)) if not _same(a, b)), len(new))
        if all(_same(a, b) for a, b in zip(old[gone + 1:], new[gone:])):
            return remove_item(text, path, gone)
    return set_value(text, path, new)


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
