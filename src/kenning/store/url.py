"""Where a store lives, read from a path or a URL: the one place that knows the schemes.

    ~/.kenning/kenning.db, ./team.db          a SQLite file (relative: from ``base``, else the working directory)
    sqlite:///abs/path/kenning.db             the same, as a URL (the path must be absolute)
    postgresql://user:secret@host:5432/db     a PostgreSQL server (also ``postgres://``)

``locate`` only reads the text; ``kenning.store.open_store`` picks the implementation from it
(``open_postgres`` for a server). Imports nothing heavy: ``kenning path`` reads it without opening
anything, and the PostgreSQL driver is imported only when such a store is opened.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from ..errors import ConfigError

if TYPE_CHECKING:
    from .postgres import PostgresStore

BACKENDS = {"sqlite": "sqlite", "postgresql": "postgresql", "postgres": "postgresql"}  # scheme -> backend
ACCEPTED = "a file path, sqlite:///abs/path.db, or postgresql://user@host/db (postgres://…)"
# RFC 3986's scheme; two letters at least, so that a Windows drive ("C:\…") stays a path
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


@dataclass(frozen=True)
class StoreLocation:
    """A parsed database location: ``path`` for SQLite, ``url`` for a server; ``setting`` names where
    it was configured, for error messages."""

    backend: str  # "sqlite" | "postgresql"
    path: Path | None
    url: str | None
    setting: str

    @property
    def shown(self) -> str:
        """The location for people: the file, or the URL with its password masked."""
        return str(self.path) if self.path is not None else masked(self.url or "")


def locate(location: str | os.PathLike[str], *, setting: str = "the database location",
           base: Path | None = None) -> StoreLocation:
    """Read ``location`` (see the module docstring); ``setting`` (e.g. "--db") is named in errors."""
    text = os.fspath(location)
    if not isinstance(location, str):  # a Path is a path, whatever it looks like
        return StoreLocation("sqlite", _file(text, base), None, setting)
    text = text.strip()
    if not text:
        raise ConfigError(f"{setting} is empty; give {ACCEPTED}, or unset it to use kenning.db in the data directory")
    found = _SCHEME.match(text)
    if found is None:
        return StoreLocation("sqlite", _file(text, base), None, setting)
    scheme = found.group(1).lower()
    backend = BACKENDS.get(scheme)
    if backend is None:
        hint = "" if "://" in text else f" (a file whose name holds a colon: ./{text})"
        raise ConfigError(f"{setting}: {masked(text)!r} has the scheme {scheme!r}, which kenning does not know; "
                          f"give {ACCEPTED}{hint}")
    if backend == "sqlite":
        return StoreLocation("sqlite", _sqlite_url_path(text, setting), None, setting)
    return StoreLocation(backend, None, text, setting)


def open_postgres(where: StoreLocation, embedder_name: str, dim: int, **options: Any) -> PostgresStore:
    """The PostgreSQL store at ``where`` (``options``: those of ``PostgresStore``), or a clear error
    when the driver is not installed."""
    assert where.url is not None
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"{where.setting} asks for the PostgreSQL database {where.shown}, which needs psycopg 3 and "
                          f"its connection pool ({exc}); install them: pip install 'kenning[postgres]'") from exc
    from .postgres import PostgresStore

    return PostgresStore(where.url, embedder_name, dim, setting=where.setting, **options)


def _file(text: str, base: Path | None) -> Path:
    path = Path(text).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    return Path(os.path.abspath(path))  # not resolve(): a link named kenning.db keeps its name


def _sqlite_url_path(text: str, setting: str) -> Path:
    parts = urlsplit(text)
    example = "sqlite:///home/me/kenning.db"
    if parts.netloc:
        raise ConfigError(f"{setting}: {text!r} names a host ({parts.netloc!r}); a SQLite URL names a file on this "
                          f"machine, with three slashes: {example}")
    if parts.query or parts.fragment:
        raise ConfigError(f"{setting}: {text!r} has parameters, which a SQLite URL does not take; give the file "
                          f"alone: {example}")
    path = unquote(parts.path)
    if not path.startswith("/") or not path.strip("/"):
        raise ConfigError(f"{setting}: {text!r} needs an absolute file path after 'sqlite://': {example} "
                          "(or give the path itself, relative ones too)")
    return Path(os.path.abspath("/" + path.lstrip("/")))  # sqlite:////abs (SQLAlchemy's form) is /abs too


def masked(url: str) -> str:
    """``url`` with the password replaced by ``***`` (as logs and error messages show it)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if not password:
        return url
    netloc = parts.netloc.replace(f":{password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()
