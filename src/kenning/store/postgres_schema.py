"""Numbered schema migrations for the PostgreSQL store, numbered on from SQLite's.

The first one (9) creates at once what SQLite's migrations 1..9 built up (``migrations.py``): the same
tables, columns and constraints, so that the next migration is number 10 on both backends. Each
migration runs in its own transaction, under a transaction-level advisory lock, and is recorded in
``schema_migrations``; several hosts opening a new database at once therefore migrate it once (the
others wait on the lock, then find the version recorded). A database recording a version this code
does not know was written by a newer kenning and is refused. Never edit a released migration.

Where PostgreSQL differs: ``rowid`` is a BIGSERIAL (a sequence never hands a number out twice, even
after a rollback); the unique current-content index is over ``md5(content_key)``, since a B-tree
entry holds at most ~2.7 kB and a content key may be 100k characters; the full-text row keeps the
segmented body and its ``tsvector`` of those very tokens; vectors are pgvector ``vector`` values;
triggers keep a log of vectors deleted or rewritten (``vector_changes``), so that the vector caches
of other hosts re-read just those rows; the append-only guards are PL/pgSQL triggers that raise.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import SchemaTooNew, StoreError

if TYPE_CHECKING:
    import psycopg

# pg_advisory_xact_lock keys (any two fixed bigints; advisory locks are per database)
MIGRATION_LOCK = 0x6B656E6E696E6701  # "kenning" 01
WRITE_LOCK = 0x6B656E6E696E6702  # "kenning" 02: every write transaction (``postgres.PostgresStore._write``)

_SCHEMA = r"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- vector_rewrites: the last change of a vector in place or its deletion (see vector_changes);
-- store_id names this store, for files derived from it (the vector cache's snapshot)
INSERT INTO meta (key, value) VALUES ('vector_rewrites', '0'), ('store_id', replace(gen_random_uuid()::text, '-', ''));

CREATE TABLE items (
    rowid         BIGSERIAL PRIMARY KEY,  -- never reused: the vector cache relies on it
    id            TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL CHECK (kind IN ('fact', 'lesson', 'entity')),
    scope         TEXT NOT NULL,
    content       TEXT NOT NULL,
    content_key   TEXT NOT NULL,
    tags          TEXT NOT NULL DEFAULT '[]',
    source        TEXT NOT NULL DEFAULT 'api',
    confidence    DOUBLE PRECISION NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    category      TEXT NOT NULL DEFAULT 'general'
                  CHECK (category IN ('user_pref', 'project', 'pitfall', 'general')),
    importance    DOUBLE PRECISION NOT NULL DEFAULT 0.4 CHECK (importance BETWEEN 0 AND 1),
    created_at    DOUBLE PRECISION NOT NULL,
    updated_at    DOUBLE PRECISION NOT NULL,
    last_accessed DOUBLE PRECISION,
    access_count  BIGINT NOT NULL DEFAULT 0,
    expires_at    DOUBLE PRECISION,
    superseded_by TEXT,
    supersedes    TEXT,
    pinned        INTEGER NOT NULL DEFAULT 0,
    reinforced    INTEGER NOT NULL DEFAULT 0,
    action        TEXT,
    context       TEXT,
    context_key   TEXT,
    outcome       TEXT CHECK (outcome IS NULL OR outcome IN ('positive', 'negative', 'neutral')),
    insight       TEXT,
    applied_count INTEGER NOT NULL DEFAULT 0,
    name          TEXT,
    entity_kind   TEXT,
    aliases       TEXT,
    attributes    TEXT,
    notes         TEXT
);
CREATE INDEX items_scope_kind ON items (scope, kind);
CREATE INDEX items_supersedes ON items (supersedes);
-- one current item per content in a scope: the last line of defence for dedup
CREATE UNIQUE INDEX items_current_content ON items (scope, kind, md5(content_key)) WHERE superseded_by IS NULL;

CREATE TABLE entity_names (
    scope      TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    item_rowid BIGINT NOT NULL,
    PRIMARY KEY (scope, name_key)
);
CREATE INDEX entity_names_item ON entity_names (item_rowid);

-- bodies arrive segmented, lower-cased and stemmed (kenning.text); terms holds exactly those tokens
-- (array_to_tsvector parses nothing), so the index answers for the terms kenning looks up
CREATE TABLE items_fts (
    rowid BIGINT PRIMARY KEY,
    body  TEXT NOT NULL,
    terms TSVECTOR NOT NULL
);
-- no pending list: every query would scan it whole, and inserts stay cheap without it
CREATE INDEX items_fts_terms ON items_fts USING gin (terms) WITH (fastupdate = off);

CREATE TABLE vectors (
    item_rowid BIGINT PRIMARY KEY,
    vec        vector NOT NULL,
    lang       TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'zh'))
);

-- every write of kenning holds the write lock for its whole transaction; these triggers take it
-- for any other writer too (a script, a person at psql), so that rowids and vector changes become
-- visible in the order they were numbered, which the vector caches of every host rely on
CREATE FUNCTION kenning_write_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock({WRITE_LOCK});
    RETURN NULL;
END $$;
CREATE TRIGGER items_locked BEFORE INSERT ON items FOR EACH STATEMENT EXECUTE FUNCTION kenning_write_lock();
CREATE TRIGGER vectors_locked BEFORE INSERT OR UPDATE OR DELETE ON vectors
    FOR EACH STATEMENT EXECUTE FUNCTION kenning_write_lock();

-- every vector deleted or changed in place, in commit order: a vector cache that has seen up to
-- seq N drops or re-reads just those rows (meta.vector_rewrites holds the last seq). The newest
-- {KEEP_CHANGES} are kept; a cache older than meta.vector_changes_from reloads whole
CREATE TABLE vector_changes (seq BIGSERIAL PRIMARY KEY, item_rowid BIGINT NOT NULL);
INSERT INTO meta (key, value) VALUES ('vector_changes_from', '0');
CREATE FUNCTION kenning_vector_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    last BIGINT;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM changed) THEN
        RETURN NULL;
    END IF;
    INSERT INTO vector_changes (item_rowid) SELECT item_rowid FROM changed;
    SELECT max(seq) INTO last FROM vector_changes;
    UPDATE meta SET value = last::text WHERE key = 'vector_rewrites';
    IF (SELECT min(seq) FROM vector_changes) < last - 2 * {KEEP_CHANGES} THEN
        DELETE FROM vector_changes WHERE seq <= last - {KEEP_CHANGES};
        UPDATE meta SET value = (last - {KEEP_CHANGES})::text WHERE key = 'vector_changes_from';
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER vectors_deleted AFTER DELETE ON vectors REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION kenning_vector_changed();
CREATE TRIGGER vectors_rewritten AFTER UPDATE ON vectors REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION kenning_vector_changed();

CREATE FUNCTION kenning_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END $$;

CREATE TABLE audit (
    seq     BIGSERIAL PRIMARY KEY,
    at      DOUBLE PRECISION NOT NULL,
    action  TEXT NOT NULL,
    item_id TEXT,
    kind    TEXT,
    scope   TEXT,
    actor   TEXT NOT NULL,
    reason  TEXT NOT NULL DEFAULT '',
    before  TEXT,
    after   TEXT
);
CREATE INDEX audit_item ON audit (item_id);
-- `kenning purge` (the right to be forgotten) replaces an entry's before/after by the hash of what
-- they held and empties its reason; every other change of the log is refused
CREATE FUNCTION kenning_audit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.seq = OLD.seq AND NEW.at = OLD.at AND NEW.action = OLD.action
            AND NEW.item_id IS NOT DISTINCT FROM OLD.item_id AND NEW.kind IS NOT DISTINCT FROM OLD.kind
            AND NEW.scope IS NOT DISTINCT FROM OLD.scope AND NEW.actor = OLD.actor AND NEW.reason = ''
            AND (NEW.before IS NULL OR NEW.before LIKE '{"purged": "sha256:%')
            AND (NEW.after IS NULL OR NEW.after LIKE '{"purged": "sha256:%') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only (only kenning purge may blank an entry)'
        USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION kenning_audit_guard();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
    FOR EACH STATEMENT EXECUTE FUNCTION kenning_refuse('the audit log is append-only');

-- file contents by SHA-256: versions whose file did not change share one row
CREATE TABLE skill_blobs (sha256 TEXT PRIMARY KEY, content BYTEA NOT NULL);

-- every state of a skill folder, numbered per location (source root + path inside it)
CREATE TABLE skill_versions (
    id            BIGSERIAL PRIMARY KEY,
    name          TEXT NOT NULL,
    source        TEXT NOT NULL,
    root          TEXT NOT NULL,
    rel_path      TEXT NOT NULL,
    number        INTEGER NOT NULL,
    action        TEXT NOT NULL,
    checksum      TEXT NOT NULL,
    version_field TEXT,
    at            DOUBLE PRECISION NOT NULL,
    actor         TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT '',
    deleted       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (root, rel_path, number)
);
CREATE INDEX skill_versions_name ON skill_versions (name);
-- history is kept, like the audit log: rows are only ever added
CREATE TRIGGER skill_versions_append_only BEFORE UPDATE OR DELETE ON skill_versions
    FOR EACH ROW EXECUTE FUNCTION kenning_refuse('skill versions are append-only');
CREATE TRIGGER skill_versions_no_truncate BEFORE TRUNCATE ON skill_versions
    FOR EACH STATEMENT EXECUTE FUNCTION kenning_refuse('skill versions are append-only');

CREATE TABLE skill_version_files (
    version_id BIGINT NOT NULL REFERENCES skill_versions (id),
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL REFERENCES skill_blobs (sha256),
    size       BIGINT NOT NULL,
    PRIMARY KEY (version_id, path)
);

-- root / rel_path: the skill a view or outcome was about (none: counted by name)
CREATE TABLE skill_usage (
    id       BIGSERIAL PRIMARY KEY,
    at       DOUBLE PRECISION NOT NULL,
    name     TEXT NOT NULL,
    event    TEXT NOT NULL CHECK (event IN ('view', 'use', 'feedback')),
    outcome  TEXT CHECK (outcome IS NULL OR outcome IN ('helped', 'failed', 'not-relevant')),
    detail   TEXT NOT NULL DEFAULT '',
    actor    TEXT NOT NULL,
    root     TEXT,
    rel_path TEXT
);
CREATE INDEX skill_usage_name ON skill_usage (name, at);
CREATE INDEX skill_usage_location ON skill_usage (root, rel_path, at);

-- skills the curator leaves alone (never stale, never archived), by location
CREATE TABLE skill_pins (
    root     TEXT NOT NULL,
    rel_path TEXT NOT NULL,
    name     TEXT NOT NULL,
    source   TEXT NOT NULL,
    at       DOUBLE PRECISION NOT NULL,
    actor    TEXT NOT NULL,
    reason   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (root, rel_path)
);

-- embeddings of texts that are not items, by embedder and SHA-256 of the text (float32 bytes:
-- their dimension is the embedder's, which may differ from the items')
CREATE TABLE passage_vectors (
    embedder TEXT NOT NULL,
    sha256   TEXT NOT NULL,
    vector   BYTEA NOT NULL,
    used_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (embedder, sha256)
);
CREATE INDEX passage_vectors_sha ON passage_vectors (sha256);

-- a message's identity (a hash, never the text) per scope whose consolidation took it in
CREATE TABLE consolidated_messages (
    scope       TEXT NOT NULL,
    message_key TEXT NOT NULL,
    at          DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (scope, message_key)
);

-- two current facts the write gate kept side by side although one may correct the other
CREATE TABLE fact_conflicts (
    a          TEXT NOT NULL,
    b          TEXT NOT NULL,
    scope      TEXT NOT NULL,
    rule       TEXT NOT NULL,
    cosine     DOUBLE PRECISION,
    found_at   DOUBLE PRECISION NOT NULL,
    found_by   TEXT NOT NULL,
    settled    TEXT CHECK (settled IS NULL OR settled IN ('a', 'b', 'both')),
    settled_at DOUBLE PRECISION,
    settled_by TEXT,
    PRIMARY KEY (a, b)
);
CREATE INDEX fact_conflicts_open ON fact_conflicts (scope, settled, found_at);
"""

KEEP_CHANGES = 20_000  # vector changes kept for caches to catch up with (``postgres_vectors``)

MIGRATIONS: list[tuple[int, str, str]] = [
    (9, "the schema of SQLite's migrations 1-9: items, full text, vectors, entity names, audit, skills, "
        "passages, consolidated messages, conflicts; the vector change log",
     _SCHEMA.replace("{WRITE_LOCK}", str(WRITE_LOCK)).replace("{KEEP_CHANGES}", str(KEEP_CHANGES))),
]

LATEST = MIGRATIONS[-1][0]

TABLES = frozenset("""meta items entity_names items_fts vectors audit skill_blobs skill_versions skill_version_files
    skill_usage passage_vectors consolidated_messages schema_migrations skill_pins fact_conflicts
    vector_changes""".split())

_RECORD = ("CREATE TABLE schema_migrations "
           "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)")


def migrate(conn: psycopg.Connection[Any], shown: str) -> int:
    """Apply pending migrations on ``conn`` (autocommit), each in its own locked transaction; the
    schema version. ``shown`` names the database in errors (its URL without the password)."""
    with conn.transaction():
        _lock(conn)
        # looked up first: CREATE ... IF NOT EXISTS wants the right to create even when the table is there
        if conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,):
            conn.execute(_RECORD)
        applied = _applied(conn)
    newer = [v for v in applied if v > LATEST]
    if newer:
        raise SchemaTooNew(
            f"database {shown} has schema version {max(newer)}, but this kenning knows up to {LATEST}; "
            "upgrade kenning (pip install -U kenning) or point the database URL at another database"
        )
    _ensure_vector(conn, shown)
    for version, name, sql in MIGRATIONS:
        if version in applied:
            continue
        with conn.transaction():
            _lock(conn)  # another host may have migrated while we waited: look again under the lock
            if version in _applied(conn):
                continue
            conn.execute(sql)  # no parameters: sent as it is, several statements, % signs and all
            conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (%s, %s, %s)",
                         (version, name, time.time()))
    return LATEST


def _lock(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))


def _applied(conn: psycopg.Connection[Any]) -> set[int]:
    return {int(row[0]) for row in conn.execute("SELECT version FROM schema_migrations")}


def _ensure_vector(conn: psycopg.Connection[Any], shown: str) -> None:
    """Create pgvector's extension when the database lacks it (that needs a privileged role)."""
    import psycopg

    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    try:
        with conn.transaction():
            _lock(conn)
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except (psycopg.errors.FeatureNotSupported, psycopg.errors.UndefinedFile) as exc:
        raise StoreError(f"the PostgreSQL server of {shown} has no pgvector extension ({exc}); install pgvector "
                         "on the server (https://github.com/pgvector/pgvector), then open the store again") from exc
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(f"database {shown} lacks the vector extension and its role may not create it; ask its "
                         "administrator to run CREATE EXTENSION vector; in it, then open the store again") from exc


def check_tables(conn: psycopg.Connection[Any], shown: str) -> None:
    """Refuse, in one line, a database whose migrations say a table exists that does not (dropped by hand)."""
    present = {str(row[0]) for row in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
    missing = sorted(TABLES - present)
    if missing:
        raise StoreError(f"database {shown} is damaged: its table{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing. Restore it from a "
                         "backup, or point the database URL at a new, empty database")
