"""The engine over real gRPC: ApplyMove against a near-empty RPC on the same server.

The engine runs through its real entry point in a child process (ENGINE_WORKERS=1,
then 2), unsealed and sealed. The near-empty RPC is the standard gRPC health `Check`
that the engine serves on the same port: a unary call whose handler does one dict
look-up, so its rate is what the gRPC stack and Python's event loop allow before any
rules work.

ApplyMove is played as a client of the engine plays: each concurrent caller has its
own game, and every request carries the state that the previous reply returned (so
no two requests are alike, and whatever the engine remembers of states it wrote
helps exactly as much as in real play). The game is a deal where a card can go back
and forth (bench.cycles), so it never ends. Successive calls of a caller rotate over
the connections, so with several engine processes a game's next move may land on
any of them, as behind a round-robin balancer.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from bench.cycles import EndlessGame, find_endless_game
from bench.procs import EngineProcess, engine_process
from bench.report import Report, Section, Table, fmt, pct
from bench.settings import Settings
from bench.stats import CpuMeter, Measurement, alternate, closed_loop

GOAL_RATIO = 0.80
# a deadline on every call (the same for both RPCs), so a stalled server cannot hang
CALL_TIMEOUT = 30.0


def _channels(target: str, count: int) -> list[grpc.aio.Channel]:
    # a local subchannel pool gives every channel its own TCP connection, so that
    # SO_REUSEPORT can spread the connections over the engine's worker processes
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [grpc.aio.insecure_channel(target, options=options) for _ in range(count)]


async def _wait_serving(channels: list[grpc.aio.Channel], timeout: float = 30.0) -> None:
    async def one(channel: grpc.aio.Channel) -> None:
        stub = health_pb2_grpc.HealthStub(channel)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                if asyncio.get_running_loop().time() > deadline:
                    raise
            await asyncio.sleep(0.1)

    await asyncio.gather(*(one(c) for c in channels))


class EnginePlayers:
    """One endless game per concurrent caller, played by chaining replies' states."""

    def __init__(self, stubs: list[engine_pb2_grpc.EngineStub], plan: EndlessGame) -> None:
        self.stubs = stubs
        self.plan = plan
        self.cycle = [game_pb2.Move(notation=notation) for notation in plan.cycle]
        self.states: list[game_pb2.SealedState] = []
        self.steps: list[int] = []
        self.calls: list[int] = []

    async def prepare(self, callers: int) -> None:
        request = engine_pb2.NewGameRequest(
            variant=self.plan.variant,
            deal=str(self.plan.deal),
            moves=[game_pb2.Move(notation=notation) for notation in self.plan.prefix],
        )
        games = await asyncio.gather(
            *(self.stubs[0].NewGame(request, timeout=CALL_TIMEOUT) for _ in range(callers))
        )
        self.states = [game.state for game in games]
        self.steps = [0] * callers
        self.calls = [0] * callers

    async def apply(self, caller: int) -> None:
        self.calls[caller] += 1
        stub = self.stubs[(caller + self.calls[caller]) % len(self.stubs)]
        request = engine_pb2.ApplyMoveRequest(
            state=self.states[caller], move=self.cycle[self.steps[caller]]
        )
        reply = await stub.ApplyMove(request, timeout=CALL_TIMEOUT)
        self.states[caller] = reply.state
        self.steps[caller] ^= 1


async def measure_engine(engine: EngineProcess, settings: Settings) -> dict[str, Measurement]:
    channels = _channels(engine.target, max(4, 2 * engine.workers))
    try:
        await _wait_serving(channels)
        engine_stubs = [engine_pb2_grpc.EngineStub(c) for c in channels]
        health_stubs = [health_pb2_grpc.HealthStub(c) for c in channels]
        players = EnginePlayers(engine_stubs, find_endless_game(settings.engine_variant))
        await players.prepare(settings.engine_concurrency)
        await players.apply(0)  # fails loudly now rather than as N errors later
        empty = health_pb2.HealthCheckRequest()
        cpu = CpuMeter({"engine": engine.pid})

        async def apply_call(worker: int) -> None:
            await players.apply(worker)

        async def empty_call(worker: int) -> object:
            stub = health_stubs[worker % len(health_stubs)]
            return await stub.Check(empty, timeout=CALL_TIMEOUT)

        def run(call: Callable[[int], Awaitable[object]]) -> Callable[[], Awaitable[Measurement]]:
            return lambda: closed_loop(
                call,
                concurrency=settings.engine_concurrency,
                duration=settings.seconds / settings.rounds,
                warmup=settings.warmup,
                cpu=cpu,
            )

        return await alternate(
            {"empty": run(empty_call), "apply": run(apply_call)}, settings.rounds
        )
    finally:
        await asyncio.gather(*(c.close() for c in channels))


def run_engine_part(report: Report, settings: Settings) -> None:
    section = report.section("Engine over gRPC: ApplyMove vs near-empty RPC")
    section.note(
        f"Real engine (`python -m patience_engine`) in a child process on loopback;"
        f" {settings.engine_concurrency} concurrent async clients (grpc.aio, one TCP"
        f" connection per channel, several channels), closed loop,"
        f" {settings.seconds:g} s per figure in {settings.rounds} interleaved round(s)."
        f" Empty RPC = gRPC health `Check` on the same server in the same run."
        f" ApplyMove = each client plays its own game of `{settings.engine_variant}`,"
        f" moving a card back and forth, each request carrying the state the previous"
        f" reply returned; a client's calls rotate over the connections."
        f" Server CPU = CPU time of the engine processes per call."
        f" Goal: ApplyMove >= {GOAL_RATIO:.0%} of the empty-RPC rate."
    )
    table = section.table(
        "engine procs", "states", "RPC", "calls/s", "p50 ms", "p95 ms", "p99 ms",
        "server CPU µs/call", "client CPU µs/call", "errors", "Apply / empty (rate)",
        "Apply / empty (server CPU)",
    )  # fmt: skip
    for workers in settings.engine_workers:
        for sealed in settings.engine_seal:
            seal_key = secrets.token_hex(32) if sealed else ""
            with engine_process(workers=workers, seal_key=seal_key) as engine:
                results = asyncio.run(measure_engine(engine, settings))
            kind = "sealed" if sealed else "unsealed"
            write_pair(report, section, table, f"engine.w{workers}.{kind}", results,
                       [str(workers), kind])  # fmt: skip
    section.note(
        "Apply / empty (rate) is the goal's figure. Both server and load generator share"
        " the machine's cores, so when the client's CPU per call is near the server's the"
        " rates are bounded by the client; Apply / empty (server CPU) = the empty RPC's"
        " server CPU per call over ApplyMove's, the ratio the rates would reach if the"
        " engine alone were the bottleneck."
    )


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return top / bottom if top is not None and bottom else None


def write_pair(
    report: Report,
    section: Section,
    table: Table,
    prefix: str,
    results: dict[str, Measurement],
    first_cells: list[str],
) -> None:
    empty, apply = results["empty"], results["apply"]
    by_rate = _ratio(apply.rate, empty.rate)
    by_cpu = _ratio(empty.server_cpu_us_per_call, apply.server_cpu_us_per_call)
    goal = "" if by_rate is None else " (goal met)" if by_rate >= GOAL_RATIO else " (goal not met)"
    for name, label, m in (("empty", "health Check", empty), ("apply", "ApplyMove", apply)):
        is_apply = name == "apply"
        table.add(
            *first_cells, label, fmt(m.rate), fmt(m.p50_ms, 2), fmt(m.p95_ms, 2),
            fmt(m.p99_ms, 2), fmt(m.server_cpu_us_per_call, 0),
            fmt(m.client_cpu_us_per_call, 0), m.errors,
            pct(by_rate) + goal if is_apply else "", pct(by_cpu) if is_apply else "",
        )  # fmt: skip
        report.figure(f"{prefix}.{name}.rate", m.rate)
        report.figure(f"{prefix}.{name}.p50_ms", m.p50_ms)
        report.figure(f"{prefix}.{name}.p95_ms", m.p95_ms)
        report.figure(f"{prefix}.{name}.p99_ms", m.p99_ms)
        report.figure(f"{prefix}.{name}.server_cpu_us", m.server_cpu_us_per_call)
        if m.first_error:
            section.note(f"First error ({' '.join(first_cells)}, {label}): {m.first_error}")
    report.figure(f"{prefix}.ratio", by_rate)
    report.figure(f"{prefix}.cpu_ratio", by_cpu)
