"""The optional language model: an OpenAI-compatible chat client behind a cost guard.

kenning works without a model; when ``[llm]`` is configured, consolidation and the write gate may
ask one for judgements, and fall back to deterministic behaviour when ``make_llm`` returns None.
One small protocol, one implementation:

* ``OpenAIChat``: ``POST {base_url}/chat/completions`` (OpenAI, Ollama, vLLM, llama.cpp server).
  Each request has a timeout; 429, 500, 502, 503, 504, timeouts and refused connections are retried
  a bounded number of times with exponential backoff and jitter (``Retry-After`` honoured, capped);
  any other 4xx fails at once, since sending the same request again cannot help.
* ``CostGuard``: limits calls and tokens per consolidation run (``with guard.run():``) and per
  sliding hour across the process. A call that would pass a limit is refused before it is sent.
  A run belongs to the context (thread or task) that opened it, not to one guard: every call made
  inside it counts, whichever model's guard admits it (a consolidation's own model, the write
  gate's), and each is held to the run's limits and to its own guard's.

Errors name the endpoint and the last status, never the API key.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from .config import LLMConfig
from .errors import InvalidInput, LLMBudgetExceeded, LLMError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
HOUR = 3600.0
EXCERPT_CHARS = 300


@dataclass(frozen=True)
class Completion:
    """One answer. Token counts are the server's, or estimated (characters / 3) when it sent none."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str

    @property
    def truncated(self) -> bool:
        """The model stopped at ``max_tokens``: the text (and any JSON in it) may be cut short."""
        return self.finish_reason == "length"


class LLM(Protocol):
    """What consolidation and the write gate need from a language model."""

    name: str

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        json_mode: bool = False,
    ) -> Completion:
        """The model's answer to ``messages`` (``{"role": ..., "content": ...}`` dicts)."""
        ...


def estimate_tokens(text: str) -> int:
    """A rough token count, characters / 3 rounded up, for when the server reports none."""
    return -(-len(text) // 3)


# --- the cost guard -------------------------------------------------------------------------------


@dataclass
class RunUsage:
    """Calls and tokens spent so far: in one ``CostGuard.run()``, or in the last hour."""

    calls: int = 0
    tokens: int = 0


@dataclass
class _Run:
    """An open run: what it spent, and the per-run limits of the guard that opened it."""

    usage: RunUsage
    max_calls: int
    max_tokens: int


# One per context, shared by every guard: a consolidation's budget must cover the write gate's
# calls for the facts it writes too, and the gate may ask another model than the run's.
_OPEN_RUN: ContextVar[_Run | None] = ContextVar("kenning_llm_run", default=None)


class _Spend:
    """One admitted call: its estimate until the answer's real usage replaces it."""

    __slots__ = ("at", "tokens", "run")

    def __init__(self, at: float, tokens: int, run: RunUsage | None) -> None:
        self.at = at
        self.tokens = tokens
        self.run = run


class HourWindow:
    """The calls of the last hour (sliding). One per process is shared by every guard, so that
    several stores opened in one long-lived process (an MCP server) share one hourly budget;
    tests make their own, with a fake ``clock`` when they need to move time."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()  # held by a guard while it checks and records a call
        self._spends: deque[_Spend] = deque()

    def usage(self) -> tuple[RunUsage, float | None]:
        """Calls and tokens of the last hour, and when the oldest of them leaves the window
        (seconds from now; None when empty). The caller holds ``lock``."""
        now = self.clock()
        while self._spends and self._spends[0].at <= now - HOUR:
            self._spends.popleft()
        used = RunUsage(len(self._spends), sum(s.tokens for s in self._spends))
        frees_in = self._spends[0].at + HOUR - now if self._spends else None
        return used, frees_in

    def add(self, spend: _Spend) -> None:
        self._spends.append(spend)


_PROCESS_WINDOW = HourWindow()


class CostGuard:
    """Limits on calls and tokens per consolidation run and per hour; thread-safe.

    ``with guard.run():`` opens a run; a ``run()`` inside it, of this guard or another, shares its
    budget, and every guard's calls inside it are counted in it (each held to the run's limits and
    to its own). Calls outside a run are held to the hourly limits only. The run is tracked per
    context (thread or task), so concurrent consolidations each get their own. A call is one
    ``complete``, however many attempts its retries take; it is admitted on its estimate, then
    charged its real usage.
    """

    def __init__(
        self,
        max_calls_per_run: int = 8,
        max_tokens_per_run: int = 60_000,
        max_calls_per_hour: int = 120,
        max_tokens_per_hour: int = 500_000,
        *,
        window: HourWindow | None = None,
    ) -> None:
        limits = (max_calls_per_run, max_tokens_per_run, max_calls_per_hour, max_tokens_per_hour)
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in limits):
            raise InvalidInput(f"cost guard limits must be whole numbers of at least 1, got {limits}")
        self.max_calls_per_run = max_calls_per_run
        self.max_tokens_per_run = max_tokens_per_run
        self.max_calls_per_hour = max_calls_per_hour
        self.max_tokens_per_hour = max_tokens_per_hour
        self.window = window or _PROCESS_WINDOW

    @contextmanager
    def run(self) -> Iterator[RunUsage]:
        """One consolidation: calls and tokens inside are counted against the per-run limits."""
        current = _OPEN_RUN.get()
        if current is not None:
            yield current.usage
            return
        opened = _Run(RunUsage(), self.max_calls_per_run, self.max_tokens_per_run)
        token = _OPEN_RUN.set(opened)
        try:
            yield opened.usage
        finally:
            _OPEN_RUN.reset(token)

    def last_hour(self) -> RunUsage:
        """Calls and tokens spent in the last hour (by every guard sharing this window)."""
        with self.window.lock:
            return self.window.usage()[0]

    def admit(self, estimated_tokens: int) -> _Spend:
        """Record a call about to be sent, or raise ``LLMBudgetExceeded`` if it would pass a limit."""
        run = _OPEN_RUN.get()
        with self.window.lock:
            hour, frees_in = self.window.usage()
            if run is not None:
                self._check_run(run, estimated_tokens)
            self._check_hour(hour, estimated_tokens, frees_in)
            spend = _Spend(self.window.clock(), estimated_tokens, run.usage if run is not None else None)
            self.window.add(spend)
            if run is not None:
                run.usage.calls += 1
                run.usage.tokens += estimated_tokens
            return spend

    def settle(self, spend: _Spend, tokens: int) -> None:
        """Replace a call's estimate with what it really cost."""
        with self.window.lock:
            if spend.run is not None:
                spend.run.tokens += tokens - spend.tokens
            spend.tokens = tokens

    def _check_run(self, run: _Run, estimate: int) -> None:
        used = run.usage
        max_calls = min(run.max_calls, self.max_calls_per_run)
        max_tokens = min(run.max_tokens, self.max_tokens_per_run)
        if used.calls >= max_calls:
            raise LLMBudgetExceeded(
                f"language model call refused: this run already made {used.calls} calls, the limit "
                f"(max_calls_per_run in [llm]) is {max_calls}; raise it in kenning.toml "
                "or consolidate fewer items at once")
        if used.tokens + estimate > max_tokens:
            raise LLMBudgetExceeded(
                f"language model call refused: this run has used {used.tokens} tokens and the call may "
                f"use {estimate} more, past the limit (max_tokens_per_run in [llm]) of "
                f"{max_tokens}; raise it in kenning.toml or send shorter prompts")

    def _check_hour(self, hour: RunUsage, estimate: int, frees_in: float | None) -> None:
        wait = f"retry in {int(frees_in) + 1} s" if frees_in is not None else "retry later"
        if hour.calls >= self.max_calls_per_hour:
            raise LLMBudgetExceeded(
                f"language model call refused: {hour.calls} calls in the last hour reach the limit "
                f"(max_calls_per_hour in [llm]) of {self.max_calls_per_hour}; {wait} or raise the limit")
        if hour.tokens + estimate > self.max_tokens_per_hour:
            raise LLMBudgetExceeded(
                f"language model call refused: {hour.tokens} tokens in the last hour and the call may "
                f"use {estimate} more, past the limit (max_tokens_per_hour in [llm]) of "
                f"{self.max_tokens_per_hour}; {wait} or raise the limit")


# --- the client -----------------------------------------------------------------------------------


class _Retryable(Exception):
    """A failed attempt worth repeating (never leaves this module)."""

    def __init__(self, detail: str, retry_after: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


def _retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class OpenAIChat:
    """An OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint.

    ``max_retries`` extra attempts follow a retryable failure, after ``backoff * 2**n`` seconds plus
    up to half as much jitter, or the server's ``Retry-After``; a wait never exceeds ``max_backoff``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        guard: CostGuard | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise InvalidInput(f"language model base_url {base_url!r} must start with http:// or https://")
        if not model:
            raise InvalidInput("the language model needs a model name (model in [llm] or KENNING_LLM_MODEL)")
        if timeout <= 0 or max_retries < 0 or backoff < 0 or max_backoff < 0:
            raise InvalidInput("language model timeout must be above 0, retries and backoff at least 0")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        self._api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.guard = guard
        self.name = f"openai/{model}"

    def __repr__(self) -> str:  # the key stays out of logs and tracebacks
        return f"OpenAIChat(url={self.url!r}, model={self.model!r})"

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        json_mode: bool = False,
    ) -> Completion:
        if not messages:
            raise InvalidInput("a language model call needs at least one message")
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        prompt_estimate = estimate_tokens("".join(str(m.get("content", "")) for m in messages))
        guard = self.guard
        # The answer's bound counts too: the guard must hold even if the model uses all of it.
        spend = guard.admit(prompt_estimate + (max_tokens or 0)) if guard is not None else None
        try:
            completion = self._completion(self._post(json.dumps(body).encode()), prompt_estimate)
        except LLMError:
            if guard is not None and spend is not None:  # a timed-out request may still be billed
                guard.settle(spend, prompt_estimate)
            raise
        if guard is not None and spend is not None:
            guard.settle(spend, completion.prompt_tokens + completion.completion_tokens)
        return completion

    def _post(self, data: bytes) -> dict[str, Any]:
        attempts = self.max_retries + 1
        last: _Retryable | None = None
        for attempt in range(attempts):
            if last is not None:
                time.sleep(self._delay(attempt - 1, last.retry_after))
            try:
                return self._decode(self._send(data))
            except _Retryable as exc:
                last = exc
        assert last is not None
        raise LLMError(
            f"language model at {self.url} failed after {attempts} attempts, last: {last.detail}; "
            f"check that the server is running and serves model {self.model!r}, or raise "
            "timeout / max_retries in [llm]")

    def _send(self, data: bytes) -> bytes:
        """One attempt: the response body, ``_Retryable``, or ``LLMError`` when retrying cannot help."""
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(self.url, data, headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body: bytes = resp.read()
                return body
        except urllib.error.HTTPError as exc:
            excerpt = self._excerpt(self._error_body(exc))
            if exc.code in RETRY_STATUSES:
                raise _Retryable(f"HTTP {exc.code}: {excerpt}", exc.headers.get("Retry-After")) from exc
            raise LLMError(f"language model at {self.url} refused the request with HTTP {exc.code}: "
                           f"{excerpt}; {self._hint(exc.code)}") from exc
        except urllib.error.URLError as exc:
            raise _Retryable(f"unreachable ({self._excerpt(str(exc.reason).encode())})") from exc
        except TimeoutError as exc:
            raise _Retryable(f"no answer within the timeout of {self.timeout:g} s") from exc
        except (http.client.HTTPException, OSError) as exc:  # reset or cut connections
            raise _Retryable(f"connection failed ({type(exc).__name__}: {exc})") from exc

    @staticmethod
    def _error_body(exc: urllib.error.HTTPError) -> bytes:
        try:
            return exc.read()
        except (http.client.HTTPException, OSError):
            return b""
        finally:
            exc.close()

    def _excerpt(self, raw: bytes) -> str:
        """The start of a response body on one line, with the API key blanked should it be echoed."""
        text = " ".join(raw.decode("utf-8", "replace").split()) or "(empty body)"
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"

    def _hint(self, status: int) -> str:
        if status in (401, 403):
            return "check the API key (KENNING_LLM_API_KEY, or api_key_env / api_key in [llm])"
        if status == 404:
            return f"check base_url (it usually ends in /v1) and that the server has model {self.model!r}"
        return "check the model name and the server's limits (context length, max_tokens)"

    def _delay(self, retry: int, retry_after: str | None) -> float:
        wait = _retry_after_seconds(retry_after)
        if wait is None:
            wait = self.backoff * 2**retry
            wait += random.uniform(0, wait / 2)  # clients that failed together retry apart
        return min(wait, self.max_backoff)

    def _decode(self, raw: bytes) -> dict[str, Any]:
        try:
            payload = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LLMError(f"language model at {self.url} sent invalid JSON: {self._excerpt(raw)}") from exc
        if not isinstance(payload, dict):
            raise LLMError(f"language model at {self.url} sent {type(payload).__name__}, not a JSON object")
        return payload

    def _completion(self, payload: dict[str, Any], prompt_estimate: int) -> Completion:
        try:
            choice = payload["choices"][0]
            text = str(choice["message"].get("content") or "")  # null when a model only reasoned
            finish = str(choice.get("finish_reason") or "unknown")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            detail = self._excerpt(json.dumps(payload.get("error") or payload).encode())
            raise LLMError(f"language model at {self.url} sent no choices[0].message: {detail}") from exc
        usage = payload.get("usage")
        if not isinstance(usage, dict):  # llama.cpp and some proxies send none
            usage = {}
        prompt = usage.get("prompt_tokens")
        answer = usage.get("completion_tokens")
        return Completion(
            text=text,
            model=str(payload.get("model") or self.model),
            prompt_tokens=prompt if isinstance(prompt, int) else prompt_estimate,
            completion_tokens=answer if isinstance(answer, int) else estimate_tokens(text),
            finish_reason=finish,
        )


def make_llm(config: LLMConfig, guard: CostGuard | None = None) -> LLM | None:
    """The configured model, or None when ``[llm]`` names no endpoint and model (callers then
    stay deterministic). Without ``guard``, one is made from the limits in ``config``."""
    if not config.base_url and not config.model:
        return None
    if not config.base_url or not config.model:
        missing = "base_url (KENNING_LLM_BASE_URL)" if not config.base_url else "model (KENNING_LLM_MODEL)"
        raise InvalidInput(f"the language model is half configured: [llm] has no {missing}; "
                           "set it, or remove the other to run without a model")
    if guard is None:
        guard = CostGuard(config.max_calls_per_run, config.max_tokens_per_run,
                          config.max_calls_per_hour, config.max_tokens_per_hour)
    return OpenAIChat(config.base_url, config.model, config.api_key, timeout=config.timeout,
                      max_retries=config.max_retries, guard=guard)
