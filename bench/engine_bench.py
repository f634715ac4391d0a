"""The engine over real gRPC: ApplyMove against a near-empty RPC on the same server.

The engine runs through its real entry point in child processes: one engine with
ENGINE_WORKERS=1, then 2, and two single-process replicas side by side; each unsealed
and sealed (with a random ENGINE_SEAL_KEY, as `patience serve` and docker-compose run
it). The near-empty RPC is the standard gRPC health `Check` that the engine serves on
the same port: a unary call whose handler does one dict look-up, so its rate is what
the gRPC stack and Python's event loop allow before any rules work.

ApplyMove (the main figure) is forward play, as a client of the engine plays: each
concurrent caller plays random legal moves (picked from the legal moves of the reply
it got last, with a seeded generator) from fresh deals of every variant in turn, and
starts a new game (NewGame, inside the call that needs it, so its cost counts against
ApplyMove) when one is won, stuck or MAX_MOVES_PER_GAME long. Every request carries
the state of the previous reply, so every position is new. A caller's successive calls
rotate over the connections: with several engine processes a game's next move may
land on any of them, as behind a round-robin balancer; with the two replicas, every
move goes to the replica that did not write its state, so no state is one the
receiving process has seen (the case of a gateway in front of several engines).

The second ApplyMove row (`cycle`) is the older workload, kept for comparison: one
House on the Hill deal where a card goes back and forth between two fans
(bench.cycles), so a game never ends and the positions repeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass

import grpc
import patience
from grpc_health.v1 import health_pb2, health_pb2_grpc
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from bench.cycles import EndlessGame, find_endless_game
from bench.procs import EngineProcess, engine_process
from bench.report import Report, Section, Table, fmt, pct
from bench.sealing_bench import run_sealing_part
from bench.settings import Settings
from bench.stats import CpuMeter, Measurement, alternate, closed_loop

GOAL_RATIO = 0.80
# a deadline on every call (the same for both RPCs), so a stalled server cannot hang
CALL_TIMEOUT = 30.0
# Forward play: the same games on every run, and a cap on a game's length (random play
# can move a card to and fro for thousands of moves in some variants; a player would
# give up long before).
FORWARD_SEED = 20_240_601
FORWARD_VARIANTS: tuple[str, ...] = tuple(patience.VARIANTS)
MAX_MOVES_PER_GAME = 200
# two engines of one process each, every move sent to the one that did not write its state
REPLICAS = 2


def _channels(targets: Sequence[str], count: int) -> list[grpc.aio.Channel]:
    # a local subchannel pool gives every channel its own TCP connection, so that
    # SO_REUSEPORT can spread the connections over the engine's worker processes;
    # with several targets, channel i goes to target i % len(targets)
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [
        grpc.aio.insecure_channel(targets[i % len(targets)], options=options) for i in range(count)
    ]


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


class ForwardPlayers:
    """Each concurrent caller plays random legal moves, one fresh deal after another."""

    def __init__(self, stubs: list[engine_pb2_grpc.EngineServiceStub]) -> None:
        self.stubs = stubs
        self.states: list[game_pb2.SealedState] = []
        self.legal: list[Sequence[game_pb2.Move]] = []
        self.moves_in_game: list[int] = []
        self.games: list[int] = []
        self.calls: list[int] = []
        self.randoms: list[random.Random] = []
        self.new_games = 0
        self.applied = 0

    async def prepare(self, callers: int) -> None:
        self.randoms = [random.Random(FORWARD_SEED * 1000 + caller) for caller in range(callers)]
        self.states = [game_pb2.SealedState() for _ in range(callers)]
        self.legal = [() for _ in range(callers)]
        self.moves_in_game = [0] * callers
        self.games = [0] * callers
        self.calls = [0] * callers
        await asyncio.gather(*(self._new_game(caller) for caller in range(callers)))
        self.new_games = self.applied = 0

    def _stub(self, caller: int) -> engine_pb2_grpc.EngineServiceStub:
        self.calls[caller] += 1
        return self.stubs[(caller + self.calls[caller]) % len(self.stubs)]

    async def _new_game(self, caller: int) -> None:
        """A fresh deal of the caller's next variant (skipping deals over from the start)."""
        chooser = self.randoms[caller]
        while True:
            variant = FORWARD_VARIANTS[(caller + self.games[caller]) % len(FORWARD_VARIANTS)]
            self.games[caller] += 1
            request = engine_pb2.NewGameRequest(
                variant=variant, deal=str(chooser.randrange(1, 10**12))
            )
            reply = await self._stub(caller).NewGame(request, timeout=CALL_TIMEOUT)
            self.new_games += 1
            if reply.view.legal_moves:
                break
        self.states[caller] = reply.state
        self.legal[caller] = reply.view.legal_moves
        self.moves_in_game[caller] = 0

    async def apply(self, caller: int) -> None:
        if not self.legal[caller] or self.moves_in_game[caller] >= MAX_MOVES_PER_GAME:
            await self._new_game(caller)
        legal = self.legal[caller]
        move = legal[self.randoms[caller].randrange(len(legal))]
        request = engine_pb2.ApplyMoveRequest(
            state=self.states[caller], move=game_pb2.Move(notation=move.notation)
        )
        reply = await self._stub(caller).ApplyMove(request, timeout=CALL_TIMEOUT)
        self.states[caller] = reply.state
        self.legal[caller] = reply.view.legal_moves
        self.moves_in_game[caller] += 1
        self.applied += 1


class CyclePlayers:
    """One endless game per concurrent caller, a card moved back and forth."""

    def __init__(self, stubs: list[engine_pb2_grpc.EngineServiceStub], plan: EndlessGame) -> None:
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


@dataclass
class EngineRun:
    """What one engine set-up gave: the measurements, and how often a game restarted."""

    results: dict[str, Measurement]
    new_games_per_apply: float


async def measure_engine(
    engines: Sequence[EngineProcess], settings: Settings, *, with_cycle: bool
) -> EngineRun:
    workers = sum(engine.workers for engine in engines)
    # With several replicas the channel count is a multiple of theirs, so that rotating
    # over the channels alternates between the replicas.
    count = max(4, 2 * workers)
    count += -count % len(engines)
    channels = _channels([engine.target for engine in engines], count)
    try:
        await _wait_serving(channels)
        engine_stubs = [engine_pb2_grpc.EngineServiceStub(c) for c in channels]
        health_stubs = [health_pb2_grpc.HealthStub(c) for c in channels]
        forward = ForwardPlayers(engine_stubs)
        await forward.prepare(settings.engine_concurrency)
        await forward.apply(0)  # fails loudly now rather than as N errors later
        empty = health_pb2.HealthCheckRequest()
        cpu = CpuMeter({f"engine{i}": engine.pid for i, engine in enumerate(engines)})

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

        runs = {"empty": run(empty_call), "apply": run(forward.apply)}
        if with_cycle:
            cycle = CyclePlayers(engine_stubs, find_endless_game(settings.engine_variant))
            await cycle.prepare(settings.engine_concurrency)
            await cycle.apply(0)
            runs["cycle"] = run(cycle.apply)
        results = await alternate(runs, settings.rounds)
        return EngineRun(results, forward.new_games / max(forward.applied, 1))
    finally:
        await asyncio.gather(*(c.close() for c in channels))


@contextlib.contextmanager
def _engines(replicas: int, workers: int, seal_key: str) -> Iterator[list[EngineProcess]]:
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(engine_process(workers=workers, seal_key=seal_key))
            for _ in range(replicas)
        ]


def run_engine_part(report: Report, settings: Settings) -> None:
    run_sealing_part(report, settings)
    section = report.section("Engine over gRPC: ApplyMove vs near-empty RPC")
    section.note(
        f"Real engine (`python -m patience_engine`) in child processes on loopback;"
        f" {settings.engine_concurrency} concurrent async clients (grpc.aio, one TCP"
        f" connection per channel, several channels), closed loop,"
        f" {settings.seconds:g} s per figure in {settings.rounds} interleaved round(s)."
        f" Empty RPC = gRPC health `Check` on the same server in the same run."
        f" ApplyMove (forward play) = each client plays random legal moves (seeded) from"
        f" fresh deals of all {len(FORWARD_VARIANTS)} variants in turn, each request"
        f" carrying the state the previous reply returned, a new game (NewGame, counted"
        f" in the ApplyMove call that needs it) once one is over or"
        f" {MAX_MOVES_PER_GAME} moves long; a client's calls rotate over the connections."
        f" `{REPLICAS} replicas` = {REPLICAS} engines of 1 process each, every move sent"
        f" to the one that did not write its state (no state is one the receiver has"
        f" seen). ApplyMove (cycle) = the older workload: one `{settings.engine_variant}`"
        f" game per client, moving a card back and forth. Sealed = with ENGINE_SEAL_KEY"
        f" (as `patience serve` and docker-compose run). Server CPU = CPU time of the"
        f" engine processes per call. Goal: ApplyMove >= {GOAL_RATIO:.0%} of the"
        f" empty-RPC rate."
    )
    table = section.table(
        "engine procs", "states", "RPC", "calls/s", "p50 ms", "p95 ms", "p99 ms",
        "server CPU µs/call", "client CPU µs/call", "errors", "Apply / empty (rate)",
        "Apply / empty (server CPU)",
    )  # fmt: skip
    setups = [(f"w{workers}", 1, workers, str(workers)) for workers in settings.engine_workers]
    setups.append((f"replicas{REPLICAS}", REPLICAS, 1, f"{REPLICAS} replicas x 1"))
    restarts: list[str] = []
    for name, replicas, workers, label in setups:
        for sealed in settings.engine_seal:
            seal_key = secrets.token_hex(32) if sealed else ""
            with _engines(replicas, workers, seal_key) as engines:
                run = asyncio.run(measure_engine(engines, settings, with_cycle=replicas == 1))
            kind = "sealed" if sealed else "unsealed"
            write_pair(report, section, table, f"engine.{name}.{kind}", run.results,
                       [label, kind])  # fmt: skip
            report.figure(f"engine.{name}.{kind}.new_games_per_apply", run.new_games_per_apply)
            restarts.append(f"{label} {kind}: {run.new_games_per_apply * 100:.1f}")
    section.note(
        "Apply / empty (rate) is the goal's figure. Both server and load generator share"
        " the machine's cores, so when the client's CPU per call is near the server's the"
        " rates are bounded by the client; Apply / empty (server CPU) = the empty RPC's"
        " server CPU per call over ApplyMove's, the ratio the rates would reach if the"
        " engine alone were the bottleneck. NewGame calls per 100 forward-play ApplyMove"
        " calls: " + "; ".join(restarts) + "."
    )


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return top / bottom if top is not None and bottom else None


ROWS = (
    ("empty", "health Check"),
    ("apply", "ApplyMove (forward play)"),
    ("cycle", "ApplyMove (cycle, 2nd row)"),
)


def write_pair(
    report: Report,
    section: Section,
    table: Table,
    prefix: str,
    results: dict[str, Measurement],
    first_cells: list[str],
) -> None:
    empty = results["empty"]
    for name, label in ROWS:
        if name not in results:
            continue
        m = results[name]
        is_apply = name != "empty"
        by_rate = _ratio(m.rate, empty.rate)
        by_cpu = _ratio(empty.server_cpu_us_per_call, m.server_cpu_us_per_call)
        goal = ""
        if is_apply and by_rate is not None:
            goal = " (goal met)" if by_rate >= GOAL_RATIO else " (goal not met)"
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
        if is_apply:
            suffix = "" if name == "apply" else f"_{name}"
            report.figure(f"{prefix}.ratio{suffix}", by_rate)
            report.figure(f"{prefix}.cpu_ratio{suffix}", by_cpu)
        if m.first_error:
            section.note(f"First error ({' '.join(first_cells)}, {label}): {m.first_error}")
