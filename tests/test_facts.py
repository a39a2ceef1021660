"""Facts: remember, reinforce, supersede, history, expiry, pin, forget, delete, audit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning import Conflict, Fact, InvalidInput, Kenning, NotFound


def test_remember_returns_the_stored_fact_with_every_field(kb: Kenning) -> None:
    fact = kb.remember(
        "Deploys run from GitHub Actions", tags=["ci", "deploy"], category="project",
        confidence=0.9, importance=0.5, source="chat",
    )
    assert isinstance(fact, Fact)
    assert fact.id.startswith("f_") and fact.kind == "fact"
    assert (fact.content, fact.tags, fact.category, fact.source) == (
        "Deploys run from GitHub Actions", ("ci", "deploy"), "project", "chat")
    assert (fact.confidence, fact.importance, fact.scope, fact.pinned) == (0.9, 0.5, "default", False)
    assert fact.created_at is not None and fact.updated_at is not None
    assert fact.access_count == 0 and fact.superseded_by is None and fact.expires_at is None
    assert kb.get(fact.id) == fact


def test_same_content_in_same_scope_reinforces_instead_of_copying(kb: Kenning) -> None:
    first = kb.remember("Alice prefers tea", tags=["drink"], confidence=0.6)
    again = kb.remember("  alice prefers TEA. ", tags=["alice"], confidence=0.8)
    assert again.id == first.id
    assert again.reinforced == 1
    assert again.confidence == 0.8
    assert again.tags == ("drink", "alice")
    other_scope = kb.remember("Alice prefers tea", scope="user:bob")
    assert other_scope.id != first.id
    stats = {(c["scope"], c["kind"]): c["total"] for c in kb.stats()["counts"]}
    assert stats == {("default", "fact"): 1, ("user:bob", "fact"): 1}


def test_remember_many_stores_all_and_merges_duplicates(kb: Kenning) -> None:
    texts = ["one fact", "another fact", "one fact", "第三条事实"]
    facts = kb.remember_many(texts, tags=["batch"])
    assert [f.content for f in facts] == texts
    assert facts[0].id == facts[2].id
    assert len({f.id for f in facts}) == 3
    assert kb.get(facts[0].id).reinforced == 1  # type: ignore[union-attr]


def test_supersede_links_both_ways_and_history_is_oldest_first(kb: Kenning) -> None:
    v1 = kb.remember("The API lives at api.example.com/v1", tags=["api"])
    v2 = kb.supersede(v1.id, "The API lives at api.example.com/v2", reason="migrated")
    v3 = kb.supersede(v2.id, "The API lives at api.example.com/v3")
    assert kb.get(v1.id).superseded_by == v2.id  # type: ignore[union-attr]
    assert v2.supersedes == v1.id and v2.tags == ("api",)
    for member in (v1, v2, v3):
        assert [f.id for f in kb.history(member.id)] == [v1.id, v2.id, v3.id]
    contents = [h.item.content for h in kb.recall("where does the API live", k=5)]
    assert contents == ["The API lives at api.example.com/v3"]
    with_old = [h.item.id for h in kb.recall("where does the API live", k=5, include_superseded=True)]
    assert set(with_old) == {v1.id, v2.id, v3.id}


def test_superseding_a_superseded_fact_names_the_current_head(kb: Kenning) -> None:
    v1 = kb.remember("Standup is at 9:00")
    v2 = kb.supersede(v1.id, "Standup is at 9:30")
    v3 = kb.supersede(v2.id, "Standup is at 10:00")
    with pytest.raises(Conflict, match=v3.id):
        kb.supersede(v1.id, "Standup is at 11:00")
    assert [f.id for f in kb.history(v1.id)] == [v1.id, v2.id, v3.id]


def test_expired_facts_leave_recall_but_stay_stored(kb: Kenning) -> None:
    past = datetime.now(UTC) - timedelta(days=1)
    gone = kb.remember("The staging password rotates on Monday")
    kb.expire(gone.id, past)  # a past expiry is set on purpose: remember(expires_at=past) is refused
    kept = kb.remember("The staging server is staging.example.com", expires_at="30d")
    ids = [h.item.id for h in kb.recall("staging", k=10)]
    assert gone.id not in ids and kept.id in ids
    assert gone.id in [h.item.id for h in kb.recall("staging", k=10, include_expired=True)]
    assert kb.get(gone.id).content == gone.content
    expired_now = kb.expire(kept.id)
    assert expired_now.expires_at is not None
    assert kept.id not in [h.item.id for h in kb.recall("staging", k=10)]


def test_recall_counts_accesses(kb: Kenning) -> None:
    fact = kb.remember("The office wifi is called kenning-guest")
    kb.recall("wifi name", k=1)
    kb.recall("what is the wifi called", k=1)
    again = kb.get(fact.id)
    assert again.access_count == 2 and again.last_accessed is not None


def test_importance_is_inferred_so_rare_valuable_facts_are_protected(kb: Kenning) -> None:
    friday = kb.remember("never deploy on Friday afternoon")
    trivia = kb.remember("the coffee machine is on the second floor")
    pitfall = kb.remember("pip install inside the base image breaks wheels", category="pitfall")
    assert friday.importance >= 0.7 and pitfall.importance >= 0.7 and trivia.importance < 0.7
    would_go = kb.forget_stale(days=0, max_access=1, dry_run=True)
    assert [f.id for f in would_go] == [trivia.id]
    assert kb.get(trivia.id)  # a dry run removes nothing
    gone = kb.forget_stale(days=0, max_access=1)
    assert [f.id for f in gone] == [trivia.id]
    with pytest.raises(NotFound):
        kb.get(trivia.id)
    assert kb.get(friday.id) and kb.get(pitfall.id)
    forget_entries = [e for e in kb.audit() if e.action == "forget"]
    assert forget_entries[0].before is not None
    assert forget_entries[0].before["content"] == trivia.content  # nothing is lost without a trace


def test_forget_stale_spares_pinned_history_lessons_and_recently_used(kb: Kenning) -> None:
    pinned = kb.remember("the VPN config lives in 1Password", importance=0.1)
    kb.pin(pinned.id)
    old = kb.remember("the build takes 3 minutes", importance=0.1)
    kb.supersede(old.id, "the build takes 5 minutes")
    kb.lessons.record(action="cached deps", context="ci", outcome="positive", insight="cache pip wheels")
    used = kb.remember("the linter is ruff", importance=0.1)
    for _ in range(3):
        kb.recall("which linter do we use", k=1)
    assert kb.get(used.id).access_count >= 2
    assert kb.forget_stale(days=0, max_access=1, dry_run=True) == []
    kb.unpin(pinned.id)
    assert [f.id for f in kb.forget_stale(days=0, max_access=1, dry_run=True)] == [pinned.id]


def test_forget_stale_respects_the_idle_window(kb: Kenning) -> None:
    kb.remember("a fact stored just now", importance=0.1)
    assert kb.forget_stale(days=30, max_access=5) == []


def test_forget_stale_removes_expired_facts(kb: Kenning) -> None:
    fact = kb.expire(kb.remember("temporary: the demo account is demo/demo", importance=0.9).id, "2000-01-01")
    assert [f.id for f in kb.forget_stale(days=365, max_access=0)] == [fact.id]


def test_delete_removes_item_and_audits_it(kb: Kenning) -> None:
    fact = kb.remember("to be deleted")
    kb.delete(fact.id, reason="wrong")
    with pytest.raises(NotFound):
        kb.get(fact.id)
    assert kb.recall("to be deleted", k=5) == []
    entry = kb.audit(fact.id)[0]
    assert (entry.action, entry.reason, entry.before["content"]) == ("delete", "wrong", "to be deleted")  # type: ignore[index]


def test_audit_records_every_change_with_actor_and_before_after(kb: Kenning) -> None:
    fact = kb.remember("audit me")
    kb.pin(fact.id, reason="important")
    entries = kb.audit(fact.id)
    assert [e.action for e in entries] == ["pin", "remember"]
    pin = entries[0]
    assert pin.actor == "api" and pin.reason == "important"
    assert pin.before["pinned"] is False and pin.after["pinned"] is True  # type: ignore[index]


def test_scopes_never_leak(kb: Kenning) -> None:
    kb.remember("Alice's laptop is a ThinkPad", scope="user:alice")
    kb.remember("Bob's laptop is a MacBook", scope="user:bob")
    alice = kb.recall("what laptop", k=10, scope="user:alice")
    assert [h.item.scope for h in alice] == ["user:alice"]
    assert kb.recall("what laptop", k=10) == []
    with pytest.raises(NotFound):
        kb.get(alice[0].item.id, scope="user:bob")


def test_supersede_rejects_same_content_and_non_facts(kb: Kenning) -> None:
    fact = kb.remember("port is 8080")
    with pytest.raises(InvalidInput):
        kb.supersede(fact.id, "Port is 8080.")
    lesson = kb.lessons.record(action="a", context="b", outcome="neutral", insight="c")
    with pytest.raises(InvalidInput, match="lesson"):
        kb.supersede(lesson.id, "something")


def test_operations_by_id_can_be_confined_to_a_scope(kb: Kenning) -> None:
    fact = kb.remember("alice's build machine is buildbox-7", scope="user:alice")
    for call in (
        lambda: kb.get(fact.id, scope="user:bob"),
        lambda: kb.pin(fact.id, scope="user:bob"),
        lambda: kb.supersede(fact.id, "changed", scope="user:bob"),
        lambda: kb.history(fact.id, scope="user:bob"),
        lambda: kb.delete(fact.id, scope="user:bob"),
    ):
        with pytest.raises(NotFound, match="user:bob"):
            call()
    assert kb.pin(fact.id, scope="user:alice").pinned
    assert kb.get(fact.id).content == fact.content


def test_deleting_a_version_closes_the_gap_in_its_chain(kb: Kenning) -> None:
    v1 = kb.remember("the staging DB is db-1")
    v2 = kb.supersede(v1.id, "the staging DB is db-2")
    v3 = kb.supersede(v2.id, "the staging DB is db-3")
    kb.delete(v2.id)
    assert [f.id for f in kb.history(v3.id)] == [v1.id, v3.id]
    kb.delete(v3.id, reason="db-3 never happened")
    assert kb.get(v1.id).superseded_by is None  # type: ignore[union-attr]
    assert [h.item.id for h in kb.recall("which staging DB", k=3)] == [v1.id]
    assert kb.supersede(v1.id, "the staging DB is db-4").supersedes == v1.id
    assert "relink" in {e.action for e in kb.audit(v1.id)}


def test_why_shows_the_query_words_not_their_stems(kb: Kenning) -> None:
    kb.remember("the staging databases are backed up nightly")
    hit = kb.recall("staging databases", k=1)[0]
    assert "words: staging, databases" in hit.why
