"""The solver, per variant, on one core: positions searched per CPU second, against the
same expansion done through the rules library's State in the same run (legal moves and
apply of each, as a search written over the library would), and CPU time to a verdict
over the first deals."""

from __future__ import annotations

import statistics
import time

import patience
from patience.solver import Budget, Verdict, solve

from bench.report import Report, fmt
from bench.settings import Settings

RATE_NODES = 20_000  # positions per rate sample: long enough for a steady figure
FIRST_DEAL = 1


def library_search_rate(variant: str, deals: int) -> float:
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
        while stack and entered < RATE_NODES:
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


def solver_nodes_per_s(variant: str, deals: int) -> float:
    """Positions entered per CPU second over budget-capped searches of the first deals."""
    nodes = 0
    seconds = 0.0
    for deal in range(FIRST_DEAL, FIRST_DEAL + deals):
        state = patience.get_variant(variant).new_game(deal)
        result = solve(state, Budget(nodes=RATE_NODES, seconds=60, cpu_time=True))
        nodes += result.nodes
        seconds += result.seconds
    return nodes / seconds if seconds else 0.0


def run_solver_part(report: Report, settings: Settings) -> None:
    section = report.section("Solver (one core, CPU time)")
    section.note(
        f"Per variant: positions entered per CPU second by `patience.solver` over searches"
        f" of deals {FIRST_DEAL}..{FIRST_DEAL + settings.solver_deals - 1} capped at"
        f" {RATE_NODES:,} positions, against the baseline of expanding positions through"
        " a plain depth-first search written over the rules library's `State` (legal moves,"
        " apply, a set of positions seen) on the same deals and cap, in the same run; then"
        f" each of those deals solved with a budget of {settings.solver_seconds:g} CPU s:"
        " how many were decided (WON or LOST) and the CPU time to the verdict."
    )
    table = section.table(
        "variant",
        "solver positions/s",
        "library positions/s",
        "ratio",
        "decided",
        "verdict p50 s",
        "verdict max s",
    )
    for variant in patience.VARIANTS:
        baseline = library_search_rate(variant, settings.solver_deals)
        rate = solver_nodes_per_s(variant, settings.solver_deals)
        times = []
        decided = 0
        for deal in range(FIRST_DEAL, FIRST_DEAL + settings.solver_deals):
            state = patience.get_variant(variant).new_game(deal)
            budget = Budget(nodes=10**9, seconds=settings.solver_seconds, cpu_time=True)
            result = solve(state, budget)
            if result.verdict is not Verdict.UNKNOWN:
                decided += 1
                times.append(result.seconds)
        median = statistics.median(times) if times else None
        table.add(
            variant,
            fmt(rate, 0),
            fmt(baseline, 0),
            fmt(rate / baseline, 2),
            f"{decided}/{settings.solver_deals}",
            fmt(median, 2),
            fmt(max(times) if times else None, 2),
        )
        report.figure(f"solver.{variant}.nodes_per_s", rate)
        report.figure(f"solver.{variant}.library_positions_per_s", baseline)
        report.figure(f"solver.{variant}.decided", decided)
        if median is not None:
            report.figure(f"solver.{variant}.verdict_p50_s", median)
