"""kb.items: every item without a query, filtered, sorted and paged in the store."""

from __future__ import annotations

from typing import Any

import pytest

from kenning import Kenning
from kenning.errors import InvalidInput
from kenning.listing import ItemPage


def ids(page: ItemPage) -> list[str]:
    return [item.id for item in page.items]


@pytest.fixture
def stocked(kb: Kenning) -> dict[str, Any]:
    """Facts of two scopes and categories, a pinned one, a superseded one, an expired one, a lesson and an entity."""
    made: dict[str, Any] = {}
    made["port"] = kb.remember("the API listens on port 8080", category="project", tags=["api", "ops"])
    made["pref"] = kb.remember("Ada prefers short status updates", category="user_pref", scope="user:ada",
                               importance=0.9)
    made["pin"] = kb.remember("never force-push to main", category="pitfall", tags=["git"], pinned=True,
                              importance=0.6)
    made["old"] = kb.remember("the cache is memcached", tags=["ops"])
    made["new"] = kb.supersede(made["old"].id, "the cache is Redis 7")
    made["gone"] = kb.remember("the standup room is B12", tags=["ops"])
    kb.expire(made["gone"].id)
    made["lesson"] = kb.lessons.record("retry the deploy", "a flaky CI runner", "positive", "retry once before debugging")
    made["entity"] = kb.entities.upsert("Ada", kind="person", notes="writes the API")
    return made


def test_items_lists_live_current_items_of_every_scope_newest_first(kb: Kenning, stocked: dict[str, Any]) -> None:
    page = kb.items()
    expected = [stocked[k].id for k in ("entity", "lesson", "new", "pin", "pref", "port")]
    assert ids(page) == expected
    assert page.total == 6 and page.offset == 0 and page.limit == 50 and page.next_offset is None
    assert page.to_dict()["items"][0]["id"] == stocked["entity"].id and page.to_dict()["next_offset"] is None


def test_items_filters_by_kind_scope_category_tags_and_pin(kb: Kenning, stocked: dict[str, Any]) -> None:
    assert ids(kb.items(kinds="lesson")) == [stocked["lesson"].id]
    assert ids(kb.items(kinds=["lesson", "entity"])) == [stocked["entity"].id, stocked["lesson"].id]
    assert ids(kb.items(scope="user:ada")) == [stocked["pref"].id]
    assert ids(kb.items(category="pitfall")) == [stocked["pin"].id]
    assert ids(kb.items(tags=["ops"])) == [stocked["new"].id, stocked["port"].id]  # the correction kept the tag
    assert ids(kb.items(tags=["ops", "api"])) == [stocked["port"].id]
    assert ids(kb.items(pinned=True)) == [stocked["pin"].id]
    assert stocked["pin"].id not in ids(kb.items(pinned=False)) and kb.items(pinned=False).total == 5


def test_items_shows_expired_and_superseded_only_when_asked(kb: Kenning, stocked: dict[str, Any]) -> None:
    assert ids(kb.items(expired=True)) == [stocked["gone"].id]
    assert ids(kb.items(superseded=True)) == [stocked["old"].id]
    both = ids(kb.items(expired=None, superseded=None, kinds="fact"))
    assert set(both) == {stocked[k].id for k in ("port", "pref", "pin", "old", "new", "gone")}


def test_items_since_keeps_what_was_created_at_or_after(kb: Kenning, stocked: dict[str, Any]) -> None:
    assert kb.items(since="1h").total == 6
    assert kb.items(since="2999-01-01").total == 0
    created = stocked["lesson"].created_at
    assert stocked["lesson"].id in ids(kb.items(since=created))
    assert kb.items(since=created.isoformat()).total == kb.items(since=created).total


def test_items_sorts_by_importance_and_by_last_access(kb: Kenning, stocked: dict[str, Any]) -> None:
    by_importance = kb.items(kinds="fact", sort="importance").items
    assert [f.importance for f in by_importance] == sorted((f.importance for f in by_importance), reverse=True)
    assert by_importance[0].id == stocked["pref"].id  # 0.9 given
    hits = kb.recall("which port does the API listen on", k=1)
    assert hits[0].item.id == stocked["port"].id
    assert ids(kb.items(sort="accessed"))[0] == stocked["port"].id


def test_listing_is_not_an_access(kb: Kenning, stocked: dict[str, Any]) -> None:
    for _ in range(3):
        kb.items(sort="accessed")
    kb.store.flush_touches()
    item = kb.get(stocked["port"].id)
    assert item.access_count == 0 and item.last_accessed is None


def test_pages_follow_one_another_without_gaps_or_repeats(kb: Kenning) -> None:
    facts = kb.remember_many([f"server number {i} runs in rack {i * 7}" for i in range(23)])
    seen: list[str] = []
    page = kb.items(limit=5)
    pages = 1
    while page.next_offset is not None:
        seen += ids(page)
        page = kb.items(limit=5, offset=page.next_offset)
        pages += 1
    seen += ids(page)
    assert pages == 5 and page.total == 23 and len(page.items) == 3
    assert sorted(seen) == sorted(f.id for f in facts) and len(set(seen)) == 23
    assert kb.items(limit=5, offset=40).items == () and kb.items(limit=5, offset=40).next_offset is None


@pytest.mark.parametrize("arguments, named", [
    ({"kinds": "facts"}, "fact, lesson, entity"),
    ({"category": "pitfalls"}, "user_pref, project, pitfall, general"),
    ({"sort": "newest"}, "recent, importance, accessed"),
    ({"limit": 0}, "limit must be a whole number from 1 to 1000"),
    ({"limit": 5000}, "page with offset"),
    ({"limit": "10"}, "limit"),
    ({"offset": -1}, "offset must be a whole number >= 0"),
    ({"pinned": "yes"}, "pinned must be True, False or None"),
    ({"expired": 1}, "expired must be True, False or None"),
    ({"scope": "User:Ada"}, "did you mean 'user:ada'"),
    ({"since": "last tuesday"}, "since 'last tuesday' is not a date"),
    ({"tags": [3]}, "tag 3"),
])
def test_bad_listing_arguments_name_what_is_accepted(kb: Kenning, arguments: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidInput, match=named):
        kb.items(**arguments)
