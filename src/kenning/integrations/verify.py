"""Run the command line ``kenning install`` is about to write, the way a client will run it: from a
desktop, an IDE or another shell, with none of this shell's PATH. A command that does not answer
there would leave the MCP server failing to start and every hook exiting 127, seen only inside the
client; better to refuse at install time and say why."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput
from .clients import Launch

CLIENT_PATH = "/usr/bin:/bin"  # what a program started outside a login shell can count on
TIMEOUT = 60  # seconds: a cold start on a busy machine takes a few


@dataclass(frozen=True)
class Checked:
    command: str  # the command line that ran
    answer: str | None  # its first line, e.g. "kenning, version 0.1.0"; None: a portable command not found here
    path: str  # the PATH it ran with


def check_launch(launch: Launch, kenning_home: Path | None) -> Checked:
    """Run ``<launch> --version``; an absolute command with ``PATH=/usr/bin:/bin``, the portable one
    with this shell's PATH (a teammate's machine is not this one: that check only tells whether
    this machine has kenning on PATH)."""
    path = os.environ.get("PATH", os.defpath) if launch.portable else CLIENT_PATH
    env = {"PATH": path, "HOME": str(Path.home()), "LANG": os.environ.get("LANG", "C.UTF-8")}
    if kenning_home is not None:
        env["KENNING_HOME"] = str(kenning_home)
    command = launch.shell("--version")
    if launch.portable and shutil.which(launch.argv[0], path=path) is None:
        return Checked(command, None, path)  # for the teammates' machines; this one may run kenning from a venv
    try:
        done = subprocess.run([*launch.argv, "--version"], env=env, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InvalidInput(f"`{command}` did not run with PATH={path} ({exc}); nothing was written") from None
    answer = (done.stdout or done.stderr).strip()
    if done.returncode != 0 or "kenning" not in answer.lower():
        said = " ".join(answer.split())[:300] or "nothing"
        raise InvalidInput(f"`{command}` failed with PATH={path} (exit {done.returncode}, it said: {said}); nothing "
                           "was written. Reinstall kenning in this environment (pip install 'kenning[mcp]')")
    return Checked(command, answer.splitlines()[0], path)
