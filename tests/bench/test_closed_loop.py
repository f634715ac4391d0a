"""The bench's closed loop (bench/harness/stats.py) on calls of its own, no server."""

from __future__ import annotations

import asyncio

from bench.harness.stats import closed_loop


async def test_first_calls_longer_than_warmup_and_window_leave_the_rest_counted() -> None:
    """Each worker's first call outlasts the warmup and the whole window (a connection
    opened, a crowded machine): the warmup waits for it, so the window still counts the
    calls that follow."""
    first: set[int] = set()

    async def call(worker: int) -> None:
        if worker not in first:
            first.add(worker)
            await asyncio.sleep(0.5)
        else:
            await asyncio.sleep(0.001)

    measured = await closed_loop(call, concurrency=2, duration=0.2, warmup=0.05)
    assert measured.errors == 0
    assert measured.calls > 10
    assert max(measured.latencies) < 0.5  # the slow first calls were the warmup's


async def test_a_window_shorter_than_a_call_still_counts_one() -> None:
    """Every call outlasts the window (a crowded machine): the calls in flight when it
    opens began before it and do not count, so the window stays open until a call begun
    inside it has ended, rather than measuring nothing."""

    async def call(_: int) -> None:
        await asyncio.sleep(0.3)

    measured = await closed_loop(call, concurrency=2, duration=0.05, warmup=0.01)
    assert measured.errors == 0
    assert measured.calls >= 1
    assert measured.seconds > 0.3
    assert min(measured.latencies) >= 0.3
