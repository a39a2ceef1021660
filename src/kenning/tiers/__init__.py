"""Memory tiers: the hot files (MEMORY.md, USER.md), daily notes and HISTORY.md, the archive."""
