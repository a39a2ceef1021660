"""Data that waits in a file between two steps: a secret copied to a path, a download saved to one.

A step writes something to a path, and a later step uses the path. The steps may be lines of one
script, code blocks of one Markdown file (read in order, as the agent runs them) or two scripts of
the skill (in any order: which runs first is not written down):

    staged secret    a credential store or the whole environment copied, archived or redirected to
                     a path (``cp ~/.ssh/id_rsa /tmp/k``, ``env > /tmp/e``), and a network sink that
                     names the path (``curl -F f=@/tmp/k …``): exfiltration, critical
    staged download  a file fetched to a path (``curl -o /tmp/x.sh URL``) that an interpreter later
                     runs (``bash /tmp/x.sh``): download_exec, high, as when both sit on one line;
                     critical when the host cannot be held to anything: plain http (anyone on the
                     way can swap the file), a bare IP address, a file-drop or tunnel host
    history wiped    a force-push (rewrites the remote's history) then the ``.git`` folder deleted
                     (the local copy of it): nothing is left to recover from; destructive, critical
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .flow import Script
from .model import Finding, short
from .rules import CREDENTIAL, FETCH

_PATH = r"([\w./~$-]*[\w~$-][\w./~$-]*)"
_WHOLE_ENV = r"(?:^|[;&|(]\s*)(?:env|printenv|export\s+-p)\s*(?:\|[^>\n]{0,80})?"
_SECRET_TO_PATH = re.compile(
    r"\b(?:cp|mv|install|rsync|ditto|Copy-Item)\b[^\n;&|]{0,120}?(?:" + CREDENTIAL + r")\S*\s+(?:-\S+\s+)*" + _PATH
    + r"|(?:(?:" + CREDENTIAL + r")[^\n;&|>]{0,80}|" + _WHOLE_ENV + r")>>?\s*" + _PATH
    + r"|\b(?:tar\s+-?\w*c\w*f\s*|zip\s+(?:-\w+\s+)*|7z\s+a\s+)" + _PATH + r"[^\n;&|]{0,200}?(?:" + CREDENTIAL + ")"
    + r"|(?:shutil\.copy\w*|copyfile)\s*\([^,\n]{0,120}(?:" + CREDENTIAL + r")[^,\n]{0,40},\s*[\"']([^\"'\n]+)[\"']",
    re.IGNORECASE)
_DOWNLOAD_TO_PATH = re.compile(FETCH + r"\b[^\n;&|]{0,300}?(?:\s-[A-Za-z]*[oO]\s*|\s--output(?:-document)?[=\s]\s*|>\s*)"
                               + _PATH, re.IGNORECASE)
_NOWHERE = ("/dev/null", "-")  # written nowhere, or to standard output
_URL = re.compile(r"\b(https?)://([^/\s\"'`:)]+)", re.IGNORECASE)
_DROP_HOSTS = re.compile(r"(?:^|\.)(?:transfer\.sh|pastebin\.com|paste\.ee|hastebin\.com|0x0\.st|file\.io|temp\.sh|"
                         r"ngrok(?:-free)?\.(?:io|app)|trycloudflare\.com|webhook\.site|duckdns\.org|no-ip\.\w+)$",
                         re.IGNORECASE)
_FORCE_PUSH = re.compile(r"\bgit\b[^\n]{0,60}\bpush\b[^\n]*?(?:\s--force(?!-with-lease)\b|\s-f\b|\s--mirror\b|\s\+\S)",
                         re.IGNORECASE)
_DELETE_GIT = re.compile(r"\brm\s+(?:-\w+\s+)*-\w*r\w*\s+(?:-\w+\s+)*[\"']?(?:\.\/|[\w$./{}~-]*/)?\.git[\"']?(?=\s|$|;|&|\))|"
                         r"\b(?:shutil\.rmtree|rmSync|rimraf|Remove-Item)\b[^\n]{0,40}[\"'(\s](?:\./)?\.git[\"')\s]",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Stage:
    """A path one step wrote, what went into it, and where."""

    file: str
    line: int
    path: str
    what: str  # "secret" or "download"
    url: str = ""


@dataclass(frozen=True)
class Steps:
    """One script's (or one Markdown file's code blocks') lines and the paths they wrote."""

    file: str
    script: Script
    stages: tuple[Stage, ...]


def steps(file: str, script: Script) -> Steps:
    out: list[Stage] = []
    for ln, view in zip(script.lines, script.unauth):
        if m := _SECRET_TO_PATH.search(view):
            path = next(g for g in m.groups() if g is not None)
            if path not in _NOWHERE:
                out.append(Stage(file, ln.number, path, "secret"))
        if (m := _DOWNLOAD_TO_PATH.search(view)) and m.group(1) not in _NOWHERE:
            url = _URL.search(view)
            out.append(Stage(file, ln.number, m.group(1), "download", url.group() if url else ""))
    return Steps(file, script, tuple(out))


def _named(path: str) -> re.Pattern[str]:
    # "/tmp/k" in "@/tmp/k" or "'/tmp/k'", not in "/tmp/kit"
    return re.compile(r"(?<![\w./-])" + re.escape(path) + r"(?![\w./-])")


def _runs(path: str) -> re.Pattern[str]:
    """A line that runs ``path``: as the command, or as the script an interpreter is given."""
    p = r"(?:\./)?" + re.escape(path.removeprefix("./"))
    start = r"(?:^|[;&|(]\s*|\b(?:sudo|nohup|exec|setsid|nice)\s+)"  # a launcher before the command runs it too
    return re.compile(start + r"(?:(?:ba|z|k|da)?sh|python[23]?|perl|ruby|node|source|\.|pwsh)"
                      r"\s+(?:-\w+\s+)*[\"']?" + p + r"[\"']?(?=\s|$|;|&)|" + start + r"[\"']?" + p
                      + r"[\"']?(?=\s|$|;|&)", re.IGNORECASE)


def untrusted(url: str) -> bool:
    """A download no one answers for: plain http, a bare IP address, a file-drop or tunnel host."""
    m = _URL.search(url)
    if m is None:
        return False
    scheme, host = m.group(1).lower(), m.group(2).lower()
    return scheme == "http" or bool(re.fullmatch(r"[\d.]+|\[[0-9a-f:]+\]", host)) or bool(_DROP_HOSTS.search(host))


def _uses(stage: Stage, target: Steps) -> Finding | None:
    """The first line of ``target`` after ``stage`` (any line, in another file) that uses its path."""
    named, runs = _named(stage.path), _runs(stage.path)
    for ln, clean, sink in zip(target.script.lines, target.script.clean, target.script.sinks):
        if target.file == stage.file and ln.number <= stage.line:
            continue
        where = "" if target.file == stage.file else f" of {stage.file}"
        if stage.what == "secret" and sink and named.search(clean):
            return Finding("exfiltration", "critical", target.file, ln.number, short(ln.view),
                           f"sends {stage.path}, where line {stage.line}{where} copied a credential store or the "
                           "whole environment")
        if stage.what == "download" and runs.search(ln.view):
            bad = untrusted(stage.url)
            return Finding("download_exec", "critical" if bad else "high", target.file, ln.number, short(ln.view),
                           f"runs {stage.path}, which line {stage.line}{where} downloaded"
                           + (f" from {stage.url}, a host no one answers for (plain http, an IP address or a "
                              "file-drop host)" if bad else ", before anyone can read it"))
    return None


def _history_wiped(s: Steps) -> list[Finding]:
    push = next((ln for ln in s.script.lines if _FORCE_PUSH.search(ln.view)), None)
    if push is None:
        return []
    gone = next((ln for ln in s.script.lines if ln.number > push.number and _DELETE_GIT.search(ln.view)), None)
    if gone is None:
        return []
    return [Finding("destructive", "critical", s.file, gone.number, short(gone.view),
                    f"deletes the .git folder after a force-push (line {push.number}) rewrote the remote's history: "
                    "no copy of the history is left")]


def findings(all_steps: list[Steps]) -> list[Finding]:
    """Every staged secret sent, staged download run and history wiped, over the skill's scripts."""
    out: list[Finding] = []
    for s in all_steps:
        out += _history_wiped(s)
        for stage in s.stages:
            used = next((f for t in [s, *(t for t in all_steps if t is not s)] if (f := _uses(stage, t))), None)
            out += [used] if used else []
    return out
