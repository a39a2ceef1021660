#!/usr/bin/env python3
"""Drop and recreate the public schema of a LOCAL dev/test PostgreSQL database, then migrate to head."""
import argparse
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import sqlalchemy as sa

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


def load_url() -> str:
    url = os.environ.get("DATABASE_URL")
    if not url and Path(".env").exists():
        for line in Path(".env").read_text().splitlines():
            if line.startswith("DATABASE_URL="):
                url = line.split("=", 1)[1].strip().strip('"').strip("'")
    if not url:
        sys.exit("DATABASE_URL not set (env or .env)")
    return url


def masked(url: str) -> str:
    p = urlsplit(url)
    if p.password:
        return url.replace(f":{p.password}@", ":****@", 1)
    return url


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--allow-host", action="append", default=[], help="extra local host, e.g. db (compose)")
    ap.add_argument("--seed", action="store_true", help="run python -m app.seed afterwards")
    args = ap.parse_args()

    url = load_url()
    p = urlsplit(url)
    host, dbname = p.hostname or "", p.path.lstrip("/")
    print(f"Target: {masked(url)}")

    if not p.scheme.startswith("postgresql"):
        sys.exit("only PostgreSQL URLs are supported")
    if host not in LOCAL_HOSTS | set(args.allow_host):
        sys.exit(f"refusing: host {host!r} is not local (use --allow-host for a compose service name)")
    if not dbname.endswith(("_dev", "_test")):
        sys.exit(f"refusing: database {dbname!r} does not end with _dev or _test")

    print(f"This will DROP every table, view and type in schema 'public' of {dbname!r} and re-run migrations.")
    if input(f"Type the database name ({dbname}) to continue: ").strip() != dbname:
        sys.exit("aborted")

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        owner = conn.execute(sa.text("SELECT current_user")).scalar_one()
        conn.execute(sa.text("DROP SCHEMA public CASCADE"))
        conn.execute(sa.text("CREATE SCHEMA public"))
        conn.execute(sa.text(f'GRANT ALL ON SCHEMA public TO "{owner}"'))
    engine.dispose()
    print("schema recreated")

    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run(["alembic", "upgrade", "head"], check=True, env=env)
    if args.seed:
        subprocess.run([sys.executable, "-m", "app.seed"], check=True, env=env)
    print("done: dev database is at alembic head")


if __name__ == "__main__":
    main()
