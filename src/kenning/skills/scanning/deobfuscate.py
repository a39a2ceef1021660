"""The views of a text the rules read, undoing the usual ways of hiding a command.

    logical lines   a line continued with a trailing ``\\``, ``|``, ``&&`` or ``||`` joins the next
    plain           invisible characters removed, look-alikes mapped (``unicode.plain``)
    unsplit         ``"cu"+"rl"`` and ``'cu' 'rl'`` joined, shell quoting removed (``c"u"rl``,
                    ``cu''rl``, ``c\\url``), ``${IFS}`` read as a space, ``/* … */`` dropped, HTML
                    entities decoded
    substituted     ``$u`` / ``${u}`` replaced by what ``u=…`` assigned earlier in the file
    folded          string expressions evaluated where every part is known: concatenation,
                    ``['cu','rl'].join('')``, ``-join``, ``chr(99)``, ``"…"[::-1]``, f-strings, and
                    paths: the home folder (``Path.home()``, ``os.homedir()`` …) reads ``"~"``, and
                    ``os.path.join(home, ".ssh", "id_rsa")`` / ``Path.home() / ".aws"`` read as one path
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
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")  # a Markdown table row ends in "|" without continuing a pipeline
# "cu"+"rl", "cu".."rl" (Lua) anywhere; 'cu' 'rl' and "cu"."rl" (PHP) only between letters, where they
# cannot be a string "." of its own ("." + "ssh" is folded later, as an expression)
_CONCAT = re.compile(r"([\"'])\s*(?:\+|\.\.)\s*\1|(?<=\w)([\"'])\s*\.?\s*\2(?=\w)")
_QUOTES = re.compile(r"(?<=\w)[\"'`]{1,2}(?=\w)")  # c"u"rl, cu''rl (not c\url: that is also a Windows path)
_IFS = re.compile(r"\$\{?IFS\}?")
_BLOCK_COMMENT = re.compile(r"/\*.{0,200}?\*/")
# name=value (shell); a value that is a command substitution is not known, so it is not recorded
_ASSIGN = re.compile(r"(?:^|[;&|]\s*|\bexport\s+|\bset\s+)([A-Za-z_]\w{0,40})=([\"']?)(?![$`]\()(?!`)([^\"'\s;&|]{1,300})\2")
# x = "…" (Python, Ruby), const x = '…'; (JavaScript), $x = '…' (PowerShell, Perl)
_PY_ASSIGN = re.compile(r"^\s*(?:(?:const|let|var|my|local)\s+)?\$?([A-Za-z_]\w{0,40})\s*=\s*([\"'])([^\"'\n]{1,300})\2\s*;?\s*$")
_STR = r"(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}')"
# the separator '' is gone by now: unsplit took "''" for a split string
_JOINED = re.compile(r"\[\s*(" + _STR + r"(?:\s*,\s*" + _STR + r")+)\s*\]\.join\(\s*(?:''|\"\")?\s*\)"  # JS
                     r"|(?:''|\"\"|(?<![\w\])\"'.]))\.join\(\s*[\[(]\s*(" + _STR + r"(?:\s*,\s*" + _STR + r")+)\s*,?\s*[\])]\s*\)"  # Python
                     r"|-join\s*\(\s*(" + _STR + r"(?:\s*,\s*" + _STR + r")+)\s*\)"  # PowerShell -join ('a','b')
                     r"|\(\s*(" + _STR + r"(?:\s*,\s*" + _STR + r")+)\s*\)\s*-join\s*(?:''|\"\")?")  # ('a','b') -join ''
_STR_PART = re.compile(_STR)
_CHR = re.compile(r"\bchr\(\s*(\d{2,3})\s*\)")
_FROM_CHAR_CODE = re.compile(r"String\.fromCharCode\(\s*(\d{2,3}(?:\s*,\s*\d{2,3})+)\s*\)")
# the home folder as code names it (a call, not a path string: ``expanduser("~/.ssh")`` stays as it is)
_HOME_CALL = (r"(?:os\.path\.expanduser\(\s*[\"']~/?[\"']\s*\)|(?:pathlib\.)?Path\.home\(\s*\)|"
              r"(?:pathlib\.)?Path\(\s*[\"']~/?[\"']\s*\)\.expanduser\(\s*\)|os\.homedir\(\s*\)|"
              r"os\.environ\[\s*[\"']HOME[\"']\s*\]|os\.(?:getenv|environ\.get)\(\s*[\"']HOME[\"']\s*\)|"
              r"(?<![\w.])homedir\(\s*\)|process\.env\.HOME\b|process\.env\[\s*[\"']HOME[\"']\s*\]|Dir\.home\b|ENV\[\s*[\"']HOME[\"']\s*\])")
_HOME_IN_TEMPLATE = re.compile(r"\$?\{\s*" + _HOME_CALL + r"\s*\}")
_HOME = re.compile(_HOME_CALL)
_AS_STRING = re.compile(r"\b(?:str|String|os\.fspath)\(\s*\"~\"\s*\)")  # str(Path.home())
_PATH_ARG = r"(?:" + _STR + r"|[A-Za-z_]\w{0,40})"
# a bare ``join(`` (imported from path) only when it starts from home: ``"".join(...)`` and ``str.join`` are not paths
_PATH_JOIN = re.compile(r"(?:os\.path\.join|posixpath\.join|path\.join|path\.resolve|File\.join|Join-Path|"
                        r"(?<![\w.])join(?=\s*\(\s*[\"']~[\"']))\s*\(\s*("
                        + _PATH_ARG + r"(?:\s*,\s*" + _PATH_ARG + r")+)\s*\)"
                        r"|Join-Path\s+(?:-Path\s+)?(" + _PATH_ARG + r"|\$[A-Za-z_]\w{0,40})\s+(?:-ChildPath\s+)?(" + _STR + r")")
_PATH_DIV = re.compile(r"(" + _STR + r"|[A-Za-z_]\w{0,40})((?:\s*/\s*" + _STR + r")+)")  # pathlib: home / ".aws" / "x"
_REVERSED = re.compile(r"([\"'])([^\"'\n]{1,300})\1\s*\[\s*::\s*-1\s*\]")  # "hs | lruc"[::-1]
# "hs | lruc".split("").reverse().join("") and NAME.split("").reverse().join("") (JavaScript)
_JS_REVERSED = re.compile(r"(?:([\"'])([^\"'\n]{1,300})\1|\b([A-Za-z_]\w{0,40}))\.split\(\s*([\"'])\4\s*\)\.reverse\(\)"
                          r"\.join\(\s*([\"'])\5\s*\)")
_U_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}){2,}")  # "\u0063\u0068…": a string spelt in escapes
_FSTRING_PART = re.compile(r"(?<!\$)\{\s*(?:([\"'])([^\"'{}]{0,100})\1|([A-Za-z_]\w{0,40}))\s*\}")
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
        if (line.rstrip().endswith(("\\", "|", "&")) and _CONTINUED.search(line) and len(parts) < 20
                and not _TABLE_ROW.match(line)):
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


def _literal(parts: str) -> str:
    return '"' + "".join(p[1:-1] for p in _STR_PART.findall(parts)) + '"'


def _joined_path(parts: list[str], assigned: dict[str, str]) -> str | None:
    """``parts`` of a path join as one path, or None when a part is not known."""
    values = [p[1:-1] if p[:1] in "\"'" else assigned.get(p.lstrip("$")) for p in parts]
    if any(v is None for v in values):
        return None
    return '"' + "/".join(str(v).replace("\\", "/").strip("/") if i else str(v).rstrip("/\\")
                          for i, v in enumerate(values)) + '"'


def _home(view: str) -> str:
    """The home folder as code names it (``Path.home()``, ``os.homedir()`` …) read as ``"~"``."""
    if "home" not in view.lower() and "~" not in view:
        return view
    return _AS_STRING.sub('"~"', _HOME.sub('"~"', _HOME_IN_TEMPLATE.sub("~", view)))


def _paths(view: str, assigned: dict[str, str]) -> str:
    """Joined paths as one string, so a credential path built in pieces
    (``os.path.join(home, ".s" + "sh", "id_rsa")``) reads as the path it is."""
    lower = view.lower()
    if "~" not in view and "home" not in lower and "join" not in lower and "/" not in view:
        return view

    def join(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            parts = [p.strip() for p in re.findall(_STR + r"|[A-Za-z_]\w{0,40}", m.group(1))]
        else:
            parts = [m.group(2).strip(), m.group(3).strip()]
        return _joined_path(parts, assigned) or m.group()

    def divide(m: re.Match[str]) -> str:
        first = m.group(1)
        if first[:1] not in "\"'" and assigned.get(first) != "~":  # a / "b" is a path only from home or a string
            return m.group()
        return _joined_path([first, *_STR_PART.findall(m.group(2))], assigned) or m.group()

    view = _PATH_JOIN.sub(join, view)
    return _PATH_DIV.sub(divide, view) if "/" in view else view


def _reversed(m: re.Match[str], assigned: dict[str, str]) -> str:
    value = m.group(2) if m.group(2) is not None else assigned.get(m.group(3))
    return m.group() if value is None else '"' + value[::-1] + '"'


def _folded(view: str, assigned: dict[str, str]) -> str:
    """String expressions of a script evaluated where every part is known: ``tool + " -s " + host``,
    ``f"{r} -{'r'}f"``, ``"hs | lruc"[::-1]``, ``$(printf '\\x63\\x75')``, ``['cu', 'rl'].join('')``,
    ``chr(99) + chr(117)``, and paths (``_paths``)."""
    view = _REVERSED.sub(lambda m: m.group(1) + m.group(2)[::-1] + m.group(1), view)
    if "reverse" in view:
        view = _JS_REVERSED.sub(lambda m: _reversed(m, assigned), view)
    if "\\u" in view:
        view = _U_ESCAPES.sub(lambda m: "".join(chr(int(h, 16)) for h in re.findall(r"[0-9a-fA-F]{4}", m.group())), view)
    view = _PRINTF.sub(lambda m: _unescape(m.group(2)), view)
    view = _home(view)  # first: "rm -rf " + os.path.expanduser("~") is then a concatenation of strings
    if "join" in view:
        view = _JOINED.sub(lambda m: _literal(next(g for g in m.groups() if g is not None)), view)
    if "chr" in view:
        view = _CHR.sub(lambda m: repr(chr(int(m.group(1)))) if 32 <= int(m.group(1)) < 127 else m.group(), view)
    if "fromCharCode" in view:
        view = _FROM_CHAR_CODE.sub(lambda m: '"' + "".join(chr(int(n)) for n in m.group(1).split(",")
                                                           if 32 <= int(n) < 127) + '"', view)

    def concat(m: re.Match[str]) -> str:
        parts = [p.strip() for p in m.group().split("+")]
        values = [p[1:-1] if p[:1] in "\"'" else assigned.get(p) for p in parts]
        return m.group() if any(v is None for v in values) else '"' + "".join(v or "" for v in values) + '"'

    if "+" in view:
        view = _PY_CONCAT.sub(concat, view)
    if "{" in view:
        view = _FSTRING_PART.sub(lambda m: m.group(2) if m.group(1) else assigned.get(m.group(3), m.group(0)), view)
    if "+" in view:  # once more: a joined path or a folded f-string may now be one side of a "+"
        view = _PY_CONCAT.sub(concat, view)
    return _paths(view, assigned)


MAX_HOME_NAMES = 32  # names followed per file: a script has a few; a generated file must not cost a regex each


def _home_names(homes: set[str]) -> re.Pattern[str]:
    """Where a name that was given the home folder (``target = Path.home()``) is used, so that
    ``shutil.rmtree(target)`` reads as what it deletes."""
    return re.compile(r"(?<![\w.$\"'])(?:" + "|".join(map(re.escape, sorted(homes))) + r")\b(?!\s*(?:=(?!=)|\(|[\"']))")


def views(text: str) -> list[Line]:
    """The logical lines of ``text`` with the view the rules read."""
    assigned: dict[str, str] = {}
    homes: set[str] = set()
    used: re.Pattern[str] | None = None
    out: list[Line] = []
    for number, raw in logical_lines(text):
        view = _folded(unsplit(plain(raw)), assigned)
        if used is not None:
            view = used.sub('"~"', view)
        for m in _ASSIGN.finditer(view):
            assigned[m.group(1)] = m.group(3)
        for statement in view.split(";") if ";" in view else (view,):  # $a = 'x'; $b = 'y' (PowerShell)
            py = _PY_ASSIGN.match(statement)
            if py:
                assigned[py.group(1)] = py.group(3)
                if py.group(3) == "~" and py.group(1) not in homes and len(homes) < MAX_HOME_NAMES:
                    homes.add(py.group(1))
                    used = _home_names(homes)
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
