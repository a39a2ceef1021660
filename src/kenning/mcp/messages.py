"""The library's messages as an MCP client should read them.

Where a message tells a person which ``kenning`` command to run, a model connected over MCP is
told which tool to call instead, or, when no tool does what the command does, to ask the user to
run it. The library's messages stay as the CLI shows them; ``server`` passes the text of every
error it sends, and the ``message`` and ``hint`` of every result, through ``for_client``, its one
place for that.
"""

from __future__ import annotations

import re

# (what the library says, what an MCP client is told instead)
_TOOL_FOR_COMMAND: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(pattern), said) for pattern, said in (
    (r"\(`kenning skill list` shows every skill\)", "(skills_list shows every skill)"),
    (r"`kenning skill create`", "skill_manage action=create"),
    (r"`kenning entity list` shows them", "memory_recall with kinds=['entity'] finds them"),
    (r"`kenning list` shows what is stored", "memory_list shows what is stored"),
    (r"to mark a stored fact as no longer true run `kenning expire ID`",
     "to replace a stored fact call memory_supersede with its id, or memory_forget to delete it"),
    (r"`kenning hot show` lists them", "hot_memory action=show lists them"),
    (r"`kenning lesson find` lists them", "lessons_for finds them"),
    (r"`kenning note add TEXT --date DAY` starts one", "notes_write with date=DAY starts one"),
    (r"\(`kenning path` shows where it is\)", "(the user's `kenning path` shows where it is)"),
    (r"`kenning skill check` says why", "the user's `kenning skill check` says why"),
    (r"`kenning skill rollback` can bring it back", "the user's `kenning skill rollback` can bring it back"),
))
# a command no tool stands for: the user runs it (unless the message already asks someone "to run" it)
_RUN = re.compile(r"(?<!to )\b[Rr]un (`kenning [^`]+`)")


def for_client(message: str) -> str:
    """``message`` with each CLI command it tells the reader to run replaced by the MCP tool to call,
    or by asking the user to run the command."""
    for pattern, said in _TOOL_FOR_COMMAND:
        message = pattern.sub(said, message)
    return _RUN.sub(r"ask the user to run \1", message)
