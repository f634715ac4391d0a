"""What open event streams cost the gateway: `python -m research.streams [--streams 1000]`.

One gateway worker process (with its own Redis and engine), G games, and N event
streams spread over them, opened as a browser does (a ticket, then the stream). It
measures the worker's resident memory and CPU time while idle before any stream, while
the N streams stay open and idle (heartbeats only), and how long one change takes to
reach every stream of its game. Figures go to stdout as Markdown, for research/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
import statistics
import sys
import time

import httpx
import psutil

from bench.harness.meters import cpu_seconds
from bench.harness.report import Column, table
from bench.harness.servers import stop_servers_on_sigterm
from bench.harness.stack import Stack


def worker_of(main_pid: int) -> psutil.Process:
    """The gateway's one worker process (the main process only supervises it)."""
    children = psutil.Process(main_pid).children(recursive=True)
    assert children, "the gateway has no worker process"
    return max(children, key=lambda child: child.memory_info().rss)


async def idle_cost(process: psutil.Process, seconds: float) -> tuple[float, float]:
    """(RSS in MiB at the end, CPU % of one core) over `seconds` of waiting."""
    before = cpu_seconds(process.pid)
    await asyncio.sleep(seconds)
    used = cpu_seconds(process.pid) - before
    return process.memory_info().rss / 2**20, 100.0 * used / seconds


async def open_stream(
    http: httpx.AsyncClient,
    base: str,
    game: dict[str, str],
    ready: asyncio.Event,
    seen: list[float],
    opening: asyncio.Semaphore,
) -> None:
    """Opens one stream and records when each later event arrives (after the view)."""
    async with opening:
        issued = await http.post(
            f"{base}/v1/games/{game['id']}/stream-tickets",
            # not kept alive: an idle kept-alive connection is closed by the server after
            # its header timeout, and a request sent on it just then fails
            headers={"Authorization": f"Bearer {game['token']}", "Connection": "close"},
        )
    url = f"{base}{issued.json()['events']}"
    async with http.stream("GET", url) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("event: view"):
                ready.set()
            elif line.startswith("event: move"):
                seen.append(time.perf_counter())


async def measure(streams: int, games: int, idle_seconds: float) -> None:
    with Stack(players=False) as stack:
        base = stack.base_url
        worker = worker_of(stack.pids("gateway")["gateway"])
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            made = []
            for number in range(games):
                answer = await http.post(
                    f"{base}/v1/games", json={"variant": "la-belle-lucie", "deal": number}
                )
                made.append(answer.json())
            rss0, cpu0 = await idle_cost(worker, idle_seconds)
            readies = [asyncio.Event() for _ in range(streams)]
            arrivals: list[list[float]] = [[] for _ in range(streams)]
            began = time.perf_counter()
            opening = asyncio.Semaphore(50)  # tickets asked for 50 at a time
            tasks = [
                asyncio.create_task(
                    open_stream(http, base, made[n % games], readies[n], arrivals[n], opening)
                )
                for n in range(streams)
            ]
            for number, ready in enumerate(readies):
                while not ready.is_set():
                    failed = [t for t in tasks if t.done()]
                    if failed:
                        raise RuntimeError(f"a stream failed: {failed[0].exception()!r}")
                    await asyncio.wait([asyncio.create_task(ready.wait())], timeout=1.0)
                if number % 100 == 99:
                    print(f"{number + 1} streams open", file=sys.stderr, flush=True)
            opened = time.perf_counter() - began
            rss1, cpu1 = await idle_cost(worker, idle_seconds)
            # one move in each of 10 games: the time until every stream of it has it
            delays = []
            for number in range(min(10, games)):
                game = made[number]
                watchers = [n for n in range(streams) if n % games == number]
                counts = [len(arrivals[n]) for n in watchers]
                sent = time.perf_counter()
                await http.post(
                    f"{base}/v1/games/{game['id']}/moves",
                    headers={"Authorization": f"Bearer {game['token']}"},
                    json={"move": game["legal_moves"][0]},
                )
                while any(len(arrivals[n]) == c for n, c in zip(watchers, counts, strict=True)):
                    await asyncio.sleep(0.001)
                delays.append(max(arrivals[n][-1] for n in watchers) - sent)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    per_game = streams // games
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    load = os.getloadavg()[0]
    print(f"Machine: {machine}; Python {platform.python_version()}; load average {load:.1f}.")
    print()
    idle = table(
        "gateway worker (1 process)", Column("resident memory", unit=" MiB"),
        Column("CPU (% of one core)", 2, unit=" %"),
    )  # fmt: skip
    idle.add(f"no stream, idle {idle_seconds:g} s", rss0, cpu0)
    idle.add(f"{streams} open streams ({games} games), idle {idle_seconds:g} s", rss1, cpu1)
    print(idle.markdown())
    print()
    print(f"Per stream: {(rss1 - rss0) * 1024 / streams:.1f} KiB. Opening all {streams} "
          f"(ticket + stream + first view each): {opened:.1f} s. A move reaching all "
          f"{per_game} streams of its game: median {statistics.median(delays) * 1000:.1f} ms, "
          f"worst {max(delays) * 1000:.1f} ms ({len(delays)} moves).")  # fmt: skip


def main() -> None:
    stop_servers_on_sigterm()
    # each stream is a socket at both ends (this process and the gateway, which
    # inherits the limit): raise the soft limit on open files to the hard one
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    parser = argparse.ArgumentParser(prog="python -m research.streams", description=__doc__)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    args = parser.parse_args()
    asyncio.run(measure(args.streams, args.games, args.idle_seconds))


if __name__ == "__main__":
    main()
