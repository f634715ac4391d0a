"""The solver over gRPC: hint latency per variant, ApplyMove latency with and without
searches running, and what the view's outlook costs a move (in-process)."""

from __future__ import annotations

import random
import statistics
import threading
import time

import patience
from patience.solver import outlook
from patience_engine.client import EngineError, SyncEngineClient
from patience_engine.codec import Position
from patience_engine.views import player_view_bytes

from bench.procs import engine_process
from bench.report import Report, fmt
from bench.settings import Settings

OUTLOOK_GAMES = 20
HINTS_PER_VARIANT = 12
MOVES_TIMED = 300
SEARCHES_BESIDE = 2


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _positions(variant: str, count: int, rng: random.Random) -> list[patience.State]:
    """Positions of random games, 0 to 30 random moves in."""
    out = []
    for _ in range(count):
        state = patience.get_variant(variant).new_game(rng.randrange(10**6))
        for _ in range(rng.randrange(31)):
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(rng.choice(legal))
        out.append(state)
    return out


def outlook_cost(report: Report, games: int) -> None:
    section = report.section("Outlook: its cost on a move (in-process, one core)")
    section.note(
        f"Per variant, along random games (400 moves at most, {games} games): the time of"
        " `outlook()` on each position reached, against the time the engine spends on the"
        " same move without it (the rules library's apply with events, then the player's"
        " view written with its legal moves). p50 and p99 in microseconds."
    )
    table = section.table(
        "variant", "outlook p50 µs", "outlook p99 µs", "move+view p50 µs", "outlook/move (mean)"
    )
    rng = random.Random(5)
    for variant in patience.VARIANTS:
        spent: list[float] = []
        moves: list[float] = []
        for _ in range(games):
            state = patience.get_variant(variant).new_game(rng.randrange(10**6))
            for _ in range(400):
                legal = state.legal_moves()
                if not legal:
                    break
                move = rng.choice(legal)
                started = time.perf_counter()
                after, _ = state.apply_with_events(move)
                player_view_bytes(Position(after, False))
                moves.append(time.perf_counter() - started)
                started = time.perf_counter()
                outlook(after)
                spent.append(time.perf_counter() - started)
                state = after
        table.add(
            variant,
            fmt(statistics.median(spent) * 1e6, 1),
            fmt(_percentile(spent, 0.99) * 1e6, 0),
            fmt(statistics.median(moves) * 1e6, 0),
            fmt(sum(spent) / sum(moves), 3),
        )
        report.figure(f"solver_rpc.{variant}.outlook_p50_us", statistics.median(spent) * 1e6)


def hint_latency(report: Report, client: SyncEngineClient, hints: int) -> None:
    section = report.section("Hint over gRPC (one engine process, one search process)")
    section.note(
        f"Per variant: {hints} hints, one at a time, with the default budget"
        " (HINT_BUDGET: 200,000 positions, 0.8 s) on positions of random games 0 to 30"
        " moves in; wall time of each call as the client sees it. Goal: p95 under 1 s."
    )
    table = section.table("variant", "p50 ms", "p95 ms", "max ms", "winning", "best effort")
    rng = random.Random(7)
    for variant in patience.VARIANTS:
        times: list[float] = []
        kinds: dict[int, int] = {}
        for state in _positions(variant, hints, rng):
            game = client.new_game(variant, deal=state.deal)
            # the random position, as the engine made it
            moves = list(_replay_moves(variant, state, rng))
            if moves:
                game = client.apply_moves(game.state, moves)  # type: ignore[assignment]
            started = time.perf_counter()
            reply = client.hint(game.state)
            times.append(time.perf_counter() - started)
            kinds[reply.kind] = kinds.get(reply.kind, 0) + 1
        table.add(
            variant,
            fmt(statistics.median(times) * 1000, 0),
            fmt(_percentile(times, 0.95) * 1000, 0),
            fmt(max(times) * 1000, 0),
            kinds.get(1, 0),
            kinds.get(2, 0),
        )
        report.figure(f"solver_rpc.{variant}.hint_p95_ms", _percentile(times, 0.95) * 1000)


def _replay_moves(variant: str, target: patience.State, rng: random.Random) -> list[str]:
    """A few random moves from the target's deal (a position of that game)."""
    state = patience.get_variant(variant).new_game(target.deal)
    out = []
    for _ in range(rng.randrange(31)):
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        out.append(str(move))
        state = state.apply(move)
    return out


def _time_moves(client: SyncEngineClient, count: int) -> list[float]:
    game = client.new_game("house-on-the-hill", deal=3)
    move = game.view.legal_moves[0]
    times = []
    for _ in range(count):
        started = time.perf_counter()
        client.apply_move(game.state, move)
        times.append(time.perf_counter() - started)
    return times


def move_latency_beside_searches(report: Report, client: SyncEngineClient, moves: int) -> None:
    section = report.section("ApplyMove beside searches")
    section.note(
        f"{moves} ApplyMove calls one at a time (House on the Hill), with no search,"
        f" then while {SEARCHES_BESIDE} long Solve calls run in the engine's search"
        f" processes (ENGINE_SOLVER_PROCESSES={SEARCHES_BESIDE}, one engine process). On a"
        " machine with fewer free cores than searches plus the engine, the searches take"
        " CPU from the moves: the figure shows that share, not a wait behind a search."
    )
    table = section.table("searches running", "p50 ms", "p95 ms", "max ms")
    quiet = _time_moves(client, moves)
    hard = client.new_game("napoleon-at-st-helena", deal=5)
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            try:
                client.solve(hard.state, max_milliseconds=20_000, timeout=25)
            except EngineError:
                return

    threads = [threading.Thread(target=search) for _ in range(SEARCHES_BESIDE)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # both searches under way
    busy = _time_moves(client, moves)
    stop.set()
    for label, times in (("0", quiet), (str(SEARCHES_BESIDE), busy)):
        table.add(
            label,
            fmt(statistics.median(times) * 1000, 2),
            fmt(_percentile(times, 0.95) * 1000, 2),
            fmt(max(times) * 1000, 1),
        )
        report.figure(f"solver_rpc.apply_move_p50_ms.searches_{label}", statistics.median(times))
    for thread in threads:
        thread.join()


def run_solver_rpc_part(report: Report, settings: Settings) -> None:
    quick = settings.mode == "quick"
    outlook_cost(report, games=2 if quick else OUTLOOK_GAMES)
    engine = engine_process(
        workers=1, settings={"ENGINE_SOLVER_PROCESSES": str(SEARCHES_BESIDE)}
    ).start()
    try:
        with SyncEngineClient(engine.target, timeout=30) as client:
            hint_latency(report, client, hints=1 if quick else HINTS_PER_VARIANT)
            move_latency_beside_searches(report, client, moves=20 if quick else MOVES_TIMED)
    finally:
        engine.stop()
