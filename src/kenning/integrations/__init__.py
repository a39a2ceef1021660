"""Agent integrations: kenning's MCP server and Claude Code hooks in the clients' own config files.

``clients`` says where each client (Claude Code, Codex, Cursor) keeps its MCP servers and hooks and
what kenning writes there; ``install`` merges those entries in and takes exactly them out again,
recording what it did in ``$KENNING_HOME/integrations.json``; ``hooks`` is what the Claude Code
hooks run (context at session start, consolidation before compaction and at session end).

Nothing is re-exported here: ``install`` the function would hide ``install`` the module, so import
from the modules (``from kenning.integrations.install import install, uninstall``).
"""
