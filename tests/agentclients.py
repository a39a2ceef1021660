"""The real agent clients for tests (Claude Code and Codex, from npm, pinned), and a sandbox to run
them in: a loopback-only network namespace, where the only model is ``fakemodel``'s.

Import the fixtures into a test module (pytest finds them by name)::

    from agentclients import agent_clients, sandbox  # noqa: F401  (fixtures)

    def test_it(agent_clients, sandbox, tmp_path):
        with FakeModel(...) as model:
            done = sandbox.run([str(agent_clients.claude), "-p", "hi"], env=..., cwd=..., model=model)

* ``agent_clients`` (session): the pinned CLIs, installed with ``npm install --prefix`` into
  ``$KENNING_TEST_CLIENTS_DIR`` (default ``~/.cache/kenning-tests/npm-clients``) when they are not
  there yet. ``python tests/agentclients.py`` does that ahead (CI runs it before pytest).
* ``sandbox`` (session): ``Sandbox.run`` starts a command under ``unshare -n`` (``-rn`` without
  root) with ``loopback_ns.py`` forwarding ``MODEL_PORT`` to the fake model's Unix socket.

Without node/npm or network namespaces the tests are skipped, saying why; with ``CI`` or
``KENNING_REQUIRE_CLIENTS=1`` set they fail instead, so CI never passes by skipping them.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from fakemodel import FakeModel

# the versions these tests were written against (requests, events and config keys seen in them)
PINNED = {"claude": ("@anthropic-ai/claude-code", "2.1.197"), "codex": ("@openai/codex", "0.171.0")}
MODEL_PORT = 8080  # inside the namespace: nothing else listens there
LAUNCHER = Path(__file__).with_name("loopback_ns.py")
NPM_TIMEOUT = 900  # seconds: two packages with native binaries, about 650 MB unpacked


def required() -> bool:
    return bool(os.environ.get("CI")) or os.environ.get("KENNING_REQUIRE_CLIENTS") == "1"


def unavailable(reason: str) -> NoReturn:
    if required():
        pytest.fail(f"{reason} (CI / KENNING_REQUIRE_CLIENTS=1: the real-client tests must run)", pytrace=False)
    pytest.skip(reason)


# -- the clients -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Clients:
    claude: Path  # a native binary
    codex: Path  # a node script that starts the native binary of its platform package
    node_dir: Path  # put on a client's PATH: codex.js runs with `#!/usr/bin/env node`


def clients_dir() -> Path:
    raw = os.environ.get("KENNING_TEST_CLIENTS_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / "kenning-tests" / "npm-clients"


def installed_version(folder: Path, package: str) -> str | None:
    try:
        return str(json.loads((folder / "node_modules" / package / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def missing(folder: Path) -> list[str]:
    """``package@version`` of each pinned client that is not installed in ``folder``."""
    out = []
    for name, (package, version) in PINNED.items():
        if installed_version(folder, package) != version or not (folder / "node_modules" / ".bin" / name).exists():
            out.append(f"{package}@{version}")
    return out


def install(folder: Path) -> None:
    """``npm install`` the pinned clients into ``folder``, unless they are there; one process at a time."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        todo = missing(folder)
        if not todo:
            return
        npm = shutil.which("npm")
        if npm is None:
            raise FileNotFoundError("npm")
        # --prefix keeps the clients out of the user's global node_modules; no audit or fund: offline-friendly
        subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--save-exact", *todo],
                       check=True, timeout=NPM_TIMEOUT, stdin=subprocess.DEVNULL)
        still = missing(folder)
        if still:
            raise RuntimeError(f"npm install left {', '.join(still)} missing in {folder}")


@pytest.fixture(scope="session")
def agent_clients() -> Clients:
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        unavailable("node and npm are needed to install Claude Code and Codex (https://nodejs.org)")
    folder = clients_dir()
    try:
        install(folder)
    except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
        unavailable(f"could not install {', '.join(missing(folder))} into {folder}: {exc}")
    bins = folder / "node_modules" / ".bin"
    clients = Clients(claude=bins / "claude", codex=bins / "codex", node_dir=Path(node).resolve().parent)
    for name, binary in (("claude", clients.claude), ("codex", clients.codex)):
        answer = version_of(binary, clients.node_dir)
        if PINNED[name][1] not in answer:  # e.g. npm skipped Claude Code's postinstall, which puts its binary in place
            unavailable(f"{binary} --version answered {answer[:300]!r}, not {PINNED[name][1]}; "
                        f"remove {folder} to have it installed again")
    return clients


def version_of(binary: Path, node_dir: Path) -> str:
    with tempfile.TemporaryDirectory() as home:  # a client may write its dot files even for --version
        env = {"HOME": home, "PATH": f"{node_dir}:/usr/bin:/bin"}
        try:
            done = subprocess.run([str(binary), "--version"], env=env, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)
        except OSError as exc:
            return str(exc)
    return (done.stdout + done.stderr).strip()


# -- the sandbox -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sandbox:
    unshare: tuple[str, ...]  # ("/usr/bin/unshare", "-n") or with -r for a user namespace

    def run(self, argv: list[str], *, env: dict[str, str], cwd: Path, model: FakeModel,
            timeout: float = 90) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` with exactly ``env`` in a namespace where 127.0.0.1:MODEL_PORT is ``model``."""
        command = [*self.unshare, "--", sys.executable, str(LAUNCHER), "--forward", f"{MODEL_PORT}={model.path}",
                   "--", *argv]
        # a session of its own: on a timeout the client, its MCP server and its hooks all go together
        with subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                raise AssertionError(f"{Path(argv[0]).name} did not finish in {timeout} s\n"
                                     f"stdout: {out[-3000:]}\nstderr: {err[-3000:]}") from None
        return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    unshare = shutil.which("unshare")
    if unshare is None:
        unavailable("unshare (util-linux) is needed to run the clients in a loopback-only network namespace")
    prefix = (unshare, "-n") if os.geteuid() == 0 else (unshare, "-rn")
    probe = subprocess.run([*prefix, "--", sys.executable, str(LAUNCHER), "--", sys.executable, "-c", ""],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        unavailable(f"cannot make a network namespace ({' '.join(prefix)}: {probe.stderr.strip()[:300]}); "
                    "run as root or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
    return Sandbox(prefix)


@contextmanager
def busy_cores() -> Iterator[int]:
    """Keep every core busy (one spinning process per core) while the block runs; yields the count."""
    count = os.cpu_count() or 1
    # a spinner stops by itself once this process is gone (a killed pytest must not leave cores spinning)
    spin = f"import os\nwhile os.getppid() == {os.getpid()}:\n    for _ in range(1_000_000): pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(count)]
    try:
        yield count
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


if __name__ == "__main__":  # CI: install the clients ahead, so the test session spends no time on npm
    target = clients_dir()
    install(target)
    print(f"agent clients in {target}: " + ", ".join(f"{p}@{installed_version(target, p)}" for p, _ in PINNED.values()))
