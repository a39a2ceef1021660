"""`kenning install` / `uninstall` on real config files (HOME and the project under tmp_path). The
hooks they install are tested in test_hooks.py."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.integrations import clients
from kenning.integrations.install import install, uninstall

PORTABLE_ENTRY = {"command": "kenning", "args": ["mcp"]}  # what a shared file gets


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's home folder (Path.home() reads HOME)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


@pytest.fixture
def proj(tmp_path: Path, home: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args), prog_name="kenning")
    assert result.exit_code == code, result.output + repr(result.exception)
    return result


def run_json(*args: str) -> Any:
    return json.loads(run(*args, "--json").stdout)


def write(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def backups(path: Path) -> list[Path]:
    """The copies of ``path`` install kept in $KENNING_HOME/backups (none may be beside it)."""
    assert not list(path.parent.glob("*kenning-backup*"))
    sidecars = sorted(Path(os.environ["KENNING_HOME"]).glob("backups/*.json"))
    return [s.with_suffix("") for s in sidecars if json.loads(s.read_text()).get("original") == str(path)]


def kenning_entry(isolated_home: Path, **extra: Any) -> dict[str, Any]:
    """What a personal install writes: this kenning by absolute path, told the chosen data directory."""
    return {**extra, "command": clients.this_kenning().argv[0], "args": ["mcp"],
            "env": {"KENNING_HOME": str(isolated_home.resolve())}}


MCP_JSON = """{
    "mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
    }
}
"""

SETTINGS_JSON = """{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'branch: main'"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./check.sh"
          }
        ]
      }
    ]
  }
}"""

CODEX_TOML = """# Codex settings
model = "gpt-5"  # the default model

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]   # keep this comment

[mcp_servers.docs.env]
TOKEN = "x"

# projects I trust
[projects."/home/me/work"]
trust_level = "trusted"
notes = '''
[mcp_servers.kenning]
this is text, not a table
'''
"""


# -- Claude Code ---------------------------------------------------------------------------------------


def test_claude_code_shared_round_trip_leaves_the_files_byte_identical(proj: Path, isolated_home: Path) -> None:
    mcp = write(proj / ".mcp.json", MCP_JSON)
    settings = write(proj / ".claude" / "settings.json", SETTINGS_JSON)

    report = run_json("install", "claude-code", "--shared", "--project", str(proj))

    assert report["changed"] and report["scope"] == "project"
    servers = json.loads((proj / ".mcp.json").read_text())["mcpServers"]
    assert servers["github"]["command"] == "npx"
    assert servers["kenning"] == {"type": "stdio", **PORTABLE_ENTRY, "alwaysLoad": True}  # no personal path
    data = json.loads((proj / ".claude" / "settings.json").read_text())
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(npm test)"]}
    assert data["env"] == {"MCP_CONNECT_TIMEOUT_MS": "15000"}  # how long Claude Code waits for an alwaysLoad server
    session_start = data["hooks"]["SessionStart"]
    assert session_start[0]["hooks"][0]["command"] == "echo 'branch: main'"  # the user's hook stays first
    assert "hook session-start --budget" in session_start[1]["hooks"][0]["command"]
    assert "matcher" not in session_start[1]  # fires on startup, resume, clear and compact
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"] == (
        "command -v kenning >/dev/null 2>&1 || exit 0; kenning hook pre-compact")
    end = data["hooks"]["SessionEnd"][0]["hooks"][0]
    assert end["command"].endswith("hook session-end") and end["timeout"] == 60
    assert data["hooks"]["PreToolUse"] == json.loads(SETTINGS_JSON)["hooks"]["PreToolUse"]
    assert (proj / ".mcp.json").read_text().startswith('{\n    "mcpServers"')  # the file's own indentation
    assert [b.read_bytes() for b in backups(proj / ".mcp.json")] == [mcp]
    assert [b.read_bytes() for b in backups(proj / ".claude" / "settings.json")] == [settings]

    report = run_json("uninstall", "claude-code", "--shared", "--project", str(proj))

    assert {c["action"] for f in report["files"] for c in f["changes"]} == {"removed"}
    assert (proj / ".mcp.json").read_bytes() == mcp
    assert (proj / ".claude" / "settings.json").read_bytes() == settings
    assert json.loads((isolated_home / "integrations.json").read_text())["installs"] == {}


def test_claude_code_user_scope_uses_claude_json_and_user_settings(home: Path, isolated_home: Path) -> None:
    claude_json = write(home / ".claude.json", json.dumps(
        {"numStartups": 12, "projects": {"/w": {"allowedTools": []}}, "mcpServers": {"db": {"command": "db-mcp"}}},
        indent=2))

    run("install", "claude-code", "--scope", "user")

    data = json.loads((home / ".claude.json").read_text())
    assert data["numStartups"] == 12 and data["mcpServers"]["db"] == {"command": "db-mcp"}
    assert data["mcpServers"]["kenning"] == kenning_entry(isolated_home, type="stdio", alwaysLoad=True)
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "PreCompact", "SessionEnd"}
    assert not (home / ".claude.json").read_bytes().endswith(b"\n")  # written like the file was (no final newline)

    run("uninstall", "claude-code", "--scope", "user")

    assert (home / ".claude.json").read_bytes() == claude_json
    assert not (home / ".claude").exists()  # created by install, empty again: removed


# -- Cursor and Codex ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["project", "user"])
def test_cursor_round_trip_for_each_scope(scope: str, proj: Path, home: Path, isolated_home: Path) -> None:
    path = (proj if scope == "project" else home) / ".cursor" / "mcp.json"
    browser = {"browser": {"url": "http://localhost:3000/mcp"}}
    original = write(path, json.dumps({"mcpServers": browser}, indent="\t") + "\n")

    run("install", "cursor", "--scope", scope, "--project", str(proj))

    servers = json.loads(path.read_text())["mcpServers"]
    assert servers == {**browser, "kenning": PORTABLE_ENTRY if scope == "project" else kenning_entry(isolated_home)}
    assert "\n\t\t\"kenning\"" in path.read_text()  # tabs, as the file had them

    run("uninstall", "cursor", "--scope", scope, "--project", str(proj))

    assert path.read_bytes() == original


def test_cursor_install_into_a_project_without_config_is_fully_undone(proj: Path) -> None:
    run("install", "cursor", "--shared", "--project", str(proj))
    assert json.loads((proj / ".cursor" / "mcp.json").read_text())["mcpServers"]["kenning"]["args"] == ["mcp"]

    run("uninstall", "cursor", "--shared", "--project", str(proj))

    assert list(proj.iterdir()) == []


def test_codex_appends_its_table_and_keeps_every_other_byte(home: Path, isolated_home: Path) -> None:
    path = home / ".codex" / "config.toml"
    original = write(path, CODEX_TOML)

    run("install", "codex")

    text = path.read_text()
    assert text.startswith(CODEX_TOML)  # appended: nothing above was rewritten
    config = tomllib.loads(text)
    assert config["mcp_servers"]["kenning"] == kenning_entry(isolated_home, required=True, startup_timeout_sec=30)
    assert config["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-mcp"], "env": {"TOKEN": "x"}}
    assert "[mcp_servers.kenning]" in config["projects"]["/home/me/work"]["notes"]

    run("uninstall", "codex")

    assert path.read_bytes() == original


def test_codex_replaces_a_table_of_the_same_name_and_puts_it_back(home: Path, isolated_home: Path) -> None:
    theirs = ('[mcp_servers.kenning]\ncommand = "/opt/old/kenning"\nargs = ["serve"]\n'
              '[mcp_servers.kenning.env]\nX = "1"\n')
    before, after = CODEX_TOML.split("# projects I trust\n")
    path = home / ".codex" / "config.toml"
    original = write(path, before + theirs + "\n# projects I trust\n" + after)

    report = run_json("install", "codex")

    assert report["files"][0]["changes"] == [{"change": "[mcp_servers.kenning]", "action": "replaced"}]
    text = path.read_text()
    assert text.startswith(before) and text.endswith("\n# projects I trust\n" + after)
    assert tomllib.loads(text)["mcp_servers"]["kenning"] == kenning_entry(isolated_home, required=True,
                                                                          startup_timeout_sec=30)

    report = run_json("uninstall", "codex")

    assert report["files"][0]["changes"][0]["action"] == "restored"
    assert path.read_bytes() == original


def test_codex_project_scope_writes_the_projects_codex_config(proj: Path) -> None:
    run("install", "codex", "--scope", "project", "--project", str(proj))
    config = tomllib.loads((proj / ".codex" / "config.toml").read_text())
    # portable, and not required: Codex would refuse to start for a teammate without kenning
    assert config["mcp_servers"]["kenning"] == {**PORTABLE_ENTRY, "startup_timeout_sec": 30}

    run("uninstall", "codex", "--scope", "project", "--project", str(proj))

    assert not (proj / ".codex").exists()


# -- safety --------------------------------------------------------------------------------------------


def test_installing_twice_changes_nothing_the_second_time(proj: Path, isolated_home: Path) -> None:
    write(proj / ".mcp.json", MCP_JSON)
    run("install", "claude-code", "--shared", "--project", str(proj))
    files = [proj / ".mcp.json", proj / ".claude" / "settings.json", isolated_home / "integrations.json"]
    state = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    saved = backups(proj / ".mcp.json")

    report = run_json("install", "claude-code", "--shared", "--project", str(proj))

    assert not report["changed"]
    assert {c["action"] for f in report["files"] for c in f["changes"]} == {"unchanged"}
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == state
    assert backups(proj / ".mcp.json") == saved
    assert "already installed" in run("install", "claude-code", "--shared", "--project", str(proj)).stdout


@pytest.mark.parametrize("client, name, text", [
    ("claude-code", ".mcp.json", '{"mcpServers": {"github": {"command": "npx",}}}'),
    ("claude-code", ".mcp.json", '{"mcpServers": {"a": {}}, "mcpServers": {"b": {}}}'),
    ("cursor", ".cursor/mcp.json", '{"mcpServers": ["not", "an", "object"]}'),
    ("codex", ".codex/config.toml", 'model = "gpt-5"\n[mcp_servers.docs\ncommand = "npx"\n'),
])
def test_a_malformed_config_is_refused_and_left_untouched(client: str, name: str, text: str, proj: Path,
                                                          isolated_home: Path) -> None:
    path = proj / name
    original = write(path, text)
    result = run("install", client, "--shared", "--project", str(proj), code=2)

    assert str(path) in result.output and "Error:" in result.output
    assert path.read_bytes() == original
    assert backups(path) == []
    assert not (proj / ".claude").exists()  # refused before any other file of the install was written
    assert not (isolated_home / "integrations.json").exists()


def test_uninstall_keeps_the_edits_made_since_install(proj: Path) -> None:
    write(proj / ".mcp.json", MCP_JSON)
    write(proj / ".claude" / "settings.json", SETTINGS_JSON)
    run("install", "claude-code", "--shared", "--project", str(proj))
    mcp = json.loads((proj / ".mcp.json").read_text())
    mcp["mcpServers"]["sentry"] = {"command": "sentry-mcp"}
    (proj / ".mcp.json").write_text(json.dumps(mcp, indent=2))  # the user's editor rewrites the whole file
    settings = json.loads((proj / ".claude" / "settings.json").read_text())
    settings["theme"] = "dark"
    settings["hooks"]["SessionEnd"].append({"hooks": [{"type": "command", "command": "notify-send bye"}]})
    settings["hooks"]["PreCompact"][0]["hooks"][0]["timeout"] = 300  # the user tuned kenning's own hook
    mine = {"type": "command", "command": "git status --short"}
    settings["hooks"]["SessionStart"][1]["hooks"].append(mine)  # ... and put a handler of theirs in its group
    (proj / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))

    report = run_json("uninstall", "claude-code", "--shared", "--project", str(proj))

    actions = {c["change"]: c["action"] for f in report["files"] for c in f["changes"]}
    assert actions == {"mcpServers.kenning": "removed", "env.MCP_CONNECT_TIMEOUT_MS": "removed",
                       "hooks.SessionStart": "removed",
                       "hooks.PreCompact": "kept: changed since install", "hooks.SessionEnd": "removed"}
    servers = json.loads((proj / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"github", "sentry"}
    after = json.loads((proj / ".claude" / "settings.json").read_text())
    assert after["theme"] == "dark" and after["model"] == "opus"
    assert after["hooks"]["SessionEnd"] == [{"hooks": [{"type": "command", "command": "notify-send bye"}]}]
    assert after["hooks"]["SessionStart"] == [*json.loads(SETTINGS_JSON)["hooks"]["SessionStart"], {"hooks": [mine]}]
    assert after["hooks"]["PreCompact"][0]["hooks"][0]["timeout"] == 300  # no longer what install wrote: kept


def test_uninstall_puts_back_a_value_install_replaced(proj: Path) -> None:
    theirs = {"command": "/opt/old/kenning", "args": ["serve"]}
    write(proj / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"kenning": theirs}}, indent=2))
    report = run_json("install", "cursor", "--shared", "--project", str(proj))
    assert report["files"][0]["changes"] == [{"change": "mcpServers.kenning", "action": "replaced"}]
    data = json.loads((proj / ".cursor" / "mcp.json").read_text())
    data["mcpServers"]["other"] = {"command": "other-mcp"}
    (proj / ".cursor" / "mcp.json").write_text(json.dumps(data))

    run("uninstall", "cursor", "--shared", "--project", str(proj))

    assert json.loads((proj / ".cursor" / "mcp.json").read_text()) == {
        "mcpServers": {"kenning": theirs, "other": {"command": "other-mcp"}}}


def test_an_updated_install_keeps_edits_made_between_the_installs(proj: Path, home: Path, isolated_home: Path) -> None:
    path = home / ".cursor" / "mcp.json"
    install("cursor", "user", proj, isolated_home, None)
    data = json.loads(path.read_text())
    data["mcpServers"]["other"] = {"command": "other-mcp"}
    path.write_text(json.dumps(data, indent=2) + "\n")

    report = install("cursor", "user", proj, isolated_home, Path("/srv/kenning"))  # e.g. another data directory

    assert report.files[0].changes == [{"change": "mcpServers.kenning", "action": "updated"}]
    uninstall("cursor", "user", proj, isolated_home)
    assert json.loads(path.read_text()) == {"mcpServers": {"other": {"command": "other-mcp"}}}


def test_dry_run_and_generic_write_nothing(proj: Path, home: Path, isolated_home: Path) -> None:
    report = run_json("install", "claude-code", "--project", str(proj), "--dry-run")
    assert report["dry_run"] and report["changed"]
    assert {c["action"] for f in report["files"] for c in f["changes"]} == {"added"}

    generic = json.loads(run("install", "generic").stdout)

    assert generic == {"mcpServers": {"kenning": kenning_entry(isolated_home)}}
    assert list(proj.iterdir()) == [] and list(home.iterdir()) == []
    assert not isolated_home.exists()


def test_uninstall_of_what_was_never_installed_says_so(proj: Path) -> None:
    result = run("uninstall", "cursor", "--shared", "--project", str(proj), code=1)
    assert "was not installed" in result.output and "integrations.json" in result.output


# -- backups -------------------------------------------------------------------------------------------


def test_backups_are_kept_in_the_data_directory_naming_their_original(home: Path, isolated_home: Path) -> None:
    path = home / ".cursor" / "mcp.json"
    original = write(path, '{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GH_TOKEN": "ghp_x"}}}}\n')

    run("install", "cursor")

    [copy] = backups(path)
    assert copy.read_bytes() == original and copy.parent == isolated_home / "backups"
    assert copy.stat().st_mode & 0o777 == 0o600 and copy.parent.stat().st_mode & 0o777 == 0o700  # it holds tokens
    sidecar = json.loads(copy.with_name(copy.name + ".json").read_text())
    assert sidecar["original"] == str(path) and len(sidecar["sha256"]) == 64


def test_prune_keeps_what_uninstall_restores_from_and_the_newest_few(tmp_path: Path) -> None:
    from datetime import timedelta

    from kenning.integrations import backups as copies
    from kenning.timeutil import utcnow

    data, original = tmp_path / "data", tmp_path / "settings.json"
    saved = [copies.save(data, original, f"v{i}".encode()) for i in range(8)]

    removed = copies.prune(data, keep={str(saved[0])})

    assert sorted(removed) == sorted(saved[1:3])  # beyond the newest five, and not needed by an install
    assert copies.prune(data, keep={str(saved[0])}, now=utcnow() + timedelta(days=copies.KEEP_DAYS + 1)) == \
        sorted(saved[3:], reverse=True)
    assert [p for p in (data / "backups").iterdir() if not p.name.endswith(".json.json")] == [saved[0]]


def test_a_backup_an_older_kenning_left_in_the_project_is_moved_out_on_uninstall(proj: Path,
                                                                                  isolated_home: Path) -> None:
    path = proj / ".cursor" / "mcp.json"
    original = write(path, '{"mcpServers": {}}\n')
    run("install", "cursor", "--shared", "--project", str(proj))
    [copy] = backups(path)
    legacy = path.with_name("mcp.json.kenning-backup-20260101T000000Z")  # where kenning 0.1 put it
    copy.rename(legacy)
    manifest = json.loads((isolated_home / "integrations.json").read_text())
    [entry] = manifest["installs"].values()
    entry["files"][str(path)]["backup"] = str(legacy)
    (isolated_home / "integrations.json").write_text(json.dumps(manifest))

    run("uninstall", "cursor", "--shared", "--project", str(proj))

    assert path.read_bytes() == original
    assert not legacy.exists() and [c.read_bytes() for c in backups(path)] == [original]


# -- layout ----------------------------------------------------------------------------------------------


def test_install_and_uninstall_change_only_kennings_entry_in_the_users_text(home: Path, proj: Path) -> None:
    """Claude Code rewrites ~/.claude.json while kenning is installed; uninstall then takes out only
    kenning's entry, and the user's inline arrays and spacing are never re-laid out."""
    path = home / ".claude.json"
    root = str(proj.resolve())
    user_text = ('{\n  "numStartups": 3,\n  "tipsHistory": {"a": 1, "b": 2},\n  "projects": {\n    "%s": '
                 '{"allowedTools": ["Bash(ls)", "Read"], "history": []}\n  }\n}' % root)
    write(path, user_text)

    run("install", "claude-code", "--project", str(proj))

    text = path.read_text()
    assert text.startswith(user_text[:user_text.index('"history": []') + len('"history": []')])
    assert json.loads(text)["projects"][root]["mcpServers"]["kenning"]["command"] == clients.this_kenning().argv[0]
    path.write_text(text.replace('"numStartups": 3', '"numStartups": 4'))  # the client writes the file meanwhile

    report = run_json("uninstall", "claude-code", "--project", str(proj))

    assert report["files"][0]["changes"] == [{"change": f"projects.{root}.mcpServers.kenning", "action": "removed"}]
    assert path.read_text() == user_text.replace('"numStartups": 3', '"numStartups": 4')


def test_a_connect_timeout_the_user_set_is_left_as_it_is(proj: Path) -> None:
    settings = write(proj / ".claude" / "settings.local.json", '{"env": {"MCP_CONNECT_TIMEOUT_MS": "60000"}}\n')

    report = run_json("install", "claude-code", "--project", str(proj))

    actions = {c["change"]: c["action"] for f in report["files"] for c in f["changes"]}
    assert actions["env.MCP_CONNECT_TIMEOUT_MS"] == "kept: set by you"
    assert json.loads((proj / ".claude" / "settings.local.json").read_text())["env"] == {
        "MCP_CONNECT_TIMEOUT_MS": "60000"}
    run("uninstall", "claude-code", "--project", str(proj))
    assert (proj / ".claude" / "settings.local.json").read_bytes() == settings


def test_install_says_when_the_client_would_not_see_the_shells_database(
        proj: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    team = "postgresql://kenning:s3cret@db.internal/kenning"
    monkeypatch.setenv("KENNING_DATABASE_URL", team)
    out = run_json("install", "claude-code", "--project", str(proj), "--no-check")
    note = next(n for n in out["notes"] if "KENNING_DATABASE_URL" in n)
    assert "postgresql://kenning:***@db.internal/kenning" in note and "s3cret" not in json.dumps(out)
    assert str(isolated_home / "kenning.db") in note and str(isolated_home / "kenning.toml") in note
    # the URL is never written into the client's files (it may hold a password)
    assert "db.internal" not in (Path(os.environ["HOME"]) / ".claude.json").read_text()

    monkeypatch.delenv("KENNING_DATABASE_URL")
    local = run_json("--db", str(proj / "other.db"), "install", "claude-code", "--project", str(proj), "--no-check")
    assert any("--db" in n and "other.db" in n for n in local["notes"])

    # the same database named in kenning.toml: the client's kenning opens it too, nothing to say
    write(isolated_home / "kenning.toml", f'[store]\nurl = "{team}"\n')
    monkeypatch.setenv("KENNING_DATABASE_URL", team)
    again = run_json("install", "claude-code", "--project", str(proj), "--no-check")
    assert not any("KENNING_DATABASE_URL" in n for n in again["notes"])
    write(isolated_home / "kenning.toml", '[store]\nurl = "team.db"\n')
    other = run_json("install", "claude-code", "--project", str(proj), "--no-check")
    assert any("[store] url of" in n and "team.db" in n for n in other["notes"])
