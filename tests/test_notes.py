"""Daily notes, HISTORY.md and the archive: the file format, search by words and meaning limited by
date, archive / restore without losing a byte, hostile input, hand edits, two writing processes."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.errors import InvalidInput, NotFound, StoreError
from kenning.text import query_words, segment
from kenning.tiers.notes import Notes

TODAY = dt.date.today()


def ago(days: int) -> dt.date:
    return TODAY - dt.timedelta(days=days)


def tree(home: Path) -> dict[str, bytes]:
    """Every file under the data directory but the database (whose WAL a read may touch; the
    audit count checks the database)."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file() and not p.name.startswith("kenning.db")}


def audit_actions(kb: Kenning) -> list[str]:
    return [e.action for e in kb.audit(limit=5000) if e.kind == "note"]


@pytest.fixture
def notes(kb: Kenning) -> Notes:
    return kb.notes


# -- writing and reading ------------------------------------------------------------------------------


def test_entries_are_appended_to_the_days_file_as_readable_markdown(kb: Kenning, notes: Notes) -> None:
    first = notes.write("Deployed the web app.", dt.datetime(2026, 11, 29, 9, 14))
    second = notes.write("Rollback at noon.\n\nThe health check had failed.", dt.datetime(2026, 11, 29, 12, 3))
    path = kb.home / "daily" / "2026-11-29.md"
    assert path.read_text() == ("# 2026-11-29\n\n## 09:14\nDeployed the web app.\n\n"
                                "## 12:03\nRollback at noon.\n\nThe health check had failed.\n")
    assert [n.id for n in first] == ["daily/2026-11-29.md#1"]
    assert [n.id for n in second] == ["daily/2026-11-29.md#2", "daily/2026-11-29.md#3"]
    assert notes.read("2026-11-29") == path.read_text()
    got = notes.get("daily/2026-11-29.md#3")
    assert (got.text, got.date, got.time, got.source, got.path) == (
        "The health check had failed.", dt.date(2026, 11, 29), dt.time(12, 3), "daily", "daily/2026-11-29.md")
    assert got.to_dict()["time"] == "12:03" and got.to_dict()["date"] == "2026-11-29"


def test_a_day_can_be_given_as_date_text_or_datetime_and_defaults_to_today(kb: Kenning, notes: Notes) -> None:
    notes.write("as a date", dt.date(2026, 1, 5))
    notes.write("as text", " 2026-01-06 ")
    notes.write("aware datetime", dt.datetime(2026, 1, 7, 8, 30).astimezone())
    [today] = notes.write("no date at all")
    assert {p.name for p in (kb.home / "daily").iterdir()} == {
        "2026-01-05.md", "2026-01-06.md", "2026-01-07.md", f"{dt.date.today().isoformat()}.md"}
    assert today.date == dt.date.today()
    assert "## 08:30\naware datetime" in notes.read(dt.date(2026, 1, 7))


@pytest.mark.parametrize("day", ["../../etc", "2026-13-45", "2026-02-30", "2026/11/29", "", "2026-11-29/../x",
                                 20261129, None])
def test_a_bad_day_is_refused_and_nothing_is_written(kb: Kenning, notes: Notes, day: object) -> None:
    with pytest.raises(InvalidInput):
        if day is None:
            notes.read(day)  # type: ignore[arg-type]
        else:
            notes.write("hello", day)  # type: ignore[arg-type]
    assert not (kb.home / "daily").exists() and not (kb.home.parent / "etc").exists()


@pytest.mark.parametrize("text", ["", "   \n ", "a\x00b", "x" * 100_001, 42])
def test_empty_nul_huge_or_non_text_notes_are_refused(kb: Kenning, notes: Notes, text: object) -> None:
    with pytest.raises(InvalidInput):
        notes.write(text, "2026-11-29")  # type: ignore[arg-type]
    assert not (kb.home / "daily").exists()
    assert audit_actions(kb) == []


def test_history_gets_one_stamped_paragraph_per_consolidation(kb: Kenning, notes: Notes) -> None:
    a = notes.history_append("Merged three facts about deploys.", dt.datetime(2026, 11, 29, 18, 5))
    b = notes.history_append("[2026-11-30 07:00] Kept its own stamp.\n\nand its second part")
    text = (kb.home / "HISTORY.md").read_text()
    assert text == ("[2026-11-29 18:05] Merged three facts about deploys.\n\n"
                    "[2026-11-30 07:00] Kept its own stamp.\nand its second part\n")
    assert (a.id, a.text, a.date, a.time, a.source) == (
        "HISTORY.md#1", "Merged three facts about deploys.", dt.date(2026, 11, 29), dt.time(18, 5), "history")
    assert notes.get(b.id) == b and b.date == dt.date(2026, 11, 30)
    with pytest.raises(InvalidInput, match="only a time stamp"):
        notes.history_append("[2026-11-30 07:00]")
    with pytest.raises(InvalidInput):
        notes.history_append("fine", when="yesterday")  # type: ignore[arg-type]


# -- search ------------------------------------------------------------------------------------------

ENGLISH = ["The cat knocked the coffee mug off my desk this morning.",
           "Renewed the car insurance with a cheaper provider.",
           "Alice moved the team standup to half past ten."]
CHINESE = ["服务器磁盘满了，清理了三个月前的旧日志。", "周五下午和客户开会讨论合同条款。", "午饭吃了一碗牛肉面。"]


@pytest.mark.parametrize("query, expected", [
    ("my pet broke a cup", ENGLISH[0]),
    ("vehicle policy", ENGLISH[1]),
    ("硬盘空间不够了", CHINESE[0]),
    ("和顾客谈协议", CHINESE[1]),
])
def test_a_note_is_found_by_meaning_without_shared_words(notes: Notes, query: str, expected: str) -> None:
    for i, text in enumerate(ENGLISH + CHINESE):
        notes.write(text, ago(i))
    shared = set(query_words(query)) & set(" ".join(segment(t) for t in ENGLISH + CHINESE).split())
    assert not shared, "the query must share no word with the notes: this checks meaning alone"
    # the ranking by meaning alone, without the relevance floor: a two-word paraphrase ("vehicle
    # policy" for the car insurance note) is ranked first but rated 0.003, below the floor of 0.01
    hits = notes.search(query, k=3, min_relevance=0)
    assert hits[0].text == expected
    assert hits[0].why.startswith("meaning: cosine") and "words" not in hits[0].why


def test_shared_words_count_as_in_recall(notes: Notes) -> None:
    notes.write("nginx proxy_read_timeout defaults to 60s", ago(1))
    notes.write("The websocket dropped after exactly one minute.", ago(2))
    hit = notes.search("proxy_read_timeout", k=1)[0]
    assert hit.text.startswith("nginx") and "words: proxy_read_timeout" in hit.why
    assert 0 < hit.score <= 1 and hit.to_dict()["why"] == hit.why


def test_days_back_really_limits_daily_notes_and_history(notes: Notes) -> None:
    notes.write("Database failover drill went well.", ago(3))
    notes.write("Database failover drill failed: replica lagged.", ago(40))
    old = dt.datetime.combine(ago(100), dt.time(9, 0))
    notes.history_append("Learned that the database failover drill needs a lag check.", old)
    found = {h.text for h in notes.search("database failover drill", days_back=30)}
    assert found == {"Database failover drill went well."}
    assert len(notes.search("database failover drill", days_back=60)) == 2
    everything = notes.search("database failover drill", days_back=None)
    assert {h.source for h in everything} == {"daily", "history"} and len(everything) == 3
    assert notes.search("database failover drill", days_back=None, include_history=False)[0].source == "daily"
    # ``today`` moves the window's start: 30 days before 45 days ago keeps the 40-day-old note and
    # still leaves out the history paragraph of 100 days ago
    shifted = notes.search("database failover drill", days_back=30, today=ago(45))
    assert {h.date for h in shifted} == {ago(3), ago(40)}
    assert notes.search("database failover drill", days_back=0) == []  # nothing written today


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"k": True}, {"days_back": -1}, {"days_back": "30"}])
def test_bad_search_arguments_are_refused(notes: Notes, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        notes.search("anything", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        notes.search("   ")


def test_search_over_no_notes_is_empty(notes: Notes) -> None:
    assert notes.search("anything at all") == []


# -- hostile ids and hand edits ----------------------------------------------------------------------


@pytest.mark.parametrize("note_id", ["../../etc/passwd#1", "daily/../../etc/passwd.md#1", "daily/2026-13-45.md#1",
                                     "/etc/HISTORY.md#1", "HISTORY.md", "HISTORY.md#0", "HISTORY.md#-1",
                                     "daily/2026-11-29.md#1/../x", "archive/daily/2026-11-29.md#1", 7])
def test_a_malformed_or_traversing_note_id_is_refused(notes: Notes, note_id: object) -> None:
    with pytest.raises(InvalidInput):
        notes.get(note_id)  # type: ignore[arg-type]


def test_an_unknown_note_id_is_not_found_and_says_where_the_day_went(notes: Notes) -> None:
    notes.write("one paragraph", "2026-11-29")
    with pytest.raises(NotFound, match="has 1 paragraphs"):
        notes.get("daily/2026-11-29.md#2")
    with pytest.raises(NotFound):
        notes.get("HISTORY.md#1")
    notes.archive(30, today="2027-06-01")
    with pytest.raises(NotFound, match="archive/daily/2026-11-29.md.gz"):
        notes.get("daily/2026-11-29.md#1")
    assert notes.get("archive/daily/2026-11-29.md.gz#1").text == "one paragraph"


def test_a_hand_edited_file_is_read_searched_and_appended_to_without_losing_a_byte(kb: Kenning,
                                                                                 notes: Notes) -> None:
    daily = kb.home / "daily"
    daily.mkdir(parents=True)
    raw = (b"random thoughts, no title\r\nthe staging server runs out of memory every night\r\n\r\n"
           b"## 25:99\r\nnot a time \xff\xfe broken bytes\x00\r\n## 14:30\r\nafternoon entry\r\n")
    (daily / f"{ago(1).isoformat()}.md").write_bytes(raw)
    # files that are not days are ignored by search and archive
    (daily / "notes.md").write_text("the staging server runs out of memory")
    (daily / "2026-13-45.md").write_text("the staging server runs out of memory")
    (daily / "2020-01-01.md").mkdir()
    paragraphs = notes._daily_notes(ago(1)) or []
    assert [(p.text, p.time) for p in paragraphs] == [
        ("random thoughts, no title\nthe staging server runs out of memory every night", None),
        ("## 25:99\nnot a time \ufffd\ufffd broken bytes", None),
        ("afternoon entry", dt.time(14, 30))]
    hits = notes.search("staging server memory", min_relevance=0)  # every paragraph searched, relevant or not
    assert [h.path for h in hits] == [f"daily/{ago(1).isoformat()}.md"] * 3
    assert hits[0].id.endswith("#1")
    notes.write("appended later", dt.datetime.combine(ago(1), dt.time(16, 0)))
    after = (daily / f"{ago(1).isoformat()}.md").read_bytes()
    assert after == raw + b"\r\n## 16:00\r\nappended later\r\n"  # the file's own newline kept
    assert notes.archive(0) and (daily / "notes.md").exists() and (daily / "2026-13-45.md").exists()
    assert notes.read(ago(1)).endswith("appended later\n")
    notes.restore(ago(1))
    assert (daily / f"{ago(1).isoformat()}.md").read_bytes() == after


def test_a_history_file_edited_by_hand_is_still_searched(kb: Kenning, notes: Notes) -> None:
    (kb.home).mkdir(parents=True, exist_ok=True)
    (kb.home / "HISTORY.md").write_bytes(b"# History\r\n\r\nwritten before any stamp\r\n\r\n"
                                         b"[2026-99-01 10:00] a bad stamp is text\r\n")
    notes.history_append("the kubernetes upgrade finished", dt.datetime(2026, 11, 29, 10, 0))
    assert [(n.text, n.date) for n in notes._history_notes() or []] == [
        ("# History", None), ("written before any stamp", None), ("[2026-99-01 10:00] a bad stamp is text", None),
        ("the kubernetes upgrade finished", dt.date(2026, 11, 29))]
    assert notes.search("kubernetes upgrade", days_back=None, k=1)[0].id == "HISTORY.md#4"
    assert (kb.home / "HISTORY.md").read_bytes().endswith(
        b"text\r\n\r\n[2026-11-29 10:00] the kubernetes upgrade finished\r\n")


# -- the archive ---------------------------------------------------------------------------------------


def test_archive_dry_run_changes_nothing_then_archive_moves_old_days(kb: Kenning, notes: Notes) -> None:
    notes.write("Old decision: we chose PostgreSQL over MySQL for the billing service.", ago(120))
    notes.write("Another old day with the quarterly planning notes.", ago(95))
    notes.write("A recent day about the billing service.", ago(10))
    before, audits = tree(kb.home), kb.store.audit_count()
    planned = notes.archive(90, dry_run=True)
    assert [(m.date, m.action, m.dry_run, m.merged) for m in planned] == [
        (ago(120), "archive", True, False), (ago(95), "archive", True, False)]
    assert tree(kb.home) == before and kb.store.audit_count() == audits

    done = notes.archive(90)
    assert [(m.date, m.source, m.target, m.dry_run) for m in done] == [
        (d, f"daily/{d}.md", f"archive/daily/{d}.md.gz", False) for d in (ago(120), ago(95))]
    assert [m.size for m in done] == [len(before[f"daily/{d}.md"]) for d in (ago(120), ago(95))]
    for day in (ago(120), ago(95)):
        assert not (kb.home / f"daily/{day}.md").exists()
        gz = kb.home / f"archive/daily/{day}.md.gz"
        assert gzip.decompress(gz.read_bytes()) == before[f"daily/{day}.md"]
        assert notes.read(day) == before[f"daily/{day}.md"].decode()
    assert (kb.home / f"daily/{ago(10)}.md").exists()
    assert audit_actions(kb).count("note_archive") == 2

    query = "which database did we pick for billing"
    assert all(h.source == "daily" for h in notes.search(query, days_back=None))
    found = notes.search(query, days_back=None, include_archive=True, k=1)[0]
    assert (found.source, found.path, found.date) == ("archive", f"archive/daily/{ago(120)}.md.gz", ago(120))
    assert notes.get(found.id).text == found.text
    assert all(h.date and h.date >= ago(100) for h in notes.search(query, days_back=100, include_archive=True))
    assert notes.archive(90) == []  # nothing left to do


def test_archiving_a_day_again_merges_with_its_archive(kb: Kenning, notes: Notes) -> None:
    day = ago(200)
    notes.write("first visit to the day", dt.datetime.combine(day, dt.time(9, 0)))
    notes.archive(90)
    notes.write("a late addition", dt.datetime.combine(day, dt.time(10, 0)))
    [move] = notes.archive(90)
    assert move.merged
    text = notes.read(day)
    assert text == f"# {day}\n\n## 09:00\nfirst visit to the day\n\n## 10:00\na late addition\n"
    assert not (kb.home / f"daily/{day}.md").exists()


def test_an_interrupted_archive_run_does_not_double_the_notes(kb: Kenning, notes: Notes) -> None:
    day = ago(200)
    notes.write("written once", dt.datetime.combine(day, dt.time(9, 0)))
    original = (kb.home / f"daily/{day}.md").read_bytes()
    notes.archive(90)
    (kb.home / f"daily/{day}.md").write_bytes(original)  # as if the run stopped before removing it
    [move] = notes.archive(90)
    assert gzip.decompress((kb.home / f"archive/daily/{day}.md.gz").read_bytes()) == original
    assert notes.read(day).count("written once") == 1 and move.merged


def test_restore_brings_a_day_back_and_merges_with_newer_notes(kb: Kenning, notes: Notes) -> None:
    day = ago(150)
    notes.write("archived part", dt.datetime.combine(day, dt.time(8, 0)))
    notes.archive(90)
    notes.write("written after archiving", dt.datetime.combine(day, dt.time(20, 0)))
    assert "archived part" in notes.read(day) and "written after archiving" in notes.read(day)
    move = notes.restore(day.isoformat())
    assert (move.action, move.source, move.target, move.merged) == (
        "restore", f"archive/daily/{day}.md.gz", f"daily/{day}.md", True)
    assert not (kb.home / f"archive/daily/{day}.md.gz").exists()
    assert (kb.home / f"daily/{day}.md").read_text() == (
        f"# {day}\n\n## 08:00\narchived part\n\n## 20:00\nwritten after archiving\n")
    with pytest.raises(NotFound, match=f"daily/{day}.md"):
        notes.restore(day)
    with pytest.raises(InvalidInput):
        notes.restore("../../etc")


def test_a_damaged_archive_is_never_overwritten(kb: Kenning, notes: Notes) -> None:
    day = ago(300)
    notes.write("keep me", day)
    gz = kb.home / f"archive/daily/{day}.md.gz"
    gz.parent.mkdir(parents=True)
    gz.write_bytes(b"not gzip at all")
    with pytest.raises(StoreError, match="not a readable gzip"):
        notes.archive(90)
    assert gz.read_bytes() == b"not gzip at all"
    assert "keep me" in (kb.home / f"daily/{day}.md").read_text()
    with pytest.raises(StoreError):
        notes.search("keep", days_back=None, include_archive=True)


@pytest.mark.parametrize("kwargs", [{"older_than_days": -1}, {"older_than_days": 1.5}, {"today": "2026-02-30"}])
def test_bad_archive_arguments_are_refused(notes: Notes, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        notes.archive(**kwargs)  # type: ignore[arg-type]


# -- audit and processes -----------------------------------------------------------------------------


def test_every_change_is_audited_with_hashes_not_text(kb: Kenning, notes: Notes) -> None:
    notes.write("secret-ish note body", ago(100))
    notes.history_append("a consolidation summary")
    notes.archive(90)
    notes.restore(ago(100))
    entries = [e for e in kb.audit(limit=50) if e.kind == "note"]
    assert [e.action for e in reversed(entries)] == ["note_write", "history_append", "note_archive", "note_restore"]
    for e in entries:
        assert e.actor == "api" and e.after is not None and len(e.after["sha256"]) == 64
        assert "secret-ish" not in json.dumps([e.before, e.after]) and "summary" not in json.dumps(e.after)
    archived = next(e for e in entries if e.action == "note_archive")
    assert archived.before["path"] == f"daily/{ago(100)}.md"  # type: ignore[index]
    assert archived.after["path"] == f"archive/daily/{ago(100)}.md.gz"  # type: ignore[index]


WRITER = textwrap.dedent(
    """
    import sys
    from kenning import Kenning
    home, worker = sys.argv[1], int(sys.argv[2])
    with Kenning.open(home) as kb:
        for i in range(100):
            kb.notes.write(f"worker {worker} note {i}", "2026-11-29")
    """
)


def test_two_processes_appending_100_notes_each_lose_none(tmp_path: Path, embedder: object) -> None:
    home = tmp_path / "shared-home"
    env = {**os.environ, "KENNING_EMBED_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(home), str(w)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(2)]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    with Kenning.open(home, embedder=embedder) as kb:  # type: ignore[arg-type]
        texts = [n.text for n in kb.notes._daily_notes(dt.date(2026, 11, 29)) or []]
        assert sorted(texts) == sorted(f"worker {w} note {i}" for w in range(2) for i in range(100))
        assert audit_actions(kb).count("note_write") == 200
    assert (home / "daily/2026-11-29.md").read_text().startswith("# 2026-11-29\n\n## ")


# -- the command line -----------------------------------------------------------------------------------


def test_the_note_commands_work_end_to_end(tmp_path: Path, embedder: object) -> None:
    home = str(tmp_path / "cli-home")
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--home", home, "note", *args])
        assert result.exit_code == 0, result.output
        return result.output

    added = json.loads(run("add", "the printer on floor two is jammed", "--date", ago(200).isoformat(), "--json"))
    assert added[0]["id"] == f"daily/{ago(200)}.md#1"
    assert "floor two" in run("show", ago(200).isoformat())
    assert json.loads(run("search", "printer jammed", "--days-back", "365", "--json"))[0]["id"] == added[0]["id"]
    assert json.loads(run("archive", "--older-than", "90", "--dry-run", "--json"))[0]["dry_run"] is True
    assert "Archived 1 day" in run("archive")
    assert json.loads(run("search", "printer", "--days-back", "365", "--json")) == []
    assert json.loads(run("search", "printer", "--days-back", "365", "--archive", "-k", "1", "--json"))[0][
        "source"] == "archive"
    assert json.loads(run("restore", ago(200).isoformat(), "--json"))["action"] == "restore"
    bad = runner.invoke(cli, ["--home", home, "note", "show", "../../etc"])
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.output
    for command in ("add", "search", "show", "archive", "restore"):
        assert "Example:" in runner.invoke(cli, ["note", command, "--help"]).output
