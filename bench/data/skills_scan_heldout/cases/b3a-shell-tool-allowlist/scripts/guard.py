#!/usr/bin/env python3
"""Allow-list guard for an agent's shell tool. No shell=True anywhere."""
import os
import pathlib
import shlex
import subprocess
import sys
from dataclasses import dataclass

ALLOWED = {
    "git": {"status", "diff", "log", "show", "branch"},
    "ls": None,      # None = any args (paths still checked)
    "cat": None,
    "grep": None,
    "pytest": None,
    "npm": {"test", "run"},
}
META = set(";&|`$<>(){}\n")
SAFE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}
MAX_OUT = 20_000


@dataclass
class Result:
    allowed: bool
    reason: str = ""
    code: int | None = None
    output: str = ""

    def summary(self):
        if not self.allowed:
            return f"REJECTED: {self.reason}"
        return f"exit {self.code}\n{self.output}"


def check(argv, root):
    if not argv:
        return "empty command"
    prog, *rest = argv
    if prog not in ALLOWED:
        return f"program '{prog}' is not on the allow-list"
    subs = ALLOWED[prog]
    if subs is not None and (not rest or rest[0] not in subs):
        return f"'{prog} {rest[0] if rest else ''}' is not an allowed subcommand"
    if prog == "git" and any(a == "-c" or a.startswith("--exec") for a in rest):
        return "git config overrides are not allowed"
    for a in rest:
        if a.startswith("-"):
            continue
        p = (root / a).resolve()
        if ("/" in a or a.startswith(".")) and not p.is_relative_to(root):
            return f"path '{a}' escapes the workspace"
    return ""


def run_guarded(command, workspace, timeout=60):
    root = pathlib.Path(workspace).resolve()
    if any(ch in META for ch in command):
        return Result(False, "shell metacharacters are not supported; run one plain command")
    try:
        argv = shlex.split(command)
    except ValueError as e:
        return Result(False, f"could not parse: {e}")
    reason = check(argv, root)
    print(f"[guard] {'deny' if reason else 'allow'}: {command!r} {reason}", file=sys.stderr)
    if reason:
        return Result(False, reason)
    try:
        p = subprocess.run(argv, cwd=root, env=SAFE_ENV, capture_output=True, text=True,
                           timeout=timeout, shell=False)
    except subprocess.TimeoutExpired:
        return Result(True, code=124, output=f"timed out after {timeout}s")
    out = (p.stdout + p.stderr)[:MAX_OUT]
    return Result(True, code=p.returncode, output=out)


if __name__ == "__main__":
    print(run_guarded(" ".join(sys.argv[1:]), os.getcwd()).summary())
