"""The optional language model: the chat client against a real local HTTP server, the cost guard,
JSON answers, and the [llm] configuration."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from kenning.config import LLMConfig, load_settings
from kenning.errors import InvalidInput, LLMAnswerError, LLMBudgetExceeded, LLMError
from kenning.llm import CostGuard, HourWindow, OpenAIChat, make_llm
from kenning.llm_json import parse_json_answer
from llmserver import Delay, Fail, Reply, scripted_llm  # noqa: F401  (scripted_llm is a fixture)

ASK = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "What did we learn?"}]
SECRET = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("KENNING_LLM_BASE_URL", "KENNING_LLM_MODEL", "KENNING_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)


class FakeClock:
    """Time that moves only when a test says so (for the sliding hour)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def refused_url() -> str:
    """A base_url on a port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# --- answers ----------------------------------------------------------------------------------------


def test_answer_carries_text_usage_and_the_request_is_openai_shaped(scripted_llm) -> None:
    server = scripted_llm(Reply('{"facts": ["use pnpm"]}', prompt_tokens=21, completion_tokens=7))
    answer = server.client(api_key=SECRET).complete(ASK, max_tokens=200, json_mode=True)
    assert answer.text == '{"facts": ["use pnpm"]}'
    assert (answer.model, answer.prompt_tokens, answer.completion_tokens) == ("scripted-model", 21, 7)
    assert answer.finish_reason == "stop" and not answer.truncated
    [seen] = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.body["model"] == "scripted-model"
    assert seen.messages == ASK
    assert seen.body["max_tokens"] == 200 and seen.body["temperature"] == 0.0
    assert seen.body["response_format"] == {"type": "json_object"}
    assert seen.headers["authorization"] == f"Bearer {SECRET}"
    assert parse_json_answer(answer.text).value == {"facts": ["use pnpm"]}


def test_plain_calls_send_no_response_format_no_key_and_estimate_missing_usage(scripted_llm) -> None:
    server = scripted_llm(Reply("hello there", usage=False))
    answer = server.client().complete(ASK)
    assert "response_format" not in server.requests[0].body
    assert "max_tokens" not in server.requests[0].body
    assert "authorization" not in server.requests[0].headers
    assert answer.completion_tokens == 4  # "hello there": 11 characters / 3, rounded up
    assert answer.prompt_tokens == -(-len("Answer in JSON.What did we learn?") // 3)


def test_json_in_fences_with_prose_around_parses_without_repair(scripted_llm) -> None:
    text = 'Here you go:\n```json\n{"facts": ["a", "b"]}\n```\nAnything else?'
    answer = scripted_llm(Reply(text)).client().complete(ASK)
    parsed = parse_json_answer(answer.text)
    assert parsed.value == {"facts": ["a", "b"]} and parsed.repaired is False


@pytest.mark.parametrize("text, value", [
    ('{"a": 1}', {"a": 1}),
    ('  [1, 2]\n', [1, 2]),
    ("```\n[1, 2]\n```", [1, 2]),
    ('Sure! The answer is {"a": [1, 2]}. Hope it helps.', {"a": [1, 2]}),
    ('As noted in [1], here it is: {"a": {"b": 2}}', {"a": {"b": 2}}),  # the longest value wins
    ("[]", []),  # a model may rightly find nothing
])
def test_json_answers_parse_strictly(text: str, value: object) -> None:
    parsed = parse_json_answer(text)
    assert parsed.value == value and parsed.repaired is False and parsed.truncated is False


def test_truncated_json_is_repaired_and_flagged(scripted_llm) -> None:
    cut = '```json\n{"facts": [{"text": "use pnpm"}, {"text": "never deploy on Fri'
    answer = scripted_llm(Reply(cut, finish_reason="length")).client().complete(ASK, max_tokens=20)
    assert answer.truncated and answer.finish_reason == "length"
    parsed = parse_json_answer(answer.text)
    assert parsed.repaired is True and parsed.truncated is True and parsed.unclosed == "string"
    assert parsed.value == {"facts": [{"text": "use pnpm"}, {"text": "never deploy on Fri"}]}


def test_complete_values_inside_a_truncated_one_are_not_taken_for_the_answer() -> None:
    parsed = parse_json_answer('Here they are: {"facts": [{"text": "a"}, {"text": "b"}, {"te')
    assert parsed.repaired is True and parsed.value["facts"][:2] == [{"text": "a"}, {"text": "b"}]
    assert parsed.truncated is True


def test_broken_json_is_repaired() -> None:
    parsed = parse_json_answer("{'facts': ['a', 'b',],}")
    assert parsed.value == {"facts": ["a", "b"]} and parsed.repaired is True and parsed.truncated is False


@pytest.mark.parametrize("text, value", [
    ('```json\n{"facts": ["a", "b",],}\n```', {"facts": ["a", "b"]}),  # a trailing comma in a fence
    ("{'facts': ['it\\'s', \"a 'quoted' word\"]}", {"facts": ["it's", "a 'quoted' word"]}),
    ('Here\'s what I found: {"a": 1, // why\n "b": "}{ ]["} Hope it helps!', {"a": 1, "b": "}{ ]["}),
    ('{"a": 1, /* a "comment" with [brackets */ "b": 2,}', {"a": 1, "b": 2}),
])
def test_sloppy_but_complete_json_is_repaired_and_not_taken_for_truncated(text: str, value: object) -> None:
    parsed = parse_json_answer(text)
    assert parsed.value == value and parsed.repaired is True and parsed.truncated is False


@pytest.mark.parametrize("text, left_open", [
    ('{"facts": [{"text": "The production database is Postgres 1', "string"),
    ("{'facts': ['it\\'s cut", "string"),
    ('{"text": "ends on an escape \\', "string"),
    ('{"facts": [{"text": "a"}', "array"),
    ('```json\n{"history_entry": "[2026-11-30 14:05] x", "facts": []', "object"),
    ('Sure: {"a": [1, 2], "b": {"c": 3}', "object"),
    ('{"a": 1, /* cut in a comment', "comment"),
])
def test_an_answer_left_open_is_flagged_truncated_naming_what_was_open(text: str, left_open: str) -> None:
    parsed = parse_json_answer(text)
    assert parsed.repaired is True and parsed.truncated is True and parsed.unclosed == left_open


@pytest.mark.parametrize("text, why", [
    ("", "empty"),
    ("   \n", "empty"),
    ("I could not find anything worth keeping.", "no JSON object or array"),
    ("42", "JSON int"),
    ('"just a string"', "JSON str"),
])
def test_answers_without_an_object_or_array_are_refused(text: str, why: str) -> None:
    with pytest.raises(LLMAnswerError, match=why):
        parse_json_answer(text)


# --- retries and failures ---------------------------------------------------------------------------


def test_server_error_is_retried(scripted_llm) -> None:
    server = scripted_llm(Fail(500, "overloaded"), Reply("fine"))
    assert server.client().complete(ASK).text == "fine"
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


def test_429_waits_as_long_as_retry_after_says(scripted_llm) -> None:
    server = scripted_llm(Fail(429, "slow down", retry_after="1"), Reply("fine"))
    start = time.monotonic()
    assert server.client(max_backoff=5.0).complete(ASK).text == "fine"
    assert 0.9 <= time.monotonic() - start < 4
    assert len(server.requests) == 2


def test_retry_after_is_capped(scripted_llm) -> None:
    server = scripted_llm(Fail(503, retry_after="3600"), Reply("fine"))
    start = time.monotonic()
    assert server.client(max_backoff=0.1).complete(ASK).text == "fine"
    assert time.monotonic() - start < 2


def test_client_error_is_not_retried(scripted_llm) -> None:
    server = scripted_llm(Fail(400, '{"error": "model \'nope\' not found"}'), Reply("never sent"))
    with pytest.raises(LLMError, match=r"HTTP 400.*model 'nope' not found") as caught:
        server.client().complete(ASK)
    assert server.base_url in str(caught.value)
    assert len(server.requests) == 1


def test_retries_are_bounded_and_the_error_names_url_and_last_status(scripted_llm) -> None:
    server = scripted_llm(Fail(503, "model is loading"), repeat_last=True)
    with pytest.raises(LLMError) as caught:
        server.client(max_retries=2).complete(ASK)
    message = str(caught.value)
    assert f"{server.base_url}/chat/completions" in message
    assert "3 attempts" in message and "HTTP 503: model is loading" in message
    assert len(server.requests) == 3


def test_slow_answer_times_out_after_the_retries(scripted_llm) -> None:
    server = scripted_llm(Delay(5, then=Reply("too late")), repeat_last=True)
    start = time.monotonic()
    with pytest.raises(LLMError, match=r"2 attempts.*timeout of 0.3 s"):
        server.client(timeout=0.3, max_retries=1).complete(ASK)
    assert time.monotonic() - start < 3
    assert len(server.requests) == 2


def test_refused_connection_is_retried_then_reported() -> None:
    url = refused_url()
    llm = OpenAIChat(url, "m", SECRET, max_retries=2, backoff=0.01, max_backoff=0.02)
    with pytest.raises(LLMError, match="3 attempts, last: unreachable") as caught:
        llm.complete(ASK)
    assert url in str(caught.value) and SECRET not in str(caught.value)


def test_api_key_never_appears_in_errors_or_reprs(scripted_llm) -> None:
    server = scripted_llm(Fail(401, f"invalid api key {SECRET}"))
    llm = server.client(api_key=SECRET)
    with pytest.raises(LLMError, match="check the API key") as caught:
        llm.complete(ASK)
    assert SECRET not in str(caught.value) and "***" in str(caught.value)
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in repr(llm)
    assert SECRET not in repr(LLMConfig(base_url=server.base_url, model="m", api_key=SECRET))


# --- the cost guard ---------------------------------------------------------------------------------


def test_guard_refuses_the_call_past_the_run_limit_before_sending(scripted_llm) -> None:
    server = scripted_llm(Reply("ok"), repeat_last=True)
    guard = CostGuard(max_calls_per_run=2, window=HourWindow())
    llm = server.client(guard=guard)
    with guard.run() as usage:
        llm.complete(ASK)
        llm.complete(ASK)
        with pytest.raises(LLMBudgetExceeded, match="max_calls_per_run"):
            llm.complete(ASK)
    assert usage.calls == 2 and usage.tokens == 30  # real usage: 10 + 5 per call
    assert len(server.requests) == 2
    with guard.run():  # a new run has a new budget
        llm.complete(ASK)
    assert len(server.requests) == 3


def test_guard_refuses_a_prompt_too_large_for_the_run(scripted_llm) -> None:
    server = scripted_llm(Reply("ok"), repeat_last=True)
    guard = CostGuard(max_tokens_per_run=100, window=HourWindow())
    with guard.run(), pytest.raises(LLMBudgetExceeded, match="max_tokens_per_run"):
        server.client(guard=guard).complete([{"role": "user", "content": "x" * 400}])
    with guard.run(), pytest.raises(LLMBudgetExceeded, match="max_tokens_per_run"):
        server.client(guard=guard).complete(ASK, max_tokens=500)  # the answer's bound counts too
    assert server.requests == []


def test_guard_hour_is_a_sliding_window_shared_across_runs(scripted_llm) -> None:
    server = scripted_llm(Reply("ok", prompt_tokens=1000, completion_tokens=500), repeat_last=True)
    clock = FakeClock()
    guard = CostGuard(max_calls_per_hour=2, window=HourWindow(clock))
    llm = server.client(guard=guard)
    for _ in range(2):
        with guard.run():
            llm.complete(ASK)
        clock.now += 600
    assert guard.last_hour().tokens == 3000  # the real usage, not the estimate
    with pytest.raises(LLMBudgetExceeded, match=r"max_calls_per_hour.*retry in 2401 s"):
        llm.complete(ASK)
    assert len(server.requests) == 2
    clock.now += 2400  # the first call leaves the window
    llm.complete(ASK)
    assert len(server.requests) == 3


def test_guard_hour_token_limit_counts_every_guard_on_the_window(scripted_llm) -> None:
    server = scripted_llm(Reply("ok", prompt_tokens=900, completion_tokens=100), repeat_last=True)
    window = HourWindow()
    first = server.client(guard=CostGuard(max_tokens_per_hour=1500, window=window))
    second = server.client(guard=CostGuard(max_tokens_per_hour=1500, window=window))
    first.complete(ASK)
    with pytest.raises(LLMBudgetExceeded, match="max_tokens_per_hour"):
        second.complete([{"role": "user", "content": "y" * 1800}])
    assert len(server.requests) == 1


def test_guard_admits_exactly_its_limit_from_many_threads() -> None:
    guard = CostGuard(max_calls_per_hour=25, window=HourWindow())
    admitted: list[int] = []

    def call() -> None:
        for _ in range(10):
            try:
                guard.admit(1)
                admitted.append(1)
            except LLMBudgetExceeded:
                pass

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(admitted) == 25 and guard.last_hour().calls == 25


# --- configuration ----------------------------------------------------------------------------------


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "kenning.toml").write_text(text, encoding="utf-8")


def test_llm_config_is_read_from_kenning_toml(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", SECRET)
    write_config(isolated_home, '[llm]\nbase_url = "http://127.0.0.1:11434/v1"\nmodel = "qwen2.5:7b"\n'
                                'api_key_env = "MY_LLM_KEY"\ntimeout = 12.5\nmax_retries = 0\n'
                                'max_calls_per_run = 3\nmax_tokens_per_hour = 9000\n')
    llm = load_settings().llm
    assert (llm.base_url, llm.model, llm.api_key) == ("http://127.0.0.1:11434/v1", "qwen2.5:7b", SECRET)
    assert (llm.timeout, llm.max_retries, llm.max_calls_per_run, llm.max_tokens_per_hour) == (12.5, 0, 3, 9000)
    assert (llm.max_tokens_per_run, llm.max_calls_per_hour) == (60_000, 120)  # the defaults


def test_llm_environment_overrides_the_file(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(isolated_home, '[llm]\nbase_url = "http://a:1/v1"\nmodel = "small"\napi_key = "from-file"\n')
    monkeypatch.setenv("KENNING_LLM_BASE_URL", "https://b:2/v1")
    monkeypatch.setenv("KENNING_LLM_MODEL", "large")
    monkeypatch.setenv("KENNING_LLM_API_KEY", "from-env")
    llm = load_settings().llm
    assert (llm.base_url, llm.model, llm.api_key) == ("https://b:2/v1", "large", "from-env")


@pytest.mark.parametrize("body, what", [
    ('timeout = "soon"', "timeout"),
    ("max_retries = -1", "max_retries"),
    ("max_calls_per_hour = 0", "max_calls_per_hour"),
    ("max_tokens_per_run = true", "max_tokens_per_run"),
    ('base_url = "localhost:11434"', "http://"),
    ("model = 7", "model must be a string"),
])
def test_invalid_llm_config_is_refused_with_the_key_named(isolated_home: Path, body: str, what: str) -> None:
    write_config(isolated_home, f"[llm]\n{body}\n")
    with pytest.raises(InvalidInput, match=what):
        load_settings()


def test_make_llm_is_none_without_a_model_and_refuses_half_a_config(isolated_home: Path) -> None:
    assert load_settings().llm == LLMConfig()
    assert make_llm(load_settings().llm) is None
    with pytest.raises(InvalidInput, match="no model"):
        make_llm(LLMConfig(base_url="http://127.0.0.1:11434/v1"))
    with pytest.raises(InvalidInput, match="no base_url"):
        make_llm(LLMConfig(model="qwen2.5:7b"))


def test_make_llm_builds_a_guarded_client_from_the_config(scripted_llm) -> None:
    server = scripted_llm(Reply("ok"), repeat_last=True)
    llm = make_llm(server.config(max_calls_per_run=1))
    assert isinstance(llm, OpenAIChat) and llm.name == "openai/scripted-model" and llm.guard is not None
    with llm.guard.run():
        assert llm.complete(ASK).text == "ok"
        with pytest.raises(LLMBudgetExceeded):
            llm.complete(ASK)
    assert len(server.requests) == 1
