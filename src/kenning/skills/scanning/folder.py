"""Scanning a skill folder: every file, every link, the cache.

Each entry of the folder is looked at once, without following links: a link that leaves the folder
is a finding (the agent would read what it points to); an executable or an archive is a finding
(what it holds cannot be reviewed); every file that reads as text (UTF-8, or UTF-16 with a byte-order
mark) goes through the text rules, scripts through the whole-file rules too. The report is cached
under ``cache_dir`` by the content hash and the scanner version, so an unchanged skill is not read by
the rules twice and a changed rule is never answered from an old cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from collections.abc import Collection
from pathlib import Path

from ... import fileio
from ...errors import InvalidInput
from . import (crossfile, deobfuscate, escalate, flow, links, mention, packages, paragraphs, rules, secrets, staged,
               unicode)
from .markdown import MARKDOWN_SUFFIXES, fences
from .model import SCANNER_VERSION, Finding, ScanReport, ordered, short, verdict_of

MAX_FILES = 200  # more than this is a finding (oversize)
MAX_FILE_BYTES = 1 << 20  # a bigger file is a finding (and is still scanned, up to MAX_READ_BYTES)
MAX_READ_BYTES = 8 << 20  # padding a file past what is read must not hide its tail: read this much
MAX_SCANNED = 2_000  # files read by the rules at most, however big the folder
MAX_ENTRIES = 20_000  # entries walked at most (the hash covers these)
_SKIP_DIRS = {".git"}  # version-control storage: compressed objects, never loaded as part of a skill
SCRIPT_SUFFIXES = {".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".ps1",
                   ".psm1", ".psd1", ".bat", ".cmd", ".vbs", ".rb", ".pl", ".php", ".lua", ".applescript"}
TEXT_SUFFIXES = SCRIPT_SUFFIXES | {".md", ".markdown", ".txt", ".rst", ".json", ".yaml", ".yml", ".toml", ".ini",
                                   ".cfg", ".conf", ".env", ".html", ".htm", ".xml", ".csv", ".tsv", ".css", ".sql",
                                   ".j2", ".jinja", ".tmpl", ".tpl", ".mdx", ".ipynb"}
# zip containers that are documents a skill edits (pptx, docx …), not archives of files to review
DOCUMENT_SUFFIXES = {".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".potx", ".dotx", ".xltx", ".epub"}
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".tar.gz", ".gz", ".bz2", ".xz", ".tbz2", ".txz", ".7z", ".rar", ".zst",
                    ".jar", ".whl", ".egg", ".cab", ".lzma")
EXECUTABLE_SUFFIXES = {".exe", ".dll", ".so", ".dylib", ".bin", ".elf", ".com", ".scr", ".msi", ".o", ".a", ".pyc"}
_EXECUTABLE_MAGIC = ((b"\x7fELF", "an ELF executable"), (b"MZ", "a Windows (PE) executable"),
                     (b"\xfe\xed\xfa\xce", "a Mach-O executable"), (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
                     (b"\xce\xfa\xed\xfe", "a Mach-O executable"), (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
                     (b"\xca\xfe\xba\xbe", "a universal Mach-O binary or Java class"), (b"\x00asm", "WebAssembly"))
_ARCHIVE_MAGIC = ((b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"),
                  (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!\x1a\x07", "rar"),
                  (b"\x28\xb5\x2f\xfd", "zstd"), (b"MSCF", "cab"))
# a link target no skill has a reason to show an agent: system folders, or a home's credential folders
_SYSTEM_OR_SECRET = re.compile(r"/(?:etc|root|proc|sys|var|boot|dev)(?:/|$)|/(?:home/[^/]+|Users/[^/]+)/"
                               r"\.(?:ssh|aws|gnupg|kube|docker|azure|config/gcloud|password-store)(?:/|$)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class _Entry:
    rel: str
    path: Path
    link: str | None  # the target of a symbolic link


def _walk(root: Path, exclude: frozenset[str] = frozenset()) -> list[_Entry]:
    """Every file and link under ``root`` (links not followed), by relative path, but for the
    top-level files and links named in ``exclude``."""
    out: list[_Entry] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in [*filenames, *(d for d in dirnames if (here / d).is_symlink())]:
            if here == root and name in exclude:
                continue
            path = here / name
            link = os.readlink(path) if path.is_symlink() else None
            out.append(_Entry(path.relative_to(root).as_posix(), path, link))
            if len(out) >= MAX_ENTRIES:
                return sorted(out, key=lambda e: e.rel)
    return sorted(out, key=lambda e: e.rel)


def _file_hash(path: Path) -> bytes:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()


def content_hash(entries: list[_Entry]) -> str:
    """One hash of every path with its bytes or its link target."""
    digest = hashlib.sha256()
    for e in entries:
        digest.update(e.rel.encode("utf-8", "surrogateescape") + b"\0")
        if e.link is not None:
            digest.update(b"link\0" + e.link.encode("utf-8", "surrogateescape") + b"\0")
        else:
            digest.update(b"file\0" + _file_hash(e.path))
    return digest.hexdigest()


def _escapes(root: Path, e: _Entry) -> Finding | None:
    target = (e.path.parent / str(e.link)).resolve()
    if target == root or root in target.parents:
        return None
    sensitive = (bool(rules.CREDENTIAL_RE.search(target.as_posix())) or target in (Path.home(), Path("/"))
                 or bool(_SYSTEM_OR_SECRET.match(target.as_posix())))
    return Finding("symlink_escape", "critical" if sensitive else "high", e.rel, None, short(f"-> {e.link}"),
                   "a link points outside the skill folder, so loading the skill reads "
                   + ("a credential store or a whole home or root folder" if sensitive else "a file it does not hold"))


def _kind_of_bytes(rel: str, head: bytes) -> Finding | None:
    """An executable or an archive, by its first bytes or its name."""
    lower = rel.lower()
    suffix = Path(lower).suffix
    for magic, what in _EXECUTABLE_MAGIC:
        if head.startswith(magic) and not (magic == b"MZ" and suffix in TEXT_SUFFIXES):
            return Finding("binary", "high", rel, None, short(what), "an executable cannot be reviewed; it runs "
                                                                         "whatever it was built to")
    if suffix in EXECUTABLE_SUFFIXES:
        return Finding("binary", "high", rel, None, short(suffix), "a compiled program or library in a skill")
    if suffix in DOCUMENT_SUFFIXES:
        return None
    kind = next((what for magic, what in _ARCHIVE_MAGIC if head.startswith(magic)), None)
    if kind is None and len(head) > 262 and head[257:262] == b"ustar":
        kind = "tar"
    if kind is None and lower.endswith(ARCHIVE_SUFFIXES):
        kind = suffix.lstrip(".")
    if kind is not None:
        return Finding("archive", "high", rel, None, short(f"{kind} archive"), "an archive's contents are not "
                                                                                 "scanned; unpack it and scan that")
    return None


def _as_text(rel: str, data: bytes) -> str | None:
    """The file as text, or None when it is not text."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace") if Path(rel).suffix.lower() in TEXT_SUFFIXES else None


def _line_spans(text: str, regex: re.Pattern[str]) -> list[tuple[int, int]]:
    return [(text.count("\n", 0, m.start()) + 1, text.count("\n", 0, m.end()) + 1) for m in regex.finditer(text)]


def _is_script(rel: str, text: str) -> bool:
    return Path(rel).suffix.lower() in SCRIPT_SUFFIXES or text.startswith("#!")


def scan_text(rel: str, text: str) -> list[Finding]:
    """Every text rule over one file's text (with what its own steps stage for each other)."""
    found, _, steps = _scan_text(rel, text)
    return found + (staged.findings([steps]) if steps is not None else [])


def _scan_text(rel: str, text: str) -> tuple[list[Finding], crossfile.Facts | None, staged.Steps | None]:
    """The findings of one file and, for a script or a Markdown file's code blocks, what it tells
    the scan of the files around it."""
    raw_lines = text.split("\n")
    lines = deobfuscate.views(text)
    found = (unicode.findings(rel, raw_lines) + rules.line_findings(rel, lines) + secrets.findings(rel, text)
             + flow.heredoc_findings(rel, lines) + packages.findings(rel, lines))
    is_script = _is_script(rel, text)
    script = flow.Script.of(lines) if is_script else None
    steps: staged.Steps | None = None
    if script is not None:
        found += flow.script_findings(rel, script)
        steps = staged.steps(rel, script)
    elif rel.lower().endswith(MARKDOWN_SUFFIXES):
        blocks = [[ln for ln in lines if first <= ln.number <= last] for first, last in fences(text)]
        for block in blocks:  # a fenced block is a script the agent is shown to run
            found += flow.script_findings(rel, flow.Script.of(block))
        # and the blocks, in order, are the steps of one run: a later block uses what an earlier one wrote
        steps = staged.steps(rel, flow.Script.of([ln for block in blocks for ln in block])) if blocks else None
        found += links.findings(rel, text)
        found += paragraphs.findings(rel, text, found)
    for line in lines:
        for depth_one in deobfuscate.decoded(unicode.plain(line.raw)):  # the raw line: unsplit drops "\\" of \xNN
            inner = deobfuscate.views(depth_one)
            found += rules.line_findings(rel, inner, decoded_from=line.number)
            for depth_two in (d for ln in inner for d in deobfuscate.decoded(ln.view)):
                found += rules.line_findings(rel, deobfuscate.views(depth_two), decoded_from=line.number)
    found = _placed(rel, text, found)
    if script is None:
        found = mention.lowered(rel, text, found)
    found = escalate.in_file(rel, text, found, script=script is not None)
    return found, (crossfile.facts(rel, script) if script is not None else None), steps


def _placed(rel: str, text: str, found: list[Finding]) -> list[Finding]:
    """Say when a finding sits where a reader does not look: an HTML comment, SKILL.md's front matter."""
    hidden = _line_spans(text, _HTML_COMMENT) if rel.lower().endswith((".md", ".markdown", ".mdx", ".html")) else []
    front = _FRONT_MATTER.match(text) if rel == "SKILL.md" else None
    front_end = front.group(0).count("\n") if front else 0
    out: list[Finding] = []
    for f in found:
        reason = f.reason
        if f.line is not None and any(a <= f.line <= b for a, b in hidden):
            reason += "; hidden in an HTML comment, which a rendered page does not show"
        if f.line is not None and f.line <= front_end:
            reason += "; in the front matter, which goes into the skill catalog every agent reads"
        out.append(f if reason == f.reason else Finding(f.kind, f.severity, f.file, f.line, f.match, reason))
    return out


def _scan_entries(root: Path, entries: list[_Entry]) -> list[Finding]:
    found: list[Finding] = []
    scripts: list[crossfile.Facts] = []
    all_steps: list[staged.Steps] = []
    texts: dict[str, str] = {}
    files = [e for e in entries if e.link is None]
    if len(files) > MAX_FILES:
        found.append(Finding("oversize", "high", ".", None, f"{len(files)} files", f"more than {MAX_FILES} files: "
                             "too many to review" + (f"; only the first {MAX_SCANNED} were scanned"
                                                    if len(files) > MAX_SCANNED else "")))
    for e in entries:
        if e.link is not None:
            escaped = _escapes(root, e)
            found += [escaped] if escaped else []
    for e in files[:MAX_SCANNED]:
        size = e.path.stat().st_size
        if size > MAX_FILE_BYTES:
            found.append(Finding("oversize", "high", e.rel, None, fileio.size_text(size),
                                 f"a file over {fileio.size_text(MAX_FILE_BYTES)}: too big to review"
                                 + (f"; only its first {fileio.size_text(MAX_READ_BYTES)} were scanned"
                                    if size > MAX_READ_BYTES else "")))
        with e.path.open("rb") as fh:
            data = fh.read(MAX_READ_BYTES)
        of_bytes = _kind_of_bytes(e.rel, data[:512])
        if of_bytes is not None:
            found.append(of_bytes)
            continue
        text = _as_text(e.rel, data)
        if text is None:
            if Path(e.rel).suffix.lower() in TEXT_SUFFIXES:
                found.append(Finding("binary", "high", e.rel, None, "NUL bytes", "a text file holds binary data "
                                                                                "(NUL bytes), which hides content"))
            continue
        in_file, facts, steps = _scan_text(e.rel, text)
        texts[e.rel] = text
        found += in_file
        scripts += [facts] if facts is not None else []
        all_steps += [steps] if steps is not None else []
    across = crossfile.findings(scripts) + staged.findings(all_steps)  # findings made of several steps
    for rel in sorted({f.file for f in across}):  # weighed against the file they were found in, as the rest were
        text = texts.get(rel, "")
        found += escalate.in_file(rel, text, [f for f in across if f.file == rel], script=_is_script(rel, text))
    return escalate.in_skill(found, "\n".join(texts.values()))


def _cache_file(cache_dir: Path, digest: str) -> Path:
    return cache_dir / "skill-scan" / f"{digest}-v{SCANNER_VERSION}.json"


def _excluded(folder: Path, exclude: Collection[str]) -> frozenset[str]:
    """``exclude`` checked: plain names of top-level entries, never a path (which could reach past
    the top level or hide a whole subfolder from the scan)."""
    names = frozenset((exclude,) if isinstance(exclude, str) else exclude)  # one name given bare, not its letters
    for name in names:
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise InvalidInput(f"cannot scan {folder} without {name!r}: exclude takes names of files at the top of "
                               "the skill folder (such as 'draft.json'), not paths")
    return names


def _cache_key(digest: str, exclude: frozenset[str]) -> str:
    """The content hash, and which names were left out: the same bytes scanned with a different
    ``exclude`` is a different question, so it never shares a cached answer."""
    if not exclude:
        return digest
    left_out = hashlib.sha256("\0".join(sorted(exclude)).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"{digest}-x{left_out}"


def _cached(cache_dir: Path, key: str, digest: str, folder: Path) -> ScanReport | None:
    try:
        data = json.loads(_cache_file(cache_dir, key).read_text(encoding="utf-8"))
        findings = tuple(Finding.from_dict(f) for f in data["findings"])
    except (OSError, ValueError, KeyError, TypeError):  # absent or damaged: scan again
        return None
    return ScanReport(folder, verdict_of(findings), findings, digest, SCANNER_VERSION, cached=True)


def scan_skill(folder: Path, *, cache_dir: Path | None = None, exclude: Collection[str] = ()) -> ScanReport:
    """Scan the skill folder ``folder``: every file and link in it, but for the top-level files named
    in ``exclude`` (such as a draft's ``draft.json``), which are neither scanned nor counted nor
    hashed. With ``cache_dir``, a report for the same content, ``exclude`` and scanner version is
    read from there, and a new one written there."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise InvalidInput(f"cannot scan {folder}: it is not a folder; give a skill folder (with SKILL.md) or the "
                           "name of a skill")
    left_out = _excluded(folder, exclude)
    root = folder.resolve()
    entries = _walk(root, left_out)
    digest = content_hash(entries)
    key = _cache_key(digest, left_out)
    if cache_dir is not None:
        hit = _cached(cache_dir, key, digest, folder)
        if hit is not None:
            return hit
    findings = ordered(_scan_entries(root, entries))
    report = ScanReport(folder, verdict_of(findings), findings, digest, SCANNER_VERSION)
    if cache_dir is not None:
        body = {"scanner_version": SCANNER_VERSION, "content_hash": digest, "findings": [f.to_dict() for f in findings]}
        fileio.atomic_write(_cache_file(cache_dir, key), json.dumps(body, ensure_ascii=False).encode("utf-8"))
    return report
