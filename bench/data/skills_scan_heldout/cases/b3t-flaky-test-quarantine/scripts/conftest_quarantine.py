# Paste into tests/conftest.py. Adds @pytest.mark.quarantine(issue=..., owner=...).
import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--strict-quarantine",
        action="store_true",
        help="let quarantined tests fail the run (weekly health check)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "quarantine(issue, owner): known-flaky test, cannot fail CI")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--strict-quarantine"):
        return
    for item in items:
        mark = item.get_closest_marker("quarantine")
        if mark is None:
            continue
        issue = mark.kwargs.get("issue")
        if not issue:
            raise pytest.UsageError(f"{item.nodeid}: quarantine marker needs issue=")
        owner = mark.kwargs.get("owner", "unowned")
        # strict=False: a pass is reported as XPASS, not an error
        item.add_marker(pytest.mark.xfail(reason=f"quarantined ({owner}): {issue}", strict=False))


def pytest_terminal_summary(terminalreporter):
    xfailed = terminalreporter.stats.get("xfailed", [])
    quarantined = [r for r in xfailed if "quarantined" in str(getattr(r, "wasxfail", ""))]
    if quarantined:
        terminalreporter.section("quarantined failures")
        for r in quarantined:
            terminalreporter.write_line(f"{r.nodeid}  -> {r.wasxfail}")
