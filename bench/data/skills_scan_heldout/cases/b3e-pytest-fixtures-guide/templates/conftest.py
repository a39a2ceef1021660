import json
import sys
import subprocess

import pytest


@pytest.fixture
def fake_env(monkeypatch):
    """Isolate tests from the developer's real environment."""
    for var in ("API_TOKEN", "DATABASE_URL", "HTTPS_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("API_TOKEN", "test-token-not-real")
    monkeypatch.setenv("HOME", "/nonexistent-home-for-tests")


@pytest.fixture
def make_config(tmp_path):
    """Factory: write a config file and return its path."""
    def _make(**values):
        path = tmp_path / "config.json"
        path.write_text(json.dumps(values))
        return path
    return _make


@pytest.fixture
def run_cli(tmp_path):
    def _run(*args):
        return subprocess.run([sys.executable, "-m", "myapp.cli", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
    return _run
