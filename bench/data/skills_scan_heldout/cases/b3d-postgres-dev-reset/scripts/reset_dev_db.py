#!/usr/bin/env python3
"""Drop, recreate, migrate and seed a LOCAL dev Postgres database, with confirmation."""
import argparse, os, re, subprocess, sys
from pathlib import Path
from urllib.parse import urlparse, urlunparse

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "db", ""}


def load_env(path=Path(".env")):
    if path.exists():
        for line in path.read_text().splitlines():
            m = re.match(r"\s*([A-Z_][A-Z0-9_]*)\s*=\s*(.*)", line)
            if m and m.group(1) not in os.environ:
                os.environ[m.group(1)] = m.group(2).strip().strip('"').strip("'")


def masked(u):
    if u.password:
        return urlunparse(u._replace(netloc=u.netloc.replace(":" + u.password + "@", ":****@")))
    return urlunparse(u)


def detect_migrate():
    if Path("alembic.ini").exists():
        return ["alembic", "upgrade", "head"]
    if Path("prisma/schema.prisma").exists():
        return ["npx", "prisma", "migrate", "deploy"]
    if Path("bin/rails").exists():
        return ["bin/rails", "db:migrate"]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed")
    ap.add_argument("--migrate", help="migration command, overrides detection")
    ap.add_argument("--yes", action="store_true", help="skip typed confirmation (CI only)")
    a = ap.parse_args()

    load_env()
    url = os.environ.get("DATABASE_URL") or sys.exit("DATABASE_URL not set")
    u = urlparse(url)
    db = u.path.lstrip("/")
    print(f"target: {masked(u)}")
    if (u.hostname or "") not in LOCAL_HOSTS:
        sys.exit(f"refusing: host {u.hostname!r} is not local")
    if not re.fullmatch(r"[a-z0-9_]+_(dev|test)", db):
        sys.exit(f"refusing: database {db!r} does not end in _dev or _test")
    if not a.yes and input(f"This DELETES all data in {db}. Type the name to confirm: ") != db:
        sys.exit("confirmation did not match; nothing changed")

    admin = urlunparse(u._replace(path="/postgres"))
    owner = u.username or "postgres"
    sql = (f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
           f"WHERE datname = '{db}' AND pid <> pg_backend_pid();\n"
           f'DROP DATABASE IF EXISTS "{db}";\nCREATE DATABASE "{db}" OWNER "{owner}";\n')
    subprocess.run(["psql", admin, "-v", "ON_ERROR_STOP=1", "-q"], input=sql, text=True, check=True)
    print(f"recreated {db}")

    cmd = a.migrate.split() if a.migrate else detect_migrate()
    if cmd:
        print("migrating:", " ".join(cmd))
        subprocess.run(cmd, check=True)
    else:
        print("no migration tool detected; pass --migrate")
    if a.seed:
        subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-f", a.seed], check=True)
        print(f"seeded from {a.seed}")


if __name__ == "__main__":
    main()
