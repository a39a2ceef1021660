"""The structure of a Markdown file that the rules need: fenced code blocks, paragraphs and quotes.

A fenced block (``` or ~~~) holds commands to run: its lines are read as a script. A paragraph
is a run of non-blank lines outside fences. A quote is inline code or a quotation ("…", “…”,
「…」, ‘…’, «…», „…“) on one line: what a text quotes it mentions.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
QUOTED = re.compile(r"`[^`\n]+`|\"[^\"\n]{3,}\"|“[^”\n]+”|「[^」\n]+」|『[^』\n]+』|‘[^’\n]+’|«[^»\n]+»|„[^“”\n]+[“”]")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


def fences(text: str) -> list[tuple[int, int]]:
    """(first, last) line numbers (1-based) of each fenced block's content; an unclosed fence runs to the end."""
    out: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m is None:
            continue
        if opened is None:
            opened = (n, m.group(1)[0])
        elif m.group(1)[0] == opened[1] and not line.strip().strip(opened[1]):  # a closing fence is bare
            out.append((opened[0] + 1, n - 1))
            opened = None
    if opened is not None:
        out.append((opened[0] + 1, len(lines)))
    return [(a, b) for a, b in out if a <= b]


def inside(line: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= line <= b for a, b in spans)


def paragraphs(text: str, fenced: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(first line number, text) of each paragraph outside the fenced blocks."""
    out: list[tuple[int, str]] = []
    start, parts = 0, list[str]()
    for n, line in enumerate(text.split("\n") + [""], 1):
        if line.strip() and not inside(n, fenced):
            if not parts:
                start = n
            parts.append(line)
        elif parts:
            out.append((start, "\n".join(parts)))
            parts = []
    return out


def blank_quotes(line: str) -> str:
    """``line`` with what it quotes replaced by spaces (positions kept)."""
    return QUOTED.sub(lambda m: " " * len(m.group()), line)
