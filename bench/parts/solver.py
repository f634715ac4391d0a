"""`python -m bench` part "solver".

In-process, per variant, on one core: positions searched per CPU second, against the
same expansion done through the rules library's State in the same run (legal moves and
apply of each, as a search written over the library would), and CPU time to a verdict
over the first deals; then what the view's outlook costs a move.

Over gRPC (one engine): hint latency per variant, floods of hints on one position
against floods on as many positions, and ApplyMove latency with and without searches
running.
"""

from __future__ import annotations

import math
import random
import statistics
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import patience
from patience.solver import Budget, Verdict, outlook, solve
from patience.solver.model import Model
from patience.solver.policy import Policy
from patience.variant import rules_of
from patience_contract.client import EngineError, SyncEngineClient
from patience_engine.codec import Position
from patience_engine.views import player_view_bytes
from solitaire.v1 import game_pb2

from bench.harness.report import Column, Report
from bench.harness.servers import EngineProcess
from bench.harness.settings import Settings
from bench.harness.stack import Stack

OUTLOOK_GAMES = 20
HINTS_PER_VARIANT = 12
MOVES_TIMED = 300
SEARCHES_BESIDE = 2
# each search beside the moves, in milliseconds (they follow one another)
SEARCH_MILLISECONDS = {"full": 2_000, "quick": 500}
FIRST_DEAL = 1
# hints asked at once in a flood, and floods per variant
FLOOD = 8
FLOODS = {"full": 3, "quick": 1}
# the quick run floods two variants: one hiding cards, one open
QUICK_FLOOD_VARIANTS = ("napoleon-at-st-helena", "bisley")


def library_search_rate(variant: str, deals: int, rate_nodes: int) -> float:
    """Positions entered per CPU second by a plain depth-first search written over the
    rules library (State.legal_moves and State.apply, a set of positions seen), over the
    same deals and cap as the solver's figure."""
    nodes = 0
    started = time.process_time()
    for deal in range(FIRST_DEAL, FIRST_DEAL + deals):
        root = patience.get_variant(variant).new_game(deal)
        seen = {(root.piles, root.redeals_left, root.draws)}
        stack = [root]
        entered = 0
        while stack and entered < rate_nodes:
            state = stack.pop()
            for move in state.legal_moves():
                child = state.apply(move)
                key = (child.piles, child.redeals_left, child.draws)
                if key not in seen:
                    seen.add(key)
                    stack.append(child)
                    entered += 1
        nodes += entered
    return nodes / (time.process_time() - started)


def solver_nodes_per_s(variant: str, deals: int, rate_nodes: int) -> float:
    """Positions entered per CPU second over budget-capped searches of the first deals."""
    nodes = 0
    seconds = 0.0
    for deal in range(FIRST_DEAL, FIRST_DEAL + deals):
        state = patience.get_variant(variant).new_game(deal)
        result = solve(state, Budget(nodes=rate_nodes, seconds=60, cpu_time=True))
        nodes += result.nodes
        seconds += result.seconds
    return nodes / seconds if seconds else 0.0


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    quick = settings.mode == "quick"
    measure_in_process(report, settings)
    outlook_cost(report, games=2 if quick else OUTLOOK_GAMES)
    measure_over_grpc(report, settings)


def measure_in_process(report: Report, settings: Settings) -> None:
    section = report.section("Solver (one core, CPU time)")
    section.note(
        f"Per variant: positions entered per CPU second by `patience.solver` over searches"
        f" of deals {FIRST_DEAL}..{FIRST_DEAL + settings.solver_deals - 1} capped at"
        f" {settings.solver_rate_nodes:,} positions, against the baseline of expanding"
        " positions through a plain depth-first search written over the rules library's"
        " `State` (legal moves, apply, a set of positions seen) on the same deals and cap,"
        " in the same run; then"
        f" each of those deals solved with a budget of {settings.solver_seconds:g} CPU s:"
        " how many were decided (WON or LOST) and the CPU time to the verdict, by the"
        " solver (its searches in turns) and by its first search alone."
    )
    table = section.table(
        "variant", Column("solver positions/s", 0), Column("library positions/s", 0),
        Column("ratio", 2), "decided", Column("verdict p50 s", 2), Column("verdict max s", 2),
        "decided, one search", Column("p50 s", 2), Column("max s", 2),
    )  # fmt: skip
    deals = range(FIRST_DEAL, FIRST_DEAL + settings.solver_deals)
    for variant in patience.VARIANTS:
        baseline = library_search_rate(variant, settings.solver_deals, settings.solver_rate_nodes)
        rate = solver_nodes_per_s(variant, settings.solver_deals, settings.solver_rate_nodes)
        both = verdict_times(variant, deals, settings.solver_seconds)
        alone = verdict_times(variant, deals, settings.solver_seconds, one_search=True)
        table.add(
            variant, rate, baseline, rate / baseline,
            *_verdict_cells(both, len(deals)), *_verdict_cells(alone, len(deals)),
        )  # fmt: skip
        section.record(
            f"solver.{variant}", nodes_per_s=rate, library_positions_per_s=baseline,
            decided=len(both), verdict_p50_s=statistics.median(both) if both else None,
            decided_one_search=len(alone),
        )  # fmt: skip


def verdict_times(
    variant: str, deals: Iterable[int], seconds: float, *, one_search: bool = False
) -> list[float]:
    """The CPU seconds to a verdict of each deal decided within ``seconds``: by the
    solver as it is (searches in turns, docs/solver.md), or with ``one_search`` by its
    first order alone (the baseline the other searches are measured against)."""
    times = []
    for deal in deals:
        state = patience.get_variant(variant).new_game(deal)
        policy = None
        if one_search:
            first = Policy(Model(rules_of(state), state.deal))
            policy = first.choosing(first.candidates)
        budget = Budget(nodes=10**9, seconds=seconds, cpu_time=True)
        result = solve(state, budget, policy=policy)
        if result.verdict is not Verdict.UNKNOWN:
            times.append(result.seconds)
    return times


def _verdict_cells(times: list[float], deals: int) -> tuple[str, float | None, float | None]:
    if not times:
        return f"0/{deals}", None, None
    return f"{len(times)}/{deals}", statistics.median(times), max(times)


def _percentile(values: list[float], share: float) -> float:
    """The value at the rounded rank share x (n - 1): how this part's percentiles have
    always been read (not the nearest rank of bench/harness/stats.py), so that its
    figures stay comparable with those recorded in bench/README.md."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _ms(times: list[float], *shares: float) -> list[float]:
    """Call times in ms: the median (0.5), a percentile as _percentile reads it, or the
    longest (1.0); NaN (written `-`) without any."""
    if not times:
        return [math.nan] * len(shares)
    return [
        (statistics.median(times) if share == 0.5 else _percentile(times, share)) * 1000
        for share in shares
    ]


def _ms_columns(*names: str) -> list[Column]:
    return [Column(f"{name} ms", 0) for name in names]


def _position_in_engine(
    client: SyncEngineClient, variant: str, rng: random.Random
) -> game_pb2.SealedState:
    """A position of a random game 0 to 30 random moves in, as the engine made it."""
    deal = rng.randrange(10**6)
    state, line = patience.get_variant(variant).new_game(deal), []
    for _ in range(rng.randrange(31)):
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        line.append(str(move))
        state = state.apply(move)
    game = client.new_game(variant, deal=deal)
    return client.apply_moves(game.state, line).state if line else game.state


def outlook_cost(report: Report, games: int) -> None:
    section = report.section("Outlook: its cost on a move (in-process, one core)")
    section.note(
        f"Per variant, along random games (400 moves at most, {games} games): the time of"
        " `outlook()` on each position reached, against the time the engine spends on the"
        " same move without it (the rules library's apply with events, then the player's"
        " view written with its legal moves). p50 and p99 in microseconds."
    )
    table = section.table(
        "variant", Column("outlook p50 µs"), Column("outlook p99 µs", 0),
        Column("move+view p50 µs", 0), Column("outlook/move (mean)", 3),
    )  # fmt: skip
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
        outlook_us = [ms * 1000 for ms in _ms(spent, 0.5, 0.99)]
        move_us = _ms(moves, 0.5)[0] * 1000
        table.add(variant, *outlook_us, move_us, sum(spent) / sum(moves))
        section.figure(f"solver_rpc.{variant}.outlook_p50_us", statistics.median(spent) * 1e6)


def hint_latency(report: Report, client: SyncEngineClient, hints: int) -> None:
    section = report.section("Hint over gRPC (one engine process, one search process)")
    section.note(
        f"Per variant: {hints} hints, one at a time, with the default budget"
        " (HINT_BUDGET: 200,000 positions, 0.8 s) on positions of random games 0 to 30"
        " moves in; wall time of each call as the client sees it. Goal: p95 under 1 s."
    )
    table = section.table("variant", *_ms_columns("p50", "p95", "max"), "winning", "best effort")
    rng = random.Random(7)
    for variant in patience.VARIANTS:
        times: list[float] = []
        kinds: dict[int, int] = {}
        for _ in range(hints):
            state = _position_in_engine(client, variant, rng)
            started = time.perf_counter()
            reply = client.hint(state)
            times.append(time.perf_counter() - started)
            kinds[reply.kind] = kinds.get(reply.kind, 0) + 1
        table.add(variant, *_ms(times, 0.5, 0.95, 1.0), kinds.get(1, 0), kinds.get(2, 0))
        section.figure(f"solver_rpc.{variant}.hint_p95_ms", _percentile(times, 0.95) * 1000)


def _flood(client: SyncEngineClient, states: list[game_pb2.SealedState]) -> list[float | None]:
    """Each state's hint asked at once (one thread each): each call's wall time, None
    where the engine refused it (SOLVER_BUSY)."""

    def one(state: game_pb2.SealedState) -> float | None:
        started = time.perf_counter()
        try:
            client.hint(state)
        except EngineError as error:
            if error.reason != "SOLVER_BUSY":
                raise
            return None
        return time.perf_counter() - started

    with ThreadPoolExecutor(len(states)) as pool:
        return list(pool.map(one, states))


def hint_floods(report: Report, client: SyncEngineClient, settings: Settings) -> None:
    floods = FLOODS.get(settings.mode, 1)
    variants = patience.VARIANTS if settings.mode == "full" else QUICK_FLOOD_VARIANTS
    section = report.section("Floods of hints (one engine process, two search processes)")
    section.note(
        f"Per variant, {floods} flood(s) of {FLOOD} hints asked at once, default budget: on"
        f" one position (as many players of one daily deal, each flood a new position of a"
        f" random game), against {FLOOD} hints on {FLOOD} different positions in the same"
        " run (what the flood costs when nothing can be shared). The engine remembers"
        " decided answers by position and lets a hint wait for the same search under way"
        ' (docs/solver.md, "Many players, one position"). Wall time of each call as the'
        " client sees it; refused: SOLVER_BUSY (the search queue full). Goal: p99 under 1 s"
        " for the flood on one position."
    )
    table = section.table(
        "variant", "positions", *_ms_columns("p50", "p99", "max"), "refused", "searches"
    )
    rng = random.Random(11)
    for variant in variants:
        for label, same in (("one", True), ("each its own", False)):
            times: list[float] = []
            refused = 0
            searched = 0
            for _ in range(floods):
                if same:
                    states = [_position_in_engine(client, variant, rng)] * FLOOD
                else:
                    states = [_position_in_engine(client, variant, rng) for _ in range(FLOOD)]
                answered = _flood(client, states)
                times += [t for t in answered if t is not None]
                refused += sum(t is None for t in answered)
                searched += 1 if same else FLOOD - answered.count(None)
            p50, p99, worst = _ms(times, 0.5, 0.99, 1.0)
            table.add(variant, label, p50, p99, worst, refused, "1 a flood" if same else searched)
            key = "one" if same else "each"
            flood = {f"flood_{key}_p99_ms": p99, f"flood_{key}_refused": refused}
            section.record(f"solver_rpc.{variant}", **flood)


def _time_moves(client: SyncEngineClient, count: int) -> list[float]:
    game = client.new_game("house-on-the-hill", deal=3)
    move = game.view.legal_moves[0]
    times = []
    for _ in range(count):
        started = time.perf_counter()
        client.apply_move(game.state, move)
        times.append(time.perf_counter() - started)
    return times


def move_latency_beside_searches(
    report: Report, client: SyncEngineClient, moves: int, search_ms: int
) -> None:
    section = report.section("ApplyMove beside searches")
    section.note(
        f"{moves} ApplyMove calls one at a time (House on the Hill), with no search,"
        f" then while {SEARCHES_BESIDE} long Solve calls run in the engine's search"
        f" processes (ENGINE_SOLVER_PROCESSES={SEARCHES_BESIDE}, one engine process). On a"
        " machine with fewer free cores than searches plus the engine, the searches take"
        " CPU from the moves: the figure shows that share, not a wait behind a search."
    )
    table = section.table(
        "searches running", Column("p50 ms", 2), Column("p95 ms", 2), Column("max ms")
    )
    quiet = _time_moves(client, moves)
    hard = client.new_game("napoleon-at-st-helena", deal=5)
    stop = threading.Event()

    def search() -> None:
        # Solves of two seconds (half a second in a quick run) one after another: the
        # processes stay busy for the whole measurement, and stop within one solve of its
        # end (a solve of the full budget would go on for up to twenty, burning both
        # cores for nothing).
        while not stop.is_set():
            try:
                client.solve(hard.state, max_milliseconds=search_ms, timeout=10)
            except EngineError:
                return

    threads = [threading.Thread(target=search) for _ in range(SEARCHES_BESIDE)]
    for thread in threads:
        thread.start()
    time.sleep(min(1.0, search_ms / 1000))  # both searches under way
    busy = _time_moves(client, moves)
    stop.set()
    for label, times in (("0", quiet), (str(SEARCHES_BESIDE), busy)):
        table.add(label, *_ms(times, 0.5, 0.95, 1.0))
        section.figure(f"solver_rpc.apply_move_p50_ms.searches_{label}", statistics.median(times))
    for thread in threads:
        thread.join()


def measure_over_grpc(report: Report, settings: Settings) -> None:
    quick = settings.mode == "quick"
    engine_settings = {"ENGINE_SOLVER_PROCESSES": str(SEARCHES_BESIDE)}
    with (
        EngineProcess(workers=1, settings=engine_settings) as engine,
        SyncEngineClient(engine.target, timeout=30) as client,
    ):
        hint_latency(report, client, hints=1 if quick else HINTS_PER_VARIANT)
        hint_floods(report, client, settings)
        moves = 20 if quick else MOVES_TIMED
        move_latency_beside_searches(report, client, moves, SEARCH_MILLISECONDS[settings.mode])
