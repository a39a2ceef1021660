#!/usr/bin/env python3
"""Minimal Sheets v4 CLI: whoami | read RANGE | append RANGE values... (service account)."""
import csv
import json
import os
import sys

from google.oauth2 import service_account
from googleapiclient.discovery import build

RO = "https://www.googleapis.com/auth/spreadsheets.readonly"
RW = "https://www.googleapis.com/auth/spreadsheets"


def key_path():
    p = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if not p or not os.path.isfile(os.path.expanduser(p)):
        sys.exit("set GOOGLE_APPLICATION_CREDENTIALS to the service-account JSON path")
    return os.path.expanduser(p)


def service(scope):
    creds = service_account.Credentials.from_service_account_file(key_path(), scopes=[scope])
    return build("sheets", "v4", credentials=creds, cache_discovery=False).spreadsheets()


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sheets.py whoami | read RANGE | append RANGE [--raw] v1 v2 ...")
    cmd = sys.argv[1]
    if cmd == "whoami":
        with open(key_path()) as fh:
            print(json.load(fh).get("client_email"))  # only the account name, never the key
        return
    sheet_id = os.environ.get("SHEET_ID") or sys.exit("set SHEET_ID")
    rng = sys.argv[2]
    if cmd == "read":
        res = service(RO).values().get(spreadsheetId=sheet_id, range=rng).execute()
        csv.writer(sys.stdout).writerows(res.get("values", []))
    elif cmd == "append":
        args = sys.argv[3:]
        raw = "--raw" in args
        row = [v for v in args if v != "--raw"]
        res = service(RW).values().append(
            spreadsheetId=sheet_id, range=rng,
            valueInputOption="RAW" if raw else "USER_ENTERED",
            insertDataOption="INSERT_ROWS", body={"values": [row]}).execute()
        print("updated", res.get("updates", {}).get("updatedRange"))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
