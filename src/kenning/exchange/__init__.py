"""Moving memory in and out: kenning's own export (JSON lines, or a readable Markdown dump), and
imports of that export, of mem0's ``get_all`` JSON and of Markdown bullet lists.

    export           a store (or a scope) as JSON lines: header, then one line per item with its
                     history, audit entries and vector when asked for; or Markdown per scope
    import_kenning   the export back, ids, times and chains kept; idempotent
    links            its ids and supersede links, checked across the file and the store
    import_mem0      mem0's memories, each through the whole write gate
    import_markdown  each bullet of a CLAUDE.md / MEMORY.md through the whole write gate
    reader           the file checked, read a bounded line at a time, its format guessed
    codec            an item as a JSON record and back, every field checked
    summary          what an import added, merged, left unchanged and refused

A malformed file (bad JSON, a wrong field, an id not of kenning's form, a link out of the file or
its scope, JSON nested too deep) is refused whole, naming the line, before anything is written;
what the write gate refuses (secrets in "refuse" mode, text over the limits) is refused item by
item and listed in the summary. A file is input from whoever wrote it: with ``scope`` given, it
reaches that scope only (a kenning export: only its items of that scope; mem0 and Markdown:
every item goes there).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import check_scope
from ..errors import InvalidInput
from .export import EXPORT_FORMATS, export
from .reader import FORMATS, check_file, check_format, guess
from .summary import ImportSummary, Refusal

if TYPE_CHECKING:
    from ..api import Kenning
    from .import_kenning import Progress

__all__ = ["EXPORT_FORMATS", "FORMATS", "ImportSummary", "Refusal", "export", "import_file"]


def import_file(kb: Kenning, path: str | os.PathLike[str], *, format: str | None = None, scope: str | None = None,
                dry_run: bool = False, progress: Progress | None = None) -> ImportSummary:
    """Import ``path`` (see the module docstring); ``format`` guessed from the content when None.
    ``scope``: where every mem0 memory and Markdown bullet goes (default: a mem0 memory's user or
    agent scope, else "default"); for a kenning export, only the items of that scope are imported
    (default: each item into the scope it names)."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidInput(f"the file to import must be a path, got {type(path).__name__}")
    file = check_file(Path(path).expanduser())
    chosen = check_format(format)
    where = None if scope is None else check_scope(scope)
    why = None
    if chosen is None:
        chosen, why = guess(file)
    summary = ImportSummary(str(file), chosen, guessed=why, dry_run=bool(dry_run))
    if chosen == "kenning":
        from .import_kenning import import_kenning as run
    elif chosen == "mem0":
        from .import_mem0 import import_mem0 as run
    else:
        from .import_markdown import import_markdown as run
    run(kb, file, summary, scope=where, dry_run=bool(dry_run), progress=progress)
    return summary
