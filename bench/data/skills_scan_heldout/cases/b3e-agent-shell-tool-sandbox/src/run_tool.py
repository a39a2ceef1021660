"""Allow-listed command runner for an LLM agent."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ALLOWED: dict[str, set[str] | None] = {
    "pytest": None,            # any args
    "ruff": None,
    "mypy": None,
    "npm": {"test", "run"},    # first arg must be one of these
    "git": {"status", "diff", "log", "show"},
}
TIMEOUT = 120
MAX_OUT = 64 * 1024
SAFE_ENV_KEYS = ("PATH", "LANG", "LC_ALL", "TERM", "PYTHONPATH", "VIRTUAL_ENV")

TOOL_DESCRIPTION = (
    "Runs one allow-listed developer command in the project's scratch copy and returns exit code and output. "
    "Allowed: pytest, ruff, mypy, npm test/run, git status/diff/log/show. No shell: pipes, redirects, ';' and "
    "'&&' are not supported. Timeout 120 s; output truncated to 64 KB."
)


@dataclass
class Sandbox:
    project: Path
    copy: bool = True
    root: Path = field(init=False)
    _tmp: str | None = field(default=None, init=False)

    def __enter__(self) -> "Sandbox":
        if self.copy:
            self._tmp = tempfile.mkdtemp(prefix="agent-run-")
            self.root = Path(self._tmp) / self.project.name
            shutil.copytree(self.project, self.root, ignore=shutil.ignore_patterns(".git", "node_modules", ".venv", ".env*"))
        else:
            self.root = self.project.resolve()
        return self

    def __exit__(self, *exc) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def _env(self) -> dict[str, str]:
        env = {k: os.environ[k] for k in SAFE_ENV_KEYS if k in os.environ}
        env["HOME"] = str(self.root)
        return env

    def _check(self, argv: list[str]) -> str | None:
        if not argv:
            return "empty command"
        prog, rest = argv[0], argv[1:]
        if prog not in ALLOWED:
            return f"{prog!r} is not allowed; allowed: {', '.join(sorted(ALLOWED))}"
        subs = ALLOWED[prog]
        if subs is not None and (not rest or rest[0] not in subs):
            return f"{prog} only supports: {', '.join(sorted(subs))}"
        for a in rest:
            if a.startswith("-"):
                continue
            p = (self.root / a).resolve()
            if (os.sep in a or a.startswith("..")) and not p.is_relative_to(self.root):
                return f"path {a!r} leaves the project directory"
        return None

    def run(self, argv: list[str]) -> dict:
        if err := self._check(argv):
            return {"error": err}
        proc = subprocess.Popen(argv, cwd=self.root, env=self._env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=TIMEOUT)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            timed_out = True
        text = out.decode(errors="replace")
        if len(text) > MAX_OUT:
            text = text[: MAX_OUT // 2] + "\n... [truncated] ...\n" + text[-MAX_OUT // 2:]
        return {"exit_code": proc.returncode, "timed_out": timed_out, "output": text}
