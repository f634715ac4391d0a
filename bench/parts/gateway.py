"""`python -m bench` part "gateway": the gateway over real HTTP against a bare FastAPI
endpoint, latency against concurrency, and the raw Redis round trip as the floor under
both, on the stack it shares with the growth and load parts.

Load comes from bench/clients/http_client.py (keep-alive HTTP/1.1 on asyncio streams,
parsed with httptools), one persistent connection per concurrent client, closed loop,
each client playing games of its own (bench/clients/gateway_players.py).
"""

from __future__ import annotations

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
from bench.harness.stats import Loop, Measurement, alternate, ratio, run_loop

GOAL_RATIO = 0.50
# the sweep stops once this many levels in a row fail to beat the best rate by 5 %
FLAT_LEVELS = 2


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
        gateway_cpu = CpuMeter(stack.pids())
        self.loops: dict[str, Loop] = {
            "bare": (self.players.bare_move, CpuMeter(stack.pids("bare", "redis"))),
            "gateway": (self.players.gateway_move, gateway_cpu),
            "player": (self.owners.gateway_move, gateway_cpu),
        }

    async def sweep(self) -> list[tuple[Measurement, Measurement]]:
        """(gateway, bare) per concurrency level, until the gateway's rate stops
        rising (FLAT_LEVELS levels in a row below 1.05 x the best so far)."""
        results: list[tuple[Measurement, Measurement]] = []
        best, flat = 0.0, 0
        seconds, warmup = self.settings.sweep_seconds, self.settings.warmup
        for clients in self.settings.sweep:
            gateway = await run_loop(self.loops["gateway"], clients, seconds, warmup)
            results.append((gateway, await run_loop(self.loops["bare"], clients, seconds, warmup)))
            if gateway.rate > best * 1.05:
                best, flat = gateway.rate, 0
            elif (flat := flat + 1) >= FLAT_LEVELS:
                break
        return results

    async def redis_round_trip(self) -> dict[str, Measurement]:
        """Redis PING from redis-py asyncio, one client and as many as the side by side."""
        most = self.settings.gateway_concurrency
        async with aioredis.from_url(
            self.stack.redis_url, max_connections=most, socket_timeout=30.0
        ) as client:
            await client.ping()
            ping = (lambda _: client.ping(), CpuMeter(self.stack.pids("redis")))
            seconds = self.settings.sweep_seconds
            return {f"ping x{n}": await run_loop(ping, n, seconds, 0.2) for n in (1, most)}

    async def run(self) -> tuple[dict[str, Measurement], list[tuple[Measurement, Measurement]],
                                 dict[str, Measurement]]:  # fmt: skip
        clients = self.settings.gateway_concurrency
        try:
            await self.players.prepare(max(clients, *self.settings.sweep))
            await self.owners.prepare(clients)
            side = await alternate(self.loops, clients, self.settings)
            return side, await self.sweep(), await self.redis_round_trip()
        finally:
            await self.players.close()
            await self.owners.close()


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
    write_gateway(section, side, sweep, floor)


SIDE_BY_SIDE = {
    "gateway": "gateway POST move (If-Match)",
    "player": "the same, a player's game (access token)",
    "bare": "bare FastAPI: Redis GET + SET",
}


def write_gateway(
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
        section.measurement(f"redis.{name.replace(' ', '_')}", m)
    by_rate = ratio(side["gateway"].rate, side["bare"].rate)
    goal = " (goal met)" if by_rate is not None and by_rate >= GOAL_RATIO else " (goal not met)"
    cpu = {name: m.server_cpu_us_per_call for name, m in side.items()}
    by_cpu = ratio(cpu["bare"], cpu["gateway"])
    section.note(
        f"Gateway moves / bare endpoint: **{pct(by_rate)}**{goal}; goal >= {GOAL_RATIO:.0%}."
        f" By server CPU per request (bare / gateway, the ratio of rates if the servers"
        f" alone were the bottleneck): {pct(by_cpu)}."
    )
    section.record("gateway", cpu_ratio=by_cpu, ratio=by_rate)
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
    section.figure("gateway.player_cpu_ratio", player_ratio)
    for name, m in side.items():
        section.measurement(f"gateway.{name}", m)
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
        section.measurement(f"gateway.sweep.c{gateway.concurrency}", gateway)
        section.measurement(f"bare.sweep.c{bare.concurrency}", bare)
    if sweep:
        peak = max(sweep, key=lambda pair: pair[0].rate)[0]
        section.note(
            f"Gateway throughput peaks at {peak.concurrency} clients: {fmt(peak.rate)} moves/s."
        )
