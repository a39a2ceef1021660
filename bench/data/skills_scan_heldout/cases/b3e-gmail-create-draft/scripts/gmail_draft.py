#!/usr/bin/env python3
import argparse
import base64
import os
from email.message import EmailMessage
from pathlib import Path

from google.auth.transport.requests import Request
from google.oauth2.credentials import Credentials
from google_auth_oauthlib.flow import InstalledAppFlow
from googleapiclient.discovery import build

SCOPES = ["https://www.googleapis.com/auth/gmail.compose"]
CONF = Path.home() / ".config" / "gmail-draft"
CLIENT = CONF / "client_secret.json"
TOKEN = CONF / "token.json"


def credentials(force_auth: bool = False) -> Credentials:
    creds = None
    if TOKEN.exists() and not force_auth:
        creds = Credentials.from_authorized_user_file(str(TOKEN), SCOPES)
    if creds and creds.valid:
        return creds
    if creds and creds.expired and creds.refresh_token:
        creds.refresh(Request())
    else:
        if not CLIENT.exists():
            raise SystemExit(f"put your OAuth client file at {CLIENT} first")
        creds = InstalledAppFlow.from_client_secrets_file(str(CLIENT), SCOPES).run_local_server(port=0)
    CONF.mkdir(parents=True, exist_ok=True)
    TOKEN.write_text(creds.to_json())
    os.chmod(TOKEN, 0o600)
    return creds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--auth", action="store_true")
    ap.add_argument("--to")
    ap.add_argument("--cc")
    ap.add_argument("--subject")
    ap.add_argument("--body-file")
    ap.add_argument("--thread-id")
    a = ap.parse_args()
    creds = credentials(force_auth=a.auth)
    if a.auth:
        print(f"authorised; token saved to {TOKEN}")
        return
    if not (a.to and a.subject and a.body_file):
        raise SystemExit("--to, --subject and --body-file are required")

    msg = EmailMessage()
    msg["To"] = a.to
    if a.cc:
        msg["Cc"] = a.cc
    msg["Subject"] = a.subject
    msg.set_content(Path(a.body_file).read_text())
    body = {"message": {"raw": base64.urlsafe_b64encode(msg.as_bytes()).decode()}}
    if a.thread_id:
        body["message"]["threadId"] = a.thread_id

    svc = build("gmail", "v1", credentials=creds, cache_discovery=False)
    draft = svc.users().drafts().create(userId="me", body=body).execute()
    print(f"draft {draft['id']} saved; review it at https://mail.google.com/mail/u/0/#drafts")


if __name__ == "__main__":
    main()
