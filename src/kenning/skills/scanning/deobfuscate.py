"""The views of a text the rules read, undoing the usual ways of hiding a command.

    logical lines   a line continued with a trailing ``\\``, ``|``, ``&&`` or ``||`` joins the next
    plain           invisible characters removed, look-alikes mapped (``unicode.plain``)
    unsplit         ``"cu"+"rl"`` and ``'cu' 'rl'`` joined, shell quoting removed (``c"u"rl``,
                    ``cu''rl``, ``c\\url``), ``${IFS}`` read as a space, ``/* … */`` dropped, HTML
                    entities decoded
    substituted     ``$u`` / ``${u}`` replaced by what ``u=…`` assigned earlier in the file
    decoded         base64 blobs and ``\\xNN`` runs that decode to text, scanned as text of their own

A view is for matching only: line numbers stay those of the file.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from dataclasses import dataclass

from .unicode import plain

_CONTINUED = re.compile(r"(?:\\|\|\||&&|\|)\s*$")
_CONCAT = re.compile(r"([\"'])\s*(?:\+|\.\.|\.)?\s*\1")  # "cu"+"rl", 'cu' 'rl', "cu".."rl" (Lua), "cu"."rl"
_QUOTES = re.compile(r"(?<=\w)[\"'`]{1,2}(?=\w)")  # c"u"rl, cu''rl (not c\url: that is also a Windows path)
_IFS = re.compile(r"\$\{?IFS\}?")
_BLOCK_COMMENT = re.compile(r"/\*.{0,200}?\*/")
_ASSIGN = re.compile(r"(?:^|[;&|]\s*|\bexport\s+|\bset\s+)([A-Za-z_]\w{0,40})=([\"']?)([^\"'\s;&|]{1,300})\2")
_PY_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w{0,40})\s*=\s*([\"'])([^\"'\n]{1,300})\2\s*$")
_REVERSED = re.compile(r"([\"'])([^\"'\n]{1,300})\1\s*\[\s*::\s*-1\s*\]")  # "hs | lruc"[::-1]
_FSTRING_PART = re.compile(r"\{\s*(?:([\"'])([^\"'{}]{0,100})\1|([A-Za-z_]\w{0,40}))\s*\}")
_PY_CONCAT = re.compile(r"(?:[A-Za-z_]\w{0,40}|\"[^\"\n]{0,300}\"|'[^'\n]{0,300}')(?:\s*\+\s*(?:[A-Za-z_]\w{0,40}|\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'))+")
_PRINTF = re.compile(r"\$\(\s*(?:printf|echo\s+-e)\s+([\"'])((?:\\x[0-9a-fA-F]{2}|\\[0-7]{3}|[^\"'\\]){1,200})\1\s*\)")
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\([0-7]{3})")
_USE = re.compile(r"\$\{?([A-Za-z_]\w{0,40})\}?")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{10,}={0,2}")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){6,}")
MAX_LINE = 20_000  # a minified line is read in pieces of this many characters


@dataclass(frozen=True)
class Line:
    """One logical line: its first line number, the raw text, and the view the rules read."""

    number: int
    raw: str
    view: str


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each non-blank logical line; very long lines are cut in pieces."""
    out: list[tuple[int, str]] = []
    start, parts = 0, list[str]()
    for n, line in enumerate(text.split("\n"), 1):
        if not parts:
            if not line or line.isspace():
                continue
            start = n
        parts.append(line)
        if line.rstrip().endswith(("\\", "|", "&")) and _CONTINUED.search(line) and len(parts) < 20:
            continue
        joined = " ".join(p.rstrip("\\").strip() for p in parts) if len(parts) > 1 else parts[0]
        if len(joined) <= MAX_LINE:
            out.append((start, joined))
        else:
            out += [(start, joined[k:k + MAX_LINE]) for k in range(0, len(joined), MAX_LINE)]
        parts = []
    if parts:
        out.append((start, " ".join(parts)))
    return out


def unsplit(text: str) -> str:
    text = html.unescape(text) if "&" in text else text
    text = _BLOCK_COMMENT.sub("", text)
    for _ in range(3):  # "c"+"u"+"rl" takes two passes
        joined = _CONCAT.sub("", text)
        if joined == text:
            break
        text = joined
    return _IFS.sub(" ", _QUOTES.sub("", text))


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8)), text)


def _folded(view: str, assigned: dict[str, str]) -> str:
    """String expressions of a script evaluated where every part is known: ``tool + " -s " + host``,
    ``f"{r} -{'r'}f"``, ``"hs | lruc"[::-1]``, ``$(printf '\\x63\\x75')``."""
    view = _REVERSED.sub(lambda m: m.group(1) + m.group(2)[::-1] + m.group(1), view)
    view = _PRINTF.sub(lambda m: _unescape(m.group(2)), view)

    def concat(m: re.Match[str]) -> str:
        parts = [p.strip() for p in m.group().split("+")]
        values = [p[1:-1] if p[:1] in "\"'" else assigned.get(p) for p in parts]
        return m.group() if any(v is None for v in values) else '"' + "".join(v or "" for v in values) + '"'

    if "+" in view:
        view = _PY_CONCAT.sub(concat, view)
    if "{" in view:
        view = _FSTRING_PART.sub(lambda m: m.group(2) if m.group(1) else assigned.get(m.group(3), m.group(0)), view)
    return view


def views(text: str) -> list[Line]:
    """The logical lines of ``text`` with the view the rules read."""
    assigned: dict[str, str] = {}
    out: list[Line] = []
    for number, raw in logical_lines(text):
        view = _folded(unsplit(plain(raw)), assigned)
        for m in _ASSIGN.finditer(view):
            assigned[m.group(1)] = m.group(3)
        py = _PY_ASSIGN.match(view)
        if py:
            assigned[py.group(1)] = py.group(3)
        if assigned and "$" in view:
            view = _USE.sub(lambda u: assigned.get(u.group(1), u.group(0)), view)
        out.append(Line(number, raw, view))
    return out


def _readable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t\r")
    return text if text and printable >= 0.9 * len(text) and any(c.isalpha() for c in text) else None


def decoded(line: str) -> list[str]:
    """What the base64 blobs and ``\\xNN`` runs on ``line`` decode to, when that is text."""
    out: list[str] = []
    for m in _BASE64.finditer(line):
        blob = m.group()
        if blob.isalpha() or blob.isdigit():  # a long word or number, not an encoding
            continue
        try:
            alt = b"-_" if ("-" in blob or "_" in blob) else None
            data = base64.b64decode(blob + "=" * (-len(blob) % 4), altchars=alt)
        except (binascii.Error, ValueError):
            continue
        text = _readable(data)
        if text is None and len(data) > 3 and data[1::2].count(0) > len(data) // 4:  # PowerShell -EncodedCommand
            text = _readable(data.decode("utf-16-le", errors="replace").encode("utf-8"))
        if text:
            out.append(text)
    for m in _HEX.finditer(line):
        text = _readable(bytes.fromhex(m.group().replace("\\x", "")))
        if text:
            out.append(text)
    return out
