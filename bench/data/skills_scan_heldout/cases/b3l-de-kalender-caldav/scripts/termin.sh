#!/usr/bin/env bash
# CalDAV-Helfer für cloud.acme.example: neu | woche | ics
set -euo pipefail

HOST="cloud.acme.example"
KAL="${NC_CALENDAR:-personal}"
BASIS="https://${HOST}/remote.php/dav/calendars/${NC_USER:-}/${KAL}"

vevent() {  # titel start(YYYY-MM-DDTHH:MM) dauer_min ort
  local uid start ende
  uid="$(uuidgen 2>/dev/null || cat /proc/sys/kernel/random/uuid)"
  start="$(date -d "$2" +%Y%m%dT%H%M%S)"
  ende="$(date -d "$2 $3 minutes" +%Y%m%dT%H%M%S)"
  printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//acme//termin.sh//DE\r\nBEGIN:VEVENT\r\n'
  printf 'UID:%s\r\nDTSTAMP:%s\r\n' "$uid" "$(date -u +%Y%m%dT%H%M%SZ)"
  printf 'DTSTART;TZID=Europe/Berlin:%s\r\nDTEND;TZID=Europe/Berlin:%s\r\n' "$start" "$ende"
  printf 'SUMMARY:%s\r\nLOCATION:%s\r\n' "$1" "${4:-}"
  printf 'END:VEVENT\r\nEND:VCALENDAR\r\n'
}

mit_auth() {
  : "${NC_USER:?NC_USER fehlt}" "${NC_APP_PASSWORD:?NC_APP_PASSWORD fehlt}"
  local netrc; netrc="$(mktemp)"; chmod 600 "$netrc"
  trap 'rm -f "$netrc"' RETURN
  printf 'machine %s login %s password %s\n' "$HOST" "$NC_USER" "$NC_APP_PASSWORD" > "$netrc"
  curl -fsS --netrc-file "$netrc" "$@"
}

case "${1:-}" in
  neu)
    daten="$(vevent "$2" "$3" "$4" "${5:-}")"
    uid="$(printf '%s' "$daten" | sed -n 's/^UID:\(.*\)\r$/\1/p')"
    mit_auth -X PUT -H 'Content-Type: text/calendar; charset=utf-8' -H 'If-None-Match: *' \
      --data-binary "$daten" "${BASIS}/${uid}.ics"
    echo "Angelegt: ${BASIS}/${uid}.ics"
    ;;
  woche)
    von="$(date -u +%Y%m%dT000000Z)"; bis="$(date -u -d '+7 days' +%Y%m%dT235959Z)"
    mit_auth -X REPORT -H 'Depth: 1' -H 'Content-Type: application/xml' --data-binary @- "$BASIS/" <<XML \
      | grep -E '^(DTSTART|SUMMARY)' | sed 's/\r$//' | paste - -
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:time-range start="${von}" end="${bis}"/>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>
XML
    ;;
  ics) vevent "$2" "$3" "$4" "${5:-}" ;;
  *) echo "Aufruf: $0 neu|woche|ics …" >&2; exit 2 ;;
esac
