#!/usr/bin/env python3
"""How soon ``kenning mcp`` answers a client that does not wait: the time from starting the server
over stdio to its ``initialize`` answer, to ``tools/list``, ``prompts/list`` and ``resources/list``,
and to the first tool call answered.

    python bench/mcp_handshake.py                        # 10 runs on an idle machine
    python bench/mcp_handshake.py --runs 20 --busy       # and again with every core kept busy
    python bench/mcp_handshake.py --baseline /tmp/old/src   # and another checkout's code, run by run

Real clients (Claude Code, Codex) start their MCP servers and send the first model request without
waiting for them; a server that has not answered ``tools/list`` by then is missing from that
request, and Claude Code shows none of its tools until ``prompts/list`` and ``resources/list`` have
answered too. Each run starts the server as a client does, with a temporary KENNING_HOME, writes
``initialize`` at once, then ``notifications/initialized`` and the three listings as soon as the
answer comes, then ``tools/call memory_recall`` once ``tools/list`` has answered. Times are from the start of the process. The messages are
written as JSON lines by hand (no SDK client), so the client adds nothing measurable. The first
run on a home creates its store and is not counted (``--fresh`` gives every run a new home
instead). ``--busy`` starts one process per core that burns CPU, as a build or a second agent would.
``--baseline`` runs another checkout's ``src`` with the same interpreter and SDK, taking turns with
this one, so that both see the same machine (shared machines are noisy: compare within one run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from common import with_src  # noqa: E402  (bench/ is a folder of scripts, not a package)

REPO = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-c", "from kenning.cli import main; main()", "mcp"]  # the console script's code
PHASES = ("initialize", "tools/list", "prompts/list", "resources/list", "all of them", "first tool call")
TIMEOUT = 120.0
console = Console()


class Run:
    """One server process, spoken to in JSON lines; ``answer`` waits for a response by id."""

    def __init__(self, env: dict[str, str]) -> None:
        self.start = time.perf_counter()
        self.process = subprocess.Popen(SERVER, env=env, cwd=env["KENNING_HOME"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.answers: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.received: dict[Any, tuple[float, dict[str, Any]]] = {}  # answers read while waiting for another
        self.err: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.process.stderr or ()), daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put((time.perf_counter() - self.start, json.loads(line)))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def answer(self, request_id: int) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + TIMEOUT
        while request_id not in self.received:
            seconds, message = self.answers.get(timeout=max(0.0, deadline - time.monotonic()))
            self.received[message.get("id")] = (seconds, message)
        seconds, message = self.received[request_id]
        if "error" in message:
            raise SystemExit(f"request {request_id} failed: {message['error']}")
        return seconds, message["result"]

    def close(self) -> str:
        assert self.process.stdin is not None
        self.process.stdin.close()  # how a stdio client ends the session
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return "".join(self.err)


def one_run(env: dict[str, str], protocol: str) -> dict[str, float]:
    run = Run(env)
    try:
        run.send({"id": 1, "method": "initialize",
                  "params": {"protocolVersion": protocol, "capabilities": {},
                             "clientInfo": {"name": "handshake-bench", "version": "1"}}})
        init, _ = run.answer(1)
        run.send({"method": "notifications/initialized"})
        run.send({"id": 2, "method": "tools/list"})
        run.send({"id": 4, "method": "prompts/list"})
        run.send({"id": 5, "method": "resources/list"})
        listed, tools = run.answer(2)
        if not any(t["name"] == "memory_recall" for t in tools["tools"]):
            raise SystemExit("tools/list has no memory_recall")
        run.send({"id": 3, "method": "tools/call",
                  "params": {"name": "memory_recall", "arguments": {"query": "where does the web app run"}}})
        prompts, _ = run.answer(4)
        resources, found = run.answer(5)
        if not any(r["name"] == "kenning-memory" for r in found["resources"]):
            raise SystemExit("resources/list has no kenning-memory")
        called, result = run.answer(3)
        if result.get("isError"):
            raise SystemExit(f"memory_recall failed: {result['content'][0]['text']}")
    except queue.Empty:
        raise SystemExit(f"no answer within {TIMEOUT:g} s; the server said: {run.close()[-2000:]}") from None
    run.close()
    return {"initialize": init, "tools/list": listed, "prompts/list": prompts, "resources/list": resources,
            "all of them": max(init, listed, prompts, resources), "first tool call": called}


def measure(code: dict[str, dict[str, str]], runs: int, protocol: str, fresh: bool) -> dict[str, list[dict[str, float]]]:
    """``runs`` runs of each code (label -> environment), taking turns so that both see the same machine."""
    out: dict[str, list[dict[str, float]]] = {label: [] for label in code}
    with tempfile.TemporaryDirectory(prefix="kenning-handshake-") as tmp:
        homes = {label: Path(tmp) / f"home-{n}" for n, label in enumerate(code)}
        for label, env in code.items():
            homes[label].mkdir()
            if not fresh:  # creates the store (each code its own: migrations may differ); warms the file cache
                one_run({**env, "KENNING_HOME": str(homes[label])}, protocol)
        for i in range(runs):
            for label, env in code.items():
                home = homes[label]
                if fresh:
                    home = Path(tmp) / f"fresh-{label}-{i}"
                    home.mkdir()
                out[label].append(one_run({**env, "KENNING_HOME": str(home)}, protocol))
    return out


def burners(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def server_config(env: dict[str, str]) -> dict[str, Any]:
    """Which kenning and SDK the server process imports, and the commit of that checkout."""
    code = ("import json, importlib.metadata as m, kenning; "
            "print(json.dumps({'kenning': kenning.__file__, 'mcp': m.version('mcp')}))")
    found = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout)
    checkout = Path(found["kenning"]).resolve().parent.parent.parent
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--", "src"], capture_output=True,
                           text=True).stdout.strip()
    return {"kenning": str(Path(found["kenning"]).parent), "commit": (commit or "?") + ("+dirty" if dirty else ""),
            "mcp sdk": found["mcp"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="measured runs per condition and code (default 10)")
    parser.add_argument("--busy", action="store_true", help="also run with one CPU-burning process per core")
    parser.add_argument("--src", type=Path, help="put this folder first on PYTHONPATH (another checkout's src)")
    parser.add_argument("--baseline", type=Path, help="another checkout's src to compare with, run by run")
    parser.add_argument("--protocol", default="2025-06-18", help="the protocolVersion the client asks for")
    parser.add_argument("--fresh", action="store_true", help="a new KENNING_HOME for every run")
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    code = {"kenning": with_src(env, args.src)}
    if args.baseline is not None:
        code["baseline"] = with_src(env, args.baseline)
    cpus = os.cpu_count() or 1
    console.print(f"[bold]server[/]: {' '.join(SERVER)}")
    for label, code_env in code.items():
        console.print(f"[bold]{label}[/]: {server_config(code_env)}")
    config = {"python": platform.python_version(), "cpus": cpus, "load average": os.getloadavg(),
              "runs": args.runs, "protocol": args.protocol,
              "home": "fresh per run" if args.fresh else "one per code (store made by an uncounted first run)",
              "argv": " ".join(sys.argv)}
    for key, value in config.items():
        console.print(f"[bold]{key}[/]: {value}")

    results = {"idle": measure(code, args.runs, args.protocol, args.fresh)}
    if args.busy:
        burning = burners(cpus)
        try:
            time.sleep(0.5)  # let them reach full speed
            results[f"busy ({cpus} burners)"] = measure(code, args.runs, args.protocol, args.fresh)
        finally:
            for process in burning:
                process.kill()
                process.wait()

    table = Table(title="kenning mcp over stdio: seconds from process start to the answer")
    for column in ("condition", "answer", "code", "median", "min", "max"):
        table.add_column(column, justify="left" if column in ("condition", "answer", "code") else "right")
    for condition, by_code in results.items():
        for phase in PHASES:
            for label, runs in by_code.items():
                times = [r[phase] for r in runs]
                table.add_row(condition, phase, label, f"{statistics.median(times):.3f}", f"{min(times):.3f}",
                              f"{max(times):.3f}")
    console.print(table)


if __name__ == "__main__":
    main()
