"""Recall: paraphrase, across Chinese and English, filters, explanations."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from kenning import Kenning
from kenning.store import ItemQuery

CORPUS = [
    "老板偏好简短的更新汇报",
    "nginx proxy_read_timeout defaults to 60s",
    "我们的数据库是 PostgreSQL 15，部署在上海机房",
    "The staging cluster runs on three t3.large nodes",
    "Alice prefers green tea over coffee",
    "Use pnpm, not npm, in the web repository",
    "周五下午不要发布新版本",
    "Release notes are written in English and Chinese",
]


@pytest.fixture
def filled(kb: Kenning) -> Kenning:
    kb.remember_many(CORPUS)
    return kb


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("他喜欢什么样的汇报", "老板偏好简短的更新汇报"),
        ("what kind of report does the boss like", "老板偏好简短的更新汇报"),
        ("websocket drops after a minute", "nginx proxy_read_timeout defaults to 60s"),
        ("can I ship a release on Friday evening", "周五下午不要发布新版本"),
        ("Alice 喜欢喝什么", "Alice prefers green tea over coffee"),
        ("which package manager does the web repo use", "Use pnpm, not npm, in the web repository"),
    ],
)
def test_recall_finds_paraphrases_across_languages(filled: Kenning, query: str, expected: str) -> None:
    hits = filled.recall(query, k=3)
    assert hits[0].item.content == expected, [h.item.content for h in hits]


def test_a_chinese_memory_competes_with_an_english_one_sharing_a_word(filled: Kenning) -> None:
    # "run" also occurs in "The staging cluster runs on …": in an 8-memory store that one word is
    # rare, so it is strong evidence. Word evidence weighs 2.5x meaning because that wins on real
    # conversations (bench/sweep.py on LoCoMo); the Chinese answer must still come back near the top.
    hits = filled.recall("which database do we run", k=2)
    assert "我们的数据库是 PostgreSQL 15，部署在上海机房" in [h.item.content for h in hits]


def test_every_hit_has_a_score_and_a_reason(filled: Kenning) -> None:
    hits = filled.recall("nginx timeout", k=5)
    assert hits[0].item.content.startswith("nginx")
    assert "words: nginx" in hits[0].why and "meaning" in hits[0].why
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert hits[0].to_dict()["id"] == hits[0].item.id


def test_filters_by_kind_tags_and_confidence(kb: Kenning) -> None:
    kb.remember("deploys go through ArgoCD", tags=["deploy", "k8s"], confidence=0.9)
    kb.remember("deploys used to go through Jenkins", tags=["deploy"], confidence=0.3)
    kb.lessons.record(action="deployed without canary", context="deploy", outcome="negative",
                      insight="always canary first")
    kb.entities.upsert("ArgoCD", kind="service", notes="GitOps deploy tool")
    assert {h.item.kind for h in kb.recall("deploy", k=10)} == {"fact", "lesson", "entity"}
    assert {h.item.kind for h in kb.recall("deploy", k=10, kinds=["lesson"])} == {"lesson"}
    tagged = kb.recall("deploy", k=10, tags=["deploy", "k8s"])
    assert [h.item.content for h in tagged] == ["deploys go through ArgoCD"]
    sure = kb.recall("deploy", k=10, kinds="fact", min_confidence=0.5)
    assert [h.item.content for h in sure] == ["deploys go through ArgoCD"]


def test_time_range_filter(kb: Kenning) -> None:
    kb.remember("the build is green")
    assert kb.recall("build", k=5, until="2000-01-01") == []
    assert len(kb.recall("build", k=5, since="2000-01-01")) == 1


def test_recall_widens_when_filters_remove_the_best_candidates(kb: Kenning) -> None:
    kb.remember_many([f"service {i} listens on port {8000 + i}" for i in range(120)])
    kb.remember("the metrics port is 9090", tags=["rare"])
    hits = kb.recall("port", k=1, tags=["rare"])
    assert [h.item.content for h in hits] == ["the metrics port is 9090"]


def test_empty_store_and_unmatched_words_give_empty_or_semantic_results(kb: Kenning) -> None:
    assert kb.recall("anything at all", k=5) == []
    kb.remember("彩虹有七种颜色")
    hits = kb.recall("zzzz qqqq", k=5, min_relevance=0)  # the floor would leave nothing (tested elsewhere)
    assert len(hits) == 1 and hits[0].lexical_rank is None


def test_full_text_candidates_stay_in_scope_when_another_scope_holds_most_matches(kb: Kenning) -> None:
    kb.remember_many([f"kiwi {i}" for i in range(120)], scope="other")
    mine = {"kiwi orders ship on Mondays", "the kiwi supplier is in Napier", "a kiwi tastes sour when unripe"}
    kb.remember_many(sorted(mine), scope="mine")
    hits = kb.recall("kiwi", k=5, scope="mine")
    assert {h.item.content for h in hits} == mine
    assert all("words: kiwi" in h.why for h in hits)


def test_full_text_candidates_are_checked_for_scope_and_kind_also_without_a_vector(kb: Kenning) -> None:
    """Scope and kind of a full-text match come from the vector cache; an item the cache does not
    hold (its vector row is missing) is checked in the database instead, never guessed."""
    kb.remember("walrus tusks grow all their life", scope="mine")
    kb.remember("walrus colonies haul out on ice", scope="other")
    kb.lessons.record(action="fed the walrus", context="zoo", outcome="negative", insight="walrus bites",
                      scope="mine")
    (rowid,) = [r["rowid"] for r in kb.store.select(ItemQuery()) if r["content"] == "walrus tusks grow all their life"]
    other = sqlite3.connect(kb.store.path)  # another writer: the cache reloads without this row
    with other:
        other.execute("DELETE FROM vectors WHERE item_rowid = ?", (rowid,))
    other.close()
    hits = kb.recall("walrus", k=5, scope="mine", kinds=["fact"])
    assert [h.item.content for h in hits] == ["walrus tusks grow all their life"]
    assert hits[0].semantic is None and "words: walrus" in hits[0].why
    assert kb.recall("walrus", k=5, scope="other", kinds=["lesson"]) == []


def test_full_text_candidates_tied_on_words_are_chosen_by_meaning_not_by_insertion_order(
    tmp_path, embedder  # type: ignore[no-untyped-def]
) -> None:
    """More documents share the query's words than the candidate list holds, and the vector search
    scored none of them: their exact cosine decides, so the order they were stored in does not."""
    from kenning.retrieval.lexical import word_candidates
    from kenning.store.vectors import Scored

    facts = [f"ledger entry {i}: paid the plumber" for i in range(30)] + ["ledger of ocean tides and moon phases"]
    chosen = []
    for order in (facts, facts[::-1]):
        with Kenning.open(tmp_path / str(len(chosen)), embedder=embedder) as kb:
            kb.remember_many(order)
            query = embedder.embed_query("ledger of the tides")
            nothing = Scored(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int8))
            found = word_candidates(kb.store, kb.store.fresh_vectors(), query, nothing, [], ["ledger"],
                                    {"ledger": 1.0, "tides": 1.0}, "default", None, 3, 2.5)
            chosen.append([kb.store.get_rowid(rowid)["content"] for rowid, _, _ in found])
    assert chosen[0] == chosen[1]
    assert chosen[0][0] == "ledger of ocean tides and moon phases"


def test_common_terms_are_left_to_the_word_share_on_a_large_store(kb: Kenning, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kenning.retrieval import lexical as retrieval

    df = {"rare": 3, "uncommon": 40, "common": 900, "everywhere": 5000, "unseen": 0}
    monkeypatch.setattr(retrieval, "LEXICAL_POSTINGS", 1000)
    assert retrieval.searched_terms(list(df), df) == ["unseen", "rare", "uncommon", "common"]
    monkeypatch.setattr(retrieval, "LEXICAL_POSTINGS", 10)
    # the two rarest terms that occur are always searched, whatever the budget
    assert retrieval.searched_terms(list(df), df) == ["unseen", "rare", "uncommon"]
    # and a recall still scores the dropped term in the word share of what it finds
    kb.remember_many(["zebra stripes are unique", "zebra crossings need paint", "paint dries slowly"])
    monkeypatch.setattr(retrieval, "LEXICAL_POSTINGS", 0)
    monkeypatch.setattr(retrieval, "MIN_SEARCHED_TERMS", 1)
    hit = kb.recall("zebra paint", k=1)[0]
    assert hit.item.content == "zebra crossings need paint"
    assert "zebra" in hit.why and "paint" in hit.why
