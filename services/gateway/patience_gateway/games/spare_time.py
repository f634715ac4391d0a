"""When the searches made ahead (the daily deals, the winnable pools) may use the
engine: in the gateway process's spare time.

Run while games are played, those searches take the CPU that moves leave (the engine's
search processes run niced, but where a core has room they take it), and a move would
cost more in the minutes after a start than later. So such a search starts only once
the process has served no game for QUIET_SECONDS, and is stopped (its call cancelled:
the engine stops the search) as soon as one is served, to be started again at the next
quiet moment. One given `regardless_after` (a time.monotonic() moment) runs to its end
from then on: a service that is never quiet still gets its daily deals. The processes
of one service share its load, so the one that searches tells it by its own games.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

# How long a process must have served no game for its time to count as spare.
QUIET_SECONDS = 1.0


class SpareTime:
    def __init__(self, quiet_seconds: float = QUIET_SECONDS) -> None:
        self.quiet_seconds = quiet_seconds
        # Set by every game served (one step, so that the move path pays next to nothing).
        self.served = asyncio.Event()
        # When `served` was last cleared here (None: not yet): while it stays unset, no
        # game has been served since. So searches one after another in one quiet spell
        # (a day's deals tried one by one) wait for the quiet time once, not each.
        self._cleared_at: float | None = None

    async def run(self, make: Callable[[], Awaitable[T]], regardless_after: float = math.inf) -> T:
        """What `make()` answers, run in spare time (see the module's doc)."""
        while True:
            now = time.monotonic()
            if now >= regardless_after:
                return await make()
            if self._cleared_at is None or self.served.is_set():
                self.served.clear()
                self._cleared_at = now
            quiet_from = self._cleared_at + self.quiet_seconds
            if now < quiet_from:
                await asyncio.sleep(min(quiet_from, regardless_after) - now)
                continue  # looked at again: a game served meanwhile waits once more
            search = asyncio.ensure_future(make())
            served = asyncio.ensure_future(self.served.wait())
            try:
                await asyncio.wait((search, served), return_when=asyncio.FIRST_COMPLETED)
            finally:
                served.cancel()
                if not search.done():
                    search.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await search
            if not search.cancelled():
                return search.result()
