"""`python -m bench` part "scaling": moves/s through the whole stack with 1, 2, 4, ...
gateway and engine processes, up to the cores, and where each microsecond of a move goes.

At each level P the stack is started afresh: one Redis, the engine with ENGINE_WORKERS=P
and the gateway with GATEWAY_WORKERS=P. The load generator runs in its own processes
(`--scaling-client-processes`, by default one per four cores, one at least), each a
closed loop of keep-alive HTTP clients (bench/clients/gateway_players.py on uvloop) playing games of
their own, 8 x P clients in all; their windows start together. Reported per level:
moves/s, latency, moves/s per server core busy, efficiency against one process
(rate / (P x the rate at P = 1)), server CPU per move split by service (gateway, engine,
Redis), how evenly the engine's processes shared the work (the busiest and the idlest
process, in cores), and the load generator's CPU per call and cores used against the
cores the servers left: when those are near zero, the generator was the limit.
"""

from __future__ import annotations

import asyncio
import functools
import math
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from threading import Barrier

from bench.clients.endless_games import EndlessGame, find_endless_game
from bench.clients.gateway_players import Players
from bench.harness.event_loop import run_fast
from bench.harness.meters import cpu_seconds_by_pid, spawned
from bench.harness.report import Column, Report, Section
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Measurement, closed_loop

CLIENTS_PER_PROCESS_LEVEL = 8
# how long the processes wait for one another to have their games
READY_SECONDS = 300.0
SERVICES = ("gateway", "engine", "redis")


@dataclass
class Level:
    processes: int
    seconds: float
    moves: Measurement  # the load-generator processes' closed loops together
    server_cpu: dict[str, float]  # CPU s by service
    engine_workers: list[float]  # CPU s of each engine process

    @property
    def rate(self) -> float:
        return self.moves.calls / self.seconds if self.seconds else 0.0

    def us_per_move(self, service: str) -> float:
        calls = self.moves.calls
        return self.server_cpu.get(service, 0.0) / calls * 1e6 if calls else math.nan

    @property
    def server_cores(self) -> float:
        return sum(self.server_cpu.values()) / self.seconds


def client_process(
    base_url: str, plan: EndlessGame, clients: int, games: int, ready: Barrier,
    warmup: float, seconds: float,
) -> Measurement:  # fmt: skip
    """One load-generator process: prepares its games, waits until every process has
    (`ready`, which the measuring process waits on too), then a closed loop of `clients`
    clients for warmup + seconds."""

    async def main() -> Measurement:
        players = Players(base_url, None, plan, games)
        try:
            await players.prepare(clients)
            await asyncio.to_thread(ready.wait, READY_SECONDS)
            return await closed_loop(
                players.gateway_move, concurrency=clients, duration=seconds, warmup=warmup
            )
        finally:
            await players.close()

    return run_fast(main)


def measure_level(settings: Settings, plan: EndlessGame, processes: int, loaders: int) -> Level:
    seconds = settings.seconds
    clients = CLIENTS_PER_PROCESS_LEVEL * processes
    per_loader = [clients // loaders + (1 if i < clients % loaders else 0) for i in range(loaders)]
    per_loader = [count for count in per_loader if count]
    with (
        Stack(players=False, engine_workers=processes, gateway_workers=processes) as stack,
        multiprocessing.Manager() as manager,
        ProcessPoolExecutor(max_workers=len(per_loader)) as pool,
    ):
        pids = stack.pids()
        # the engine's worker processes: itself alone, or the children it spawned
        workers = {p for p, parent in spawned(pids["engine"]).items() if parent == pids["engine"]}
        workers = workers or {pids["engine"]}
        # the windows start together once every client has its games: the servers' CPU is
        # read over the clients' measured window
        ready = manager.Barrier(len(per_loader) + 1)
        runs = [
            pool.submit(
                client_process, stack.base_url, plan, count, settings.games_per_client, ready,
                settings.warmup, seconds,
            )
            for count in per_loader
        ]  # fmt: skip
        ready.wait(READY_SECONDS)
        time.sleep(settings.warmup)
        before = {name: cpu_seconds_by_pid(pid) for name, pid in pids.items()}
        time.sleep(seconds)
        after = {name: cpu_seconds_by_pid(pid) for name, pid in pids.items()}
        results = [run.result() for run in runs]
    used = {
        name: {pid: cpu - before[name].get(pid, 0.0) for pid, cpu in after[name].items()}
        for name in pids
    }
    server_cpu = {name: sum(by_pid.values()) for name, by_pid in used.items()}
    engines = sorted(cpu for pid, cpu in used["engine"].items() if pid in workers)
    return Level(
        processes, seconds, functools.reduce(Measurement.merged, results), server_cpu, engines
    )


def levels_for(cores: int, wanted: tuple[int, ...]) -> list[int]:
    """The levels asked for, or 1, 2, 4, ... up to the cores, and the cores."""
    return list(wanted) or sorted({*(2**n for n in range(cores.bit_length())), cores})


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    cores = os.cpu_count() or 1
    loaders = settings.scaling_client_processes or max(1, cores // 4)
    plan = find_endless_game(settings.gateway_variant)
    levels = [
        measure_level(settings, plan, p, loaders)
        for p in levels_for(cores, settings.scaling_levels)
    ]
    write_scaling(report.section("Scaling with processes"), levels, cores, loaders)


def write_scaling(section: Section, levels: list[Level], cores: int, loaders: int) -> None:
    section.note(
        f"At each level P: a fresh Redis, the engine with ENGINE_WORKERS=P, the gateway with"
        f" GATEWAY_WORKERS=P; {CLIENTS_PER_PROCESS_LEVEL} x P closed-loop HTTP clients in"
        f" {loaders} load-generator process(es) (bench.clients.http_client, uvloop), each client"
        f" moving a card back and forth in games of its own, {levels[0].seconds:g} s per"
        f" level. {cores} cores."
    )
    base = levels[0].rate if levels and levels[0].processes == 1 else None
    table = section.table(
        "processes (gateway + engine)", "clients", "moves/s", Column("p50 ms", 2),
        Column("p99 ms", 2), "moves/s per server core", Column("efficiency vs 1", 0, percent=True),
        Column("gateway µs/move", 0), Column("engine µs/move", 0), Column("redis µs/move", 0),
        Column("engine processes busy (cores, min..max)", 2, joiner=".."),
        Column("client µs/call", 0), Column("client cores used / left by the servers", 2),
        "errors",
    )  # fmt: skip
    for level in levels:
        per_core = level.rate / level.server_cores if level.server_cores else math.nan
        efficiency = level.rate / (level.processes * base) if base else None
        workers = [cpu / level.seconds for cpu in level.engine_workers]
        spread = (min(workers), max(workers)) if workers else None
        client_us = level.moves.client_cpu_us_per_call
        left = max(0.0, cores - level.server_cores)
        table.add(
            f"{level.processes} + {level.processes}", CLIENTS_PER_PROCESS_LEVEL * level.processes,
            level.rate, level.moves.p50_ms, level.moves.p99_ms,
            per_core, efficiency, *(level.us_per_move(s) for s in SERVICES),
            spread, client_us, (level.moves.client_cpu_seconds / level.seconds, left),
            level.moves.errors,
        )  # fmt: skip
        key = f"scaling.p{level.processes}"
        us = {f"{service}_us": level.us_per_move(service) for service in SERVICES}
        section.record(key, rate=level.rate, efficiency=efficiency, per_core=per_core, **us)
        section.record(key, client_us=client_us)
        section.first_error(f"{level.processes} processes", level.moves.first_error)
    section.note(
        "Efficiency = moves/s at P / (P x moves/s at 1). The load generator shares the"
        " machine: its cores used next to the cores the servers left tell whether it was"
        " the limit. Engine processes busy: the CPU of each engine process over the window,"
        " in cores: close values mean the calls were spread evenly."
    )
