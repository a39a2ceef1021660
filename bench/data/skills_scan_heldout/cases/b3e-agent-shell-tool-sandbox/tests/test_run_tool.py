import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
from run_tool import Sandbox  # noqa: E402


def test_refuses_unlisted(tmp_path):
    with Sandbox(tmp_path, copy=False) as sb:
        assert "not allowed" in sb.run(["curl", "https://example.com"])["error"]
        assert "not allowed" in sb.run(["bash", "-c", "echo hi"])["error"]


def test_refuses_git_push(tmp_path):
    with Sandbox(tmp_path, copy=False) as sb:
        assert "only supports" in sb.run(["git", "push", "--force"])["error"]


def test_path_escape(tmp_path):
    with Sandbox(tmp_path, copy=False) as sb:
        assert "leaves the project" in sb.run(["pytest", "../../etc"])["error"]


def test_secrets_not_inherited(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "test-value")
    with Sandbox(tmp_path, copy=False) as sb:
        assert "GITHUB_TOKEN" not in sb._env()


def test_scratch_removed(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    with Sandbox(tmp_path) as sb:
        scratch = sb.root.parent
        assert (sb.root / "a.py").exists()
    assert not scratch.exists()
