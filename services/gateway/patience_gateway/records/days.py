"""Days of the daily deals: UTC dates, written `YYYY-MM-DD`.

A day's deal number is hidden until the day is over (its last millisecond, UTC): every
answer that could name it asks `over` first.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def today(now_ms: int | None = None) -> date:
    moment = time.time() if now_ms is None else now_ms / 1000
    return datetime.fromtimestamp(moment, UTC).date()


def end_ms(day: date) -> int:
    """The first millisecond after the day (UTC)."""
    following = datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC)
    return int(following.timestamp() * 1000)


def over(day: str | date, now_ms: int | None = None) -> bool:
    """Whether the day has ended (so its deal numbers may be shown)."""
    when = date.fromisoformat(day) if isinstance(day, str) else day
    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    return now >= end_ms(when)


def parse(text: str) -> date | None:
    """A day written YYYY-MM-DD (fromisoformat alone would take other ISO forms too)."""
    if not _DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
