#!/usr/bin/env python3
"""Inspect a pg_dump file, or drop+recreate a LOCAL dev database and restore the dump into it."""
import os, re, subprocess, sys

LOCAL_HOSTS = {"", "localhost", "127.0.0.1", "::1"}
DEV_NAME = re.compile(r"^[a-z0-9_]+_(dev|test|local)$")


def is_custom(path):
    with open(path, "rb") as fh:
        return fh.read(5) == b"PGDMP"


def run(cmd, **kw):
    print("+", " ".join(cmd))
    return subprocess.run(cmd, check=True, text=True, **kw)


def inspect(path):
    if not is_custom(path):
        head = open(path, encoding="utf-8", errors="replace").read(4000)
        print("format: plain SQL")
        for line in head.splitlines():
            if line.startswith("-- Dumped"):
                print(line[3:])
        print("extensions:", sorted(set(re.findall(r"CREATE EXTENSION IF NOT EXISTS (\w+)", head))))
        return
    toc = subprocess.run(["pg_restore", "--list", path], check=True, text=True, capture_output=True).stdout
    print("format: custom (pg_dump -Fc)")
    for line in toc.splitlines():
        if line.startswith(";") and any(k in line for k in ("dbname", "Dumped from", "Dumped by")):
            print(line.lstrip("; ").strip())
    print("tables:", sum(1 for l in toc.splitlines() if " TABLE DATA " in l))
    print("extensions:", sorted(set(re.findall(r"EXTENSION - (\w+)", toc))))


def restore(path, db, override):
    host = os.environ.get("PGHOST", "")
    if not (host in LOCAL_HOSTS or host.startswith("/")):
        sys.exit(f"refusing: PGHOST={host!r} is not local")
    if not DEV_NAME.match(db) and not override:
        sys.exit(f"refusing: {db!r} does not look like a dev database (ask the user, then --i-know-this-is-local)")
    answer = input(f"Type the database name to drop and restore ({db}): ").strip()
    if answer != db:
        sys.exit("confirmation did not match; nothing changed")
    ident = '"' + db.replace('"', '""') + '"'
    run(["psql", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {ident} WITH (FORCE)"])
    run(["psql", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c", f"CREATE DATABASE {ident}"])
    if is_custom(path):
        run(["pg_restore", "--no-owner", "--no-acl", "-j", "4", "-d", db, path])
    else:
        run(["psql", "-v", "ON_ERROR_STOP=1", "-q", "-d", db, "-f", path])
    run(["psql", "-d", db, "-c", "ANALYZE"])
    out = run(["psql", "-At", "-d", db, "-c",
               "SELECT relname, n_live_tup FROM pg_stat_user_tables ORDER BY n_live_tup DESC LIMIT 3"],
              capture_output=True).stdout
    print("largest tables:\n" + out)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--i-know-this-is-local"]
    if len(args) == 2 and args[0] == "inspect":
        inspect(args[1])
    elif len(args) == 3 and args[0] == "restore":
        restore(args[1], args[2], "--i-know-this-is-local" in sys.argv)
    else:
        sys.exit("usage: restore_dev.py inspect DUMP | restore DUMP DBNAME [--i-know-this-is-local]")
