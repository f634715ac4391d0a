"""The gateway over real HTTP against a bare FastAPI endpoint, latency against
concurrency, and the raw Redis round trip as the floor under both.

Load comes from bench.http_client (keep-alive HTTP/1.1 on asyncio streams, parsed
with httptools), one persistent connection per concurrent client, closed loop.
Every client plays its own games (several each, created before the clock starts),
so moves never contend for a game's version: each move sends If-Match with the ETag
its game last returned, and goes back and forth along a reversible pair of moves so
that a game never ends.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import redis.asyncio as aioredis

from bench import gateway_api
from bench.cycles import EndlessGame
from bench.http_client import Connection
from bench.report import Report, Section, fmt, pct
from bench.settings import Settings
from bench.stack import Stack
from bench.stats import CpuMeter, Measurement, alternate, closed_loop

GOAL_RATIO = 0.50
# the sweep stops once this many levels in a row fail to beat the best rate by 5 %
FLAT_LEVELS = 2


@dataclass
class PlayedGame:
    ref: gateway_api.GameRef
    step: int = 0  # index into the reversible pair


class Players:
    """Connections and games of every concurrent client, kept across measurements."""

    def __init__(
        self, gateway_url: str, bare_url: str | None, plan: EndlessGame, games_per_client: int
    ) -> None:
        self.gateway_url = gateway_url
        self.bare_url = bare_url  # None: gateway moves only
        self.plan = plan
        self.games_per_client = games_per_client
        self.gateway_conns: list[Connection] = []
        self.bare_conns: list[Connection] = []
        self.games: list[list[PlayedGame]] = []
        self.turn: list[int] = []
        self.bare_versions: list[str] = []

    async def prepare(self, clients: int) -> None:
        """Open connections and create the games of `clients` clients (not timed)."""
        first_new = len(self.gateway_conns)
        for _ in range(first_new, clients):
            self.gateway_conns.append(Connection(self.gateway_url))
            if self.bare_url is not None:
                self.bare_conns.append(Connection(self.bare_url))
            self.turn.append(0)
            self.bare_versions.append('"0"')
        # clients in parallel, each creating its games one after the other on its
        # own connection (a connection carries one request at a time)
        self.games.extend(
            await asyncio.gather(*(self._new_games(c) for c in range(first_new, clients)))
        )

    async def _new_games(self, client: int) -> list[PlayedGame]:
        conn = self.gateway_conns[client]
        return [await self._new_game(conn) for _ in range(self.games_per_client)]

    async def _new_game(self, conn: Connection) -> PlayedGame:
        ref, _ = await gateway_api.create_game(conn, self.plan.variant, deal=self.plan.deal)
        for notation in self.plan.prefix:
            await gateway_api.move(conn, ref, notation)
        return PlayedGame(ref)

    async def gateway_move(self, client: int) -> None:
        games = self.games[client]
        if not games:
            await asyncio.sleep(0.01)  # every game of this client failed: do not spin
            raise RuntimeError(f"client {client} has no game left")
        game = games[self.turn[client] % len(games)]
        self.turn[client] += 1
        try:
            await gateway_api.move(self.gateway_conns[client], game.ref, self.plan.cycle[game.step])
        except Exception:
            # its version or position is unknown now: later moves on it would fail too
            games.remove(game)
            raise
        game.step ^= 1

    async def bare_move(self, client: int) -> None:
        key = f"{client}-{self.turn[client] % self.games_per_client}"
        self.turn[client] += 1
        response = await self.bare_conns[client].request(
            "POST",
            f"/bare/{key}",
            body={"move": self.plan.cycle[0]},
            headers={"If-Match": self.bare_versions[client]},
            expect=(200,),
        )
        self.bare_versions[client] = response.headers.get("etag", '"0"')

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.gateway_conns + self.bare_conns))


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
        self.gateway_cpu = CpuMeter(stack.server_pids())
        self.bare_cpu = CpuMeter(stack.bare_pids())

    async def gateway(self, clients: int, seconds: float) -> Measurement:
        return await closed_loop(
            self.players.gateway_move, concurrency=clients, duration=seconds,
            warmup=self.settings.warmup, cpu=self.gateway_cpu,
        )  # fmt: skip

    async def bare(self, clients: int, seconds: float) -> Measurement:
        return await closed_loop(
            self.players.bare_move, concurrency=clients, duration=seconds,
            warmup=self.settings.warmup, cpu=self.bare_cpu,
        )  # fmt: skip

    async def side_by_side(self) -> dict[str, Measurement]:
        clients = self.settings.gateway_concurrency
        per_round = self.settings.seconds / self.settings.rounds
        return await alternate(
            {
                "bare": lambda: self.bare(clients, per_round),
                "gateway": lambda: self.gateway(clients, per_round),
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
            side = await self.side_by_side()
            sweep = await self.sweep()
            assert self.stack.redis.process is not None
            redis_cpu = CpuMeter({"redis": self.stack.redis.process.pid})
            floor = await redis_round_trip(self.stack.redis.url, self.settings, redis_cpu)
        finally:
            await self.players.close()
        return side, sweep, floor


def write_gateway(
    report: Report,
    section: Section,
    side: dict[str, Measurement],
    sweep: list[tuple[Measurement, Measurement]],
    floor: dict[str, Measurement],
) -> None:
    table = section.table(*ROW_HEADERS)
    table.add(*_row("gateway POST move (If-Match)", side["gateway"]))
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
