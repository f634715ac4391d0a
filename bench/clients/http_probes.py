"""Probes of an HTTP server's limits, as a hostile or broken client sees them: huge
headers, a body that never comes, silent and idle connections, too many headers, a
long request line, and thousands of connections trickling their headers one byte at a
time while an ordinary client keeps asking for answers.

Each probe speaks raw HTTP/1.1 over asyncio sockets (no client library would send such
requests) and reports what the server did (its status line, or that it closed the
connection, or that nothing came) and how long that took. The server's memory is
sampled meanwhile (bench/harness/meters.py, by the probes part), so that a probe that
makes the server buffer what it should refuse shows up as growth.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from dataclasses import dataclass, field
from typing import Any

from bench.harness.event_loop import run_fast
from bench.harness.meters import cpu_seconds
from bench.harness.stats import percentile

CHUNK = 64 * 1024


@dataclass
class Outcome:
    """What the server did with one probing request."""

    status: int | None  # the status line's code, None if none came
    seconds: float  # from the first byte sent to the answer, the close or the give-up
    closed: bool  # the server closed the connection (before or after answering)
    sent_bytes: int  # how much of the request the server took before it answered


async def _read_status(reader: asyncio.StreamReader, wait: float) -> tuple[int | None, bool]:
    """The status code of the first response line, and whether the connection then
    ended; (None, True) when the server closed without answering."""
    try:
        async with asyncio.timeout(wait):
            line = await reader.readline()
    except TimeoutError:
        return None, False
    except ConnectionError:
        return None, True
    if not line:
        return None, True
    parts = line.split()
    status = int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None
    return status, False


async def exchange(
    host: str, port: int, head: bytes, filler: int = 0, tail: bytes = b"", wait: float = 30.0
) -> Outcome:
    """Sends `head`, then `filler` bytes of 'a' in chunks, then `tail`, and waits up to
    `wait` seconds for the status line. A server may answer (or close) before the
    request is complete: the bytes it had taken by then are `sent_bytes`."""
    began = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    sent = 0
    answered = asyncio.ensure_future(_read_status(reader, wait + 60))
    try:
        payload = [head, *([b"a" * CHUNK] * (filler // CHUNK)), b"a" * (filler % CHUNK), tail]
        for piece in payload:
            if answered.done() or not piece:
                continue
            writer.write(piece)
            try:
                await writer.drain()
            except ConnectionError:
                break
            sent += len(piece)
        try:
            async with asyncio.timeout(wait):
                status, closed = await asyncio.shield(answered)
        except TimeoutError:
            status, closed = None, False
        if status is not None:
            # did the server close the connection after its answer?
            with contextlib.suppress(TimeoutError, ConnectionError):
                async with asyncio.timeout(2):
                    while await reader.read(65536):
                        pass
                    closed = True
        return Outcome(status, time.perf_counter() - began, closed, sent)
    finally:
        answered.cancel()
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


# a GET /livez, its headers to follow
LIVEZ = b"GET /livez HTTP/1.1\r\nHost: probe\r\n"
# a POST declaring a 50-byte body that sends 1 byte and then nothing
SHORT_BODY = (
    b"POST /v1/games HTTP/1.1\r\nHost: probe\r\nContent-Type: application/json\r\n"
    b"Content-Length: 50\r\n\r\n{"
)


async def idle_after_request(host: str, port: int, wait: float) -> float | None:
    """Seconds a kept-alive connection stays open after one answered request (None:
    still open after `wait`)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(LIVEZ + b"\r\n")
        await writer.drain()
        status, _ = await _read_status(reader, 10)
        if status is None:
            return 0.0
        answered = time.perf_counter()
        try:
            async with asyncio.timeout(wait):
                while await reader.read(65536):
                    pass
        except TimeoutError:
            return None
        except ConnectionError:
            pass
        return time.perf_counter() - answered
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


@dataclass
class SlowClientsResult:
    """Ordinary requests answered while `target` slow connections were being held."""

    target: int
    held_min: int = 0
    held_mean: float = 0.0
    dropped_by_server: int = 0
    latencies: list[float] = field(default_factory=list)
    failures: int = 0
    first_failure: str = ""
    server_cpu_seconds: float = 0.0

    def p(self, fraction: float) -> float:
        return percentile(sorted(self.latencies), fraction) * 1000


async def _ordinary_request(host: str, port: int, timeout: float) -> float:
    """One GET /livez on a fresh connection: the time to its complete answer."""
    began = time.perf_counter()
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(LIVEZ + b"Connection: close\r\n\r\n")
            await writer.drain()
            data = await reader.read()
        finally:
            writer.close()
    if not data.startswith(b"HTTP/1.1 200"):
        raise ConnectionError(f"answer {data[:40]!r}")
    return time.perf_counter() - began


def _hold_slow_connections(
    host: str,
    port: int,
    target: int,
    byte_every: float,
    ramp_seconds: float,
    counters: Any,
    stop: Any,
) -> None:
    """In a process of its own (so that its work does not delay the ordinary
    requests being timed): keeps `target` connections trickling their headers."""

    async def trickle(index: int) -> None:
        await asyncio.sleep(ramp_seconds * index / target)
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(host, port)
            except OSError:
                await asyncio.sleep(1)
                continue
            with counters.get_lock():
                counters[HELD] += 1
            try:
                writer.write(LIVEZ + b"X-Slow: ")
                while not stop.is_set():
                    await writer.drain()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(byte_every):
                            if not await reader.read(65536):
                                raise ConnectionResetError
                    writer.write(b"a")
            except (ConnectionError, OSError):
                with counters.get_lock():
                    counters[DROPPED] += 1
            finally:
                with counters.get_lock():
                    counters[HELD] -= 1
                writer.close()

    async def main() -> None:
        tasks = [asyncio.ensure_future(trickle(index)) for index in range(target)]
        while not stop.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    run_fast(main)


# the holder's counters, shared with the measuring process
HELD, DROPPED = range(2)


async def slow_clients(
    host: str,
    port: int,
    target: int,
    *,
    byte_every: float,
    ramp_seconds: float,
    measure_seconds: float,
    ordinary_per_second: float,
    server_pid: int | None,
) -> SlowClientsResult:
    """Holds `target` connections that each send a request line and then one header
    byte every `byte_every` seconds (reconnecting when the server drops one, as an
    attacker would), from a child process, and meanwhile sends ordinary requests at a
    fixed rate, each on a fresh connection, recording their latency; an ordinary
    request fails if it takes more than 5 s or is not answered 200."""
    result = SlowClientsResult(target)
    context = multiprocessing.get_context("spawn")
    counters = context.Array("q", 2)
    stop = context.Event()
    holder = context.Process(
        target=_hold_slow_connections,
        args=(host, port, target, byte_every, ramp_seconds, counters, stop),
        name="slow-clients",
    )
    holder.start()
    try:
        await asyncio.sleep(ramp_seconds + byte_every)
        cpu_before = cpu_seconds(server_pid)
        began = time.perf_counter()
        samples: list[int] = []
        pending: list[asyncio.Future[float]] = []
        interval = 1 / ordinary_per_second
        next_at = began
        while time.perf_counter() - began < measure_seconds:
            pending.append(asyncio.ensure_future(_ordinary_request(host, port, 5.0)))
            samples.append(counters[HELD])
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        for outcome in await asyncio.gather(*pending, return_exceptions=True):
            if isinstance(outcome, BaseException):
                result.failures += 1
                result.first_failure = result.first_failure or repr(outcome)[:200]
            else:
                result.latencies.append(outcome)
        result.server_cpu_seconds = cpu_seconds(server_pid) - cpu_before
        result.held_min = min(samples)
        result.held_mean = sum(samples) / len(samples)
    finally:
        stop.set()
        holder.join(30)
        if holder.is_alive():
            holder.kill()
            holder.join()
    result.dropped_by_server = counters[DROPPED]
    return result
