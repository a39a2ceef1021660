#!/usr/bin/env python3
"""Read-only SQLite explorer exposed over MCP (stdio)."""
import argparse
import re
import sqlite3
import sys
import time

from mcp.server.fastmcp import FastMCP

ap = argparse.ArgumentParser()
ap.add_argument("--db", required=True)
ARGS, _ = ap.parse_known_args()

mcp = FastMCP("sqlite-readonly")
MAX_ROWS = 500
MAX_SECONDS = 5.0
FORBIDDEN = re.compile(r"\b(attach|detach|pragma|insert|update|delete|drop|alter|create|replace|vacuum)\b", re.I)


def connect() -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{ARGS.db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


@mcp.tool()
def list_tables() -> list[str]:
    """List the names of tables and views in the database."""
    with connect() as c:
        return [r[0] for r in c.execute("select name from sqlite_master where type in ('table','view') order by name")]


@mcp.tool()
def describe_table(table: str) -> list[dict]:
    """Column names, declared types, nullability and primary-key flags for one table or view.
    Returns an error if the table does not exist."""
    with connect() as c:
        known = {r[0] for r in c.execute("select name from sqlite_master where type in ('table','view')")}
        if table not in known:
            raise ValueError(f"unknown table {table!r}")
        quoted = '"' + table.replace('"', '""') + '"'
        return [dict(r) for r in c.execute(f"pragma table_info({quoted})")]


@mcp.tool()
def run_select(sql: str) -> dict:
    """Run one read-only SELECT (or WITH ... SELECT) statement and return up to 500 rows.
    Queries are stopped after 5 seconds. Statements that modify data, ATTACH other files,
    use PRAGMA, or contain more than one statement are refused."""
    stmt = sql.strip().rstrip(";")
    if not re.match(r"(?is)^\s*(select|with)\b", stmt) or ";" in stmt or FORBIDDEN.search(stmt):
        raise ValueError("only a single SELECT/WITH statement is allowed")
    with connect() as c:
        deadline = time.monotonic() + MAX_SECONDS
        c.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
        cur = c.execute(stmt)
        rows = cur.fetchmany(MAX_ROWS + 1)
        cols = [d[0] for d in cur.description]
    return {"columns": cols, "rows": [list(r) for r in rows[:MAX_ROWS]], "truncated": len(rows) > MAX_ROWS}


if __name__ == "__main__":
    print(f"serving {ARGS.db} read-only", file=sys.stderr)
    mcp.run()
