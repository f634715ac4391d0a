"""`python -m bench` part "engine": the engine over real gRPC, ApplyMove against a
near-empty RPC (the standard health `Check`) on the same server, with 1 and 2 worker
processes and two replicas, unsealed and sealed; and first, in-process, what sealing a
state costs against the HMAC seal it replaced and against no key. The workloads (forward
play, the older cycle) and what each row means: bench/README.md, "Engine over gRPC" and
"Sealing a state"; the players: bench/clients/engine_players.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import random
import secrets
import statistics
import time
from collections.abc import Callable, Sequence

import patience
from grpc_health.v1 import health_pb2, health_pb2_grpc
from patience_engine.codec import Position, encode_state
from patience_engine.sealing import Sealer
from solitaire.v1 import engine_pb2_grpc, game_pb2

from bench.clients.endless_games import find_endless_game
from bench.clients.engine_players import (
    CALL_TIMEOUT,
    MAX_MOVES_PER_GAME,
    CyclePlayers,
    ForwardPlayers,
    open_channels,
    wait_serving,
)
from bench.harness.meters import CpuMeter
from bench.harness.report import (
    Column,
    Report,
    Section,
    Table,
    measurement_cells,
    measurement_columns,
)
from bench.harness.servers import EngineProcess
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Loop, Measurement, alternate, ratio

GOAL_RATIO = 0.80
# two engines of one process each, every move sent to the one that did not write its state
REPLICAS = 2
# sealing: forward play from a fixed seed, this many states of each variant, and the
# median of this many timed runs
SEAL_SEED = 20_261_123
SEAL_STATES_PER_VARIANT = 40
SEAL_REPEATS = 5


async def measure_engine(
    engines: Sequence[EngineProcess], settings: Settings, *, with_cycle: bool
) -> tuple[dict[str, Measurement], float]:
    """The measurements of one engine set-up, and how often a game restarted (NewGame
    calls per forward-play ApplyMove)."""
    workers = sum(engine.workers for engine in engines)
    # With several replicas the channel count is a multiple of theirs, so that rotating
    # over the channels alternates between the replicas.
    count = max(4, 2 * workers)
    count += -count % len(engines)
    channels = open_channels([engine.target for engine in engines], count)
    try:
        await wait_serving(channels)
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

        loops: dict[str, Loop] = {"empty": (empty_call, cpu), "apply": (forward.apply, cpu)}
        if with_cycle:
            cycle = CyclePlayers(engine_stubs, find_endless_game(settings.engine_variant))
            await cycle.prepare(settings.engine_concurrency)
            await cycle.apply(0)
            loops["cycle"] = (cycle.apply, cpu)
        results = await alternate(loops, settings.engine_concurrency, settings)
        return results, forward.new_games / max(forward.applied, 1)
    finally:
        await asyncio.gather(*(c.close() for c in channels))


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    measure_sealing(report, settings)
    measure_over_grpc(report, settings)


def measure_over_grpc(report: Report, settings: Settings) -> None:
    section = report.section("Engine over gRPC: ApplyMove vs near-empty RPC")
    section.note(
        f"Real engine (`python -m patience_engine`) in child processes on loopback;"
        f" {settings.engine_concurrency} concurrent grpc.aio clients, closed loop,"
        f" {settings.seconds:g} s per figure in {settings.rounds} interleaved round(s)."
        f" Empty RPC: gRPC health `Check` on the same server. ApplyMove (forward play):"
        f" random legal moves from fresh deals of every variant, a new game once one is over"
        f" or {MAX_MOVES_PER_GAME} moves long; (cycle): one `{settings.engine_variant}` game"
        f" per client, a card moved back and forth. `{REPLICAS} replicas`: every move sent to"
        f" the engine that did not write its state. Sealed: with ENGINE_SEAL_KEY. Server"
        f" CPU: the engine processes'. Goal: ApplyMove >= {GOAL_RATIO:.0%} of the empty-RPC"
        ' rate (bench/README.md, "Engine over gRPC").'
    )
    table = section.table(
        "engine procs", "states", "RPC", *measurement_columns(),
        Column("Apply / empty (rate)", 0, percent=True), "goal met",
        Column("Apply / empty (server CPU)", 0, percent=True),
    )  # fmt: skip
    setups = [(f"w{workers}", 1, workers, str(workers)) for workers in settings.engine_workers]
    setups.append((f"replicas{REPLICAS}", REPLICAS, 1, f"{REPLICAS} replicas x 1"))
    restarts: list[str] = []
    for name, replicas, workers, label in setups:
        for sealed in settings.engine_seal:
            seal_key = secrets.token_hex(32) if sealed else ""
            with contextlib.ExitStack() as running:
                engines = [
                    running.enter_context(EngineProcess(workers=workers, seal_key=seal_key))
                    for _ in range(replicas)
                ]
                measured = measure_engine(engines, settings, with_cycle=replicas == 1)
                results, new_games = asyncio.run(measured)
            kind = "sealed" if sealed else "unsealed"
            write_pair(section, table, f"engine.{name}.{kind}", results, [label, kind])
            section.figure(f"engine.{name}.{kind}.new_games_per_apply", new_games)
            restarts.append(f"{label} {kind}: {new_games * 100:.1f}")
    section.note(
        "Apply / empty (rate) is the goal's figure. Both server and load generator share"
        " the machine's cores, so when the client's CPU per call is near the server's the"
        " rates are bounded by the client; Apply / empty (server CPU) = the empty RPC's"
        " server CPU per call over ApplyMove's, the ratio the rates would reach if the"
        " engine alone were the bottleneck. NewGame calls per 100 forward-play ApplyMove"
        " calls: " + "; ".join(restarts) + "."
    )


ROWS = (
    ("empty", "health Check"),
    ("apply", "ApplyMove (forward play)"),
    ("cycle", "ApplyMove (cycle, 2nd row)"),
)


def write_pair(
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
        by_rate = by_cpu = met = None
        if name != "empty":
            by_rate = ratio(m.rate, empty.rate)
            by_cpu = ratio(empty.server_cpu_us_per_call, m.server_cpu_us_per_call)
            met = by_rate >= GOAL_RATIO if by_rate is not None else None
            suffix = "" if name == "apply" else f"_{name}"
            section.record(prefix, **{f"ratio{suffix}": by_rate, f"cpu_ratio{suffix}": by_cpu})
        table.add(*first_cells, label, *measurement_cells(m), by_rate, met, by_cpu)
        section.measurement(f"{prefix}.{name}", m)
        section.first_error(f"{' '.join(first_cells)}, {label}", m.first_error)


def sample_sealed_states() -> list[bytes]:
    """Serialized states of forward play in every variant, as the engine writes them."""
    chooser = random.Random(SEAL_SEED)
    states: list[bytes] = []
    for variant in patience.VARIANTS.values():
        state = variant.new_game(chooser.randrange(10**12))
        for _ in range(SEAL_STATES_PER_VARIANT):
            states.append(encode_state(Position(state, deal_secret=True)))
            legal = state.legal_moves()
            if not legal:
                state = variant.new_game(chooser.randrange(10**12))
                continue
            state = state.apply(chooser.choice(legal))
    return states


def _one_pass_us(action: Callable[[bytes], object], items: Sequence[bytes], passes: int) -> float:
    start = time.perf_counter()
    for _ in range(passes):
        for item in items:
            action(item)
    return (time.perf_counter() - start) / (passes * len(items)) * 1e6


def per_call_us(
    rows: Sequence[tuple[Callable[[bytes], object], Sequence[bytes]]], seconds: float
) -> list[float]:
    """µs per call of each row: the median of SEAL_REPEATS runs, the rows taking turns in
    every run so that a busy spell of the machine falls on all of them alike."""
    passes = []
    for action, items in rows:
        once = max(_one_pass_us(action, items, 1) * len(items) / 1e6, 1e-9)
        passes.append(max(1, int(seconds / SEAL_REPEATS / once)))
    runs: list[list[float]] = [[] for _ in rows]
    for _ in range(SEAL_REPEATS):
        for index, (action, items) in enumerate(rows):
            runs[index].append(_one_pass_us(action, items, passes[index]))
    return [statistics.median(row_runs) for row_runs in runs]


def _hmac_scheme(key: bytes) -> tuple[Callable[[bytes], bytes], Callable[[bytes], bool]]:
    keyed = hmac.new(key, digestmod=hashlib.sha256)

    def mac(data: bytes) -> bytes:
        copy = keyed.copy()
        copy.update(data)
        return copy.digest()

    macs: dict[bytes, bytes] = {}

    def check(data: bytes) -> bool:
        return hmac.compare_digest(macs[data], mac(data))

    def seal(data: bytes) -> bytes:
        macs[data] = mac(data)
        return macs[data]

    return seal, check


def measure_sealing(report: Report, settings: Settings) -> None:
    section = report.section("Sealing a state: AEAD against the HMAC it replaced, and no key")
    states = sample_sealed_states()
    sizes = sorted(len(data) for data in states)
    seconds = max(settings.seconds / 2, 0.5)
    key = secrets.token_hex(32).encode()
    plain, aead = Sealer(None), Sealer(key)
    other = Sealer(key)  # the same key in "another process": no envelope of its own
    envelopes = [other.wrap(data) for data in states]
    by_envelope = {envelope: game_pb2.SealedState(state=envelope) for envelope in envelopes}
    # Its own sealer, so that the seal row's envelopes do not push these out of its table.
    mine = Sealer(key)
    own = [mine.wrap(data) for data in states]
    own_sealed = {envelope: game_pb2.SealedState(state=envelope) for envelope in own}
    plain_sealed = {data: game_pb2.SealedState(state=data) for data in states}
    hmac_seal, hmac_check = _hmac_scheme(key)
    for data in states:
        hmac_seal(data)
    rows = [
        ("none.seal", "no key", "seal", lambda d: plain.wrap(d), states),
        ("none.open", "no key", "open", lambda d: plain.unseal(plain_sealed[d]), states),
        ("hmac.seal", "HMAC-SHA256 (replaced)", "seal", hmac_seal, states),
        ("hmac.open", "HMAC-SHA256 (replaced)", "open", hmac_check, states),
        ("aead.seal", "AES-256-GCM-SIV", "seal", lambda d: aead.wrap(d), states),
        ("aead.open", "AES-256-GCM-SIV", "open (another's)",
         lambda e: aead.unseal(by_envelope[e]), envelopes),
        ("aead.open_own", "AES-256-GCM-SIV", "open (own)",
         lambda e: mine.unseal(own_sealed[e]), own),
    ]  # fmt: skip
    section.note(
        f"In-process, {len(states)} real states ({sizes[0]}..{sizes[-1]} bytes, median"
        f" {sizes[len(sizes) // 2]}) from seeded forward play in all {len(patience.VARIANTS)}"
        f" variants; median of {SEAL_REPEATS} runs of about {seconds / SEAL_REPEATS:.2f} s"
        " each, the rows taking turns within every run."
        " A move is one open and one seal. The AEAD envelope adds 37 bytes to a state"
        " (version, key id, nonce, tag), the HMAC added 34 (the seal field)."
    )
    table = section.table("scheme", "step", Column("µs/call", 2), Column("vs no key (µs)", 2))
    baseline: dict[str, float] = {}
    costs = per_call_us([(action, items) for _, _, _, action, items in rows], seconds)
    for (figure, scheme, step, _, _), cost in zip(rows, costs, strict=True):
        kind = "seal" if step == "seal" else "open"
        baseline.setdefault(kind, cost)  # the no-key rows come first
        table.add(scheme, step, cost, cost - baseline[kind])
        section.figure(f"sealing.{figure}.us", cost)
