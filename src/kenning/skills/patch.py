"""Replace one passage of a skill's text, tolerant of how a model quotes it back.

Models copy passages with other line endings, other indentation and collapsed spaces. So a patch
first looks for ``old`` exactly (line endings made alike), then for the same words separated by
any whitespace; with that looser match the replacement is re-indented to where it lands. An
approximate match must be unique, and ``replace_all`` accepts only exact matches: a loose pattern
applied everywhere could change passages the caller never saw. A miss shows the closest passage,
so the caller can copy it correctly on the next try.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..errors import Conflict, InvalidInput

_SHOW_CHARS = 600


@dataclass(frozen=True)
class Patched:
    text: str
    count: int  # passages replaced
    exact: bool


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def apply_patch(text: str, old: object, new: object, *, replace_all: bool = False, what: str = "SKILL.md") -> Patched:
    """``text`` with ``old`` replaced by ``new``; Conflict when ``old`` is missing or ambiguous."""
    if not isinstance(old, str) or not old.strip():
        raise InvalidInput("old_string is empty; give the passage to replace, copied from the skill")
    if not isinstance(new, str):
        raise InvalidInput(f"new_string must be text, got {type(new).__name__}")
    crlf = "\r\n" in text
    body, old_lf, new_lf = _lf(text), _lf(old), _lf(new)
    count = body.count(old_lf)
    if count == 1 or (count > 1 and replace_all):
        return Patched(_restore(body.replace(old_lf, new_lf), crlf), count, True)
    if count > 1:
        raise Conflict(f"old_string occurs {count} times in {what}; include more of the surrounding text "
                       "so that it matches once, or pass replace_all to change every one")
    spans = [m.span() for m in re.finditer(_loose_pattern(old_lf), body)]
    if len(spans) > 1:
        raise Conflict(f"old_string matches {len(spans)} passages of {what} when whitespace is ignored; "
                       "include more of the surrounding text so that it matches once")
    if spans and replace_all:
        raise Conflict(f"old_string matches {what} only when whitespace is ignored; replace_all needs an "
                       "exact match: copy the passage exactly, or patch without replace_all")
    if not spans:
        raise Conflict(f"old_string not found in {what}; {closest_passage(body, old_lf)}")
    start, end = spans[0]
    replacement = _reindent(body, start, old_lf, new_lf)
    return Patched(_restore(body[:start] + replacement + body[end:], crlf), 1, False)


def _loose_pattern(old: str) -> str:
    return r"\s+".join(re.escape(token) for token in old.split())


def _reindent(body: str, start: int, old: str, new: str) -> str:
    """``new`` shaped for where the loose match begins: the whitespace around ``old`` was not part of
    the match, and continuation lines take the indentation the text has there."""
    lead = old[: len(old) - len(old.lstrip())]
    trail = old[len(old.rstrip()) :]
    if lead and new.startswith(lead):
        new = new[len(lead) :]
    if trail and new.endswith(trail):
        new = new[: len(new) - len(trail)]
    old_indent = lead.rsplit("\n", 1)[-1]
    line_start = body.rfind("\n", 0, start) + 1
    here = body[line_start:start]
    if here.strip() or here == old_indent:  # a match in mid-line, or the same indentation
        return new
    lines = new.split("\n")
    return "\n".join([lines[0], *(here + ln[len(old_indent):] if ln.startswith(old_indent) and ln else ln
                                  for ln in lines[1:])])


def _restore(text: str, crlf: bool) -> str:
    return text.replace("\n", "\r\n") if crlf else text


def closest_passage(body: str, old: str) -> str:
    """A sentence naming the lines of ``body`` most like ``old`` and quoting them. Compared word by
    word: a misremembered word costs one word, not the characters it shares with another line."""
    lines = body.split("\n")
    span = max(1, len(old.strip("\n").split("\n")))
    best, best_at = 0.0, 0
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(old.split())
    for i in range(max(1, len(lines) - span + 1)):
        matcher.set_seq1(" ".join(lines[i : i + span]).split())
        if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best:
            ratio = matcher.ratio()
            if ratio > best:
                best, best_at = ratio, i
    if best < 0.3:
        return "nothing in it is close; view the skill and copy the passage exactly"
    passage = "\n".join(lines[best_at : best_at + span])
    if len(passage) > _SHOW_CHARS:
        passage = passage[:_SHOW_CHARS] + "…"
    end = best_at + span
    where = f"line {best_at + 1}" if span == 1 else f"lines {best_at + 1}-{end}"
    return f"the closest passage ({where}, {best:.0%} alike) is: {passage!r}"
