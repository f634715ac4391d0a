"""A search as the engine hands it to a search process (patience_engine.searches) and
the process runs it (patience_engine.search_replies)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One search: ``kind`` "solve" or "hint", a serialized GameState already validated
    by the engine, the budget in positions and seconds (counted from when a search
    process takes the job up), and the absolute time by which the answer must be on its
    way (``time.monotonic()``, the same clock in every process of the machine; infinite
    for a call without a deadline)."""

    kind: str
    state: bytes
    positions: int
    seconds: float
    deadline: float
    # the call's trace context, W3C headers (empty when the engine does not trace)
    trace: tuple[tuple[str, str], ...] = ()
    # a hint: the positions its search must not enter (the avoid of the game's last
    # hint: patience.solver.hints, "Following hints")
    avoid: tuple[bytes, ...] = ()
    # the id of the request the call serves, for the search process's log lines
    request_id: str | None = None
