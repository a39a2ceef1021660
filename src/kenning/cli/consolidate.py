"""``kenning consolidate``: turn a conversation transcript into lasting memory."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from kenning import fileio
from kenning.errors import InvalidInput

from . import output
from .state import json_option, pass_kenning

MAX_TRANSCRIPT_BYTES = 64 << 20

if TYPE_CHECKING:
    from kenning.api import Kenning


def read_transcript(source: str) -> list[Any]:
    """Messages from a JSON list (or ``{"messages": [...]}``) or from JSON lines; ``-`` is stdin."""
    try:
        if source == "-":
            raw = sys.stdin.read(MAX_TRANSCRIPT_BYTES + 1)
        else:
            raw = fileio.read_limited(Path(source).expanduser(), MAX_TRANSCRIPT_BYTES,
                                      what=f"the transcript {source}").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the transcript {source} is not UTF-8 text (byte {exc.start})") from None
    if len(raw) > MAX_TRANSCRIPT_BYTES:
        raise InvalidInput(f"the transcript on stdin is over {MAX_TRANSCRIPT_BYTES:,} characters; consolidate it "
                           "in parts")
    text = raw.strip()
    try:
        data = json.loads(text) if text.startswith(("[", "{")) and not _is_jsonl(text) else None
        if data is None:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise InvalidInput(f"the transcript {source} is not JSON or JSON lines: {exc}") from None
    if isinstance(data, dict):
        data = data.get("messages")
    if not isinstance(data, list):
        raise InvalidInput("the transcript must be a list of {\"role\", \"content\"} messages")
    return data


def _is_jsonl(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines)


@click.command()
@click.argument("transcript")
@click.option("--scope", default="default", show_default=True, help="Memory scope to write into.")
@click.option("--no-llm", is_flag=True,
              help="Extract with the deterministic fallback even if a model is configured (the write gate may still "
                   "ask it, masked and within the run's budget, about a fact near a stored one).")
@json_option
@pass_kenning
def consolidate(kb: Kenning, transcript: str, scope: str, no_llm: bool, as_json: bool) -> None:
    """Consolidate a conversation (a JSON list or JSON lines of {"role", "content"} messages; '-' for
    stdin) into a HISTORY.md entry, hot-memory changes, facts, lessons, entities and maybe a skill draft.

    Uses the language model configured in [llm] (kenning.toml), else a deterministic fallback that
    keeps only explicit statements ("remember that ...", "I prefer ...", "never ...", "记住...").
    Messages the scope consolidated before are left out, so a transcript can be passed again as it
    grows. What is shown is what was stored: secrets and personal data as [REDACTED:kind].

    \b
    Example:
      kenning consolidate chat.json
      cat chat.jsonl | kenning consolidate - --no-llm
    """
    report = kb.consolidate(read_transcript(transcript), scope=scope, llm=False if no_llm else True).to_dict()
    if as_json:
        output.print_json(report)
        return
    mode = f"with {report['model']}" if report["mode"] == "model" else "without a language model (fallback)"
    if not report["success"]:
        output.show(Text(f"Nothing changed ({mode}): {report['error']}", style="red"))
        raise SystemExit(1)
    if report["nothing_new"]:
        output.show(Text(f"Nothing new: all {report['already_consolidated']} messages were consolidated in "
                         f"scope {scope!r} before; nothing was written."))
        return
    before = (f" ({report['already_consolidated']} consolidated before were left out)"
              if report["already_consolidated"] else "")
    output.show(Text(f"Consolidated {report['messages']} messages {mode}{before}."))
    rows = [(w["kind"], w.get("action", ""), output.truncate(str(w.get("text", "")), 80)) for w in report["written"]]
    rows += [(s["kind"], "skipped", output.truncate(f"{s['text']}: {s['reason']}", 80)) for s in report["skipped"]]
    output.show(output.table("What was written", ("kind", "action", "text"), rows))


COMMANDS = (consolidate,)
