"""The PostgreSQL the tests run against: version, pgvector, HNSW, `simple` full-text over segmented text,
advisory locks, isolated databases, and a server that is stopped and removed when its session ends."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest
from psycopg import sql

from postgres_server import (
    REQUIRE_ENV,
    PgServer,
    has_ended,
    open_given,
    reap_orphans,
    start_embedded,
    with_database,
    with_user,
)


def scalar(conn: psycopg.Connection[Any], query: str, params: tuple[Any, ...] = ()) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None, query
    return row[0]


def test_server_is_postgresql_17_or_newer(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        number = int(scalar(conn, "SHOW server_version_num"))
        version = scalar(conn, "SHOW server_version")
    assert number >= 170000, f"PostgreSQL {version}: the backend needs 17 or newer"


def test_vector_extension_is_0_8_or_newer(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    assert row is not None, "the session database lacks the vector extension"
    assert tuple(int(part) for part in row[0].split(".")[:2]) >= (0, 8), row[0]


def test_session_database_starts_empty(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        tables = scalar(conn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
    assert tables == 0


def test_hnsw_cosine_index_is_built_and_used(postgres_database: Callable[[], str]) -> None:
    rows = [(i, f"[{i % 7 + 1},{i % 5 + 1},{i % 3 + 1}]") for i in range(200)]
    with psycopg.connect(postgres_database()) as conn:
        conn.execute("CREATE TABLE items (id int PRIMARY KEY, embedding vector(3) NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO items VALUES (%s, %s)", rows)
        conn.execute("CREATE INDEX items_hnsw ON items USING hnsw (embedding vector_cosine_ops)")
        conn.execute("SET enable_seqscan = off")
        query = "SELECT id, embedding <=> %s AS distance FROM items ORDER BY embedding <=> %s LIMIT 3"
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, ("[7,1,2]", "[7,1,2]")))
        nearest = conn.execute(query, ("[7,1,2]", "[7,1,2]")).fetchall()
    assert "items_hnsw" in plan, plan
    assert nearest[0][1] == pytest.approx(0.0, abs=1e-6)
    assert nearest[0][0] in {i for i, vec in rows if vec == "[7,1,2]"}


def test_simple_text_search_keeps_pre_segmented_chinese_words(postgres_url: str) -> None:
    text = ("数据库 备份 每天 运行",)
    with psycopg.connect(postgres_url) as conn:
        lexemes = scalar(conn, "SELECT tsvector_to_array(to_tsvector('simple', %s))", text)
        both = scalar(conn, "SELECT to_tsvector('simple', %s) @@ to_tsquery('simple', '备份 & 运行')", text)
        part = scalar(conn, "SELECT to_tsvector('simple', %s) @@ to_tsquery('simple', '数据')", text)
    assert sorted(lexemes) == sorted(["数据库", "备份", "每天", "运行"])
    assert both is True
    assert part is False  # whole words only: the segmentation is kenning's, not the server's


def test_advisory_lock_excludes_a_second_connection(postgres_database: Callable[[], str]) -> None:
    url = postgres_database()
    with psycopg.connect(url, autocommit=True) as first, psycopg.connect(url, autocommit=True) as second:
        assert scalar(first, "SELECT pg_try_advisory_lock(18)") is True
        assert scalar(second, "SELECT pg_try_advisory_lock(18)") is False
        first.execute("SELECT pg_advisory_unlock(18)")
        assert scalar(second, "SELECT pg_try_advisory_lock(18)") is True
        with first.transaction():  # the form migrations take: released at commit
            assert scalar(first, "SELECT pg_try_advisory_xact_lock(19)") is True
            assert scalar(second, "SELECT pg_try_advisory_xact_lock(19)") is False
        assert scalar(second, "SELECT pg_try_advisory_xact_lock(19)") is True


def test_factory_databases_do_not_see_each_others_tables(postgres_database: Callable[[], str],
                                                         postgres_url: str) -> None:
    one, two = postgres_database(), postgres_database()
    assert len({one, two, postgres_url}) == 3
    with psycopg.connect(one) as conn:
        conn.execute("CREATE TABLE facts (id int)")
        conn.execute("INSERT INTO facts VALUES (1)")
    with psycopg.connect(two) as conn:
        assert scalar(conn, "SELECT to_regclass('facts')") is None
        assert scalar(conn, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == 1


def test_factory_databases_are_dropped_after_their_test(postgres_server: PgServer) -> None:
    # what the postgres_database fixture does at teardown, through the same calls
    url = postgres_server.create_database()
    name = url.split("?")[0].rsplit("/", 1)[1]
    postgres_server.drop_database(url)
    with psycopg.connect(postgres_server.url) as conn:
        assert scalar(conn, "SELECT count(*) FROM pg_database WHERE datname = %s", (name,)) == 0
    assert name not in postgres_server.created


# -- KENNING_TEST_DATABASE_URL, tried on this session's server -------------------------------------

@pytest.fixture
def superuser_url(postgres_server: PgServer) -> str:
    if postgres_server.admin_url is None:
        pytest.skip("needs a server whose role may create databases and roles")
    return postgres_server.admin_url


def database_names(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database")}


def test_given_url_gets_its_own_databases_and_drops_them(superuser_url: str) -> None:
    given = open_given(superuser_url)
    try:
        given.create_database()
        with psycopg.connect(given.url) as conn:
            assert scalar(conn, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == 1
        made = {given.template, *given.created}
        assert len(made) == 3 and made <= database_names(superuser_url)  # template, session's, the fresh one
    finally:
        given.close()
    assert not made & database_names(superuser_url)


@pytest.fixture
def plain_role(superuser_url: str, postgres_database: Callable[[], str]) -> Iterator[str]:
    """A URL to a fresh database (with `vector`) as a role that may not create databases."""
    url = postgres_database()
    role = f"kenning_plain_{secrets.token_hex(4)}"
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOCREATEDB").format(sql.Identifier(role)))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("GRANT CREATE ON SCHEMA public TO {}").format(sql.Identifier(role)))
    yield with_user(url, role)
    with psycopg.connect(url, autocommit=True) as conn:  # the role's grants live in that database
        conn.execute(sql.SQL("DROP OWNED BY {} CASCADE").format(sql.Identifier(role)))
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_given_url_without_createdb_is_used_as_given(plain_role: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    given = open_given(plain_role)
    try:
        assert given.url == plain_role and given.admin_url is None
        with pytest.raises(pytest.skip.Exception, match="may not create databases"):
            given.create_database()
        monkeypatch.setenv(REQUIRE_ENV, "1")
        with pytest.raises(pytest.fail.Exception, match="KENNING_REQUIRE_POSTGRES=1"):
            given.create_database()
    finally:
        given.close()


def test_given_database_that_is_not_empty_is_refused(plain_role: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with psycopg.connect(plain_role) as conn:
        conn.execute("CREATE TABLE leftover (id int)")
    with pytest.raises(pytest.skip.Exception, match=r"is not empty \(relations: 1\)"):
        open_given(plain_role)


def test_given_url_that_is_not_a_url_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="must be a postgresql:// URL"):
        open_given("host=localhost dbname=kenning")


def test_with_database_keeps_the_socket_folder() -> None:
    url = "postgresql://postgres:@/postgres?host=/tmp/kenning-pg-x/data&dbname=other"
    assert with_database(url, "kenning_1") == "postgresql://postgres:@/kenning_1?host=/tmp/kenning-pg-x/data"


# -- the embedded server's life --------------------------------------------------------------------

def postmaster_of(url: str) -> psutil.Process:
    with psycopg.connect(url) as conn:  # a backend ends with its connection: ask while connected
        parent = psutil.Process(scalar(conn, "SELECT pg_backend_pid()")).parent()
    assert parent is not None
    return parent


def test_embedded_server_is_stopped_and_removed() -> None:
    embedded = start_embedded()
    try:
        postmaster = postmaster_of(embedded.admin_url)
        assert str(embedded.folder / "data") in postmaster.cmdline()
    finally:
        embedded.stop()
    assert not embedded.folder.exists()
    assert has_ended(postmaster)


@pytest.fixture
def private_root() -> Iterator[Path]:
    """A folder of our own under /tmp, so a test session running beside this one cannot reap our orphan first."""
    root = Path(tempfile.mkdtemp(prefix="kenning-reap-", dir="/tmp"))
    yield root
    shutil.rmtree(root)


def test_server_of_a_killed_session_is_reaped_by_the_next(private_root: Path) -> None:
    embedded = start_embedded(private_root)
    try:
        postmaster = postmaster_of(embedded.admin_url)
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        mark = f"{dead.pid} {psutil.Process(dead.pid).create_time()!r}"
        dead.wait()
        (embedded.folder / "owner").write_text(mark)  # as if the session that started it had been SIGKILLed
        assert reap_orphans(private_root) == [embedded.folder]
    finally:
        embedded.stop()
    assert not embedded.folder.exists()
    assert has_ended(postmaster)
