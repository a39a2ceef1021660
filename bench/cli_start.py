#!/usr/bin/env python3
"""How long the ``kenning`` commands that agent clients run take from process start to exit.

    python bench/cli_start.py                              # 20 runs of each command
    python bench/cli_start.py --runs 20 --baseline /tmp/old/src   # and another checkout's code, run by run

Clients run ``kenning hook session-start`` at the start of every session and start ``kenning mcp``
(``bench/mcp_handshake.py`` times its answers); neither waits long. Each run starts a fresh process
as the console script does (``from kenning.cli import main; main()``) with a temporary
KENNING_HOME, one per code, whose store an uncounted first run creates. ``--baseline`` runs another
checkout's ``src`` with the same interpreter, taking turns with this one, so that both see the same
machine (shared machines are noisy: compare within one run). ``--importtime`` also prints, for one
run of each command and code, the modules that took longest to import (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from common import with_src  # noqa: E402  (bench/ is a folder of scripts, not a package)

SCRIPT = [sys.executable, "-c", "from kenning.cli import main; main()"]  # the console script's code
COMMANDS: dict[str, tuple[list[str], str | None]] = {  # label -> (arguments, stdin)
    "kenning --version": (["--version"], None),
    "kenning --help": (["--help"], None),
    "kenning path": (["path"], None),
    "kenning hook session-start": (["hook", "session-start"], '{"cwd": "/tmp"}'),
}
console = Console()


def one_run(env: dict[str, str], args: list[str], stdin: str | None) -> float:
    start = time.perf_counter()
    done = subprocess.run([*SCRIPT, *args], env=env, input=stdin or "", capture_output=True, text=True,
                          cwd=env["KENNING_HOME"])
    seconds = time.perf_counter() - start
    if done.returncode != 0 or "hook failed" in done.stderr:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds


def slowest_imports(env: dict[str, str], args: list[str], stdin: str | None, n: int = 8) -> list[tuple[int, str]]:
    """The ``n`` modules imported by the script or by what it imports (two levels deep) that took
    longest, children included (microseconds)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *SCRIPT[1:], *args], env=env, input=stdin or "",
                          capture_output=True, text=True, cwd=env["KENNING_HOME"])
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.rstrip()))
    top = [(us, name) for us, name in rows if len(name) - len(name.lstrip()) <= 3]  # importtime indents by depth
    return sorted(top, reverse=True)[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="measured runs per command and code (default 20)")
    parser.add_argument("--src", type=Path, help="put this folder first on PYTHONPATH (another checkout's src)")
    parser.add_argument("--baseline", type=Path, help="another checkout's src to compare with, run by run")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports of each command")
    parser.add_argument("--only", action="append", choices=list(COMMANDS), metavar="COMMAND",
                        help="run only this command (repeatable), e.g. --only 'kenning hook session-start'")
    args = parser.parse_args()
    commands = {name: COMMANDS[name] for name in args.only or COMMANDS}

    base = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    code = {"kenning": with_src(base, args.src)}
    if args.baseline is not None:
        code["baseline"] = with_src(base, args.baseline)
    config = {"command": " ".join(SCRIPT), "python": platform.python_version(), "cpus": os.cpu_count(),
              "load average": os.getloadavg(), "runs": args.runs, "argv": " ".join(sys.argv),
              **{f"{label} PYTHONPATH": env.get("PYTHONPATH", "(installed)") for label, env in code.items()}}
    for key, value in config.items():
        console.print(f"[bold]{key}[/]: {value}")

    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="kenning-cli-start-") as tmp:
        envs = {}
        for n, (label, env) in enumerate(code.items()):
            home = Path(tmp) / f"home-{n}"
            home.mkdir()
            envs[label] = {**env, "KENNING_HOME": str(home)}
            for command, stdin in commands.values():  # creates the store, warms the file cache
                one_run(envs[label], command, stdin)
        for _ in range(args.runs):
            for name, (command, stdin) in commands.items():
                for label, env in envs.items():
                    times.setdefault((name, label), []).append(one_run(env, command, stdin))
        if args.importtime:
            for name, (command, stdin) in commands.items():
                for label, env in envs.items():
                    slow = ", ".join(f"{mod.strip()} {us / 1000:.0f}" for us, mod in slowest_imports(env, command, stdin))
                    console.print(f"[bold]{name}[/] ({label}), slowest imports in ms: {slow}", soft_wrap=True)

    table = Table(title="seconds from process start to exit")
    for column in ("command", "code", "median", "min", "max"):
        table.add_column(column, justify="left" if column in ("command", "code") else "right")
    for (name, label), runs in times.items():
        table.add_row(name, label, f"{statistics.median(runs):.3f}", f"{min(runs):.3f}", f"{max(runs):.3f}")
    console.print(table)


if __name__ == "__main__":
    main()
