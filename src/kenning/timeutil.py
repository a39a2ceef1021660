"""Times in and out: the store keeps UTC epoch seconds; people write dates and durations."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from .errors import InvalidInput

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w|y)\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
MAX_YEARS = 1000  # "99999999d" is a typo, not a plan: and datetime ends at the year 9999


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_epoch(value: datetime) -> float:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def from_epoch(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def parse_duration(text: str) -> timedelta:
    """'90d', '12h', '2w', '30m' (minutes), '1y'; at most ``MAX_YEARS`` years."""
    m = _DURATION.match(text)
    if not m:
        raise InvalidInput(f"duration {text!r} not understood; write a number and a unit: 30m, 12h, 7d, 2w, 1y")
    seconds = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if seconds > MAX_YEARS * _UNITS["y"]:
        raise InvalidInput(f"duration {text.strip()!r} is more than {MAX_YEARS} years; give a shorter one, or none")
    return timedelta(seconds=seconds)


def parse_when(
    value: datetime | date | str | float | int | None, what: str = "time", *, past: bool = False
) -> datetime | None:
    """A point in time from a datetime, a date, an ISO 8601 string, epoch seconds, or a duration:
    "+7d" is a week from now, "-7d" a week ago, and a bare "7d" points forward, or back when
    ``past`` is set (for filters such as ``since="7d"``). Naive times are taken as UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, bool):
        raise InvalidInput(f"{what} must be a date or time, got {value!r}")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            raise InvalidInput(f"{what} {value!r} is not a valid epoch time") from None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a date or time, got {type(value).__name__}")
    text = value.strip()
    if text[:1] in "+-" and _DURATION.match(text[1:]):
        sign = -1 if text[0] == "-" else 1
        return utcnow() + sign * parse_duration(text[1:])
    if _DURATION.match(text):
        return utcnow() + (-1 if past else 1) * parse_duration(text)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            f"{what} {value!r} is not a date; use ISO 8601 (2026-12-31 or 2026-12-31T18:00) or a duration (7d, 12h)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
