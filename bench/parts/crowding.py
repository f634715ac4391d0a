"""`python -m bench` part "crowding": whether searches crowd out moves.

Moves over HTTP from closed-loop clients (bench/clients/gateway_players.py, 16 by
default) against `patience serve` itself (the launcher, with its Redis, PostgreSQL,
engine and gateway, each started by it as it always does), in three conditions
measured in the same run, one after the other in each of `--crowding-rounds` rounds
(quiet, filling, filling + hints, quiet, ...):

- **quiet**: `patience serve` without pools of winnable deals (WINNABLE_POOL_SIZE=0): no
  background search; the baseline.
- **pools filling**: a cold start of the pools: their keys deleted from Redis, then
  `patience serve` started with the default pool size, so that its refill searches deals
  (NewGame, then Solve within WINNABLE_SOLVE_MILLISECONDS, one after another) for the
  whole window.
- **pools filling + hints**: the same, and `--crowding-hints-per-second` (default 2)
  `GET /v1/games/{id}/hint` sent at a fixed rate (open loop) on games of their own
  (random deals of the games whose hints search longest).

`patience serve` is started afresh for each window (so every condition is measured right
after a start), on one data folder kept for the whole part: the games the clients play,
the seal key and PostgreSQL's data stay; the pools are emptied at the end of each window.
Its daily deals (the other searches of a first start) are limited to one quick game,
prepared before the first window. The load generator (this process) runs in a session of
its own, apart from the services, as remote players would.

Reported per condition: moves/s, p50/p95/p99/max, the ratio of each to quiet, the CPU
the search processes used during the window (in cores) and each service's, the deals
the pools gained, and the hints' latency and refusals (503 solver-busy). The services'
processes are listed with their niceness and scheduling group (Linux autogroup:
processes of one session share the CPU as one, against the other sessions), which
decide who gets a core.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from bench.harness.meters import CpuMeter
from bench.harness.report import Column, Report, Section, fmt
from bench.harness.servers import LAUNCH_SECONDS, command_line
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Measurement, closed_loop, percentile, ratio

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
        merged = self.windows[0].moves
        for window in self.windows[1:]:
            merged = merged.merged(window.moves)
        return merged

    @property
    def max_ms(self) -> float:
        return max(w.max_ms for w in self.windows)

    @property
    def search_cores(self) -> float:
        seconds = sum(w.moves.seconds for w in self.windows)
        return sum(w.search_cpu for w in self.windows) / seconds if seconds else math.nan

    def cores_of(self, name: str) -> float:
        """Cores a server used over the windows; the engine's without its searches."""
        seconds = sum(w.moves.seconds for w in self.windows)
        used = sum(w.moves.server_cpu_by_name.get(name, 0.0) for w in self.windows)
        if name == "engine":
            used -= sum(w.search_cpu for w in self.windows)
        return used / seconds if seconds else math.nan

    @property
    def client_cores(self) -> float:
        seconds = sum(w.moves.seconds for w in self.windows)
        return sum(w.moves.client_cpu_seconds for w in self.windows) / seconds

    def hint_ms(self, fraction: float) -> float:
        ordered = sorted(x for w in self.windows for x in w.hint_latencies)
        return percentile(ordered, fraction) * 1000.0


def _search_pids(engine_pid: int) -> list[int]:
    """The engine's search processes: its descendants started by multiprocessing's spawn
    that started none themselves (with several engine workers, the workers did)."""
    try:
        tree = psutil.Process(engine_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    spawned = [proc for proc in tree if "spawn_main" in command_line(proc)]
    parents = set()
    for proc in spawned:
        with contextlib.suppress(psutil.Error):
            parents.add(proc.ppid())
    return [proc.pid for proc in spawned if proc.pid not in parents]


def _search_cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


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

    def _serve(self, pool_size: int) -> Stack:
        """`patience serve` on the part's data folder."""
        env = {
            "WINNABLE_POOL_SIZE": str(pool_size),
            "DAILY_VARIANTS": DAILY_VARIANTS,
            "LOG_LEVEL": "warning",
        }
        return Stack(launched_in=self.data_dir, gateway_env=env)

    # ------------------------------------------------------------------ the pools

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

    # ------------------------------------------------------------------ load

    async def setup(self) -> None:
        """A first start: PostgreSQL's data made, the daily deals prepared, the clients'
        games and the hint games created, the pools left empty."""
        with self._serve(0) as serve:
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
                self.players = Players(
                    serve.base_url, None, self.plan, self.settings.games_per_client
                )
                await self.players.prepare(self.settings.crowding_clients)
                await self.players.close()
                for index in range(HINT_GAMES):
                    variant = HINT_VARIANTS[index % len(HINT_VARIANTS)]
                    ref, _ = await gateway_api.create_game(conn, variant)
                    self.hint_games.append(ref)
            finally:
                await conn.close()
            client = aioredis.from_url(serve.redis_url)
            try:
                await self._clear_pools(client)
            finally:
                await client.aclose()

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

    async def window(self, condition: str) -> Window:
        settings = self.settings
        pool_size = 0 if condition == QUIET else DEFAULT_WINNABLE_POOL_SIZE
        with self._serve(pool_size) as serve:
            assert self.players is not None
            self._point_at(serve.base_url)
            services = serve.pids()
            self.processes = describe_processes(services)
            searches = _search_pids(services["engine"])
            search_before = _search_cpu(searches)
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
            result.search_cpu = _search_cpu(searches) - search_before
            client = aioredis.from_url(serve.redis_url)
            try:
                result.pooled = await self._pooled(client)
                await self._clear_pools(client)  # the next start fills them from empty
            finally:
                await client.aclose()
        return result

    async def measure(self) -> list[Condition]:
        await self.setup()
        conditions = {name: Condition(name) for name in CONDITIONS}
        for _ in range(self.settings.crowding_rounds):
            for name in CONDITIONS:
                conditions[name].windows.append(await self.window(name))
        return list(conditions.values())


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-crowding-") as folder:
        data_dir = Path(folder) / "data"
        bench = CrowdingBench(settings, data_dir)
        conditions = run_fast(bench.measure)
    write_crowding(report, report.section("Searches beside moves"), settings, bench, conditions)


def write_crowding(
    report: Report,
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
        f" PostgreSQL; daily deals of {DAILY_VARIANTS} only, prepared beforehand)."
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
            condition.search_cores, [*services, condition.client_cores],
            [w.pooled for w in windows], hints if hinted else None,
            [condition.hint_ms(0.5), condition.hint_ms(0.99)] if hinted else None, moves.errors,
        )  # fmt: skip
        key = "crowding." + condition.name.replace(" + ", "_").replace(" ", "_")
        report.measurement(key, moves)
        report.figure(f"{key}.max_ms", condition.max_ms)
        report.figure(f"{key}.search_cores", condition.search_cores)
        section.first_error(condition.name, moves.first_error)
    worst = conditions[-1].moves.p99_ms
    met = "met" if worst < GOAL_P99_MS else "not met"
    section.note(
        f"Move p99 with pools filling and hints: {fmt(worst, 1)} ms (goal under"
        f" {GOAL_P99_MS:g} ms: {met}); quiet: {fmt(quiet.p99_ms, 1)} ms."
        f" Processes: {bench.processes}."
    )
