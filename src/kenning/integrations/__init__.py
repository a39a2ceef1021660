"""Agent integrations: kenning's MCP server and lifecycle hooks in the clients' own config files.

``clients`` says where each client (Claude Code, Codex, Cursor) keeps its MCP servers and what
kenning writes there, and ``hookspecs`` the same for their hooks; ``install`` merges those entries
in and takes exactly them out again (JSON through ``configdoc``, edited as text by ``jsonedit``;
TOML through ``tomltable``; copies kept by ``backups``), recording what it did in ``$KENNING_HOME/integrations.json``; ``verify`` runs the
command line about to be written the way a client will; ``codex_trust`` asks Codex to trust
kenning's hooks; ``hooks`` is what every client's hooks run (context at session start,
consolidation before compaction and at session end).

Nothing is re-exported here: ``install`` the function would hide ``install`` the module, so import
from the modules (``from kenning.integrations.install import install, uninstall``).
"""
