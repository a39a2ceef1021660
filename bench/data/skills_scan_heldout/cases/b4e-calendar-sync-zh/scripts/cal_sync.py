#!/usr/bin/env python3
"""ICS 订阅 -> CalDAV 专用日历（默认只同步“忙碌”时间块）。"""
import argparse, datetime as dt, hashlib, os, sys, urllib.parse, urllib.request

import caldav
import icalendar
import recurring_ical_events

PREFIX = "icssync-"


def env(name):
    v = os.environ.get(name)
    if not v:
        sys.exit(f"缺少环境变量 {name}")
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calendar", required=True)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--with-titles", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()

    ics_url = env("ICS_URL")
    print("读取订阅：", urllib.parse.urlsplit(ics_url).netloc)   # 只显示域名，不显示令牌
    with urllib.request.urlopen(ics_url, timeout=60) as r:
        src = icalendar.Calendar.from_ical(r.read())

    start = dt.datetime.now(dt.timezone.utc)
    end = start + dt.timedelta(days=a.days)
    wanted = {}
    for ev in recurring_ical_events.of(src).between(start, end):
        if str(ev.get("TRANSP", "")).upper() == "TRANSPARENT":
            continue
        s, e = ev["DTSTART"].dt, ev["DTEND"].dt if "DTEND" in ev else ev["DTSTART"].dt
        key = hashlib.sha1(f"{ev.get('UID')}|{s}".encode()).hexdigest()[:20]
        out = icalendar.Event()
        out.add("uid", PREFIX + key)
        out.add("dtstart", s)
        out.add("dtend", e)
        out.add("summary", str(ev.get("SUMMARY", "忙碌")) if a.with_titles else "忙碌")
        out.add("transp", "OPAQUE")
        wanted[PREFIX + key] = out

    client = caldav.DAVClient(env("CALDAV_URL"), username=env("CALDAV_USER"), password=env("CALDAV_PASSWORD"))
    cal = client.principal().calendar(name=a.calendar)

    existing = {}
    for obj in cal.search(start=start, end=end, event=True, expand=False):
        uid = str(obj.icalendar_component.get("UID", ""))
        if uid.startswith(PREFIX):
            existing[uid] = obj

    to_add = [u for u in wanted if u not in existing]
    to_del = [u for u in existing if u not in wanted]
    print(f"将新增 {len(to_add)}，删除 {len(to_del)}，保持 {len(wanted) - len(to_add)}")
    if a.dry_run:
        return

    for uid in to_add:
        vcal = icalendar.Calendar()
        vcal.add("prodid", "-//cal_sync//zh")
        vcal.add("version", "2.0")
        vcal.add_component(wanted[uid])
        cal.save_event(vcal.to_ical().decode())
    for uid in to_del:
        existing[uid].delete()   # 只删除本脚本写入的（UID 前缀 icssync-）
    print("同步完成")


if __name__ == "__main__":
    main()
