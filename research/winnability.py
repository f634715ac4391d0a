"""`python -m research.winnability`: how often each game can be won, with full knowledge.

For each game, random deal numbers (from a fixed seed, so that the table can be made
again) are searched by `patience.solver` within a budget of positions and CPU seconds;
every WON line is replayed through the rules library to a won position. Results go to a
JSON-lines file, one line per deal, so a run that is stopped resumes where it stopped
(and `--jobs` uses several cores); `docs/winnability.md` is written from that file.

    nice -n 19 .venv/bin/python -m research.winnability --jobs 2
    .venv/bin/python -m research.winnability --render-only
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import patience
from patience.deals import MAX_DEAL, RANDOM_DEAL_LOW
from patience.solver import Budget, Verdict, solve

from bench.harness import machine
from bench.harness.paths import REPO_ROOT, RESULTS
from bench.harness.report import Column, table
from bench.harness.stats import percentile
from research.rows import appended, read_rows

ROWS = RESULTS / "winnability.jsonl"
OUTPUT = REPO_ROOT / "docs" / "winnability.md"
SEED = 2026

# CPU seconds and positions per deal. The goal games (La Belle Lucie, Bisley, Little
# Billee: decided within 10 s) get 10 s, as does Cody, which decides fast; the games whose
# deals mostly outlast any budget get 2 s, so that the whole table takes a few hours.
LONG_BUDGET_GAMES = frozenset({"cody", "little-billee", "la-belle-lucie", "bisley"})
BUDGETS: dict[str, tuple[float, int]] = {
    variant: (10.0 if variant in LONG_BUDGET_GAMES else 2.0, 2_000_000)
    for variant in patience.VARIANTS
}


@dataclass(frozen=True)
class Task:
    variant: str
    deal: int
    seconds: float
    nodes: int


def deal_numbers(variant: str, count: int, seed: int = SEED) -> list[int]:
    """``count`` random deal numbers of the random-deal range, the same every run."""
    rng = random.Random(f"{seed}/{variant}")
    return [rng.randint(RANDOM_DEAL_LOW, MAX_DEAL) for _ in range(count)]


def run_task(task: Task) -> dict[str, object]:
    """Solve one deal and replay a win; the result as one JSON-able row."""
    state = patience.get_variant(task.variant).new_game(task.deal)
    result = solve(state, Budget(nodes=task.nodes, seconds=task.seconds, cpu_time=True))
    replayed = None
    if result.verdict is Verdict.WON:
        end = state
        for move in result.line:
            end = end.apply(move)  # raises IllegalMove if a move is not legal
        replayed = end.status is patience.Status.WON
    return {
        "variant": task.variant,
        "deal": task.deal,
        "verdict": result.verdict.value,
        "cpu_seconds": round(result.seconds, 4),
        "nodes": result.nodes,
        "moves": len(result.line),
        "replayed": replayed,
        "budget_seconds": task.seconds,
        "budget_nodes": task.nodes,
    }


def pending(tasks: list[Task], rows: list[dict[str, object]]) -> list[Task]:
    done = {(r["variant"], r["deal"], r["budget_seconds"], r["budget_nodes"]) for r in rows}
    return [t for t in tasks if (t.variant, t.deal, t.seconds, t.nodes) not in done]


# --- the table ------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def render(rows: list[dict[str, object]], machine_line: str, command: str) -> str:
    by_variant: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_variant.setdefault(str(row["variant"]), []).append(row)
    lines = [
        "# Winnability of the nine games, with full knowledge",
        "",
        "How often a deal can be won **by a player who knows the order of the stock and the",
        "shuffles of later redeals** (as `patience.solver` searches; a player at the table",
        "knows less, so these are upper bounds for real play). Deals are random deal numbers",
        f"of the random-deal range (10^16..10^20) drawn from seed {SEED}; each deal is searched",
        "within a budget of CPU seconds and positions, and answered WON (with a winning line,",
        "replayed through the rules library to a won position), LOST (proven: no line wins,",
        "counting redeals, deals and the withdraw) or UNKNOWN (budget spent).",
        "",
        "The win rate's 95% interval is a Wilson interval that also covers the unknown",
        "deals both ways: from all of them lost (the lower end) to all of them won (the upper",
        "end). Times are the CPU time of the search (the machine is shared, so wall time says",
        "less), over the decided deals.",
        "",
        f"Made by `{command}`. {machine_line}",
        "",
    ]
    seconds = [Column(header, 2, unit=" s") for header in ("decided p50", "p90", "p99", "max")]
    games = table(
        "game", "deals", "budget", "WON", "LOST", "UNKNOWN", Column("win rate", percent=True),
        Column("95% interval", percent=True, joiner=" .. "), *seconds, "replayed",
    )  # fmt: skip
    for variant_id in patience.VARIANTS:
        group = by_variant.get(variant_id)
        if not group:
            continue
        n = len(group)
        won = sum(1 for r in group if r["verdict"] == "won")
        lost = sum(1 for r in group if r["verdict"] == "lost")
        unknown = n - won - lost
        low, _ = wilson(won, n)
        _, high = wilson(won + unknown, n)
        times = sorted(float(str(r["cpu_seconds"])) for r in group if r["verdict"] != "unknown")
        budgets = {(float(str(r["budget_seconds"])), int(str(r["budget_nodes"]))) for r in group}
        budget = "; ".join(f"{s:g} s, {m:,} positions" for s, m in sorted(budgets))
        replayed = sum(1 for r in group if r["replayed"])
        # the last: the longest (NaN, written `-`, where none was decided)
        shares = [percentile(times, q) for q in (0.5, 0.9, 0.99, 1.0)]
        games.add(
            patience.get_variant(variant_id).name, n, budget, won, lost, unknown, won / n,
            (low, high), *shares, f"{replayed}/{won}",
        )  # fmt: skip
    lines.append(games.markdown())
    decided = []
    for variant_id in patience.VARIANTS:
        group = by_variant.get(variant_id, [])
        if group:
            share = sum(1 for r in group if r["verdict"] != "unknown") / len(group)
            decided.append(f"{patience.get_variant(variant_id).name} {share:.1%}")
    lines += ["", "Decided within the budget (WON or LOST): " + "; ".join(decided) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.winnability", description=__doc__)
    parser.add_argument("--deals", type=int, default=1000, help="deals per game (1000)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--variants", help="comma-separated subset of the games")
    parser.add_argument("--results", type=Path, default=ROWS, help="the JSON-lines file")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the Markdown table")
    parser.add_argument("--seconds", type=float, help="CPU seconds per deal, for every game")
    parser.add_argument("--render-only", action="store_true", help="only write the table")
    args = parser.parse_args(argv)
    variants = args.variants.split(",") if args.variants else list(patience.VARIANTS)
    tasks = []
    for variant in variants:
        seconds, nodes = BUDGETS[variant]
        if args.seconds is not None:
            seconds = args.seconds
        tasks += [Task(variant, deal, seconds, nodes) for deal in deal_numbers(variant, args.deals)]
    rows = read_rows(args.results)
    if not args.render_only:
        todo = pending(tasks, rows)
        print(f"{len(tasks) - len(todo)} deals already done, {len(todo)} to go", file=sys.stderr)
        started = time.monotonic()
        rows_made = appended(run_task, todo, args.jobs, args.results, per_process=50)
        for count, row in enumerate(rows_made, start=1):
            if count % 50 == 0 or count == len(todo):
                elapsed = time.monotonic() - started
                print(f"{count}/{len(todo)} in {elapsed:.0f} s ({row['variant']})", file=sys.stderr)
        rows = read_rows(args.results)
    wanted = {(t.variant, t.deal, t.seconds, t.nodes) for t in tasks}
    chosen = [
        r
        for r in rows
        if (r["variant"], r["deal"], r["budget_seconds"], r["budget_nodes"]) in wanted
    ]
    command = "nice -n 19 .venv/bin/python -m research.winnability --jobs 2"
    args.output.write_text(render(chosen, machine.describe(), command))
    print(f"written: {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
