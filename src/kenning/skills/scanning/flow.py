"""What takes more than one line of a script: data that flows from a source to a sink.

Prose is not read this way (a path in one sentence and a ``curl`` in another are unrelated); a
script is, and so is a fenced code block of a Markdown file. The model: a name is *tainted* when
it is given a secret source (the whole environment, a credential store, or data encoded with
base64 or hex) or a value built from a tainted name; a sink line that uses a tainted name sends
it out. Coarser, for a script as a whole:

    credential flow  a credential store named in the script (however its path was built) and a
                     read of files: credential_access; with a network sink too: exfiltration
    environment      a tainted name reaching a network sink: exfiltration
    DNS names        a tainted name in the first label of a DNS lookup: exfiltration
    fetched code     the script fetches and evaluates a variable (``eval(x)``, ``exec(compile(x…))``,
                     ``new Function(x)``, ``[scriptblock]::Create($x)``, ``iex $x``, an alias of exec,
                     ``pickle.loads(x)``)
    here-documents   a here-document fed to an interpreter whose body runs ``$(curl …)`` (any text)
    reverse shells   a socket wired to a spawned shell's input and output
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .deobfuscate import Line
from .model import Finding, short
from .rules import (AUTH_RE, CREDENTIAL_RE, DNS_LOOKUP, ENCODE, ENV_DUMP_RE, FETCH, NOT_SENT_RE, READ_CREDENTIAL,
                    SINK_RE)

_HOME_PATH = re.compile(r"expanduser|Path\.home|homedir\(|\$env:(?:USERPROFILE|LOCALAPPDATA|APPDATA|HOME)\b|"
                        r"%(?:USERPROFILE|LOCALAPPDATA|APPDATA)%|os\.environ\[\s*[\"']HOME|\$HOME|\$\{HOME\}|~/|"
                        r"[\"'`]~[\"'`/\\]", re.IGNORECASE)
_READS = re.compile(r"\bopen\s*\(|read_text\(|read_bytes\(|readFileSync\(|readFile\(|fs\.read|shutil\.copy\w*\(|"
                    r"copyfile\(|ReadAll(?:Bytes|Text|Lines)\(|Get-Content|Copy-Item|\b(?:cat|cp|tar|zip|base64|xxd|"
                    r"scp|rsync|sqlite3)\b|\.read\(\)|\bgit\b[^\n]{0,60}\badd\b", re.IGNORECASE)
_ENV_SENT = re.compile(r"(?:\w+\[[^\]\n]{1,60}\]\s*=\s*|json\.dumps\(\s*|JSON\.stringify\(\s*|\bdata\s*=\s*|\bbody\s*[:=]\s*)"
                       r"(?:dict\(|\{\s*\*\*|\{\s*\.\.\.)?\s*(?:os\.environ|process\.env)\b", re.IGNORECASE)
_FETCHES = re.compile(r"https?\.get\(|(?<!function\s)(?<!async\s)\bfetch\s*\((?![^()\n]*\)\s*\{)|requests\.get|urlopen|urlretrieve|httpx\.get|axios\.get|"
                      r"Invoke-WebRequest|Invoke-RestMethod|\birm\b|\biwr\b|DownloadString|DownloadData|"
                      r"\b(?:curl|wget)\b|LWP::|URI\.open|open-uri|Net::HTTP|HTTParty|Faraday", re.IGNORECASE)
# (a "fetch(url, options) {" is a stand-in being defined, as a test's mock does, not a fetch)
_EVAL_VAR = (r"\b(?:eval|exec|Function|execfile)\s*\(\s*(?:compile\s*\(\s*)?[A-Za-z_]\w{0,30}\s*[,)]|"
             r"\[scriptblock\]::Create\(\s*\$\w+\s*\)|(?:\biex\b|Invoke-Expression)\s+\$\w+|"
             r"\bnew\s+Function\s*\(\s*\w+\s*\)|\bvm\.runIn(?:This|New)?Context\s*\(\s*\w+|\bnew\s+vm\.Script\s*\(\s*\w+|"
             r"\bimport\s*\(\s*[\"'`]data:[^\n]{0,60}\+\s*(?:encodeURIComponent\s*\(\s*)?\w+|\b(?:pickle|cPickle|dill|marshal)\.loads?\s*\(\s*[A-Za-z_]\w{0,30}\s*[,)]")
_EXEC_ALIAS = re.compile(r"^\s*([A-Za-z_]\w{0,30})\s*=\s*(?:builtins\.)?(?:exec|eval)\s*;?\s*$")
_SOCKET = re.compile(r"\bsocket\b|TCPClient|net\.(?:Socket|connect|createConnection)|\bnew\s+\w+\.Socket\s*\(", re.IGNORECASE)
_SPAWN = re.compile(r"subprocess|pty\.spawn|os\.system|os\.exec|child_process|/bin/(?:ba)?sh|cmd\.exe|\biex\b|"
                    r"Invoke-Expression|\bexec\s*\(", re.IGNORECASE)
_WIRED = re.compile(r"\bdup2\b|pty\.spawn|GetStream\(\)|spawn\(\s*[\"']?(?:/bin/)?(?:ba|z)?sh\b|stdin\s*=\s*\w*sock|"
                    r"open\s*\(\s*STD(?:IN|OUT|ERR)\s*,\s*[\"']?[+<>]*&|\bfdopen\b|std(?:in|out)\s*=\s*\w+\.fileno\(\)",
                    re.IGNORECASE)
# a name given a value: x = …, const x = …, $x = …, x=$(…) (shell), for x in … (a loop over the value)
_ASSIGN = re.compile(r"^\s*(?:(?:const|let|var|my|local|export|readonly)\s+)?\$?([A-Za-z_]\w{0,40})\s*(?::\s*[\w\[\], |]+)?"
                     r"=(?!=)\s*(.+)$")
_LOOP = re.compile(r"^\s*for\s+\(?\s*\$?([A-Za-z_]\w{0,40})(?:\s*,\s*[A-Za-z_]\w{0,40})*\s+(?:in|of)\s+(.+)$")
_SEND_CALL = re.compile(r"\.(?:end|write|send|sendall|post|put)\s*\(|-Body\b|--data(?:-binary|-raw)?\b|\s-d\s|\s-F\s|"
                        r"\bdata\s*=|\bjson\s*=|\bbody\s*[:=]|-T\s|--upload-file\b", re.IGNORECASE)
_DNS = re.compile(DNS_LOOKUP, re.IGNORECASE)
_ENCODED = re.compile(ENCODE, re.IGNORECASE)
_HEREDOC = re.compile(r"(?:^|[|;&(]\s*|\s)(?:sudo\s+)?(?:(?:ba|z|k|da)?sh|python[23]?|perl|ruby|node|php|pwsh|powershell)\b"
                      r"[^<\n]{0,40}<<-?\s*([\"']?)([A-Za-z_]\w{0,30})\1", re.IGNORECASE)
_SUBSTITUTED_FETCH = re.compile(r"(?:\$\(|`)\s*" + FETCH, re.IGNORECASE)


MAX_TAINTED = 32  # names followed per source and file: a script has a few, a generated file must not cost more


@dataclass
class Taint:
    """Names given a secret source, by where it came from, with the line that gave it."""

    env: dict[str, int] = field(default_factory=dict)
    credential: dict[str, int] = field(default_factory=dict)
    encoded: dict[str, int] = field(default_factory=dict)
    _used: dict[str, re.Pattern[str]] = field(default_factory=dict)  # per source: where one of its names is used

    def add(self, source: str, name: str, line: int) -> None:
        names: dict[str, int] = getattr(self, source)
        if name not in names and len(names) < MAX_TAINTED:
            names[name] = line
            self._used[source] = _uses(list(names))

    def origin(self, text: str) -> tuple[str, int] | None:
        """Which tainted name ``text`` uses, as (source, line of the name's value), or None."""
        for source in ("env", "credential", "encoded"):
            m = self._used[source].search(text) if source in self._used else None
            if m is not None:
                name = next(g for g in m.groups() if g is not None)
                return source, getattr(self, source)[name]
        return None


def _uses(names: list[str]) -> re.Pattern[str]:
    """Where one of ``names`` is used (a one-letter name only as ``$x`` / ``${x`` or between brackets and
    commas, ``{k: …}``, ``[k]``, where it cannot be a flag)."""
    short_names = [re.escape(n) for n in names if len(n) < 2]
    long_names = [re.escape(n) for n in names if len(n) >= 2]
    one = "|".join(short_names)
    parts = ([r"\$\{?(" + one + r")\b", r"[\[{(,]\s*(" + one + r")\s*[\]}:),]"] if short_names else []) + (
        [r"(?<![\w.-])\$?\{?(" + "|".join(long_names) + r")\b(?!\s*=(?!=))"] if long_names else [])
    return re.compile("|".join(parts))


def _continued(value: str, lines: list[Line], i: int) -> str:
    """An assignment's value with the lines it runs on to while its brackets are open (at most five)."""
    depth = sum(value.count(c) for c in "([{") - sum(value.count(c) for c in ")]}")
    j = i + 1
    while depth > 0 and j < len(lines) and j <= i + 5:
        value += " " + lines[j].view
        depth += sum(lines[j].view.count(c) for c in "([{") - sum(lines[j].view.count(c) for c in ")]}")
        j += 1
    return value


def taint(lines: list[Line]) -> Taint:
    """Follow the secret sources of a script through its assignments, in order, one pass."""
    t = Taint()
    for i, ln in enumerate(lines):
        m = _ASSIGN.match(ln.view) or _LOOP.match(ln.view)
        if m is None:
            continue
        name, value = m.group(1), NOT_SENT_RE.sub(" ", AUTH_RE.sub(" ", _continued(m.group(2), lines, i)))
        came = t.origin(value)
        line = came[1] if came else ln.number
        if ENV_DUMP_RE.search(value) or (came and came[0] == "env"):
            t.add("env", name, line)
        elif CREDENTIAL_RE.search(value) or (came and came[0] == "credential"):
            t.add("credential", name, line)
        elif _ENCODED.search(value) or came:
            t.add("encoded", name, line)
    return t


@dataclass(frozen=True)
class Script:
    """A script's lines with what every flow asks of each line, worked out once."""

    lines: list[Line]
    unauth: list[str]  # the view without the keys a command authenticates with
    clean: list[str]  # ... and without what it writes to or hands its child processes
    sinks: list[bool]  # the line sends over the network
    named: list[bool]  # the line names a credential store

    @classmethod
    def of(cls, lines: list[Line]) -> Script:
        unauth = [AUTH_RE.sub(" ", ln.view) for ln in lines]
        clean = [NOT_SENT_RE.sub(" ", u) for u in unauth]
        return cls(lines, unauth, clean, [SINK_RE.search(c) is not None for c in clean],
                   [CREDENTIAL_RE.search(u) is not None for u in unauth])

    def first_sink(self) -> Line | None:
        return next((ln for ln, sink in zip(self.lines, self.sinks) if sink), None)


def _credential_flow(file: str, script: Script) -> list[Finding]:
    out: list[Finding] = []
    lines = script.lines
    read = next((ln for ln, u, n in zip(lines, script.unauth, script.named) if n and READ_CREDENTIAL.regex.search(u)),
                None)
    named = [ln for ln, n in zip(lines, script.named) if n]
    home = any(_HOME_PATH.search(ln.view) for ln in lines) if named else False
    reads = any(_READS.search(ln.view) for ln in lines) if named else False
    for ln in named:
        if ln is read:
            continue
        if _HOME_PATH.search(ln.view):
            out.append(Finding("credential_access", "high", file, ln.number, short(ln.view),
                               "builds the path of a credential store (keys, tokens, cookies, saved passwords)"))
        elif home and reads:
            out.append(Finding("credential_access", "high", file, ln.number, short(ln.view),
                               "names a credential store (keys, tokens, cookies, saved passwords) in a script that "
                               "reads files from the home folder"))
    source = read or (named[0] if named and home and reads else None)
    sink = script.first_sink()
    if source is not None and sink is not None and source is not sink:
        out.append(Finding("exfiltration", "critical", file, sink.number, short(sink.view),
                           f"this script reads a credential store (line {source.number}) and sends data out"))
    return out


def _data_flow(file: str, script: Script, t: Taint) -> list[Finding]:
    out: list[Finding] = []
    sink = script.first_sink()
    env = next((ln for ln in script.lines if _ENV_SENT.search(ln.view)), None) if sink else None
    if env is not None and sink is not None:
        out.append(Finding("exfiltration", "critical", file, sink.number, short(sink.view),
                           f"this script packs the whole environment (line {env.number}) and sends data out"))
    if not (t.env or t.credential or t.encoded):
        return out
    for ln, view, sends in zip(script.lines, script.clean, script.sinks):
        dns = _DNS.search(view)
        if not (dns or sends) and _ASSIGN.match(view):
            continue  # giving a name a value sends nothing
        came = t.origin(view)
        if came is None:
            continue
        source, line = came
        if dns:
            out.append(Finding("exfiltration", "critical", file, ln.number, short(ln.view),
                               f"puts data from line {line} into the names it looks up in DNS: each lookup carries "
                               "a piece of it out"))
        elif sink is not None and source == "env" and (sends or _SEND_CALL.search(view)):
            out.append(Finding("exfiltration", "critical", file, ln.number, short(ln.view),
                               f"sends data built from the whole environment (line {line}), every token in it"))
    return out


def _fetched_code(file: str, lines: list[Line]) -> list[Finding]:
    aliases = [m.group(1) for ln in lines if (m := _EXEC_ALIAS.match(ln.view))]
    pattern = _EVAL_VAR + ("|\\b(?:" + "|".join(map(re.escape, aliases)) + r")\s*\(\s*[A-Za-z_]\w{0,30}\s*\)"
                           if aliases else "")
    evals = next((ln for ln in lines if re.search(pattern, ln.view, re.IGNORECASE)), None)
    if evals is None or not any(_FETCHES.search(ln.view) for ln in lines):
        return []
    return [Finding("download_exec", "critical", file, evals.number, short(evals.view),
                    "this script fetches from the network and evaluates a variable as code")]


def heredoc_findings(file: str, lines: list[Line]) -> list[Finding]:
    """A here-document to an interpreter with an unquoted delimiter: the shell runs ``$(curl …)``
    in its body first, and the interpreter then runs what came back."""
    out: list[Finding] = []
    for i, ln in enumerate(lines):
        m = _HEREDOC.search(ln.view) if "<<" in ln.view else None
        if m is None or m.group(1):  # a quoted delimiter ('EOF') expands nothing
            continue
        for body in lines[i + 1:i + 200]:
            if body.raw.strip() == m.group(2):
                break
            if _SUBSTITUTED_FETCH.search(body.view):
                out.append(Finding("download_exec", "critical", file, body.number, short(body.view),
                                   f"downloaded content is run by the interpreter of the here-document on line "
                                   f"{ln.number}"))
                break
    return out


def _reverse_shell(file: str, lines: list[Line]) -> list[Finding]:
    text = "\n".join(line.view for line in lines)
    if not (_SOCKET.search(text) and _SPAWN.search(text) and _WIRED.search(text)):
        return []
    where = next(ln for ln in lines if _WIRED.search(ln.view))
    return [Finding("reverse_shell", "critical", file, where.number, short(where.view),
                    "a socket is wired to a spawned shell's input and output")]


def script_findings(file: str, script: Script) -> list[Finding]:
    """Every flow of one script (or one fenced code block)."""
    lines = script.lines
    return (_credential_flow(file, script) + _data_flow(file, script, taint(lines)) + _fetched_code(file, lines)
            + _reverse_shell(file, lines))
