"""What a served worker does at once when it is told to stop (SIGTERM, or SIGINT: Ctrl-C).

Granian's worker stops serving on these signals, then waits for its open responses to
finish before its app's lifespan ends, and its main process kills a worker that is not
done within `server.STOP_SECONDS`. An event stream never finishes by itself, so the
worker must end its streams as soon as the signal comes, not at the end of the lifespan.

Granian registers its handler with the event loop (`loop.add_signal_handler`), which
learns of a signal through the wakeup file descriptor that Python writes to whatever
Python-level handler is installed. So a Python-level handler can be put in front
(`signal.signal`) without taking the signal from Granian: both run.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

Handler = Callable[[int, FrameType | None], object] | int | None


def call_on_stop_signal(callback: Callable[[], None]) -> Callable[[], None]:
    """Calls `callback` on the running event loop when SIGINT or SIGTERM comes, before
    the Python handler that was there, which still runs. A signal without one (default
    or ignored) is left alone: nothing in the process stops gracefully on it anyway.
    Must be called on the main thread, inside the loop. Returns what puts the former
    handlers back."""
    loop = asyncio.get_running_loop()
    former: dict[int, Handler] = {
        sig: handler for sig in STOP_SIGNALS if callable(handler := signal.getsignal(sig))
    }

    def on_signal(signum: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(callback)
        chained = former[signum]
        if callable(chained):
            chained(signum, frame)

    for sig in former:
        signal.signal(sig, on_signal)

    def restore() -> None:
        for sig, handler in former.items():
            signal.signal(sig, handler)

    return restore
