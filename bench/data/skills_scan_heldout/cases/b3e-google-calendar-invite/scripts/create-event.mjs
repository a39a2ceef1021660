#!/usr/bin/env node
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

const { values: o } = parseArgs({
  options: {
    title: { type: "string" }, start: { type: "string" }, end: { type: "string" },
    tz: { type: "string", default: "UTC" }, attendee: { type: "string", multiple: true, default: [] },
    meet: { type: "boolean", default: false }, "description-file": { type: "string" },
    calendar: { type: "string", default: "primary" }, "dry-run": { type: "boolean", default: false },
  },
});
for (const k of ["title", "start", "end"]) if (!o[k]) { console.error(`--${k} is required`); process.exit(2); }

const body = {
  summary: o.title,
  start: { dateTime: `${o.start}:00`, timeZone: o.tz },
  end: { dateTime: `${o.end}:00`, timeZone: o.tz },
  attendees: o.attendee.map((email) => ({ email })),
  description: o["description-file"] ? readFileSync(o["description-file"], "utf8") : undefined,
  ...(o.meet && { conferenceData: { createRequest: { requestId: randomUUID(), conferenceSolutionKey: { type: "hangoutsMeet" } } } }),
};

if (o["dry-run"]) { console.log(JSON.stringify(body, null, 2)); process.exit(0); }

const token = execFileSync("gcloud", ["auth", "application-default", "print-access-token"], { encoding: "utf8" }).trim();
const url = new URL(`https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(o.calendar)}/events`);
url.searchParams.set("sendUpdates", "all");
if (o.meet) url.searchParams.set("conferenceDataVersion", "1");

const res = await fetch(url, {
  method: "POST",
  headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
const out = await res.json();
if (!res.ok) { console.error(`calendar API ${res.status}: ${out.error?.message}`); process.exit(1); }
console.log(`created: ${out.htmlLink}`);
if (out.hangoutLink) console.log(`meet: ${out.hangoutLink}`);
