"""The right memory at the right moment, in the small stores people have: a warning about the
task's own action reaches its context (in both layouts) with the rule that brought it in, a
paraphrase and a symptom find their cause, an exact answer reads as likely, and an off-topic
question gets nothing, in Chinese as in English."""

from __future__ import annotations

import re

import pytest

from kenning import Kenning
from kenning.pertinence import NEAR_MIN_Z, WORDS_MIN_SHARE, Pertinent, pertinent, rule_of
from kenning.retrieval.relevance import DEFAULT_MIN_RELEVANCE
from test_relevance import FACTS

WARNING = "Never deploy on Friday afternoon"
PORT = "The web app runs on port 8080"
SHORT = "The user prefers short answers"
UNLIKELY = 0.25  # what a person reads as "probably not"

MIXED = FACTS  # six English facts and four Chinese ones


@pytest.fixture
def three(kb: Kenning) -> Kenning:
    kb.remember(WARNING)
    kb.remember(PORT)
    kb.remember(SHORT)
    return kb


def memory_sources(ctx: object) -> dict[str, dict[str, object]]:
    return {str(s["id"]): s for sec in ctx.sections  # type: ignore[attr-defined]
            if sec.name in ("facts", "lessons", "relevant") for s in sec.sources}


def test_a_warning_about_the_tasks_action_reaches_its_context_first(three: Kenning) -> None:
    warning = three.recall(WARNING, k=1)[0].item
    for layout in ("task", "session"):
        ctx = three.context("deploy the web app", 2000, layout=layout)
        sources = memory_sources(ctx)
        assert warning.id in sources, (layout, ctx.markdown)
        assert str(sources[warning.id]["why"]).startswith("emphatic: ")  # a rule said with "never"
        facts = next(s for s in ctx.sections if s.name in ("facts", "relevant"))
        assert facts.sources[0]["id"] == warning.id  # a pitfall comes before the port


def test_the_why_of_every_context_memory_names_its_rule(three: Kenning) -> None:
    ctx = three.context("deploy the web app", 2000)
    for source in memory_sources(ctx).values():
        why = str(source["why"])
        assert any(rule in why for rule in ("relevant", "task's words", "near in meaning")), why


@pytest.mark.parametrize("task", ["推荐一部科幻电影", "recommend a science fiction film", "how do I bake sourdough bread",
                                  "帮我订一张去东京的机票"])
def test_an_off_topic_task_gets_no_memory_in_its_context(kb: Kenning, task: str) -> None:
    kb.remember_many(MIXED)
    assert memory_sources(kb.context(task, 2000)) == {}


def test_the_why_forms_the_readme_shows(kb: Kenning) -> None:
    kb.remember("Deploys are slow when the staging box is busy", category="pitfall")
    kb.remember_many([WARNING, PORT, SHORT])
    whys = {str(s["why"]) for s in memory_sources(kb.context("deploy the web app", 2000)).values()}
    assert any(w.startswith("emphatic: relevant ") for w in whys) and any(w.startswith("pitfall: ") for w in whys)
    hits = kb.recall("deploy the web app", k=4, min_relevance=0)
    words = [p for p in pertinent(hits, 1.01) if p.rule == "words"]  # with no "relevant" rule
    assert words and re.fullmatch(r"(\w+: )?holds the task's words \(\d+% of them\)", words[0].why)
    near = Pertinent(hits[0], "meaning", False)
    assert re.fullmatch(r"near in meaning \(-?\d+\.\d spreads above unrelated memories\)", near.why)


def test_an_off_topic_task_gets_no_memory_in_a_store_of_three(three: Kenning) -> None:
    assert memory_sources(three.context("bake a loaf of sourdough bread", 2000)) == {}


def test_a_session_still_shows_what_is_nearest_to_a_bare_folder_name(kb: Kenning) -> None:
    """A session's task is the project folder: nothing is pertinent to "web-shop" by words or meaning,
    yet what the store holds nearest to it is what the session most likely continues."""
    kb.remember("The staging database listens on port 6543")
    fact = kb.recall("staging database port", k=1)[0].item
    assert memory_sources(kb.context("web-shop", 2000)) == {}  # a task: nothing pertinent
    relevant = next(s for s in kb.context("web-shop", 2000, layout="session").sections if s.name == "relevant")
    assert [(s["id"], s["why"]) for s in relevant.sources] == [(fact.id, "among the nearest to the session's task")]


def test_an_exact_answer_reads_as_likely(three: Kenning) -> None:
    hits = three.recall("what port does the web app use")
    assert hits and hits[0].item.content == PORT and hits[0].relevance >= 0.9  # the README says 0.96


def test_a_paraphrase_with_no_shared_word_is_recalled(kb: Kenning) -> None:
    kb.remember_many(["The zebras at the city zoo are fed at 3pm", "The office plants are watered on Mondays",
                      "Our CI jobs are killed after 30 minutes"])
    hits = kb.recall("when are the striped horses fed")
    assert hits and hits[0].item.content.startswith("The zebras")


def test_a_symptom_finds_its_cause(kb: Kenning) -> None:
    kb.remember_many(["The zebras at the city zoo are fed at 3pm", "The office plants are watered on Mondays",
                      "Our CI jobs are killed after 30 minutes"])
    ctx = kb.context("why was my build stopped after half an hour", 2000)
    cause = kb.recall("Our CI jobs are killed after 30 minutes", k=1)[0].item
    assert cause.id in memory_sources(ctx)
    hits = kb.recall("why was my build stopped after half an hour")
    assert hits and hits[0].item.id == cause.id


@pytest.mark.parametrize("question", ["今天天气怎么样", "推荐一部科幻电影", "what's the weather like today",
                                      "recommend a science fiction film", "how do I bake sourdough bread"])
def test_an_off_topic_question_reads_as_unlikely_in_a_mixed_store_in_either_language(kb: Kenning, question: str) -> None:
    """The floor was lopsided: off-topic English questions got nothing and Chinese ones five hits.
    Now each hit of either reads as unlikely, and a raised floor leaves both with nothing."""
    kb.remember_many(MIXED)
    hits = kb.recall(question, min_relevance=0)
    assert max(h.relevance for h in hits) < UNLIKELY, [(h.item.content, h.relevance) for h in hits]
    assert list(kb.recall(question, min_relevance=UNLIKELY)) == []


def test_a_question_across_languages_still_finds_its_answer_in_a_mixed_store(kb: Kenning) -> None:
    kb.remember_many(MIXED)
    assert kb.recall("where is the company's office?")[0].item.content == "公司的办公室在上海浦东新区"
    assert kb.recall("数据库什么时候备份")[0].item.content == MIXED[0]


def test_the_rules_in_order(three: Kenning) -> None:
    """A hit above the floor is 'relevant'; below it, shared words need a meaning not unrelated, and
    nearness needs a z well above unrelated memories."""
    hits = three.recall("deploy the web app", k=3, min_relevance=0)
    chosen = pertinent(hits, DEFAULT_MIN_RELEVANCE)
    assert {p.hit.item.content for p in chosen} >= {WARNING}
    for i, hit in enumerate(hits):
        rule = rule_of(hit, i + 1, 1.01)  # no hit reaches a floor above 1
        assert rule != "relevant"
        if rule == "words":
            assert hit.word_share >= WORDS_MIN_SHARE
        if rule == "meaning":
            assert hit.z >= NEAR_MIN_Z


def test_the_answer_to_a_symptom_reads_as_likely(kb: Kenning) -> None:
    """`kenning ui` showed 0.26 for the exact answer to "websocket drops after a minute"."""
    kb.remember("nginx proxy_read_timeout defaults to 60s", tags=["nginx"])
    kb.remember_many([PORT, SHORT, WARNING, "Our CI jobs are killed after 30 minutes"])
    found = {h.item.content: h.relevance for h in kb.recall("websocket drops after a minute", k=3)}
    assert found["nginx proxy_read_timeout defaults to 60s"] >= 0.5


def test_a_context_counts_an_access_only_on_the_memories_it_shows(three: Kenning) -> None:
    three.store.flush_touches()
    shown = memory_sources(three.context("deploy the web app", 2000))
    three.store.flush_touches()
    counts = {item.id: item.access_count for item in three.items().items}  # listing is no access
    assert shown and all(counts[i] == (1 if i in shown else 0) for i in counts), (counts, shown)
