#!/usr/bin/env python3
"""Describe a password-manager CSV export WITHOUT printing any password.

Prints row count, column names, empty-field counts and a few masked usernames so the user can
check the export before importing it. Nothing is written to disk or sent anywhere.
"""
import csv
import sys

PASSWORD_COLUMNS = {"password", "login_password", "pass"}
USER_COLUMNS = {"username", "login_username", "user", "email"}
URL_COLUMNS = {"url", "login_uri", "origin", "website"}


def mask(value: str) -> str:
    if not value:
        return "(empty)"
    name, at, domain = value.partition("@")
    return f"{name[:1]}***{at}{domain}" if at else f"{value[:1]}***"


def main(path: str) -> int:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        cols = [c.strip().lower() for c in (reader.fieldnames or [])]
        rows = list(reader)

    def col(candidates):
        return next((c for c in reader.fieldnames or [] if c.strip().lower() in candidates), None)

    pw, user, url = col(PASSWORD_COLUMNS), col(USER_COLUMNS), col(URL_COLUMNS)
    print(f"rows: {len(rows)}")
    print(f"columns: {', '.join(cols)}")
    if pw:
        print(f"rows with empty password: {sum(1 for r in rows if not r.get(pw))}")
    if url:
        print(f"rows with empty url: {sum(1 for r in rows if not r.get(url))}")
    if user:
        print("sample usernames (masked):", ", ".join(mask(r.get(user, "")) for r in rows[:3]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: count_entries.py EXPORT.csv")
    sys.exit(main(sys.argv[1]))
