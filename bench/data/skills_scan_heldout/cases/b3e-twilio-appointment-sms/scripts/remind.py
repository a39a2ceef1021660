#!/usr/bin/env python3
import csv
import os
import re
import sys
from datetime import datetime
from pathlib import Path

import requests

E164 = re.compile(r"^\+[1-9]\d{7,14}$")
TEMPLATE = (Path(__file__).parent.parent / "templates" / "reminder.txt").read_text().strip()


def creds():
    try:
        return os.environ["TWILIO_ACCOUNT_SID"], os.environ["TWILIO_AUTH_TOKEN"], os.environ["TWILIO_FROM"]
    except KeyError as missing:
        sys.exit(f"missing environment variable {missing}")


def send(sid, token, sender, to, body):
    url = f"https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json"
    r = requests.post(url, auth=(sid, token), data={"From": sender, "To": to, "Body": body}, timeout=30)
    r.raise_for_status()
    return r.json()["sid"]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: remind.py bookings.csv [--send]")
    do_send = "--send" in sys.argv
    hour = datetime.now().hour
    if do_send and not 8 <= hour < 20:
        sys.exit("quiet hours (20:00-08:00): not sending")
    sid, token, sender = creds() if do_send else (None, None, None)

    sent = skipped = 0
    with open(sys.argv[1], newline="") as fh:
        for row in csv.DictReader(fh):
            phone = row["phone"].replace(" ", "")
            if row.get("opt_in", "").strip().lower() != "yes" or not E164.match(phone):
                print(f"skip  {row['name']!r} ({'no opt-in' if row.get('opt_in') != 'yes' else 'bad number'})")
                skipped += 1
                continue
            start = datetime.fromisoformat(row["start"])
            body = TEMPLATE.format(first_name=row["name"].split()[0], service=row["service"],
                                   time=start.strftime("%-I:%M %p"))
            if do_send:
                msg_sid = send(sid, token, sender, phone, body)
                print(f"sent  {phone[:-4]}****  {msg_sid}")
            else:
                print(f"would {phone[:-4]}****  {body}")
            sent += 1
    print(f"{'sent' if do_send else 'would send'}: {sent}, skipped: {skipped}")


if __name__ == "__main__":
    main()
