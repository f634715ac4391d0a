"""`python -m bench` part "gateway": the gateway over real HTTP against a bare FastAPI
endpoint, latency against concurrency, and the raw Redis round trip as the floor under
both, on the stack it shares with the growth and load parts.

Load comes from bench/clients/http_client.py (keep-alive HTTP/1.1 on asyncio streams,
parsed with httptools), one persistent connection per concurrent client, closed loop,
each client playing games of its own (bench/clients/gateway_players.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from bench.clients.endless_games import EndlessGame, find_endless_game
from bench.clients.gateway_players import Players
from bench.harness.event_loop import run_fast
from bench.harness.meters import CpuMeter
from bench.harness.report import Report, Section, fmt, pct
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Measurement, alternate, closed_loop

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


def _row(label: str, m: Measurement) -> list[str]:
    return [
        label, str(m.concurrency), fmt(m.rate), fmt(m.p50_ms, 2), fmt(m.p95_ms, 2),
        fmt(m.p99_ms, 2), fmt(m.server_cpu_us_per_call, 0), fmt(m.client_cpu_us_per_call, 0),
        str(m.errors),
    ]  # fmt: skip


ROW_HEADERS = (
    "what", "clients", "calls/s", "p50 ms", "p95 ms", "p99 ms", "server CPU µs/call",
    "client CPU µs/call", "errors",
)  # fmt: skip


class GatewayBench:
    """The measurements of one stack: side by side, the sweep, the Redis floor."""

    def __init__(self, stack: Stack, plan: EndlessGame, settings: Settings) -> None:
        self.stack = stack
        self.settings = settings
        assert stack.gateway is not None and stack.bare is not None
        self.players = Players(
            stack.gateway.base_url, stack.bare.base_url, plan, settings.games_per_client
        )
        # the same moves by players: their access tokens open their games
        self.owners = Players(
            stack.gateway.base_url, None, plan, settings.games_per_client, as_players=True
        )
        self.gateway_cpu = CpuMeter(stack.server_pids())
        self.bare_cpu = CpuMeter(stack.bare_pids())

    async def _measure(
        self, call: Callable[[int], Awaitable[None]], cpu: CpuMeter, clients: int, seconds: float
    ) -> Measurement:
        return await closed_loop(
            call, concurrency=clients, duration=seconds, warmup=self.settings.warmup, cpu=cpu
        )

    async def gateway(self, clients: int, seconds: float) -> Measurement:
        return await self._measure(self.players.gateway_move, self.gateway_cpu, clients, seconds)

    async def owner(self, clients: int, seconds: float) -> Measurement:
        return await self._measure(self.owners.gateway_move, self.gateway_cpu, clients, seconds)

    async def bare(self, clients: int, seconds: float) -> Measurement:
        return await self._measure(self.players.bare_move, self.bare_cpu, clients, seconds)

    async def side_by_side(self) -> dict[str, Measurement]:
        clients = self.settings.gateway_concurrency
        per_round = self.settings.seconds / self.settings.rounds
        return await alternate(
            {
                "bare": lambda: self.bare(clients, per_round),
                "gateway": lambda: self.gateway(clients, per_round),
                "player": lambda: self.owner(clients, per_round),
            },
            self.settings.rounds,
        )

    async def sweep(self) -> list[tuple[Measurement, Measurement]]:
        """(gateway, bare) per concurrency level, until the gateway's rate stops
        rising (FLAT_LEVELS levels in a row below 1.05 x the best so far)."""
        results: list[tuple[Measurement, Measurement]] = []
        best = 0.0
        flat = 0
        for clients in self.settings.sweep:
            gateway = await self.gateway(clients, self.settings.sweep_seconds)
            bare = await self.bare(clients, self.settings.sweep_seconds)
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
        assert self.stack.redis is not None
        try:
            await self.players.prepare(max(self.settings.gateway_concurrency, *self.settings.sweep))
            await self.owners.prepare(self.settings.gateway_concurrency)
            side = await self.side_by_side()
            sweep = await self.sweep()
            assert self.stack.redis.process is not None
            redis_cpu = CpuMeter({"redis": self.stack.redis.process.pid})
            floor = await redis_round_trip(self.stack.redis.url, self.settings, redis_cpu)
        finally:
            await self.players.close()
            await self.owners.close()
        return side, sweep, floor


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    assert stack is not None, "the gateway part measures through the shared stack"
    plan: EndlessGame = find_endless_game(settings.gateway_variant)
    section = report.section("Gateway over HTTP: POST move vs bare FastAPI endpoint")
    section.note(
        f"Real gateway (`python -m patience_gateway`, Granian, one worker process) in a"
        f" child process,"
        f" real Redis and PostgreSQL (EmbeddedRedis, EmbeddedPostgres), real engine"
        f" ({settings.gateway_engine_workers} process). Bare endpoint ="
        f" bench/harness/bare_app.py on the same Redis, served by"
        f" Granian with the same settings: parse a JSON body, one Redis GET and one"
        f" SET, answer JSON. Load: bench.clients.http_client (keep-alive HTTP/1.1 on asyncio"
        f" streams with httptools, uvloop), one connection per client, closed loop,"
        f" {settings.games_per_client} games per client created beforehand"
        f" (`{plan.variant}` deal {plan.deal}, moving a card back and forth:"
        f" {' / '.join(plan.cycle)}), {settings.seconds:g} s per figure in"
        f" {settings.rounds} interleaved round(s). Server CPU = CPU time of"
        f" gateway + engine + Redis + PostgreSQL (bare: bare app + Redis) per request; client CPU"
        f" = the load generator's."
    )
    bench = GatewayBench(stack, plan, settings)
    side, sweep, floor = run_fast(bench.run)
    write_gateway(report, section, side, sweep, floor)


def write_gateway(
    report: Report,
    section: Section,
    side: dict[str, Measurement],
    sweep: list[tuple[Measurement, Measurement]],
    floor: dict[str, Measurement],
) -> None:
    table = section.table(*ROW_HEADERS)
    table.add(*_row("gateway POST move (If-Match)", side["gateway"]))
    table.add(*_row("the same, a player's game (access token)", side["player"]))
    table.add(*_row("bare FastAPI: Redis GET + SET", side["bare"]))
    for name, m in floor.items():
        table.add(*_row("Redis PING (redis-py asyncio)", m))
        key = name.replace(" ", "_")
        report.figure(f"redis.{key}.rate", m.rate)
        report.figure(f"redis.{key}.p50_ms", m.p50_ms)
    ratio = side["gateway"].rate / side["bare"].rate if side["bare"].rate else None
    goal = " (goal met)" if ratio is not None and ratio >= GOAL_RATIO else " (goal not met)"
    gateway_cpu, bare_cpu = (side[n].server_cpu_us_per_call for n in ("gateway", "bare"))
    cpu_ratio = bare_cpu / gateway_cpu if gateway_cpu and bare_cpu is not None else None
    section.note(
        f"Gateway moves / bare endpoint: **{pct(ratio)}**{goal}; goal >= {GOAL_RATIO:.0%}."
        f" By server CPU per request (bare / gateway, the ratio of rates if the servers"
        f" alone were the bottleneck): {pct(cpu_ratio)}."
    )
    report.figure("gateway.cpu_ratio", cpu_ratio)
    report.figure("gateway.ratio", ratio)
    split = []
    for name, m in (("gateway", side["gateway"]), ("bare", side["bare"])):
        parts = ", ".join(
            f"{process} {fmt(m.server_cpu_us_per_call_of(process), 0)} µs"
            for process in m.server_cpu_by_name
        )
        split.append(f"{name}: {parts}")
        for process in m.server_cpu_by_name:
            report.figure(f"gateway.{name}.cpu_us.{process}", m.server_cpu_us_per_call_of(process))
    section.note("Server CPU per request by process: " + "; ".join(split) + ".")
    game_cpu, player_cpu = (side[n].server_cpu_us_per_call for n in ("gateway", "player"))
    player_ratio = player_cpu / game_cpu if game_cpu and player_cpu is not None else None
    section.note(
        f"A player's move (its access token, a JWT verified once per token and process) /"
        f" an anonymous game's move (its own token), server CPU per move: "
        f"**{pct(player_ratio)}** (goal: within 105%)."
    )
    report.figure("gateway.player_cpu_ratio", player_ratio)
    for name, m in side.items():
        for stat in ("rate", "p50_ms", "p95_ms", "p99_ms"):
            report.figure(f"gateway.{name}.{stat}", getattr(m, stat))
        report.figure(f"gateway.{name}.server_cpu_us", m.server_cpu_us_per_call)
        if m.first_error:
            section.note(f"First error ({name}): {m.first_error}")

    section.note("Latency against concurrency (gateway POST move, then bare, per level):")
    levels = section.table(
        "clients", "gateway moves/s", "p50 ms", "p95 ms", "p99 ms", "bare req/s",
        "bare p50 ms", "bare p99 ms", "gateway / bare", "errors",
    )  # fmt: skip
    peak = max(sweep, key=lambda pair: pair[0].rate)[0] if sweep else None
    for gateway, bare in sweep:
        levels.add(
            gateway.concurrency, fmt(gateway.rate), fmt(gateway.p50_ms, 2),
            fmt(gateway.p95_ms, 2), fmt(gateway.p99_ms, 2), fmt(bare.rate),
            fmt(bare.p50_ms, 2), fmt(bare.p99_ms, 2),
            pct(gateway.rate / bare.rate if bare.rate else None), gateway.errors + bare.errors,
        )  # fmt: skip
        report.figure(f"gateway.sweep.c{gateway.concurrency}.rate", gateway.rate)
        report.figure(f"gateway.sweep.c{gateway.concurrency}.p99_ms", gateway.p99_ms)
        report.figure(f"bare.sweep.c{bare.concurrency}.rate", bare.rate)
    if peak is not None:
        section.note(
            f"Gateway throughput peaks at {peak.concurrency} clients: {fmt(peak.rate)} moves/s."
        )
