"""Where an install comes from: ``parse_source`` reads SOURCE, ``fetched`` lists its entries.

    ./my-skill, ~/skills/pdf              a local folder (a skill, or a folder of skills)
    ./pdf.zip, ./pdf.skill                a zip archive (a ``.skill`` file is a zip)
    https://github.com/acme/skills        a git repository (https, http, ssh, git, file URLs, or
    git@github.com:acme/skills.git          user@host:path); a local folder at the top of a git
    ~/code/skills  (holding .git)           repository is installed from git too (its committed state)
    …@v1.2  …@<commit>                    a branch, tag or commit (git only)
    …#skills/pdf                          the folder inside the source to install from
    …#skills/pdf@v1.2                     both, either way round

git runs as a subprocess with a timeout, no terminal prompts (``GIT_TERMINAL_PROMPT=0``), hooks off
and the ``ext`` transport refused, into a folder of the quarantine: shallow (``--depth 1``) for the
default branch and for a branch, tag or full commit the server hands out, a full clone for anything
else (an abbreviated commit). Nothing is read from the clone but its files: ``unpack`` checks them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...errors import InvalidInput, NotFound
from ..files import clean_rel_path
from ..trust import is_url
from .unpack import Member, folder_members, zip_members

KINDS = ("folder", "archive", "git")
ARCHIVE_SUFFIXES = (".zip", ".skill")
GIT_TIMEOUT_S = 300.0
_SCHEMES = ("https", "http", "ssh", "git", "file")
_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}$")


@dataclass(frozen=True)
class SourceSpec:
    """A parsed SOURCE: ``kind`` (folder, archive, git), ``location`` (an absolute path, or a URL),
    ``ref`` (git only; None: the default branch) and ``subdir`` (inside the source; "" for its top)."""

    kind: str
    location: str
    ref: str | None = None
    subdir: str = ""

    def __str__(self) -> str:
        return self.location + (f"@{self.ref}" if self.ref else "") + (f"#{self.subdir}" if self.subdir else "")


@dataclass(frozen=True)
class Fetched:
    """A source ready to read: its entries, the commit a git source resolved to, and how to name it."""

    spec: SourceSpec
    members: list[Member]
    commit: str | None
    where: str


def parse_source(text: object, cwd: Path | None = None) -> SourceSpec:
    """``text`` as a SourceSpec (see the module docstring); a local path is taken from ``cwd``."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("the source is empty; give a folder, a .zip or .skill file, or a git URL")
    raw = text.strip()
    base = Path(cwd or Path.cwd()) / Path(raw).expanduser()
    if not is_url(raw) and base.exists():  # a path holding '#' or '@' is a path
        return _local(base, None, "")
    location, _, subdir = raw.partition("#")
    ref = None
    if "@" in subdir:
        subdir, _, ref = subdir.rpartition("@")
    elif "@" in location and location.rfind("@") > max(location.rfind("/"), location.rfind(":")):
        location, _, ref = location.rpartition("@")
    if ref is not None and not _REF.match(ref) or ref is not None and ".." in ref:
        raise InvalidInput(f"ref {ref!r} in source {raw!r} is not a branch, tag or commit name (letters, digits, "
                           "'.', '_', '/', '-', not starting with '-')")
    sub = clean_rel_path(subdir) if subdir.strip() else ""
    if location.startswith("-"):
        raise InvalidInput(f"source {raw!r} starts with '-'; give a path (./{location}) or a URL")
    if is_url(location):
        scheme = location.split("://", 1)[0].lower() if "://" in location else "ssh"
        if scheme not in _SCHEMES:
            raise InvalidInput(f"source {raw!r}: kenning fetches git over {', '.join(_SCHEMES)} only, not {scheme!r}")
        if location.lower().endswith(ARCHIVE_SUFFIXES):
            raise InvalidInput(f"source {raw!r} is an archive on the network; download it, then install the file")
        return SourceSpec("git", location, ref, sub)
    return _local(Path(cwd or Path.cwd()) / Path(location).expanduser(), ref, sub)


def _local(path: Path, ref: str | None, subdir: str) -> SourceSpec:
    path = Path(os.path.abspath(path))
    if not path.exists():
        raise NotFound(f"there is no file or folder {path}; give a skill folder, a .zip or .skill file, or a git URL")
    if path.is_file():
        if path.suffix.lower() not in ARCHIVE_SUFFIXES:
            raise InvalidInput(f"{path} is a file but not a .zip or .skill archive; give a skill folder, an archive "
                               "or a git repository")
        if ref:
            raise InvalidInput(f"an archive has no refs: drop '@{ref}' from the source {path}")
        return SourceSpec("archive", str(path), None, subdir)
    if ref or (path / ".git").exists() or _bare_repository(path):
        return SourceSpec("git", str(path), ref, subdir)
    return SourceSpec("folder", str(path), None, subdir)


def _bare_repository(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


@contextmanager
def fetched(spec: SourceSpec, work: Path, *, git: str = "git", timeout: float = GIT_TIMEOUT_S) -> Iterator[Fetched]:
    """The entries of ``spec``; a git source is cloned into ``work`` (a quarantine folder the caller
    removes), an archive is held open while the block runs."""
    if spec.kind == "archive":
        try:
            archive = zipfile.ZipFile(spec.location)
        except (zipfile.BadZipFile, OSError) as exc:
            raise InvalidInput(f"{spec.location} is not a readable zip archive ({exc}); a .skill file is a zip of "
                               "the skill folder") from None
        with archive:
            yield Fetched(spec, zip_members(archive, f"archive {spec.location}"), None, f"archive {spec.location}")
        return
    if spec.kind == "folder":
        if spec.subdir and not (Path(spec.location) / spec.subdir).is_dir():
            raise NotFound(f"folder {spec.location} has no folder {spec.subdir!r} inside it")
        yield Fetched(spec, folder_members(Path(spec.location), f"folder {spec.location}", spec.subdir), None,
                      f"folder {spec.location}")
        return
    clone = work / "clone"
    commit = clone_repository(spec.location, spec.ref, clone, git=git, timeout=timeout)
    if spec.subdir and not (clone / spec.subdir).is_dir():
        raise NotFound(f"repository {spec} has no folder {spec.subdir!r} at {commit[:12]}")
    yield Fetched(spec, folder_members(clone, f"repository {spec}", spec.subdir), commit, f"repository {spec}")


def clone_repository(location: str, ref: str | None, dest: Path, *, git: str = "git",
                     timeout: float = GIT_TIMEOUT_S) -> str:
    """Check out ``ref`` (None: the default branch) of the repository at ``location`` into ``dest``;
    returns the commit checked out."""
    if ref is None:
        _git(git, ["clone", "--quiet", "--depth", "1", "--no-tags", "--single-branch", "--", location, str(dest)],
             None, timeout, location)
    else:
        _git(git, ["init", "--quiet", str(dest)], None, timeout, location)
        try:
            _git(git, ["fetch", "--quiet", "--depth", "1", "--no-tags", "--", location, ref], dest, timeout, location)
            _git(git, ["checkout", "--quiet", "--detach", "FETCH_HEAD"], dest, timeout, location)
        except NotFound:  # an abbreviated commit, or a server that hands out only branch tips: all of it
            _remove(dest)
            _git(git, ["clone", "--quiet", "--no-checkout", "--", location, str(dest)], None, timeout, location)
            _git(git, ["checkout", "--quiet", "--detach", ref, "--"], dest, timeout, location, ref=ref)
    return _git(git, ["rev-parse", "HEAD"], dest, timeout, location).strip()


def _git(git: str, args: list[str], cwd: Path | None, timeout: float, location: str, ref: str | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GCM_INTERACTIVE": "never",
           "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")}
    command = [git, "-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "-c", "core.symlinks=true",
               "-c", "advice.detachedHead=false", *args]
    try:
        done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except FileNotFoundError:
        raise NotFound(f"cannot fetch {location}: there is no {git!r} program on PATH; install git, or install from "
                       "a folder or an archive") from None
    except subprocess.TimeoutExpired:
        raise NotFound(f"cannot fetch {location}: git did not finish within {timeout:g} seconds; check the address "
                       "and the network, or clone it yourself and install the folder") from None
    if done.returncode != 0:
        said = " ".join(done.stderr.decode("utf-8", errors="replace").split())[-400:]
        what = f"ref {ref!r} of {location}" if ref else location
        raise NotFound(f"cannot fetch {what}: git {args[0]} failed ({said or f'exit {done.returncode}'})")
    return done.stdout.decode("utf-8", errors="replace")


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
