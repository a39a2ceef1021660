"""Numbered schema migrations for the SQLite store.

Each migration runs in its own transaction when a store is opened and is recorded in
``schema_migrations``; a database that records a version this code does not know was written by a
newer kenning and is refused. Never edit a released migration: add the next number.
"""

from __future__ import annotations

import sqlite3
import time

from ..errors import SchemaTooNew, StoreError
from ..text import language

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "items, full-text index, vectors, entity names, audit log",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE items (
            rowid         INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the vector cache relies on it
            id            TEXT NOT NULL UNIQUE,
            kind          TEXT NOT NULL CHECK (kind IN ('fact', 'lesson', 'entity')),
            scope         TEXT NOT NULL,
            content       TEXT NOT NULL,
            content_key   TEXT NOT NULL,
            tags          TEXT NOT NULL DEFAULT '[]',
            source        TEXT NOT NULL DEFAULT 'api',
            confidence    REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
            category      TEXT NOT NULL DEFAULT 'general'
                          CHECK (category IN ('user_pref', 'project', 'pitfall', 'general')),
            importance    REAL NOT NULL DEFAULT 0.4 CHECK (importance BETWEEN 0 AND 1),
            created_at    REAL NOT NULL,
            updated_at    REAL NOT NULL,
            last_accessed REAL,
            access_count  INTEGER NOT NULL DEFAULT 0,
            expires_at    REAL,
            superseded_by TEXT,
            supersedes    TEXT,
            pinned        INTEGER NOT NULL DEFAULT 0,
            reinforced    INTEGER NOT NULL DEFAULT 0,
            -- lessons
            action        TEXT,
            context       TEXT,
            context_key   TEXT,
            outcome       TEXT CHECK (outcome IS NULL OR outcome IN ('positive', 'negative', 'neutral')),
            insight       TEXT,
            applied_count INTEGER NOT NULL DEFAULT 0,
            -- entities
            name          TEXT,
            entity_kind   TEXT,
            aliases       TEXT,
            attributes    TEXT,
            notes         TEXT
        );
        CREATE INDEX items_scope_kind ON items (scope, kind);
        CREATE INDEX items_supersedes ON items (supersedes);
        -- one current item per content in a scope: the last line of defence for dedup
        CREATE UNIQUE INDEX items_current_content ON items (scope, kind, content_key)
            WHERE superseded_by IS NULL;

        CREATE TABLE entity_names (
            scope     TEXT NOT NULL,
            name_key  TEXT NOT NULL,
            item_rowid INTEGER NOT NULL,
            PRIMARY KEY (scope, name_key)
        );
        CREATE INDEX entity_names_item ON entity_names (item_rowid);

        -- bodies arrive segmented, lower-cased and stemmed (kenning.text); FTS5 must keep those
        -- terms whole, so that the vocabulary holds exactly the terms kenning looks up
        CREATE VIRTUAL TABLE items_fts USING fts5 (body, tokenize = "unicode61 remove_diacritics 0 tokenchars '_.''-'");
        CREATE VIRTUAL TABLE items_vocab USING fts5vocab (items_fts, 'row');

        CREATE TABLE vectors (item_rowid INTEGER PRIMARY KEY, vec BLOB NOT NULL);

        CREATE TABLE audit (
            seq     INTEGER PRIMARY KEY AUTOINCREMENT,
            at      REAL NOT NULL,
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
        CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        """,
    ),
    (
        2,
        "skill versions and skill usage",
        """
        -- file contents by SHA-256: versions whose file did not change share one row
        CREATE TABLE skill_blobs (sha256 TEXT PRIMARY KEY, content BLOB NOT NULL);

        -- every state of a skill folder, numbered per location (source root + path inside it)
        CREATE TABLE skill_versions (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            name          TEXT NOT NULL,
            source        TEXT NOT NULL,
            root          TEXT NOT NULL,
            rel_path      TEXT NOT NULL,
            number        INTEGER NOT NULL,
            action        TEXT NOT NULL,
            checksum      TEXT NOT NULL,
            version_field TEXT,
            at            REAL NOT NULL,
            actor         TEXT NOT NULL,
            reason        TEXT NOT NULL DEFAULT '',
            deleted       INTEGER NOT NULL DEFAULT 0,
            UNIQUE (root, rel_path, number)
        );
        CREATE INDEX skill_versions_name ON skill_versions (name);

        CREATE TABLE skill_version_files (
            version_id INTEGER NOT NULL REFERENCES skill_versions (id),
            path       TEXT NOT NULL,
            sha256     TEXT NOT NULL REFERENCES skill_blobs (sha256),
            size       INTEGER NOT NULL,
            PRIMARY KEY (version_id, path)
        );

        -- history is kept, like the audit log: rows are only ever added
        CREATE TRIGGER skill_versions_no_update BEFORE UPDATE ON skill_versions
            BEGIN SELECT RAISE(ABORT, 'skill versions are append-only'); END;
        CREATE TRIGGER skill_versions_no_delete BEFORE DELETE ON skill_versions
            BEGIN SELECT RAISE(ABORT, 'skill versions are append-only'); END;

        CREATE TABLE skill_usage (
            id      INTEGER PRIMARY KEY AUTOINCREMENT,
            at      REAL NOT NULL,
            name    TEXT NOT NULL,
            event   TEXT NOT NULL CHECK (event IN ('view', 'use', 'feedback')),
            outcome TEXT CHECK (outcome IS NULL OR outcome IN ('helped', 'failed', 'not-relevant')),
            detail  TEXT NOT NULL DEFAULT '',
            actor   TEXT NOT NULL
        );
        CREATE INDEX skill_usage_name ON skill_usage (name, at);
        """,
    ),
    (
        3,
        "passage vectors",
        """
        -- embeddings of texts that are not items (a skill's "name: description", a note's paragraph),
        -- by embedder and SHA-256 of the text: each is embedded once, not once per process
        CREATE TABLE passage_vectors (
            embedder TEXT NOT NULL,
            sha256   TEXT NOT NULL,
            vector   BLOB NOT NULL,
            used_at  REAL NOT NULL,
            PRIMARY KEY (embedder, sha256)
        );
        """,
    ),
    (
        4,
        "a counter of deleted and rewritten vectors, and the store's id",
        """
        -- the in-memory vector cache appends rows with a higher rowid; a vector deleted or changed in
        -- place, by any connection, bumps this counter, and a cache that sees it change reloads
        INSERT INTO meta (key, value) VALUES ('vector_rewrites', '0');
        -- names this store, for files derived from it (the vector cache's snapshot)
        INSERT INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
        CREATE TRIGGER vectors_deleted AFTER DELETE ON vectors BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_rewrites';
        END;
        CREATE TRIGGER vectors_rewritten AFTER UPDATE ON vectors BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_rewrites';
        END;
        """,
    ),
    (
        5,
        "the messages each scope has consolidated",
        """
        -- a message's identity (kenning.consolidate.messages.identities: a hash, never the text) per
        -- scope whose consolidation took it in, so that the same transcript consolidated again adds nothing
        CREATE TABLE consolidated_messages (
            scope       TEXT NOT NULL,
            message_key TEXT NOT NULL,
            at          REAL NOT NULL,
            PRIMARY KEY (scope, message_key)
        ) WITHOUT ROWID;
        """,
    ),
    (
        6,
        "the audit log may be blanked by a purge, and by nothing else",
        """
        -- `kenning purge` (the right to be forgotten) replaces an entry's before/after by the hash of
        -- what they held and empties its reason; every other change of the log is still refused
        DROP TRIGGER audit_no_update;
        CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
            WHEN NOT (NEW.seq = OLD.seq AND NEW.at = OLD.at AND NEW.action = OLD.action
                      AND NEW.item_id IS OLD.item_id AND NEW.kind IS OLD.kind AND NEW.scope IS OLD.scope
                      AND NEW.actor = OLD.actor AND NEW.reason = ''
                      AND (NEW.before IS NULL OR NEW.before LIKE '{"purged": "sha256:%')
                      AND (NEW.after IS NULL OR NEW.after LIKE '{"purged": "sha256:%'))
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only (only kenning purge may blank an entry)'); END;
        """,
    ),
    (
        7,
        "skill usage by location, and pinned skills",
        """
        -- the skill a view or outcome was about, by the key its history has (source root + path
        -- inside it): two skills of one name (a project's and the user's) are told apart; rows from
        -- before this migration have none and count by name
        ALTER TABLE skill_usage ADD COLUMN root TEXT;
        ALTER TABLE skill_usage ADD COLUMN rel_path TEXT;
        CREATE INDEX skill_usage_location ON skill_usage (root, rel_path, at);

        -- skills the curator leaves alone (never stale, never archived), by location
        CREATE TABLE skill_pins (
            root     TEXT NOT NULL,
            rel_path TEXT NOT NULL,
            name     TEXT NOT NULL,
            source   TEXT NOT NULL,
            at       REAL NOT NULL,
            actor    TEXT NOT NULL,
            reason   TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (root, rel_path)
        ) WITHOUT ROWID;
        """,
    ),
    (
        8,
        "possible conflicts between current facts",
        """
        -- two current facts the write gate kept side by side although one may correct the other
        -- (kenning.gate.conflicts): ids and the rule only, never the texts, so that a purge of a
        -- fact leaves nothing of it here; settled once, by keeping a, b or both
        CREATE TABLE fact_conflicts (
            a          TEXT NOT NULL,  -- the fact stored first
            b          TEXT NOT NULL,  -- the fact that may contradict it
            scope      TEXT NOT NULL,
            rule       TEXT NOT NULL,
            cosine     REAL,
            found_at   REAL NOT NULL,
            found_by   TEXT NOT NULL,
            settled    TEXT CHECK (settled IS NULL OR settled IN ('a', 'b', 'both')),
            settled_at REAL,
            settled_by TEXT,
            PRIMARY KEY (a, b)
        ) WITHOUT ROWID;
        CREATE INDEX fact_conflicts_open ON fact_conflicts (scope, settled, found_at);
        """,
    ),
    (
        9,
        "the language of each vector's text",
        """
        -- 'zh' or 'en' (kenning.relevance.language of the embedded text): recall standardises each
        -- candidate's cosine by the cosines of its own language in the store (kenning.mixed), so
        -- the vector cache needs every row's language without reading its text
        ALTER TABLE vectors ADD COLUMN lang TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'zh'));
        UPDATE vectors SET lang = 'zh'
            WHERE kenning_language((SELECT content FROM items WHERE items.rowid = vectors.item_rowid)) = 'zh';
        """,
    ),
]

LATEST = MIGRATIONS[-1][0]


def _applied(conn: sqlite3.Connection) -> set[int]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Apply pending migrations, each in its own transaction; return the schema version."""
    applied = _applied(conn)
    newer = [v for v in applied if v > LATEST]
    if newer:
        raise SchemaTooNew(
            f"database {path} has schema version {max(newer)}, but this kenning knows up to {LATEST}; "
            "upgrade kenning (pip install -U kenning) or point KENNING_HOME at another directory"
        )
    # migration 9 judges the language of stored texts the way kenning does on every write
    conn.create_function("kenning_language", 1, _language, deterministic=True)
    for version, name, sql in MIGRATIONS:
        if version in applied:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have just migrated
            if conn.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, time.time()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return LATEST


TABLES = frozenset("""meta items entity_names items_fts items_vocab vectors audit skill_blobs skill_versions
    skill_version_files skill_usage passage_vectors consolidated_messages schema_migrations skill_pins fact_conflicts""".split())


def check_tables(conn: sqlite3.Connection, path: str) -> None:
    """Refuse, in one line, a database whose migrations say a table exists that does not (dropped
    by hand, or a damaged file): every later query would fail with a bare "no such table"."""
    present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = sorted(TABLES - present)
    if missing:
        raise StoreError(f"database {path} is damaged: its table{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing. Restore it from a "
                         "backup, or move it away to start a new store (`kenning path` shows where it is)")


def _language(text: object) -> str:
    return language(text) if isinstance(text, str) else "en"


def _statements(sql: str) -> list[str]:
    """Split a migration script into statements (``executescript`` would commit on its own)."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
