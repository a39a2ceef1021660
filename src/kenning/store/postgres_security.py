"""Row-level security for a PostgreSQL database shared by several people: the server itself keeps
each login role to the scopes granted to it, whatever the client runs (kenning, a script, psql).

The binding is the login role (``current_user``), never a setting a client could change. Grants
live in ``kenning_grants`` (role, scope, 'read' | 'write'): a scope is an exact kenning scope, a
kind prefix ('team:*': every scope 'team:…') or '*'; a grant to a group role counts for its
members. ``enable`` (the tables' owner, once; again is harmless) turns on and forces the policies:

* rows with a scope (items, entity names, consolidated messages, conflicts) are read under a read
  grant and written under a write grant; full-text rows and vectors follow their item;
* the audit log: every row the role wrote (``owner``), and rows of a scope granted for reading
  whose writer may write that scope (an entry made up under another's scope stays its writer's);
* skill versions, usage, pins and passage vectors have no scope: each role has its own (``owner``,
  and their unique keys take it in); a skill file's bytes are read through a version that lists them;
* meta, the migrations and the vector change log hold no one's text: every granted role reads
  them, only the owner writes them (the trigger that logs vector changes runs as the owner).

A policy reads the role's grants once per statement (``kenning_patterns`` as an init plan: a list
of LIKE patterns), not once per row. A grant or revoke bumps the vector change log with a row of
rowid 0, which makes every process's vector cache reload whole (``SecuredVectorCache``): a revoked
scope leaves the caches at their next search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..checks import check_scope
from ..errors import InvalidInput, StoreError
from .postgres_schema import MIGRATION_LOCK, WRITE_LOCK
from .postgres_vectors import PgVectorCache

if TYPE_CHECKING:
    import psycopg

ACCESS = ("read", "write")
SCOPED = ("items", "entity_names", "consolidated_messages", "fact_conflicts")  # rows with a scope column
OF_ITEMS = {"items_fts": "rowid", "vectors": "item_rowid"}  # rows that follow their item
PER_ROLE = ("skill_versions", "skill_usage", "skill_pins", "passage_vectors")  # rows with no scope: each role's own
# unique keys of the per-role tables, re-made with the owner first under the same names, so that the
# ON CONFLICT ON CONSTRAINT of the store's statements works whether the database is secured or not
KEYS = {"skill_versions": ("skill_versions_root_rel_path_number_key", "UNIQUE", "root, rel_path, number"),
        "skill_pins": ("skill_pins_pkey", "PRIMARY KEY", "root, rel_path"),
        "passage_vectors": ("passage_vectors_pkey", "PRIMARY KEY", "embedder, sha256")}
SHARED = ("meta", "schema_migrations", "vector_changes")  # read by every granted role, written by the owner
WRITTEN = (*SCOPED, *OF_ITEMS, *PER_ROLE, "skill_version_files", "skill_blobs")
SEQUENCES = (("items", "rowid"), ("audit", "seq"), ("skill_versions", "id"), ("skill_usage", "id"))

_GRANTS = """CREATE TABLE kenning_grants (
    role       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    access     TEXT NOT NULL CHECK (access IN ('read', 'write')),
    granted_at DOUBLE PRECISION NOT NULL,
    granted_by TEXT NOT NULL,
    PRIMARY KEY (role, scope))"""

# LIKE patterns of the scopes the current role may read (every grant) or write; the schema and
# pg_catalog are named, so a table of the same name a user makes elsewhere (pg_temp) is never read.
# The join with pg_roles keeps pg_has_role away from a grant whose role was dropped since
_PATTERNS = r"""CREATE OR REPLACE FUNCTION {s}.kenning_patterns(wanted TEXT, who NAME DEFAULT current_user)
RETURNS TEXT[] LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(CASE
        WHEN g.scope = '*' THEN '%'
        WHEN right(g.scope, 2) = ':*' THEN replace(replace(replace(left(g.scope, -1), '\', '\\'), '%', '\%'), '_', '\_')
                                           || '%'
        ELSE replace(replace(replace(g.scope, '\', '\\'), '%', '\%'), '_', '\_') END), ARRAY[]::text[])
    FROM {s}.kenning_grants g JOIN pg_catalog.pg_roles r ON r.rolname = g.role
    WHERE pg_catalog.pg_has_role(who, r.oid, 'MEMBER') AND (wanted = 'read' OR g.access = 'write')
$$"""
# PostgreSQL lets a policy's condition go first, so an operator that is not LEAKPROOF (tsvector's @@)
# is never an index condition under row security: a term lookup would read every full-text row. These
# two run as the owner (who passes items_fts and vectors unforced), look terms up by the GIN index, and keep the
# rows of items the login role (session_user: SET ROLE cannot change it) may read
_LOOKUPS = r"""CREATE OR REPLACE FUNCTION {s}.kenning_matches(q tsquery) RETURNS SETOF BIGINT
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT f.rowid FROM {s}.items_fts f JOIN {s}.items i ON i.rowid = f.rowid
    WHERE f.terms @@ q AND i.scope LIKE ANY ((SELECT {s}.kenning_patterns('read', session_user))::text[])
$$;
REVOKE ALL ON FUNCTION {s}.kenning_matches(tsquery) FROM PUBLIC;
-- the highest vector rowid of any role (rowids are shared: a role's own inserts show their gaps
-- already): the vector caches' cheap "has anything changed" without a policy on every row
CREATE OR REPLACE FUNCTION {s}.kenning_last_vector() RETURNS BIGINT
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT max(item_rowid) FROM {s}.vectors
$$;
REVOKE ALL ON FUNCTION {s}.kenning_last_vector() FROM PUBLIC;
-- whether the role that wrote an audit entry may now write the scope it names: any role may add
-- entries as itself, but one of another's scope is shown to that scope's readers only when its
-- writer holds a write grant of it (so bob cannot slip a made-up entry into alice's history).
-- As the owner, who reads every grant; a writer dropped since matches nothing
CREATE OR REPLACE FUNCTION {s}.kenning_writer_may(writer TEXT, target TEXT) RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles w WHERE w.rolname = writer
                   AND target LIKE ANY ({s}.kenning_patterns('write', w.rolname)))
$$;
REVOKE ALL ON FUNCTION {s}.kenning_writer_may(TEXT, TEXT) FROM PUBLIC"""

_FUNCTIONS = "kenning_matches(tsquery), kenning_last_vector(), kenning_writer_may(text, text)"
# what the store's searches read instead of items_fts and max(vectors) on a secured database
MATCHING = "kenning_matches(t.q) AS f(rowid)"
LAST_VECTOR = "kenning_last_vector()"

_BUMP = """INSERT INTO vector_changes (item_rowid) VALUES (0);
UPDATE meta SET value = (SELECT max(seq) FROM vector_changes)::text WHERE key = 'vector_rewrites'"""


@dataclass(frozen=True)
class Grant:
    role: str
    scope: str
    access: str
    granted_at: float
    granted_by: str

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "scope": self.scope, "access": self.access, "granted_at": self.granted_at,
                "granted_by": self.granted_by}


class SecuredVectorCache(PgVectorCache):
    """The vector cache of a secured database: it holds the rows its role sees, so a change of
    grants (a log row of rowid 0) reloads it whole instead of catching up."""

    def _caught_up(self, conn: Any, rewrites: str) -> bool:
        if self.rewrites is not None and conn.execute(
                "SELECT 1 FROM vector_changes WHERE seq > %s AND seq <= %s AND item_rowid = 0 LIMIT 1",
                (int(self.rewrites), int(rewrites))).fetchone():
            return False
        return super()._caught_up(conn, rewrites)


def secured(conn: psycopg.Connection[Any]) -> bool:
    """Whether row-level security is enabled in the database of ``conn``."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'row_security'").fetchone()
    return bool(row and row[0] == "on")


def check_open(conn: psycopg.Connection[Any], shown: str, *, demanded: bool, setting: str) -> bool:
    """At open: refuse an unsecured database the client demands secured, and a role of a secured
    one that holds no grant; whether the database is secured."""
    on = secured(conn)
    if demanded and not on:
        raise StoreError(f"{setting}: row security is demanded ([store] row_security / KENNING_ROW_SECURITY), but "
                         f"{shown} has no row-level security; its owner runs `kenning access enable` (then "
                         "`kenning access grant ROLE SCOPE` for each user), or turn row_security off")
    if on:
        from psycopg import sql

        role, schema = conn.execute("SELECT current_user, current_schema()").fetchone() or ("", "public")
        patterns = conn.execute(sql.SQL("SELECT {}.kenning_patterns('read')").format(sql.Identifier(schema))).fetchone()
        if not _superuser(conn) and not (patterns and patterns[0]):
            raise StoreError(f"role {role!r} holds no grant in {shown}, which keeps each role to its scopes: ask "
                             f"its owner to run `kenning access grant {role} SCOPE` (e.g. user:{role})")
    return on


def connect(url: str, shown: str) -> psycopg.Connection[Any]:
    """A connection in autocommit for the access commands, or a clear error."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        raise StoreError(f"the PostgreSQL database {shown} cannot be reached: {reason}; check the URL and that the "
                         "server runs") from exc


def role_of(conn: psycopg.Connection[Any]) -> str:
    return str((conn.execute("SELECT current_user").fetchone() or ("",))[0])


def _superuser(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
    return bool(row and row[0])


def owns_tables(conn: psycopg.Connection[Any], tables: tuple[str, ...] = ("items",)) -> bool:
    """Whether the current role owns (or is a member of the owner of) every one of ``tables``."""
    row = conn.execute("SELECT bool_and(pg_has_role(current_user, c.relowner, 'USAGE')) FROM pg_class c "
                       "WHERE c.oid = ANY(%s::regclass[])", (list(tables),)).fetchone()
    return bool(row and row[0])


# -- enable ------------------------------------------------------------------------------------------


def enable(conn: psycopg.Connection[Any], shown: str) -> bool:
    """Turn row-level security on in the database of ``conn`` (autocommit; its schema migrated), in
    one transaction under the migration lock; False when it was on already (the policies are made
    again all the same). The enabling role gets '*' write: the owner administers."""
    from psycopg import sql

    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        if not owns_tables(conn):
            owner = conn.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'items'::regclass"
                                 ).fetchone()
            raise StoreError(f"only the owner of kenning's tables in {shown} ({owner[0] if owner else '?'}) may "
                             f"enable row security, not {role_of(conn)!r}; run `kenning access enable` as that role")
        was_on = secured(conn)
        schema = sql.Identifier(str((conn.execute("SELECT current_schema()").fetchone() or ("public",))[0]))
        if conn.execute("SELECT to_regclass('kenning_grants')").fetchone() == (None,):
            conn.execute(_GRANTS)
        for text in (_PATTERNS, _LOOKUPS):
            conn.execute(sql.SQL(text).format(s=schema))  # type: ignore[arg-type]  # no parameters in it
        _owner_columns(conn)
        _policies(conn, schema)
        conn.execute("ALTER FUNCTION kenning_vector_changed() SECURITY DEFINER")
        conn.execute(sql.SQL("ALTER FUNCTION kenning_vector_changed() SET search_path = {}, pg_temp").format(schema))
        conn.execute("INSERT INTO meta (key, value) VALUES ('row_security', 'on') "
                     "ON CONFLICT (key) DO UPDATE SET value = 'on'")
        role = role_of(conn)
        conn.execute("INSERT INTO kenning_grants (role, scope, access, granted_at, granted_by) "
                     "VALUES (%s, '*', 'write', %s, %s) ON CONFLICT (role, scope) DO NOTHING",
                     (role, time.time(), role))
        conn.execute(_BUMP)
    return not was_on


def _owner_columns(conn: psycopg.Connection[Any]) -> None:
    """An ``owner`` column (the writing role) on the audit log and the per-role tables, the rows
    already there given to the enabling owner; the per-role unique keys re-made with it first."""
    for table in ("audit", *PER_ROLE):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS owner TEXT NOT NULL DEFAULT current_user")
    for table, (name, kind, columns) in KEYS.items():
        (current,) = conn.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %s "
                                  "AND conrelid = %s::regclass", (name, table)).fetchone() or ("",)
        if "owner" not in current:
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}, "
                         f"ADD CONSTRAINT {name} {kind} (owner, {columns})")
    # a user may add a file's bytes another role's version lists later: they must be the bytes the hash names
    if not conn.execute("SELECT 1 FROM pg_constraint WHERE conname = 'skill_blobs_hash'").fetchone():
        conn.execute("ALTER TABLE skill_blobs ADD CONSTRAINT skill_blobs_hash "
                     "CHECK (sha256 = encode(sha256(content), 'hex')) NOT VALID")


def _policies(conn: psycopg.Connection[Any], schema: Any) -> None:
    from psycopg import sql

    def patterns(access: str) -> str:
        return f"(SELECT {schema.as_string(conn)}.kenning_patterns('{access}'))::text[]"

    read, write = (f"LIKE ANY ({patterns('read')})", f"LIKE ANY ({patterns('write')})")
    rules: dict[str, list[tuple[str, str, str | None, str | None]]] = {}  # table -> (name, command, using, check)
    for table in SCOPED:
        rules[table] = _crud(f"scope {read}", f"scope {write}")
    for table, column in OF_ITEMS.items():
        item = f"EXISTS (SELECT 1 FROM items i WHERE i.rowid = {table}.{column}"
        rules[table] = _crud(item + ")", f"{item} AND i.scope {write})")
    mine = "owner = current_user"
    vouched = f"{schema.as_string(conn)}.kenning_writer_may(owner, coalesce(scope, ''))"
    rules["audit"] = [("kenning_read", "SELECT", f"{mine} OR (coalesce(scope, '') {read} AND {vouched})", None),
                      ("kenning_insert", "INSERT", None, mine),
                      ("kenning_update", "UPDATE", f"{mine} OR coalesce(scope, '') {write}",
                       f"{mine} OR coalesce(scope, '') {write}")]
    for table in PER_ROLE:
        rules[table] = [("kenning_own", "ALL", mine, mine)]
    listed = "EXISTS (SELECT 1 FROM skill_versions v WHERE v.id = skill_version_files.version_id)"
    rules["skill_version_files"] = [("kenning_own", "ALL", listed, listed)]
    rules["skill_blobs"] = [("kenning_read", "SELECT", "EXISTS (SELECT 1 FROM skill_version_files f "
                                                       "WHERE f.sha256 = skill_blobs.sha256)", None),
                            ("kenning_insert", "INSERT", None, "true")]
    for table, policies in rules.items():
        for (name,) in conn.execute("SELECT policyname FROM pg_policies WHERE schemaname = current_schema() "
                                    "AND tablename = %s", (table,)).fetchall():
            conn.execute(sql.SQL("DROP POLICY {} ON {}").format(sql.Identifier(name), sql.Identifier(table)))
        for name, command, using, check in policies:
            text = f"CREATE POLICY {name} ON {table} FOR {command}"
            text += f" USING ({using})" if using else ""
            text += f" WITH CHECK ({check})" if check else ""
            conn.execute(text)  # type: ignore[arg-type]  # built from the constants above only
        # the owner reads full-text rows and vectors unforced: it holds '*' and may turn policies off
        # anyway, and so kenning_matches and kenning_last_vector, run as the owner, use their indexes
        force = "NO FORCE" if table in OF_ITEMS else "FORCE"
        conn.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY, {force} ROW LEVEL SECURITY")
    # the grants: each role reads its own (the owner, who does not force them on itself, reads all)
    conn.execute("ALTER TABLE kenning_grants ENABLE ROW LEVEL SECURITY")
    conn.execute("DROP POLICY IF EXISTS kenning_read ON kenning_grants")
    conn.execute("CREATE POLICY kenning_read ON kenning_grants FOR SELECT USING (EXISTS (SELECT 1 FROM "
                 "pg_catalog.pg_roles r WHERE r.rolname = kenning_grants.role AND pg_catalog.pg_has_role(current_user, r.oid, "
                 "'MEMBER')))")


def _crud(read: str, write: str) -> list[tuple[str, str, str | None, str | None]]:
    # an UPDATE of a row the role may read but not write matches no row: the access counts a
    # read-only role's recall writes change nothing, and the store turns a change into an error
    return [("kenning_read", "SELECT", read, None), ("kenning_insert", "INSERT", None, write),
            ("kenning_update", "UPDATE", write, write), ("kenning_delete", "DELETE", write, None)]


# -- grants ------------------------------------------------------------------------------------------


def check_grant_scope(scope: str) -> str:
    """A scope a grant may name: a kenning scope, 'kind:*' or '*'."""
    text = scope.strip() if isinstance(scope, str) else scope
    if text == "*":
        return text
    if isinstance(text, str) and text.endswith(":*"):
        kind = text[:-2]
        try:
            check_scope(kind)
        except InvalidInput:
            raise InvalidInput(f"grant scope {scope!r} is not valid: 'KIND:*' needs a kind such as 'team' "
                               "('team:*': every scope team:…)") from None
        if ":" in kind:
            raise InvalidInput(f"grant scope {scope!r} is not valid: '*' stands for the name after the kind, "
                               "as in 'team:*'")
        return text
    try:
        return check_scope(text)
    except InvalidInput as exc:
        raise InvalidInput(f"grant {exc}; or 'KIND:*' (every scope of a kind) or '*' (every scope)") from None


def _administer(conn: psycopg.Connection[Any], shown: str, role: str) -> None:
    """Refuse, inside the transaction, an unsecured database, a caller who is not the owner and an unknown role."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
    if conn.execute("SELECT to_regclass('kenning_grants')").fetchone() == (None,) or not secured(conn):
        raise StoreError(f"{shown} has no row-level security yet: run `kenning access enable` as its owner first")
    if not owns_tables(conn):
        raise StoreError(f"only the owner of kenning's tables in {shown} grants and revokes, not {role_of(conn)!r}")
    if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
        known = [str(r[0]) for r in conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolname NOT LIKE 'pg\\_%%' ORDER BY rolname LIMIT 20")]
        raise InvalidInput(f"role {role!r} does not exist on the server of {shown} (roles: {', '.join(known)}); "
                           f"create it first (CREATE ROLE {role} LOGIN PASSWORD '…') or check the spelling")


def grant(conn: psycopg.Connection[Any], shown: str, role: str, scope: str, *, read_only: bool = False) -> Grant:
    """Let ``role`` read (``read_only``) or read and write ``scope``; replaces its grant of that scope."""
    from psycopg import sql

    scope = check_grant_scope(scope)
    access = "read" if read_only else "write"
    with conn.transaction():
        _administer(conn, shown, role)
        by, at = role_of(conn), time.time()
        conn.execute("INSERT INTO kenning_grants (role, scope, access, granted_at, granted_by) VALUES (%s, %s, %s, "
                     "%s, %s) ON CONFLICT (role, scope) DO UPDATE SET access = excluded.access, "
                     "granted_at = excluded.granted_at, granted_by = excluded.granted_by", (role, scope, access, at, by))
        who = sql.Identifier(role)
        schema = str((conn.execute("SELECT current_schema()").fetchone() or ("public",))[0])
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), who))
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
            sql.SQL(", ").join(map(sql.Identifier, WRITTEN)), who))
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE ON audit TO {}").format(who))
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(
            sql.SQL(", ").join(map(sql.Identifier, (*SHARED, "kenning_grants"))), who))
        conn.execute(sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}").format(
            sql.SQL(", ").join(sql.SQL(s) for s in _sequences(conn)), who))
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(_FUNCTIONS), who))
        conn.execute(_BUMP)
    return Grant(role, scope, access, at, by)


def revoke(conn: psycopg.Connection[Any], shown: str, role: str, scope: str) -> bool:
    """Take ``role``'s grant of ``scope`` away (False: it had none); a role left with no grant
    loses its table privileges too. Takes effect at the next statement of every connection."""
    from psycopg import sql

    scope = check_grant_scope(scope)
    with conn.transaction():
        _administer(conn, shown, role)
        gone = conn.execute("DELETE FROM kenning_grants WHERE role = %s AND scope = %s", (role, scope)).rowcount > 0
        if not conn.execute("SELECT 1 FROM kenning_grants WHERE role = %s", (role,)).fetchone():
            who = sql.Identifier(role)
            tables = sql.SQL(", ").join(map(sql.Identifier, (*WRITTEN, "audit", *SHARED, "kenning_grants")))
            conn.execute(sql.SQL("REVOKE ALL ON {} FROM {}").format(tables, who))
            conn.execute(sql.SQL("REVOKE ALL ON SEQUENCE {} FROM {}").format(
                sql.SQL(", ").join(sql.SQL(s) for s in _sequences(conn)), who))
            conn.execute(sql.SQL("REVOKE ALL ON FUNCTION {} FROM {}").format(sql.SQL(_FUNCTIONS), who))
        if gone:
            conn.execute(_BUMP)
    return gone


def grants(conn: psycopg.Connection[Any], shown: str) -> list[Grant]:
    """Every grant the current role may see (the owner: all), by role and scope."""
    if conn.execute("SELECT to_regclass('kenning_grants')").fetchone() == (None,):
        raise StoreError(f"{shown} has no row-level security yet: run `kenning access enable` as its owner first")
    return [Grant(str(r[0]), str(r[1]), str(r[2]), float(r[3]), str(r[4])) for r in conn.execute(
        'SELECT role, scope, access, granted_at, granted_by FROM kenning_grants ORDER BY role COLLATE "C", '
        'scope COLLATE "C"')]


def _sequences(conn: psycopg.Connection[Any]) -> list[str]:
    return [str(conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (table, column)).fetchone()[0])  # type: ignore[index]
            for table, column in SEQUENCES]
