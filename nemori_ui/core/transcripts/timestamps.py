"""Timestamp parsing shared by every transcript format.

All results are *naive* datetimes. Values that carry a time zone (ISO offsets, ``Z``, unix epoch
seconds) are converted to UTC and then stripped of the zone; values without a zone are kept as the
wall-clock time they state. Naive values are what the benchmarks use (LoCoMo and LongMemEval
dates have no zone) and mixing aware and naive datetimes would make every later comparison in the
pipeline raise, so one convention for the whole product is simpler than carrying zones around.

Month and weekday names are matched against an English table rather than ``strptime``'s ``%B``,
so parsing does not depend on the process locale.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone
from typing import Any

from ..errors import InputError

EXPECTED = ("ISO 8601 (2024-03-01T09:15:00Z), 2024-03-01 09:15, 2023/05/20 (Sat) 02:21, "
            "'1:56 pm on 8 May, 2023', '8 May 2023', 'May 8, 2023 1:56 PM' or unix seconds")

_MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
     ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
     ("october", "oct"), ("november", "nov"), ("december", "dec")], start=1) for name in names}

# [0-9] rather than \d: \d also matches non-ASCII digits, which int() would happily accept.
_TIME = (r"(?P<h>[0-9]{1,2})(?::(?P<mi>[0-9]{2})(?::(?P<s>[0-9]{2}))?)?"
         r"\s*(?P<ap>[ap]\.?\s?m\.?)?")
_DMY = r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?\s+(?P<mon>[a-z]+)\.?,?\s+(?P<y>[0-9]{4})"
_MDY = r"(?P<mon>[a-z]+)\.?\s+(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>[0-9]{4})"
_WORDY = [re.compile(p, re.IGNORECASE) for p in (
    rf"^{_TIME}(?:\s+on|,)?\s+{_DMY}$",           # LoCoMo: 1:56 pm on 8 May, 2023
    rf"^{_TIME}(?:\s+on|,)?\s+{_MDY}$",
    rf"^{_DMY}(?:,?\s+(?:at\s+)?{_TIME})?$",      # 8 May 2023 [13:56]
    rf"^{_MDY}(?:,?\s+(?:at\s+)?{_TIME})?$",      # May 8, 2023 [1:56 PM]
)]
# LongMemEval: 2023/05/20 (Sat) 02:21; also tolerates '-' or '.' separators and no weekday.
_SLASHED = re.compile(r"^(?P<y>[0-9]{4})[/.-](?P<mo>[0-9]{1,2})[/.-](?P<d>[0-9]{1,2})"
                      r"(?:\s*\([a-z]{2,9}\.?\))?(?:[\sT]+" + _TIME + r")?$", re.IGNORECASE)
_WEEKDAY = re.compile(r"^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+", re.IGNORECASE)
_EPOCH = re.compile(r"^-?[0-9]{9,}(?:\.[0-9]+)?$")
_TIME_ONLY = re.compile(rf"^{_TIME}$", re.IGNORECASE)


def _naive_utc(dt: datetime) -> datetime:
    if dt.tzinfo is None:
        return dt
    return dt.astimezone(timezone.utc).replace(tzinfo=None)


def _from_epoch(seconds: float) -> datetime:
    # Above 1e11 seconds is past the year 5000: such values are milliseconds (JavaScript, Slack).
    if abs(seconds) >= 1e11:
        seconds /= 1000.0
    return datetime.fromtimestamp(seconds, tz=timezone.utc).replace(tzinfo=None)


def _clock(m: re.Match) -> time:
    """The time of day of a match of _TIME; midnight when the match has no time."""
    if m.group("h") is None:
        return time(0, 0)
    hour, ampm = int(m.group("h")), (m.group("ap") or "").lower()
    if m.group("mi") is None and not ampm:
        raise ValueError("an hour needs minutes or am/pm")
    if ampm:
        if not 1 <= hour <= 12:
            raise ValueError(f"hour {hour} with am/pm")
        hour = hour % 12 + (12 if ampm.startswith("p") else 0)
    return time(hour, int(m.group("mi") or 0), int(m.group("s") or 0))


def parse_time_of_day(value: str) -> time | None:
    """'09:15', '9:15:30', '1:56 pm' -> time; None when the string is not a bare time."""
    m = _TIME_ONLY.match(value.strip())
    if not m or (m.group("mi") is None and not m.group("ap")):
        return None
    try:
        return _clock(m)
    except ValueError:
        return None


def _parse_string(text: str) -> datetime:
    if _EPOCH.match(text):
        return _from_epoch(float(text))
    try:
        return _naive_utc(datetime.fromisoformat(text))
    except ValueError:
        pass
    m = _SLASHED.match(text)
    if m:
        return datetime.combine(date(int(m["y"]), int(m["mo"]), int(m["d"])), _clock(m))
    wordy = _WEEKDAY.sub("", text, count=1)
    for pattern in _WORDY:
        m = pattern.match(wordy)
        if m and m["mon"].lower() in _MONTHS:
            day = date(int(m["y"]), _MONTHS[m["mon"].lower()], int(m["d"]))
            return datetime.combine(day, _clock(m))
    raise ValueError("unrecognised")


def parse_timestamp(value: Any) -> datetime:
    """Parse one timestamp value (string, epoch number or datetime); ValueError says why not."""
    if isinstance(value, datetime):
        return _naive_utc(value)
    if isinstance(value, bool):   # bool is an int subclass; True is not 1970-01-01T00:00:01
        raise ValueError(f"{value!r} is not a date/time")
    try:
        if isinstance(value, (int, float)):
            return _from_epoch(float(value))
        if isinstance(value, str) and value.strip():
            return _parse_string(" ".join(value.split()))
    except (ValueError, OverflowError, OSError) as exc:
        shown = value if len(str(value)) <= 60 else str(value)[:57] + "..."
        detail = "" if str(exc) == "unrecognised" else f" ({exc})"
        raise ValueError(f"unrecognised date/time {shown!r}{detail}; expected {EXPECTED}") from None
    raise ValueError(f"expected a date/time string or number, got {type(value).__name__}")


def to_timestamp(value: Any, *, file: str, line: int | None = None,
                 field: str | None = None) -> datetime | None:
    """parse_timestamp for user input: None/'' mean 'no timestamp', errors name the place."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return parse_timestamp(value)
    except ValueError as exc:
        raise InputError(str(exc), file=file, line=line, field=field) from None
