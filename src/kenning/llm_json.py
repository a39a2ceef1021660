"""JSON out of a language model's answer.

Models wrap JSON in ``` fences, add a sentence before or after it, or stop mid-object when they run
out of tokens. ``parse_json_answer`` parses strictly first: the whole text, then each fenced block,
then the longest JSON object or array found in the prose. Only when all of these fail does it
repair the text with ``json_repair``, and it says so: ``ParsedAnswer.repaired`` is True.

Repair fixes two different things, and ``ParsedAnswer`` tells them apart. Sloppy syntax (a trailing
comma, single quotes, a comment, an unquoted key) loses nothing. But an answer that stops inside an
open string, array or object was cut off, whatever ``finish_reason`` says, and repairing it closes
what was open: ``"Postgres 1`` becomes the complete-looking string ``"Postgres 1"``. Whether the
text was cut is decided here by scanning its strings and brackets (``unclosed``), not by asking
``json_repair``; ``ParsedAnswer.truncated`` is then True and ``unclosed`` names what was left open,
so a caller can refuse the answer or ask again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import json_repair

from .errors import LLMAnswerError

# A fenced block: ```json ... ```; an unclosed fence (a truncated answer) runs to the end.
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_MAX_STARTS = 64  # top-level '{' / '[' tried in prose; each failed try may scan to the end
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedAnswer:
    """A JSON object (dict) or array (list) from a model; ``repaired`` when it had to be patched,
    ``unclosed`` ("string", "array", "object" or "comment") when the text ended inside one, which
    the repair then closed: the answer was cut off (``truncated``)."""

    value: dict[str, Any] | list[Any]
    repaired: bool
    unclosed: str = ""

    @property
    def truncated(self) -> bool:
        """The answer was cut off: the value is what the repair guessed the whole would be."""
        return bool(self.unclosed)


def parse_json_answer(text: str) -> ParsedAnswer:
    """The JSON object or array in a model's answer; ``LLMAnswerError`` when there is none.

    A strictly parsed ``{}`` or ``[]`` is accepted (a model may rightly find nothing); a repair
    that yields nothing is not.
    """
    stripped = text.strip()
    if not stripped:
        raise LLMAnswerError("the language model's answer is empty; expected a JSON object or array")
    try:
        return ParsedAnswer(_container(json.loads(stripped), stripped), repaired=False)
    except json.JSONDecodeError:
        pass
    fences = [m.group(1).strip() for m in _FENCE.finditer(stripped)]
    for body in fences:
        try:
            return ParsedAnswer(_container(json.loads(body), body), repaired=False)
        except json.JSONDecodeError:
            continue
    found = _longest_in_prose(stripped)
    if found is not None:
        return ParsedAnswer(found, repaired=False)
    # Repair the fenced block that looks like JSON (a truncated answer leaves its fence open).
    source = next((b for b in fences if b[:1] in "{["), fences[0] if fences else stripped)
    value = json_repair.repair_json(source, return_objects=True)
    if not isinstance(value, (dict, list)) or not value:
        raise LLMAnswerError(f"the language model's answer holds no JSON object or array, even after "
                             f"repair: {_excerpt(stripped)}; ask for JSON only (json_mode=True)")
    return ParsedAnswer(value, repaired=True, unclosed=unclosed(source) or "")


def _container(value: object, text: str) -> dict[str, Any] | list[Any]:
    if isinstance(value, (dict, list)):
        return value
    raise LLMAnswerError(f"the language model answered a JSON {type(value).__name__}, not an object or "
                         f"array: {_excerpt(text)}; ask for a JSON object")


def _top_level_starts(text: str) -> Iterator[int]:
    """Where a '{' or '[' opens at nesting depth 0. Values nested in a broken or truncated one are
    never candidates: the inner ``{"text": "a"}`` of a cut-off list is not the answer."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:  # quotes count only inside brackets: prose has apostrophes and stray quotes
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif depth and ch == '"':
            in_string = True
        elif ch in "{[":
            if depth == 0:
                yield i
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1


def unclosed(text: str) -> str | None:
    """What JSON ``text`` leaves open at its end (the innermost of "string", "array", "object",
    "comment"), or None when every string, bracket and comment it opens is closed.

    The scan follows the syntax a repair accepts: strings in double or single quotes with backslash
    escapes, ``//`` and ``/* */`` comments. As in ``_top_level_starts``, quotes and comments count
    only inside brackets, so an apostrophe in the prose around the JSON opens nothing. A stray
    closing bracket is ignored (it cannot hide a cut: the text still ends where it ends)."""
    stack: list[str] = []
    quote = ""
    escaped = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "{[":
            stack.append(ch)
        elif not stack:
            pass  # prose before or after the JSON
        elif ch in "}]":
            stack.pop()
        elif ch in "\"'":
            quote = ch
        elif text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            if close < 0:
                return "comment"
            i = close + 2
            continue
        i += 1
    if quote:
        return "string"
    if stack:
        return "object" if stack[-1] == "{" else "array"
    return None


def _longest_in_prose(text: str) -> dict[str, Any] | list[Any] | None:
    """The longest top-level object or array that parses strictly in ``text`` (so that a "[1]"
    citation in the preamble does not win over the answer)."""
    best: dict[str, Any] | list[Any] | None = None
    best_len = 0
    for tries, start in enumerate(_top_level_starts(text)):
        if tries >= _MAX_STARTS:
            break
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, (dict, list)) and end - start > best_len:
            best, best_len = value, end - start
    return best


def _excerpt(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")
