"""Lessons (four slots, enforced outcome, never forgotten) and entities (exact lookup by name or alias)."""

from __future__ import annotations

import pytest

from kenning import Conflict, InvalidInput, Kenning, NotFound


def test_lessons_filter_by_context_and_outcome_negative_first(kb: Kenning) -> None:
    bad = kb.lessons.record(action="deployed on Friday", context="Deploy to production", outcome="negative",
                            insight="weekend rollbacks are slow", tags=["release"])
    good = kb.lessons.record(action="used a canary", context="deploy to staging", outcome="positive",
                             insight="canaries catch config errors")
    kb.lessons.record(action="pinned numpy", context="python packaging", outcome="neutral", insight="no effect")
    assert [l.id for l in kb.lessons.find(context="deploy")] == [bad.id, good.id]
    assert [l.id for l in kb.lessons.find(context="DEPLOY", outcome="negative")] == [bad.id]
    assert [l.id for l in kb.lessons.find(tags=["release"])] == [bad.id]
    assert bad.kind == "lesson" and "weekend rollbacks are slow" in bad.content


def test_lesson_outcome_and_slots_are_enforced(kb: Kenning) -> None:
    with pytest.raises(InvalidInput, match="outcome"):
        kb.lessons.record(action="a", context="b", outcome="great", insight="c")
    with pytest.raises(InvalidInput, match="insight"):
        kb.lessons.record(action="a", context="b", outcome="positive", insight="   ")
    assert kb.lessons.find() == []


def test_recording_the_same_lesson_reinforces_and_applied_counts(kb: Kenning) -> None:
    first = kb.lessons.record(action="a", context="ctx", outcome="negative", insight="i")
    again = kb.lessons.record(action="a", context="ctx", outcome="negative", insight="i", tags=["x"])
    assert again.id == first.id and again.tags == ("x",)
    assert kb.lessons.applied(first.id).applied_count == 1
    assert kb.lessons.applied(first.id).applied_count == 2
    with pytest.raises(NotFound):
        kb.lessons.applied("l_000000000000")


def test_lessons_are_never_forgotten_or_expired(kb: Kenning) -> None:
    lesson = kb.lessons.record(action="a", context="ctx", outcome="neutral", insight="keep me")
    assert kb.forget_stale(days=0, max_access=100) == []
    with pytest.raises(InvalidInput):
        kb.expire(lesson.id)
    assert kb.get(lesson.id).id == lesson.id


def test_entity_lookup_ignores_case_and_width_and_finds_aliases(kb: Kenning) -> None:
    alice = kb.entities.upsert("Alice Wang", kind="person", aliases=["王爱丽", "awang"],
                               attributes={"team": "web"})
    assert alice.kind == "entity" and alice.entity_kind == "person"
    for name in ("alice wang", "ＡＬＩＣＥ　ＷＡＮＧ", "王爱丽", "AWANG"):
        assert kb.entities.get(name).id == alice.id
    with pytest.raises(NotFound):
        kb.entities.get("Alice Wang", scope="project:web")


def test_entity_upsert_merges_attributes_aliases_and_notes(kb: Kenning) -> None:
    first = kb.entities.upsert("payments-api", kind="service", attributes={"owner": "team-a", "port": 8080})
    second = kb.entities.upsert("PAYMENTS-API", aliases=["pay"], attributes={"port": 9090, "lang": "go"},
                                notes="talks to Stripe")
    assert second.id == first.id and second.name == "payments-api"
    assert second.attributes == {"owner": "team-a", "port": 9090, "lang": "go"}
    assert second.aliases == ("pay",) and second.notes == "talks to Stripe"
    assert kb.entities.get("pay").id == first.id
    hits = kb.recall("which service talks to Stripe", k=1, kinds=["entity"])
    assert hits[0].item.id == first.id
    assert len(kb.entities.list()) == 1


def test_an_alias_cannot_name_two_entities(kb: Kenning) -> None:
    kb.entities.upsert("Alice", aliases=["ali"])
    with pytest.raises(Conflict, match="Alice"):
        kb.entities.upsert("Alibaba", aliases=["ALI"])
    with pytest.raises(NotFound):
        kb.entities.get("Alibaba")


def test_entity_attributes_must_be_json(kb: Kenning) -> None:
    with pytest.raises(InvalidInput, match="attributes"):
        kb.entities.upsert("X", attributes={"when": object()})  # type: ignore[dict-item]
    with pytest.raises(InvalidInput, match="attributes"):
        kb.entities.upsert("X", attributes=["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        kb.entities.get("X")
