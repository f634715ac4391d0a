"""Closed-loop load driving and the figures taken from it (rate, percentiles, CPU).

A closed loop keeps N calls in flight: each of N workers starts its next call as soon
as its last one returned, so N is the concurrency and the rate is what the server
sustains at that concurrency (no coordinated-omission correction is needed because
nothing is scheduled at a fixed rate).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bench.harness.meters import CpuMeter
from bench.harness.settings import Settings


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values (0 < fraction <= 1)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def percentile_ms(seconds: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of times in seconds, in ms."""
    return percentile(sorted(seconds), fraction) * 1000.0


def ratio(top: float | None, bottom: float | None) -> float | None:
    """top / bottom, or None where either is missing or the bottom is zero or NaN."""
    if top is None or not bottom or math.isnan(bottom):
        return None
    return top / bottom


@dataclass
class Measurement:
    """What one closed-loop run gave."""

    concurrency: int
    calls: int
    errors: int
    seconds: float
    latencies: list[float] = field(repr=False)
    server_cpu_seconds: float | None = None
    client_cpu_seconds: float = 0.0
    # server CPU seconds split by process name (CpuMeter's names)
    server_cpu_by_name: dict[str, float] = field(default_factory=dict)
    first_error: str = ""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds > 0 else 0.0

    def latency_ms(self, fraction: float) -> float:
        return percentile_ms(self.latencies, fraction)

    @property
    def p50_ms(self) -> float:
        return self.latency_ms(0.50)

    @property
    def p95_ms(self) -> float:
        return self.latency_ms(0.95)

    @property
    def p99_ms(self) -> float:
        return self.latency_ms(0.99)

    @property
    def server_cpu_us_per_call(self) -> float | None:
        if self.server_cpu_seconds is None or not self.calls:
            return None
        return self.server_cpu_seconds / self.calls * 1e6

    def server_cpu_us_per_call_of(self, name: str) -> float | None:
        if name not in self.server_cpu_by_name or not self.calls:
            return None
        return self.server_cpu_by_name[name] / self.calls * 1e6

    @property
    def client_cpu_us_per_call(self) -> float | None:
        return self.client_cpu_seconds / self.calls * 1e6 if self.calls else None

    def merged(self, other: Measurement) -> Measurement:
        """Two runs of the same thing as one (used when rounds alternate)."""
        server = None
        if self.server_cpu_seconds is not None and other.server_cpu_seconds is not None:
            server = self.server_cpu_seconds + other.server_cpu_seconds
        return Measurement(
            concurrency=self.concurrency,
            calls=self.calls + other.calls,
            errors=self.errors + other.errors,
            seconds=self.seconds + other.seconds,
            latencies=self.latencies + other.latencies,
            server_cpu_seconds=server,
            client_cpu_seconds=self.client_cpu_seconds + other.client_cpu_seconds,
            server_cpu_by_name={
                name: seconds + other.server_cpu_by_name.get(name, 0.0)
                for name, seconds in self.server_cpu_by_name.items()
            },
            first_error=self.first_error or other.first_error,
        )


Call = Callable[[int], Awaitable[object]]

# how long calls in flight at the end of a window may take before they are abandoned
DRAIN_SECONDS = 30.0


async def closed_loop(
    call: Call,
    *,
    concurrency: int,
    duration: float,
    warmup: float = 0.0,
    cpu: CpuMeter | None = None,
) -> Measurement:
    """Run `call(worker_index)` from `concurrency` workers for `warmup` then `duration`
    seconds; only calls started inside the measured window count, and an exception
    counts as an error. The warmup lasts until every worker has also ended a call (for
    up to DRAIN_SECONDS more): a first call slower than the warmup (connections opened,
    scripts loaded, a crowded machine) would otherwise run through a short window, and
    no call would start inside it. The window, too, stays open past `duration` until a
    call started inside it has ended (for up to DRAIN_SECONDS more): calls slower than
    the window, begun just before it, would otherwise leave it with none counted. Calls
    still running DRAIN_SECONDS after the window are cancelled and counted as errors, so
    a stalled server cannot hang the bench."""
    measuring = False
    stopping = False
    latencies: list[float] = []
    errors = 0
    first_error = ""
    warmed = [asyncio.Event() for _ in range(concurrency)]
    counted_one = asyncio.Event()  # a call started inside the window has ended

    async def worker(index: int) -> None:
        nonlocal errors, first_error
        while not stopping:
            counted = measuring
            began = time.perf_counter()
            try:
                await call(index)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every failure is a figure, not a crash
                if counted:
                    errors += 1
                    first_error = first_error or f"{type(exc).__name__}: {exc}"[:300]
                continue
            finally:
                warmed[index].set()
                if counted:
                    counted_one.set()
            if counted:
                latencies.append(time.perf_counter() - began)

    tasks = [asyncio.create_task(worker(i)) for i in range(concurrency)]
    try:
        if warmup > 0:
            await asyncio.sleep(warmup)
            waits = [asyncio.create_task(event.wait()) for event in warmed]
            await asyncio.wait(waits, timeout=DRAIN_SECONDS)
            for wait in waits:
                wait.cancel()
        cpu_before = cpu.by_name() if cpu else {}
        client_before = time.process_time()
        window_start = time.perf_counter()
        measuring = True
        await asyncio.wait(tasks, timeout=duration)  # or until every worker has ended
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(counted_one.wait(), DRAIN_SECONDS)
        stopping = True
        measuring = False
        _, stalled = await asyncio.wait(tasks, timeout=DRAIN_SECONDS)
        if stalled:
            errors += len(stalled)
            first_error = (
                first_error
                or f"{len(stalled)} call(s) still running {DRAIN_SECONDS:g} s after the window"
            )
        elapsed = time.perf_counter() - window_start
        client_cpu = time.process_time() - client_before
        cpu_after = cpu.by_name() if cpu else {}
        by_name = {name: cpu_after[name] - cpu_before[name] for name in cpu_before}
        server_cpu = sum(by_name.values()) if cpu else None
    finally:
        stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return Measurement(
        concurrency=concurrency,
        calls=len(latencies),
        errors=errors,
        seconds=elapsed,
        latencies=latencies,
        server_cpu_seconds=server_cpu,
        client_cpu_seconds=client_cpu,
        server_cpu_by_name=by_name,
        first_error=first_error,
    )


# a call of a closed loop, and the processes whose CPU it costs (None: none measured)
Loop = tuple[Call, CpuMeter | None]


async def run_loop(loop: Loop, clients: int, seconds: float, warmup: float) -> Measurement:
    call, cpu = loop
    return await closed_loop(call, concurrency=clients, duration=seconds, warmup=warmup, cpu=cpu)


async def alternate(
    loops: Mapping[str, Loop], clients: int, settings: Settings, warmup: float | None = None
) -> dict[str, Measurement]:
    """Each named loop for `settings.seconds` in all, in `settings.rounds` rounds taking
    turns (A B A B ...), each one's rounds merged, so that a slow spell on a shared
    machine hits every contender."""
    seconds = settings.seconds / settings.rounds
    warmup = settings.warmup if warmup is None else warmup
    merged: dict[str, Measurement] = {}
    for _ in range(settings.rounds):
        for name, loop in loops.items():
            result = await run_loop(loop, clients, seconds, warmup)
            merged[name] = merged[name].merged(result) if name in merged else result
    return merged
