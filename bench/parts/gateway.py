"""`python -m bench` part "gateway": the gateway over real HTTP against a bare FastAPI
endpoint, latency against concurrency, and the raw Redis round trip as the floor under
both, on the stack it shares with the growth and load parts.

Load comes from bench/clients/http_client.py (keep-alive HTTP/1.1 on asyncio streams,
parsed with httptools), one persistent connection per concurrent client, closed loop,
each client playing games of its own (bench/clients/gateway_players.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import redis.asyncio as aioredis

from bench.clients.endless_games import EndlessGame, find_endless_game
from bench.clients.gateway_players import Players
from bench.harness.event_loop import run_fast
from bench.harness.meters import CpuMeter
from bench.harness.report import (
    Column,
    Report,
    Section,
    cpu_by_process,
    fmt,
    measurement_cells,
    measurement_columns,
    pct,
)
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Measurement, alternate, closed_loop, ratio

GOAL_RATIO = 0.50
# the sweep stops once this many levels in a row fail to beat the best rate by 5 %
FLAT_LEVELS = 2


async def redis_round_trip(url: str, settings: Settings, cpu: CpuMeter) -> dict[str, Measurement]:
    client = aioredis.from_url(
        url, max_connections=settings.gateway_concurrency, socket_timeout=30.0
    )
    try:
        await client.ping()

        async def ping(_: int) -> object:
            return await client.ping()

        results = {}
        for clients in (1, settings.gateway_concurrency):
            results[f"ping x{clients}"] = await closed_loop(
                ping, concurrency=clients, duration=settings.sweep_seconds, warmup=0.2, cpu=cpu
            )
        return results
    finally:
        await client.aclose()


class GatewayBench:
    """The measurements of one stack: side by side, the sweep, the Redis floor."""

    def __init__(self, stack: Stack, plan: EndlessGame, settings: Settings) -> None:
        self.stack = stack
        self.settings = settings
        assert stack.bare is not None
        self.players = Players(stack.base_url, stack.bare.base_url, plan, settings.games_per_client)
        # the same moves by players: their access tokens open their games
        self.owners = Players(
            stack.base_url, None, plan, settings.games_per_client, as_players=True
        )
        # each kind of request: what a client calls, and the processes whose CPU it costs
        gateway_cpu = CpuMeter(stack.pids())
        self.calls: dict[str, tuple[Callable[[int], Awaitable[None]], CpuMeter]] = {
            "bare": (self.players.bare_move, CpuMeter(stack.pids("bare", "redis"))),
            "gateway": (self.players.gateway_move, gateway_cpu),
            "player": (self.owners.gateway_move, gateway_cpu),
        }

    def window(
        self, kind: str, clients: int, seconds: float
    ) -> Callable[[], Awaitable[Measurement]]:
        call, cpu = self.calls[kind]
        warmup = self.settings.warmup
        return partial(
            closed_loop, call, concurrency=clients, duration=seconds, warmup=warmup, cpu=cpu
        )

    async def side_by_side(self) -> dict[str, Measurement]:
        clients = self.settings.gateway_concurrency
        per_round = self.settings.seconds / self.settings.rounds
        windows = {kind: self.window(kind, clients, per_round) for kind in self.calls}
        return await alternate(windows, self.settings.rounds)

    async def sweep(self) -> list[tuple[Measurement, Measurement]]:
        """(gateway, bare) per concurrency level, until the gateway's rate stops
        rising (FLAT_LEVELS levels in a row below 1.05 x the best so far)."""
        results: list[tuple[Measurement, Measurement]] = []
        best = 0.0
        flat = 0
        for clients in self.settings.sweep:
            gateway = await self.window("gateway", clients, self.settings.sweep_seconds)()
            bare = await self.window("bare", clients, self.settings.sweep_seconds)()
            results.append((gateway, bare))
            if gateway.rate > best * 1.05:
                best, flat = gateway.rate, 0
            else:
                flat += 1
                if flat >= FLAT_LEVELS:
                    break
        return results

    async def run(self) -> tuple[dict[str, Measurement], list[tuple[Measurement, Measurement]],
                                 dict[str, Measurement]]:  # fmt: skip
        try:
            await self.players.prepare(max(self.settings.gateway_concurrency, *self.settings.sweep))
            await self.owners.prepare(self.settings.gateway_concurrency)
            side = await self.side_by_side()
            sweep = await self.sweep()
            redis_cpu = CpuMeter(self.stack.pids("redis"))
            floor = await redis_round_trip(self.stack.redis_url, self.settings, redis_cpu)
        finally:
            await self.players.close()
            await self.owners.close()
        return side, sweep, floor


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    assert stack is not None, "the gateway part measures through the shared stack"
    plan: EndlessGame = find_endless_game(settings.gateway_variant)
    section = report.section("Gateway over HTTP: POST move vs bare FastAPI endpoint")
    section.note(
        f"Real gateway (one Granian worker) on the shared stack, engine of"
        f" {settings.gateway_engine_workers} process; bare endpoint: bench/harness/bare_app.py"
        f" on the same Redis, served alike. One keep-alive connection per client, closed loop,"
        f" {settings.games_per_client} games per client (`{plan.variant}` deal {plan.deal}:"
        f" {' / '.join(plan.cycle)}), {settings.seconds:g} s per figure in {settings.rounds}"
        f" round(s) taking turns. Server CPU: gateway + engine + Redis + PostgreSQL (bare:"
        " bare app + Redis); client CPU: the load generator's (bench/README.md, \"Gateway"
        ' over HTTP").'
    )
    bench = GatewayBench(stack, plan, settings)
    side, sweep, floor = run_fast(bench.run)
    write_gateway(report, section, side, sweep, floor)


SIDE_BY_SIDE = {
    "gateway": "gateway POST move (If-Match)",
    "player": "the same, a player's game (access token)",
    "bare": "bare FastAPI: Redis GET + SET",
}


def write_gateway(
    report: Report,
    section: Section,
    side: dict[str, Measurement],
    sweep: list[tuple[Measurement, Measurement]],
    floor: dict[str, Measurement],
) -> None:
    table = section.table("what", "clients", *measurement_columns())
    rows = [(SIDE_BY_SIDE[name], side[name]) for name in SIDE_BY_SIDE]
    rows += [("Redis PING (redis-py asyncio)", m) for m in floor.values()]
    for label, m in rows:
        table.add(label, m.concurrency, *measurement_cells(m))
    for name, m in floor.items():
        report.measurement(f"redis.{name.replace(' ', '_')}", m)
    by_rate = ratio(side["gateway"].rate, side["bare"].rate)
    goal = " (goal met)" if by_rate is not None and by_rate >= GOAL_RATIO else " (goal not met)"
    cpu = {name: m.server_cpu_us_per_call for name, m in side.items()}
    by_cpu = ratio(cpu["bare"], cpu["gateway"])
    section.note(
        f"Gateway moves / bare endpoint: **{pct(by_rate)}**{goal}; goal >= {GOAL_RATIO:.0%}."
        f" By server CPU per request (bare / gateway, the ratio of rates if the servers"
        f" alone were the bottleneck): {pct(by_cpu)}."
    )
    report.record("gateway", cpu_ratio=by_cpu, ratio=by_rate)
    section.note(
        "Server CPU per request by process: "
        + "; ".join(f"{name}: {cpu_by_process(side[name])}" for name in ("gateway", "bare"))
        + "."
    )
    player_ratio = ratio(cpu["player"], cpu["gateway"])
    section.note(
        f"A player's move (its access token, a JWT verified once per token and process) /"
        f" an anonymous game's move (its own token), server CPU per move: "
        f"**{pct(player_ratio)}** (goal: within 105%)."
    )
    report.figure("gateway.player_cpu_ratio", player_ratio)
    for name, m in side.items():
        report.measurement(f"gateway.{name}", m)
        section.first_error(name, m.first_error)

    section.note("Latency against concurrency (gateway POST move, then bare, per level):")
    levels = section.table(
        "clients", "gateway moves/s", Column("p50 ms", 2), Column("p95 ms", 2),
        Column("p99 ms", 2), "bare req/s", Column("bare p50 ms", 2), Column("bare p99 ms", 2),
        Column("gateway / bare", 0, percent=True), "errors",
    )  # fmt: skip
    for gateway, bare in sweep:
        levels.add(
            gateway.concurrency, gateway.rate, gateway.p50_ms, gateway.p95_ms, gateway.p99_ms,
            bare.rate, bare.p50_ms, bare.p99_ms, ratio(gateway.rate, bare.rate),
            gateway.errors + bare.errors,
        )  # fmt: skip
        report.measurement(f"gateway.sweep.c{gateway.concurrency}", gateway)
        report.measurement(f"bare.sweep.c{bare.concurrency}", bare)
    if sweep:
        peak = max(sweep, key=lambda pair: pair[0].rate)[0]
        section.note(
            f"Gateway throughput peaks at {peak.concurrency} clients: {fmt(peak.rate)} moves/s."
        )
