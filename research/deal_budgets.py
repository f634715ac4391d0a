"""Which search budget proves the most winnable deals a second: the choice of
WINNABLE_SOLVE_MILLISECONDS (the budget of each random deal a winnable create, the pools'
refill or a day's deal tries).

    python -m research.deal_budgets [--deals 150] [--cap 1.0] [--variants usk,the-fifteen]

Searches random deals of each game (seeded, so a run is repeatable on one machine) with
`patience.solver` in this process, up to `--cap` CPU seconds each, and keeps how long each
won deal took. A search cut at a smaller budget is the same search ended sooner, so one
pass gives every budget up to the cap: per budget, the deals proven won within it, and the
deals proven won per CPU minute when every deal tried costs the budget (or less, where
the search ends first) plus `--overhead` milliseconds (a deal dealt and sent to a search
process; the service's, not measured here). Prints a table, a row per game.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import patience
from patience.solver import Budget, Verdict, solve

from bench.harness.machine import describe
from bench.harness.report import Column, table

BUDGETS_MS = (20, 50, 100, 200, 500, 1000)


def search_times(variant: str, deals: int, cap: float) -> tuple[list[float], list[float]]:
    """The CPU seconds of every deal searched, and of those proven won."""
    rng = random.Random(f"deal-budgets/{variant}")
    spent: list[float] = []
    won: list[float] = []
    for _ in range(deals):
        started = time.process_time()
        state = patience.get_variant(variant).new_game(rng.randrange(10**20))
        result = solve(state, Budget(nodes=10**12, seconds=cap, cpu_time=True))
        seconds = time.process_time() - started
        spent.append(seconds)
        if result.verdict is Verdict.WON:
            won.append(seconds)
    return spent, won


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m research.deal_budgets", description=__doc__)
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--cap", type=float, default=1.0, help="CPU seconds a deal, at most")
    parser.add_argument("--overhead", type=float, default=5.0, help="milliseconds a deal tried")
    parser.add_argument("--variants", default=",".join(patience.VARIANTS))
    args = parser.parse_args()
    budgets = [ms for ms in BUDGETS_MS if ms <= args.cap * 1000]
    print(describe())
    rates = table(
        "variant",
        "deals",
        *(Column(f"won within {ms:,} ms", 0) for ms in budgets),
        *(Column(f"proven a CPU min at {ms:,} ms", 1) for ms in budgets),
    )
    for variant in args.variants.split(","):
        spent, won = search_times(variant, args.deals, args.cap)
        within = [sum(1 for t in won if t <= ms / 1000) for ms in budgets]
        costs = [
            sum(min(t, ms / 1000) + args.overhead / 1000 for t in spent) / 60 for ms in budgets
        ]
        rates.add(
            variant, len(spent), *within, *(n / c for n, c in zip(within, costs, strict=True))
        )
        print(rates.rows[-1], file=sys.stderr, flush=True)
    print(rates.markdown())


if __name__ == "__main__":
    main()
