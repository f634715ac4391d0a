"""`python -m bench` part "crowding": whether searches crowd out moves.

Moves over HTTP from closed-loop clients against `patience serve` itself (the launcher
starting its Redis, PostgreSQL, engine and gateway as it always does, on one data folder
kept for the part, started afresh for each window; the first start, a quiet one, also
prepares the daily deals and the clients' games), in three conditions taking turns in
each round: quiet (no pools of winnable deals), pools filling (from empty, with the
default size), and pools filling with hints asked at a fixed rate. Reported per
condition: the moves' rate and latency against quiet, the CPU of the search processes
and of each service, the deals pooled, the hints' latency and refusals, and the
services' processes with their niceness and scheduling group (bench/README.md,
"Searches beside moves").
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import redis.asyncio as aioredis
from patience_gateway.settings import DEFAULT_WINNABLE_POOL_SIZE
from patience_launcher.workers import split_workers

from bench.clients import gateway_api
from bench.clients.endless_games import find_endless_game
from bench.clients.gateway_players import Players
from bench.clients.http_client import Connection
from bench.harness.event_loop import run_fast
from bench.harness.meters import CpuMeter, cpu_seconds, spawned
from bench.harness.report import Column, Report, Section, fmt
from bench.harness.servers import LAUNCH_SECONDS
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Measurement, closed_loop, percentile_ms, ratio

QUIET = "quiet"
FILLING = "pools filling"
HINTED = "pools filling + hints"
CONDITIONS = (QUIET, FILLING, HINTED)
GOAL_P99_MS = 50.0
# games whose hints search longest (bench/README.md, "Hints over gRPC")
HINT_VARIANTS = ("house-in-the-wood", "napoleon-at-st-helena", "usk", "house-on-the-hill")
HINT_GAMES = 24
# the daily deals `patience serve` prepares: one game whose deals are proven at once
DAILY_VARIANTS = "bisley"


@dataclass
class Window:
    """One condition in one round."""

    moves: Measurement
    hint_latencies: list[float] = field(default_factory=list)
    hints_busy: int = 0
    hint_errors: int = 0
    search_cpu: float = 0.0  # CPU s of the search processes during the window
    pooled: int = 0  # deals in the pools at the end of the window

    @property
    def max_ms(self) -> float:
        return max(self.moves.latencies, default=math.nan) * 1000.0


@dataclass
class Condition:
    name: str
    windows: list[Window] = field(default_factory=list)

    @property
    def moves(self) -> Measurement:
        return functools.reduce(Measurement.merged, (w.moves for w in self.windows))

    @property
    def max_ms(self) -> float:
        return max(w.max_ms for w in self.windows)

    def cores(self, cpu_seconds: float) -> float:
        """CPU seconds over the windows, in cores."""
        seconds = sum(w.moves.seconds for w in self.windows)
        return cpu_seconds / seconds if seconds else math.nan

    @property
    def search_cores(self) -> float:
        return self.cores(sum(w.search_cpu for w in self.windows))

    def cores_of(self, name: str) -> float:
        """Cores a server used over the windows; the engine's without its searches."""
        used = sum(w.moves.server_cpu_by_name.get(name, 0.0) for w in self.windows)
        return self.cores(
            used - (sum(w.search_cpu for w in self.windows) if name == "engine" else 0)
        )

    def hint_ms(self, fraction: float) -> float:
        return percentile_ms([x for w in self.windows for x in w.hint_latencies], fraction)


def _search_pids(engine_pid: int) -> list[int]:
    """The engine's search processes: those it spawned that spawned none themselves
    (with several engine workers, the workers did)."""
    found = spawned(engine_pid)
    return [pid for pid in found if pid not in found.values()]


def _autogroup(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/autogroup").read_text().strip()
    except OSError:
        return "-"


def describe_processes(services: dict[str, int]) -> str:
    """The services' processes with their niceness and scheduling group (autogroup)."""
    named = dict(services)
    for pid in _search_pids(services["engine"]):
        named[f"engine's search process {pid}"] = pid
    lines = []
    for name, pid in named.items():
        with contextlib.suppress(psutil.Error, OSError):
            lines.append(
                f"{name.removesuffix(f' {pid}')} (pid {pid}): nice {psutil.Process(pid).nice()},"
                f" session {os.getsid(pid)}, autogroup `{_autogroup(pid)}`"
            )
    return "; ".join(lines)


class CrowdingBench:
    def __init__(self, settings: Settings, data_dir: Path) -> None:
        self.settings = settings
        self.data_dir = data_dir
        workers = split_workers(None, None, environ={})
        self.engine_workers = workers.engine
        self.gateway_workers = workers.gateway
        self.plan = find_endless_game(settings.gateway_variant)
        self.players: Players | None = None
        self.hint_games: list[gateway_api.GameRef] = []
        self.processes = ""

    def _serve(self, condition: str) -> Stack:
        """`patience serve` on the part's data folder, with pools of winnable deals but
        in the quiet condition."""
        pool_size = 0 if condition == QUIET else DEFAULT_WINNABLE_POOL_SIZE
        env = {
            "WINNABLE_POOL_SIZE": str(pool_size),
            "DAILY_VARIANTS": DAILY_VARIANTS,
            "LOG_LEVEL": "warning",
        }
        return Stack(launched_in=self.data_dir, gateway_env=env)

    async def _clear_pools(self, client: aioredis.Redis) -> None:
        """No pool, no pool wanted, no refill lock: the next start fills them from empty."""
        keys = [key async for key in client.scan_iter(match="winnable:*")]
        if keys:
            await client.delete(*keys)

    async def _pooled(self, client: aioredis.Redis) -> int:
        total = 0
        async for key in client.scan_iter(match="winnable:{*"):
            total += int(await client.llen(key))
        return total

    async def setup(self, serve: Stack) -> None:
        """On the first start (a quiet one, before its window): PostgreSQL's data made,
        the daily deals prepared, the clients' games and the hint games created."""
        conn = Connection(serve.base_url)
        try:
            deadline = time.monotonic() + LAUNCH_SECONDS
            while True:
                response = await conn.request("GET", "/v1/daily", expect=(200,))
                deals = response.json()["deals"]
                if deals and all(deal["ready"] for deal in deals):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"daily deals not prepared: {deals}")
                await asyncio.sleep(0.5)
            self.players = Players(serve.base_url, None, self.plan, self.settings.games_per_client)
            await self.players.prepare(self.settings.crowding_clients)
            await self.players.close()
            for index in range(HINT_GAMES):
                variant = HINT_VARIANTS[index % len(HINT_VARIANTS)]
                self.hint_games.append(await gateway_api.create_game(conn, variant))
        finally:
            await conn.close()

    def _point_at(self, url: str) -> None:
        assert self.players is not None
        self.players.gateway_conns = [Connection(url) for _ in self.players.gateway_conns]

    async def _hints(self, url: str, per_second: float, window: Window) -> None:
        """Hints at a fixed rate (open loop), each on a connection of its own, until
        cancelled."""
        games = itertools.cycle(self.hint_games)
        idle: list[Connection] = []
        tasks: set[asyncio.Task[None]] = set()

        async def one(game: gateway_api.GameRef) -> None:
            conn = idle.pop() if idle else Connection(url)
            began = time.perf_counter()
            try:
                response = await conn.request(
                    "GET", f"/v1/games/{game.id}/hint", headers=game.auth, expect=(200, 503)
                )
            except Exception:
                window.hint_errors += 1
                await conn.close()
                return
            if response.status == 503:
                window.hints_busy += 1
            else:
                window.hint_latencies.append(time.perf_counter() - began)
            idle.append(conn)

        start = time.perf_counter()
        try:
            for sent in itertools.count():
                pause = start + sent / per_second - time.perf_counter()
                if pause > 0:
                    await asyncio.sleep(pause)
                task = asyncio.create_task(one(next(games)))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        finally:
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(conn.close() for conn in idle))

    async def window(self, condition: str, serve: Stack) -> Window:
        settings = self.settings
        assert self.players is not None
        self._point_at(serve.base_url)
        services = serve.pids()
        self.processes = describe_processes(services)
        searches = _search_pids(services["engine"])
        search_before = sum(map(cpu_seconds, searches))
        result = Window(Measurement(0, 0, 0, 0.0, []))
        hints: asyncio.Task[None] | None = None
        if condition == HINTED:
            hints = asyncio.create_task(
                self._hints(serve.base_url, settings.crowding_hints_per_second, result)
            )
        try:
            result.moves = await closed_loop(
                self.players.gateway_move,
                concurrency=settings.crowding_clients,
                duration=settings.crowding_seconds,
                warmup=settings.warmup,
                cpu=CpuMeter(services),
            )
        finally:
            if hints is not None:
                hints.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await hints
            await self.players.close()
        result.search_cpu = sum(map(cpu_seconds, searches)) - search_before
        async with aioredis.from_url(serve.redis_url) as client:
            result.pooled = await self._pooled(client)
            await self._clear_pools(client)  # the next start fills them from empty
        return result

    async def measure(self) -> list[Condition]:
        conditions = {name: Condition(name) for name in CONDITIONS}
        for _ in range(self.settings.crowding_rounds):
            for name in CONDITIONS:
                with self._serve(name) as serve:
                    if self.players is None:  # the first start
                        await self.setup(serve)
                    conditions[name].windows.append(await self.window(name, serve))
        return list(conditions.values())


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-crowding-") as folder:
        data_dir = Path(folder) / "data"
        bench = CrowdingBench(settings, data_dir)
        conditions = run_fast(bench.measure)
    write_crowding(report.section("Searches beside moves"), settings, bench, conditions)


def write_crowding(
    section: Section,
    settings: Settings,
    bench: CrowdingBench,
    conditions: list[Condition],
) -> None:
    section.note(
        f"{settings.crowding_clients} closed-loop HTTP clients moving a card back and forth"
        f" (`{bench.plan.variant}` deal {bench.plan.deal}) for {settings.crowding_seconds:g} s"
        f" (after {settings.warmup:g} s of warm-up) per window, {settings.crowding_rounds}"
        f" round(s) of the three conditions in turn, each window on a freshly started"
        f" `patience serve` ({bench.gateway_workers} gateway and {bench.engine_workers} engine"
        f" process on {os.cpu_count()} cores, its default search processes, Redis and"
        f" PostgreSQL; daily deals of {DAILY_VARIANTS} only, prepared beforehand, on the"
        " first start, the first quiet window's)."
        f" Pools filling: from empty, pool size {DEFAULT_WINNABLE_POOL_SIZE}. Hints:"
        f" {settings.crowding_hints_per_second:g} per second, open loop, on {HINT_GAMES}"
        f" games of {', '.join(HINT_VARIANTS)}."
        f" The load generator shares the machine. Goal: move p99 under {GOAL_P99_MS:g} ms"
        " while pools fill and hints are asked."
    )
    quiet = conditions[0].moves
    table = section.table(
        "condition", "moves/s", Column("p50 ms", 2), Column("p95 ms", 2), Column("p99 ms", 2),
        "max ms", "p99 per round ms", Column("p99 / quiet", 2, unit="x"),
        Column("moves/s / quiet", 2, unit="x"), Column("search CPU (cores)", 2),
        Column("gateway / engine / redis / postgres / load generator (cores)", 2),
        "deals pooled per window", "hints answered / 503 / failed",
        Column("hint p50 / p99 ms", 0), "errors",
    )  # fmt: skip
    for condition in conditions:
        moves = condition.moves
        windows = condition.windows
        services = [condition.cores_of(name) for name in ("gateway", "engine", "redis", "postgres")]
        hinted = condition.name == HINTED
        hints = [sum(len(w.hint_latencies) for w in windows), sum(w.hints_busy for w in windows),
                 sum(w.hint_errors for w in windows)]  # fmt: skip
        table.add(
            condition.name, moves.rate, moves.p50_ms, moves.p95_ms, moves.p99_ms,
            condition.max_ms, [w.moves.p99_ms for w in windows],
            ratio(moves.p99_ms, quiet.p99_ms), ratio(moves.rate, quiet.rate),
            condition.search_cores,
            [*services, condition.cores(moves.client_cpu_seconds)],
            [w.pooled for w in windows], hints if hinted else None,
            [condition.hint_ms(0.5), condition.hint_ms(0.99)] if hinted else None, moves.errors,
        )  # fmt: skip
        key = "crowding." + condition.name.replace(" + ", "_").replace(" ", "_")
        section.measurement(key, moves)
        section.record(key, max_ms=condition.max_ms, search_cores=condition.search_cores)
        section.first_error(condition.name, moves.first_error)
    worst = conditions[-1].moves.p99_ms
    met = "met" if worst < GOAL_P99_MS else "not met"
    section.note(
        f"Move p99 with pools filling and hints: {fmt(worst, 1)} ms (goal under"
        f" {GOAL_P99_MS:g} ms: {met}); quiet: {fmt(quiet.p99_ms, 1)} ms."
        f" Processes: {bench.processes}."
    )
