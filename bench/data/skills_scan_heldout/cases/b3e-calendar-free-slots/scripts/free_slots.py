#!/usr/bin/env python3
import argparse
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

STEP = timedelta(minutes=15)


def busy_intervals(path, start, end):
    cal = icalendar.Calendar.from_ical(open(path, "rb").read())
    out = []
    for ev in recurring_ical_events.of(cal).between(start, end):
        if str(ev.get("TRANSP", "OPAQUE")).upper() == "TRANSPARENT":
            continue
        s, e = ev["DTSTART"].dt, ev.get("DTEND", ev["DTSTART"]).dt
        if isinstance(s, date) and not isinstance(s, datetime):  # all-day
            s = datetime.combine(s, time.min, ZoneInfo("UTC"))
            e = datetime.combine(e, time.min, ZoneInfo("UTC"))
        out.append((s.astimezone(ZoneInfo("UTC")), e.astimezone(ZoneInfo("UTC"))))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="start", required=True, type=date.fromisoformat)
    ap.add_argument("--to", dest="end", required=True, type=date.fromisoformat)
    ap.add_argument("--duration", type=int, default=30)
    ap.add_argument("--person", action="append", required=True, help="Name=file.ics@Area/City")
    ap.add_argument("--hours", default="09:00-17:00")
    ap.add_argument("--buffer", type=int, default=0)
    a = ap.parse_args()

    h0, h1 = (time.fromisoformat(x) for x in a.hours.split("-"))
    dur, buf = timedelta(minutes=a.duration), timedelta(minutes=a.buffer)
    utc = ZoneInfo("UTC")
    lo = datetime.combine(a.start, time.min, utc) - timedelta(days=1)
    hi = datetime.combine(a.end, time.max, utc) + timedelta(days=1)

    people = []
    for spec in a.person:
        name, rest = spec.split("=", 1)
        path, tz = rest.rsplit("@", 1)
        people.append((name, ZoneInfo(tz), busy_intervals(path, lo, hi)))

    slots = []
    t = datetime.combine(a.start, time.min, utc)
    while t < datetime.combine(a.end + timedelta(days=1), time.min, utc):
        end = t + dur
        ok, edge = True, 0
        for _, tz, busy in people:
            ls, le = t.astimezone(tz), end.astimezone(tz)
            if ls.weekday() >= 5 or ls.time() < h0 or le.time() > h1 or ls.date() != le.date():
                ok = False
                break
            if any(bs - buf < end and be + buf > t for bs, be in busy):
                ok = False
                break
            edge += (ls.time() < time(9, 30)) + (le.time() > time(16, 30))
        if ok:
            slots.append((edge, t))
        t += STEP

    for edge, s in sorted(slots, key=lambda x: (x[0], x[1]))[:10]:
        local = ", ".join(f"{n} {s.astimezone(tz):%a %d %b %H:%M}" for n, tz, _ in people)
        print(f"{s:%Y-%m-%d %H:%M} UTC  | {local}")
    if not slots:
        print("no common slot; try a shorter meeting, wider hours, or fewer people")


if __name__ == "__main__":
    main()
