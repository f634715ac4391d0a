"""`patience solve VARIANT DEAL`: whether a deal can be won, searched with full knowledge
of the stock and the shuffles (see docs/solver.md); prints the verdict, the winning line
in move notation, the positions searched and the time."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

import patience
from patience.solver import Budget, Verdict, solve

VERDICTS = {
    Verdict.WON: "WON",
    Verdict.LOST: "LOST (proven: no line wins)",
    Verdict.UNKNOWN: "UNKNOWN (the budget ran out first)",
}


def add_solve_command(commands: Any) -> None:
    """Register `solve` on the `patience` command's subparsers."""
    solve_parser = commands.add_parser(
        "solve",
        help="search a deal for a win (with full knowledge of the stock and shuffles)",
        description=__doc__,
    )
    solve_parser.add_argument("variant", help="e.g. bisley, la-belle-lucie")
    solve_parser.add_argument("deal", type=int, help="the deal number, 0 to 10^20")
    solve_parser.add_argument(
        "--option", action="append", default=[], help="a variant option (repeatable)"
    )
    solve_parser.add_argument(
        "--nodes", type=int, default=2_000_000, help="positions to search at most (2000000)"
    )
    solve_parser.add_argument(
        "--seconds", type=float, default=10.0, help="seconds to search at most (10)"
    )
    solve_parser.add_argument(
        "--cpu-time", action="store_true", help="count --seconds in CPU time, not wall time"
    )
    solve_parser.set_defaults(run=run_solve)


def run_solve(args: argparse.Namespace) -> int:
    if args.nodes < 1 or args.seconds <= 0:
        print("patience solve: --nodes and --seconds must be positive", file=sys.stderr)
        return 2
    try:
        state = patience.get_variant(args.variant).new_game(args.deal, args.option)
    except patience.PatienceError as error:
        print(f"patience solve: {error}", file=sys.stderr)
        return 2
    budget = Budget(nodes=args.nodes, seconds=args.seconds, cpu_time=args.cpu_time)
    result = solve(state, budget)
    clock = "CPU s" if args.cpu_time else "s"
    print(f"{state.variant.name}, deal {args.deal}: {VERDICTS[result.verdict]}")
    if result.verdict is Verdict.WON:
        line = " ".join(str(move) for move in result.line)
        print(f"line ({len(result.line)} moves):")
        print(textwrap.fill(line, width=88, initial_indent="  ", subsequent_indent="  "))
    print(f"positions searched: {result.nodes}; time: {result.seconds:.2f} {clock}")
    print(f"budget: {args.nodes} positions, {args.seconds:g} {clock}; full knowledge")
    return 0
