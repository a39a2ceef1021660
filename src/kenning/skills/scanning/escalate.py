"""When a finding that asks a person (high) is an attack by what comes with it: raised to critical.

A high finding alone is something a person should look at: one credential store read (a script
may list the AWS profiles), a login hook (a tool's own set-up), an invisible character (an editor
left it). What makes such a finding an attack is its company, and then the skill is dangerous:

* **credentials collected**: two or more different credential stores read by one skill, or one
  store whose whole content is other people's secrets (saved browser passwords and cookies, a
  keychain, ``/etc/shadow``, an agent's own login token), or a store's content printed where the
  agent reads it (it enters the conversation and its transcript) or copied to a temporary place;
* **a payload planted**: a login hook, scheduled task, start-up entry or agent instruction file
  whose command runs from a temporary, hidden or public folder, runs in the background with its
  output thrown away, is fetched from the network on the same line, or is planted in every
  repository, or adds an SSH key the skill's author holds, or writes the user's own agent instructions;
* **a download run from where no one looks**: saved under a hidden name in a temporary folder,
  fetched over plain http or from a bare IP address, or run in the background with its output
  thrown away (a download saved and run from a named https host stays caution, as on one line:
  install instructions do that);
* **a secret sent, named as such**: a send whose line (or sentence) names a credential store, a
  ``.env`` file or a variable named as a secret;
* **destruction that leaves nothing**: the user's keys, or destruction in two ways by one skill (a
  force-push and a deletion of branches; one reset told in SKILL.md and run by its script is one);
* **evasion with an aim**: a skill that turns a defence off (``defense_evasion``) and does anything
  else flagged (a control the skill turns back on, such as a firewall's rollback timer, is lowered to high);
* **told out of sight**: an act (a send, an injection, a download run, a planted command) told in an
  HTML comment, which a rendered page does not show;
* **hidden code**: a bidirectional control, a zero-width character or a look-alike letter in a
  script, a fenced code block or a line with a web address, where it changes what runs or where it
  connects, not in prose.

Never raised: a finding the text quotes as an example or forbids (``mention``), or one in a file
that says its examples are not to be run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .markdown import MARKDOWN_SUFFIXES, fences, inside
from .examples import rearmed
from .mention import FRAME, Quoted, imperative, mentioned
from .model import Finding
from .rules import CREDENTIAL, CREDENTIAL_RE

# stores whose whole content is secrets of other services or people: no skill needs to read them
_VAULT = re.compile(r"Login Data|Cookies|Web Data|Local State|key4\.db|logins\.json|cookies\.sqlite|binarycookies|"
                    r"Keychains?[\\/]|login\.keychain|/etc/shadow|\.password-store|\.claude[\\/]\.credentials\.json|"
                    r"\.codex[\\/]auth\.json|mimikatz|lsass|sekurlsa|LaZagne|ntds|\breg(?:\.exe)?\s+save|dump-keychain|"
                    r"CryptUnprotectData|browser_cookie3|cmdkey\s+/list|vaultcmd", re.IGNORECASE)
# a store's content shown to whoever runs the line: a read with no redirect or pipe after it, or printed
_PRINTED = re.compile(r"^\s*(?:sudo\s+)?(?:cat|head|tail|type|less|more|Get-Content|gc|strings|xxd|base64)\b[^|>\n]*$|"
                      r"\b(?:print|console\.log|Write-(?:Output|Host)|puts|echo)\b[^\n]{0,80}"
                      r"(?:read_text|read_bytes|readFileSync|readFile|\.read\(|Get-Content|\$\(\s*cat\b)", re.IGNORECASE)
# prose that asks for a store's content in the answer
_PASTE = re.compile(r"\b(?:paste|show|print|include|quote|copy|put)\b[^\n]{0,60}\b(?:contents?|verbatim|as\s+is|in\s+full)\b|"
                    r"\b(?:contents?|verbatim|in\s+full)\b[^\n]{0,60}\b(?:answer|reply|response|output|report|chat)\b|"
                    r"(?:贴|粘贴|展示|输出|附上|原样|完整内容)[^\n]{0,30}(?:回答|回复|答复|输出|结果)?", re.IGNORECASE)
_TEMP = re.compile(r"(?:/tmp|/var/tmp|/dev/shm|%TEMP%|\$env:TEMP|\$TMPDIR|C:\\\\?(?:Users\\\\?Public|Windows\\\\?Temp))"
                   r"[\\/]", re.IGNORECASE)
# data copied or written into a temporary folder (a clone or a download there is not staged data)
_STAGED = re.compile(r"(?:\b(?:cp|mv|rsync|tar\s+-?[a-z]*c[a-z]*|zip|7z|ditto|tee|dd|Copy-Item|Move-Item|Compress-Archive|Out-File|"
                     r"Set-Content|copy|xcopy|robocopy|copy(?:File|FileSync)|write(?:File|FileSync)|write_text|write_bytes|"
                     r"save|write|dump|stash|put|place|store|shutil\.\w+|open)\b|>>?)[^\n]{0,200}?" + _TEMP.pattern,
                     re.IGNORECASE)
# where a planted command runs from: a program (a script, a binary, a hidden or bare name) in a temporary or
# public folder, or a hidden file in a data folder; a key or a crontab kept in /tmp is data
_PAYLOAD_PATH = re.compile(r"(?:/tmp|/var/tmp|/dev/shm)/(?:\.[\w.-]+|[\w-]+(?:\.(?:sh|bash|py|pyc|js|mjs|pl|rb|php|ps1|bin|"
                           r"exe|so|elf|run))?)(?![\w.-])|(?:\.local/share|\.cache|\.config|Library/Application Support)"
                           r"/(?:[\w.-]+/)?\.[\w.-]+|\\Users\\+Public\\+[\w.-]+\.(?:exe|dll|ps1|bat|vbs|js)|%(?:TEMP|APPDATA)%\\+[\w.-]+\.exe",
                           re.IGNORECASE)
# a download saved under a hidden name in a temporary folder (``/tmp/.agent``): made not to be noticed
_HIDDEN_PAYLOAD = re.compile(r"(?:/tmp|/var/tmp|/dev/shm)/\.[\w.-]+|\\Users\\+Public\\+[\w.-]+\.exe", re.IGNORECASE)
_SILENT = re.compile(r"\bnohup\b[^\n]{0,160}>\s*/dev/null[^\n]{0,20}&|\bStart-Process\b[^\n]{0,120}-WindowStyle\s+Hidden",
                     re.IGNORECASE)
_FETCHED = re.compile(r"\b(?:curl|wget|Invoke-WebRequest|iwr|irm)\b|https?://", re.IGNORECASE)
_EVERY_REPO = re.compile(r"\bfind\s+(?:~|\$HOME|/)\S*\s[^\n]{0,80}-name\s+[\"']?\.git\b|"
                         r"\bgit\s+config\s+--(?:global|system)\s+core\.hooksPath\b|"
                         r"\b(?:every|each|all)\s+(?:\w+\s+){0,2}(?:repositor(?:y|ies)|repos?|projects?)\b|"
                         r"(?:每个|所有|全部)(?:的)?(?:仓库|项目)", re.IGNORECASE)
_UNSAFE_HOST = re.compile(r"\bhttp://|https?://\d{1,3}(?:\.\d{1,3}){3}\b", re.IGNORECASE)
# a secret named where data is sent: a credential store, a .env file, a variable named as a secret
_SECRET_NAMED = re.compile(CREDENTIAL + r"|\.env\b|\$\{?\w*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b",
                           re.IGNORECASE)
_AUTHORIZED_KEY = re.compile(r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+|sk-ssh-\S+)\s+AAAA", re.IGNORECASE)
# an agent's instructions for every project: the user-level memory file, not the project's
_GLOBAL_AGENT = re.compile(r"(?:~|\$HOME|\$\{HOME\})[\\/]\.(?:claude|codex|gemini|cursor)[\\/][\w/.-]*"
                           r"(?:CLAUDE|AGENTS|GEMINI)\.md|(?:~|\$HOME)[\\/]\.cursorrules", re.IGNORECASE)
# controls that reorder text on screen, on a line with no right-to-left script they could serve
_OVERRIDE = re.compile("[\u202a-\u202e\u2066-\u2069]")
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060-\u2064\u180e]")
_ASSIGNED = re.compile(r"^\s*(?:(?:const|let|var|my|local)\s+)?\$?([A-Za-z_]\w{0,40})\s*(?::\s*[\w\[\], |]+)?=(?!=)")
_ADDRESS = re.compile(r"https?://|\bwww\.|\b[\w-]+\.(?:com|org|net|io|dev|app|example|invalid|ru|cn)\b", re.IGNORECASE)
_ACTS = {"exfiltration", "prompt_injection", "download_exec", "persistence", "reverse_shell", "destructive"}
_NOT_ACTS = {"secret", "oversize", "binary", "archive"}  # findings about files, not about what a skill does


def _said(f: Finding) -> bool:
    """A finding that may be raised: high, and not one ``mention`` lowered nor one the skill undoes."""
    return f.severity == "high" and "quoted" not in f.reason and "forbids" not in f.reason and _UNDONE not in f.reason


def _raise(f: Finding, why: str) -> Finding:
    return Finding(f.kind, "critical", f.file, f.line, f.match, f"{f.reason}; {why}")


def in_file(rel: str, text: str, found: list[Finding], *, script: bool) -> list[Finding]:
    """``found`` (one file's findings) with those its own file makes an attack raised."""
    if not any(_said(f) for f in found):
        return found
    raw = text.split("\n")
    fenced = fences(text) if rel.lower().endswith(MARKDOWN_SUFFIXES) else []
    framed = not script and FRAME.search(text) is not None and not rearmed(text)
    staged = _STAGED.search(text)
    out = []
    for f in found:
        line = raw[f.line - 1] if f.line is not None and 0 < f.line <= len(raw) else ""
        code = script or (f.line is not None and inside(f.line, fenced)) or imperative(line)
        if not _said(f) or framed or (not code and f.line is not None and mentioned(Quoted.at(raw, f.line))):
            out.append(f)
        elif f.kind == "credential_access":
            out.append(_credential(f, line, code, bool(staged), _printed_later(line, text) if script else False))
        else:
            around = "\n".join(raw[max(0, (f.line or 1) - 2):(f.line or 0) + 1])  # a sentence may wrap
            why = _company(f, line, around, code, planted=_planted(text if script else _near(raw, fenced, f.line)))
            out.append(_raise(f, why) if why else f)
    return out


def _planted(text: str) -> bool:
    """``text`` runs something from a temporary or hidden place, in the background, or in every repository."""
    return bool(_PAYLOAD_PATH.search(text) or _SILENT.search(text) or _EVERY_REPO.search(text))


def _near(raw: list[str], fenced: list[tuple[int, int]], line: int | None) -> str:
    """What a Markdown finding's command is told with: its fenced block, or its paragraph, and the lines
    around it (a restore test into /tmp further down is not what a cron line runs)."""
    if line is None:
        return ""
    block = next(((a, b) for a, b in fenced if a <= line <= b), None)
    first, last = block if block else (line, line)
    return "\n".join(raw[max(0, first - 4):min(len(raw), last + 3)])


def _company(f: Finding, line: str, around: str, code: bool, *, planted: bool) -> str:
    """Why what sits around ``f`` in its file makes it an attack ("" when nothing does)."""
    if f.kind == "persistence":
        if planted or _FETCHED.search(line):
            return ("the command it plants runs from a temporary or hidden place, in the background, from the "
                    "network or in every repository")
        if _AUTHORIZED_KEY.search(line):
            return "the key is written into the skill: its author gets to log in"
        if _GLOBAL_AGENT.search(line):
            return "it writes the user's own agent instructions, which every project and session reads"
    if f.kind == "defense_evasion" and planted:
        return "and the file starts something from a temporary or hidden place, in the background"
    if f.kind == "download_exec" and (_HIDDEN_PAYLOAD.search(line) or _UNSAFE_HOST.search(line)):
        return "fetched into a hidden file, or over plain http or from a bare IP address"
    if f.kind == "download_exec" and _SILENT.search(line):
        return "run in the background with its output thrown away, where no one sees what it does"
    if f.kind == "exfiltration" and _SECRET_NAMED.search(around):
        return "what it sends is named as a secret"
    if f.kind in _ACTS and "hidden in an HTML comment" in f.reason:
        return "told where a rendered page shows nothing: written for the model, not the reader"
    if f.kind == "destructive" and CREDENTIAL_RE.search(line):
        return "what it destroys is the user's keys or credentials"
    if f.kind == "unicode":
        if code or _ADDRESS.search(line):
            return "in code or a web address, where it changes what runs or where it connects"
        if _OVERRIDE.search(line) and not _RTL.search(line):
            return "it reorders text on a line that holds no right-to-left script"
        if len(_INVISIBLE.findall(line)) >= 3:
            return "several invisible characters on one line: text written to be read by a model and not by a person"
    return ""


def _credential(f: Finding, line: str, code: bool, staged: bool, printed: bool) -> Finding:
    if _VAULT.search(f.match) or _VAULT.search(line):
        return _raise(f, "a store of saved passwords, cookies or login tokens, which no skill needs to read")
    stores = {_store(m.group()) for m in CREDENTIAL_RE.finditer(line)} - {""}
    if len(stores) >= 2:
        return _raise(f, f"one line reads {len(stores)} different credential stores: it collects them")
    if printed or (code and _PRINTED.search(line)) or (not code and _PASTE.search(line)):
        return _raise(f, "its content is shown where the agent reads it, so it enters the conversation")
    if staged:
        return _raise(f, "the same file copies data to a temporary folder, where anything can pick it up")
    return f


# a value that is a file's content, not its path
_CONTENT = re.compile(r"\$\(\s*(?:cat|head|tail|base64|xxd)\b|`\s*cat\b|read_text\(|read_bytes\(|\.read\(|readFileSync\(|"
                      r"readFile\(|Get-Content|ReadAll(?:Text|Bytes|Lines)\(", re.IGNORECASE)


def _printed_later(line: str, text: str) -> bool:
    """What the line read is printed by a later line of the script: the name it gives the content, or the
    content a later print reads through the name it gives the path (a path printed is not its content)."""
    m = _ASSIGNED.match(line)
    if m is None:
        return False
    name = r"\$?\{?\b" + re.escape(m.group(1)) + r"\b"
    printed = r"\b(?:print|pprint|console\.log|puts|echo|Write-(?:Output|Host))\b[\s(\"'$]{0,4}[^\n]{0,40}?"
    shown = re.compile(printed + (name if _CONTENT.search(line) else
                                  rf"(?:(?:open|readFileSync|readFile|Get-Content|cat)\s*\(?\s*[\"']?{name}|"
                                  rf"{name}\.read_(?:text|bytes)\()"), re.IGNORECASE)
    return shown.search(text, text.find(line) + len(line)) is not None


# a control a skill turns off and on again: a firewall's rollback timer, a maintenance window
_CONTROL = re.compile(r"\b(ufw|firewalld|apparmor|auditd|nftables|setenforce|SELINUX)\b", re.IGNORECASE)
_UNDONE = "the skill turns it back on"


def _turned_on(control: str) -> re.Pattern[str]:
    if control.lower() in ("setenforce", "selinux"):
        return re.compile(r"\bsetenforce\s+1\b|SELINUX=enforcing", re.IGNORECASE)
    name = re.escape(control)
    return re.compile(rf"\b(?:systemctl|service)\s+(?:start|enable|restart)\s+(?:--now\s+)?{name}\b|"
                      rf"\b{name}\s+(?:--force\s+)?enable\b", re.IGNORECASE)


def _undone(found: list[Finding], text: str) -> list[Finding]:
    """A security control turned off by a skill that also turns it on again: high, a person looks."""
    out = []
    for f in found:
        control = _CONTROL.search(f.match) if f.kind == "defense_evasion" and f.severity == "critical" else None
        if control is not None and _turned_on(control.group(1)).search(text):
            f = Finding(f.kind, "high", f.file, f.line, f.match, f"{f.reason}; {_UNDONE} (a rollback or a "
                                                                 "maintenance window), so a person looks")
        out.append(f)
    return out


def in_skill(found: Iterable[Finding], text: str = "") -> list[Finding]:
    """Every finding of a skill, with those the skill as a whole makes an attack raised; ``text`` is all
    of the skill's text, for what one file undoes of another."""
    found = _undone(list(found), text)
    stores = {_store(f.match) for f in found if f.kind == "credential_access" and f.severity in ("high", "critical")
              and "quoted" not in f.reason}
    stores.discard("")
    acts = {f.kind for f in found if f.severity in ("high", "critical") and "quoted" not in f.reason
            and f.kind not in _NOT_ACTS}
    destroys = len({_destruction(f.match) for f in found if f.kind == "destructive" and "quoted" not in f.reason
                    and f.severity in ("high", "critical")})
    out = []
    for f in found:
        if _said(f) and f.kind == "credential_access" and len(stores) >= 2:
            out.append(_raise(f, f"the skill reads {len(stores)} different credential stores: it collects them"))
        elif _said(f) and f.kind == "credential_access" and acts & {"prompt_injection", "exfiltration"}:
            out.append(_raise(f, "read beside instructions that turn the model against its user or send data out"))
        elif _said(f) and f.kind == "destructive" and destroys >= 2:
            out.append(_raise(f, f"the skill destroys in {destroys} ways: nothing is left to recover from"))
        elif _said(f) and f.kind == "defense_evasion" and len(acts - {"defense_evasion"}) >= 1:
            out.append(_raise(f, "it turns a defence off beside other flagged actions "
                                 f"({', '.join(sorted(acts - {'defense_evasion'}))})"))
        else:
            out.append(f)
    return out


def _destruction(match: str) -> str:
    """What a destructive command does, in one spelling: its first two words and its flags. A reset that
    SKILL.md describes and its script runs (``DROP DATABASE …`` twice) is one; a force-push and a
    deletion of branches are two."""
    words = match.replace("`", " ").lower().split()
    return " ".join(words[:2] + sorted({w for w in words[2:] if w.startswith("-")}))


def _store(match: str) -> str:
    """The credential store a finding's match names, in one spelling ("" when it names none)."""
    m = CREDENTIAL_RE.search(match)
    if m is None:
        return ""
    name = re.sub(r"^(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/\w+|/root|/Users/\w+|"
                  r"expanduser\([^)]*)?[\\/]?", "", m.group(), flags=re.IGNORECASE)
    return name.replace("\\", "/").lower().strip("/")

