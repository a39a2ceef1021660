"""Tool arguments, checked and coerced once, at the edge.

A ``Param`` says what an argument is (its kind: "text", "int", "number", "bool", "texts",
"object", "objects"), what it is for, and the other names models use for it. ``parse_arguments``
maps those names to the canonical one, treats null and an empty optional value as "not given",
coerces what models send as strings ("5" -> 5, "true" -> True, "a, b" -> ["a", "b"], JSON text
-> list or object), checks choices and ranges, fills defaults, and refuses an unknown or missing
argument with a message listing what the tool takes. Values are then the library's to validate.

Sizes are capped here, before any work is done, so that a client cannot make the server embed,
store or scan megabytes (a 10 MB entity attribute once gave a 71 MB database and a 9.6 s context
build). Sizes are counted in characters: a text's own length, and a list or object's length as
compact JSON. Each ``Param`` has a ``limit`` (by default, from its kind: ``LIMITS``); ``objects``
also cap each item (``ITEM_LIMIT``); and the whole arguments object is capped at
``ARGUMENTS_LIMIT``. The library has limits of its own; these are the MCP edge's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput

Args = dict[str, Any]
_JSON_TYPES = {"text": "string", "int": "integer", "number": "number", "bool": "boolean", "texts": "array",
               "object": "object", "objects": "array"}
SHORT = 200  # a name, an id, a scope, a kind, a date, a choice, a number sent as text
TEXT = 20_000  # a fact, a query, a task, a note, a part of a lesson: a few paragraphs at most
LIMITS = {"text": TEXT, "int": SHORT, "number": SHORT, "bool": SHORT,
          "texts": 10_000,  # tags, aliases, kinds: a list of short texts
          "object": 20_000,  # entity attributes: a few facts about a thing, not a document
          "objects": 3_000_000}  # a conversation's messages
ITEM_LIMIT = 200_000  # one item of an "objects" argument (one message) as JSON
ARGUMENTS_LIMIT = 4_000_000  # the whole arguments object as JSON
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


@dataclass(frozen=True)
class Param:
    """One argument: its kind ("text", "int", "number", "bool", "texts", "object", "objects"), what it
    is for, the other names models use for it, and the most characters it may take (``limit``; by
    default short for a choice, else ``LIMITS`` of its kind)."""

    name: str
    kind: str
    help: str
    required: bool = False
    aliases: tuple[str, ...] = ()
    default: Any = None
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    limit: int | None = None
    items: Mapping[str, Any] | None = None  # "objects": the schema of one item (default: any object)

    @property
    def max_size(self) -> int:
        if self.limit is not None:
            return self.limit
        return SHORT if self.choices else LIMITS[self.kind]

    def schema(self, default: Any = None) -> dict[str, Any]:
        """The JSON schema; ``default`` replaces the table's default (the server's scope)."""
        out: dict[str, Any] = {"type": _JSON_TYPES[self.kind], "description": self.help}
        choices = {"enum": list(self.choices)} if self.choices else {}
        if self.kind == "text":
            out.update(maxLength=self.max_size, **choices)
        elif self.kind == "texts":  # the choices are each item's: ["fact"], not "fact"
            out["items"] = {"type": "string", **choices}
        elif self.kind == "objects":
            out["items"] = dict(self.items or {"type": "object"})
        elif choices:
            out.update(choices)
        if self.low is not None:
            out["minimum"] = self.low
        if self.high is not None:
            out["maximum"] = self.high
        default = self.default if default is None else default
        if default is not None:
            out["default"] = default
        return out


def parse_arguments(tool: str, params: Sequence[Param], raw: Mapping[str, Any],
                    defaults: Mapping[str, Any] | None = None) -> Args:
    """``raw`` under canonical names, coerced to each parameter's kind, defaults filled in (``defaults``
    before the table's: the server's scope); InvalidInput names the tool, the argument and what it
    takes, or its size and the limit."""
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"{tool}: arguments must be a JSON object, got {_kind_of(raw)}")
    size = _json_size(raw)
    if size > ARGUMENTS_LIMIT:
        raise InvalidInput(f"{tool}: the arguments are {size:,} characters as JSON; at most {ARGUMENTS_LIMIT:,} "
                           "are taken in one call: send less, or split it over several calls")
    by_name = {alias: p for p in params for alias in (p.name, *p.aliases)}
    out: Args = {}
    given_as: dict[str, str] = {}
    unknown = []
    for key, value in raw.items():
        param = by_name.get(key) or by_name.get(str(key).strip().lower().replace("-", "_"))
        if param is None:
            unknown.append(_short(key))
            continue
        if value is None or (value == "" and not param.required):  # models send null / "" for "not given"
            continue
        if param.name in given_as:
            raise InvalidInput(f"{tool}: {param.name} was given twice (as {given_as[param.name]!r} and "
                               f"{key!r}); give it once")
        given_as[param.name] = key
        _check_size(tool, param, value)
        out[param.name] = _coerce(tool, param, value)
    if unknown:
        raise InvalidInput(f"{tool} does not take {', '.join(unknown)}; it takes "
                           f"{', '.join(p.name for p in params)}")
    for param in params:
        if param.name not in out:
            if param.required:
                raise InvalidInput(f"{tool} needs {param.name}: {param.help}")
            out[param.name] = (defaults or {}).get(param.name, param.default)
    return out


def _check_size(tool: str, p: Param, value: object) -> None:
    """Refuse a value over its parameter's limit, and an item of a list of objects over ``ITEM_LIMIT``."""
    json_kind = p.kind in ("texts", "object", "objects")
    size = len(value) if isinstance(value, str) else _json_size(value)
    if size > p.max_size:
        unit = "characters as JSON" if json_kind and not isinstance(value, str) else "characters"
        raise InvalidInput(f"{tool}: {p.name} is {size:,} {unit}; at most {p.max_size:,} are taken: "
                           f"{_how_to_shorten(p)}")
    if p.kind == "objects" and isinstance(value, list):
        for i, item in enumerate(value):
            if (item_size := _json_size(item)) > ITEM_LIMIT:
                raise InvalidInput(f"{tool}: {p.name}[{i}] is {item_size:,} characters as JSON; at most "
                                   f"{ITEM_LIMIT:,} are taken per item: shorten it or leave it out")


def _how_to_shorten(p: Param) -> str:
    if p.kind == "object":
        return "keep large data out of memory (store a path or a link to it instead)"
    if p.kind == "objects":
        return "send the part of the conversation that matters, or split it over several calls"
    if p.max_size <= SHORT:
        return "this is a name or an id, not a text"
    return "shorten it, or store the long text elsewhere and remember where it is"


def _json_size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def _coerce(tool_name: str, p: Param, value: object) -> object:
    where = f"{tool_name}: {p.name}"
    if p.kind == "text":
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise InvalidInput(f"{where} must be text, got {_kind_of(value)}")
        return _choice(where, p, str(value)) if p.choices else str(value)
    if p.kind in ("int", "number"):
        return _number(where, p, value)
    if p.kind == "bool":
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower() if isinstance(value, str | int) else None
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise InvalidInput(f"{where} must be true or false, got {_short(value)}")
    if p.kind == "texts":
        items = _json_or(value, list)
        if isinstance(items, str):  # "a, b" as models write a list in one string
            items = [part.strip() for part in items.split(",") if part.strip()]
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise InvalidInput(f"{where} must be a list of texts, got {_kind_of(value)}")
        return [_choice(where, p, i) for i in items] if p.choices else items
    if p.kind == "object":
        data = _json_or(value, dict)
        if not isinstance(data, dict):
            raise InvalidInput(f"{where} must be a JSON object, got {_kind_of(value)}")
        return data
    data = _json_or(value, list)
    if not isinstance(data, list):
        raise InvalidInput(f"{where} must be a list of objects, got {_kind_of(value)}")
    return data


def _number(where: str, p: Param, value: object) -> int | float:
    number: int | float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if p.kind == "int" and number is not None:
        number = int(number) if float(number).is_integer() else None
    if number is None:
        what = "a whole number" if p.kind == "int" else "a number"
        raise InvalidInput(f"{where} must be {what}, got {_short(value)}")
    if p.low is not None and number < p.low:
        raise InvalidInput(f"{where} must be at least {p.low:g}, got {number}")
    if p.high is not None and number > p.high:
        raise InvalidInput(f"{where} must be at most {p.high:g}, got {number}")
    return number


def _choice(where: str, p: Param, text: str) -> str:
    key = text.strip().lower().replace(" ", "_")
    for choice in p.choices:
        if key == choice.lower() or key.replace("_", "-") == choice.lower():
            return choice
    raise InvalidInput(f"{where} must be one of {', '.join(p.choices)}, got {_short(text)}")


def _json_or(value: object, want: type) -> object:
    """``value``, or what it parses to when it is a JSON text of the wanted type (some clients
    send lists and objects as strings)."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, want) else value
    return value


def _short(value: object) -> str:
    """``repr(value)``, cut to a length that fits in a one-line message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind_of(value: object) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false"}.get(type(value), type(value).__name__)
