"""`python -m research.winnability`: how often each game can be won, with full knowledge.

For each game, random deal numbers (from a fixed seed, so that the table can be made
again) are searched by `patience.solver` within a budget of CPU seconds. Each deal's
verdict is appended, as the deal ends, to the data file kept in the repository
(research/data/winnability.jsonl, one line per game and deal: WON with its winning line
in move notation, LOST, or UNKNOWN with the CPU seconds spent), so a run may stop at any
time and a later one goes on without searching a deal again. A deal left UNKNOWN is
searched again by a run with a larger budget (or with --retry-unknown, after the solver
changed); the latest line of a deal is its verdict (a run starts by keeping that one
only, so the file holds one line a game and deal). The deals are taken in turns, one of
each game, so that a run stopped early has searched every game alike.

The table (docs/winnability.md) is written from the data file, and every WON line is
replayed through the rules library to a won position when it is; a line that does not
replay is named, and the command fails.

    nice -n 19 .venv/bin/python -m research.winnability --deals 100
    .venv/bin/python -m research.winnability --render-only
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import platform
import random
import signal
import subprocess
import sys
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import patience
from patience.deals import MAX_DEAL, RANDOM_DEAL_LOW
from patience.moves import Move
from patience.solver import Budget, Verdict, solve
from patience.solver.search import straightened

from bench.harness import machine
from bench.harness.paths import REPO_ROOT
from bench.harness.report import Column, table
from bench.harness.stats import percentile
from research.rows import appended, read_rows

DATA = REPO_ROOT / "research" / "data" / "winnability.jsonl"
RUNS = REPO_ROOT / "research" / "data" / "winnability-runs.jsonl"
OUTPUT = REPO_ROOT / "docs" / "winnability.md"
SEED = 2026
SECONDS = 10.0  # CPU seconds per deal, every game alike
# Positions per deal: far beyond what the seconds allow, so that the CPU time decides
# (kept as a bound on the memory of one search).
NODES = 50_000_000
# A line longer than this (in characters of notation) is kept zlib-compressed, in base64:
# The Fifteen's lines run to thousands of moves.
PLAIN_LINE = 1_000
SEPARATOR = ","  # between the moves of a line (a move's notation may hold spaces)
FAIR_PLAYER_SECTION = "<!-- fair player: written by research/fair_player.py -->"


@dataclass(frozen=True)
class Task:
    variant: str
    deal: int
    seconds: float


Row = dict[str, object]


def deal_numbers(variant: str, count: int, seed: int = SEED) -> list[int]:
    """``count`` random deal numbers of the random-deal range, the same every run."""
    rng = random.Random(f"{seed}/{variant}")
    return [rng.randint(RANDOM_DEAL_LOW, MAX_DEAL) for _ in range(count)]


# --- a deal's line --------------------------------------------------------------------


def encode_line(moves: Iterable[Move]) -> dict[str, str]:
    """The line as one field of a row: ``line`` (the notation), or ``line_z`` (the same
    text compressed) where it is long."""
    text = SEPARATOR.join(map(str, moves))
    if len(text) <= PLAIN_LINE:
        return {"line": text}
    return {"line_z": base64.b64encode(zlib.compress(text.encode(), 9)).decode("ascii")}


def decode_line(row: Row) -> list[Move]:
    if "line_z" in row:
        text = zlib.decompress(base64.b64decode(str(row["line_z"]))).decode()
    else:
        text = str(row.get("line", ""))
    return [Move.parse(part) for part in text.split(SEPARATOR)] if text else []


def replays_to_a_win(row: Row) -> bool:
    """Whether the row's line, played through the rules library from its deal, wins."""
    state = patience.get_variant(str(row["game"])).new_game(int(str(row["deal"])))
    try:
        for move in decode_line(row):
            state = state.apply(move)
    except patience.PatienceError:
        return False
    return state.status is patience.Status.WON


# --- the search -----------------------------------------------------------------------


def run_task(task: Task) -> Row:
    """Search one deal; its verdict as one JSON-able row."""
    state = patience.get_variant(task.variant).new_game(task.deal)
    result = solve(state, Budget(nodes=NODES, seconds=task.seconds, cpu_time=True))
    row: Row = {
        "game": task.variant,
        "deal": task.deal,
        "verdict": result.verdict.value,
        "cpu_s": round(result.seconds, 3),
        "positions": result.nodes,
        "budget_s": task.seconds,
    }
    if result.verdict is Verdict.WON:
        # the whole line straightened (the search straightens the first moves only)
        row.update(encode_line(straightened(state, result.line)))
    return row


def latest(rows: Iterable[Row]) -> dict[tuple[str, int], Row]:
    """Each deal's latest row: its verdict."""
    return {(str(r["game"]), int(str(r["deal"]))): r for r in rows}


def compact(path: Path) -> None:
    """Rewrites the file with one line a deal, its latest, where a deal searched again
    left two (at the start of a run: one process writes the file at a time)."""
    rows = read_rows(path)
    verdicts = latest(rows)
    if len(verdicts) == len(rows):
        return
    fresh = path.with_suffix(".tmp")
    fresh.write_text("".join(json.dumps(row) + "\n" for row in verdicts.values()))
    os.replace(fresh, path)


def pending(tasks: list[Task], verdicts: dict[tuple[str, int], Row], retry: bool) -> list[Task]:
    """The tasks still to search: deals never searched, and deals left UNKNOWN by a
    smaller budget (or by any budget, with ``retry``)."""
    todo = []
    for task in tasks:
        row = verdicts.get((task.variant, task.deal))
        if row is None or _worth_again(row, task, retry):
            todo.append(task)
    return todo


def _worth_again(row: Row, task: Task, retry: bool) -> bool:
    unknown = row["verdict"] == Verdict.UNKNOWN.value
    return unknown and (retry or float(str(row["budget_s"])) < task.seconds)


def in_turns(per_game: list[list[Task]]) -> list[Task]:
    """The first deal of every game, then the second of every game, and so on."""
    turns: list[Task] = []
    for i in range(max((len(tasks) for tasks in per_game), default=0)):
        turns += [tasks[i] for tasks in per_game if i < len(tasks)]
    return turns


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def search(todo: list[Task], jobs: int, data: Path, runs: Path, minutes: float | None) -> None:
    """Searches the tasks, appending each row as it comes, until they are done or
    ``minutes`` have passed (the deals then being searched are left for a later run);
    notes the run in ``runs`` (machine, commit, times, rows), whether it ends or is
    stopped."""
    run: Row = {
        "started": now(),
        "commit": commit(),
        "cpu": machine.cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "jobs": jobs,
        "budget_s": sorted({t.seconds for t in todo}),
        "rows": 0,
    }
    began = time.monotonic()
    count = 0
    # stopped by a signal (a background run's SIGINT is ignored), the run is noted all the same
    signal.signal(signal.SIGTERM, _stop)
    try:
        for count, row in enumerate(appended(run_task, todo, jobs, data, per_process=50), 1):
            if count % 20 == 0 or count == len(todo):
                print(
                    f"{count}/{len(todo)} in {time.monotonic() - began:.0f} s"
                    f" ({row['game']} {row['verdict']})",
                    file=sys.stderr,
                )
            if minutes is not None and time.monotonic() - began > minutes * 60:
                break
    finally:
        run.update(ended=now(), rows=count)
        runs.parent.mkdir(parents=True, exist_ok=True)
        with runs.open("a") as out:
            out.write(json.dumps(run) + "\n")


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


# --- the table ------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Replay:
    won: int  # WON rows
    failed: list[Row]  # WON rows whose line does not win


def replay_all(rows: Iterable[Row]) -> Replay:
    won = [r for r in rows if r["verdict"] == Verdict.WON.value]
    return Replay(len(won), [r for r in won if not replays_to_a_win(r)])


def describe_runs(runs: list[Row]) -> str:
    if not runs:
        return "No run recorded."
    machines = sorted(
        {f"{r['cpu']}, {r['cores']} cores, Python {r['python']}" for r in runs}
    )  # fmt: skip
    commits = sorted({str(r["commit"]) for r in runs})
    rows = sum(int(str(r["rows"])) for r in runs)
    return (
        f"Searched in {len(runs)} run{'s' if len(runs) > 1 else ''}"
        f" from {runs[0]['started']} to {runs[-1]['ended']}"
        f" ({rows:,} searches; commits {', '.join(commits)}), on: {'; '.join(machines)}."
    )


def render(verdicts: list[Row], wanted: int, replay: Replay, runs: list[Row]) -> str:
    by_variant: dict[str, list[Row]] = {}
    for row in verdicts:
        by_variant.setdefault(str(row["game"]), []).append(row)
    lines = [
        "# Winnability of the nine games, with full knowledge",
        "",
        "How often a deal can be won **by a player who knows the order of the stock and the",
        "shuffles of later redeals** (as `patience.solver` searches; a player at the table",
        "knows less, so these are upper bounds for real play). Deals are random deal numbers",
        f"of the random-deal range (10^16..10^20) drawn from seed {SEED}, {wanted:,} a game;",
        "each deal is searched within a budget of CPU seconds and answered WON (with a",
        "winning line), LOST (proven: no line wins, counting redeals, deals and the withdraw)",
        "or UNKNOWN (budget spent). The verdicts are kept, one line a deal, in",
        "`research/data/winnability.jsonl`, which this table is made from; every WON line",
        "there is replayed through the rules library to a won position when it is made.",
        "",
        "Decided: the share of the searched deals answered WON or LOST, with its 95% Wilson",
        "interval. The win rate's 95% interval is a Wilson interval that also covers the",
        "unknown deals both ways: from all of them lost (the lower end) to all of them won",
        "(the upper end). Times are the CPU time of the search (the machine is shared, so",
        "wall time says less), over the decided deals.",
        "",
        "Made by `.venv/bin/python -m research.winnability --render-only"
        f" --deals {wanted}` at {now()}. {describe_runs(runs)}",
        "",
    ]
    seconds = [Column(header, 2, unit=" s") for header in ("decided p50", "p90", "p99", "max")]
    games = table(
        "game", "searched", "budget", "WON", "LOST", "UNKNOWN",
        Column("decided", percent=True), Column("decided 95%", percent=True, joiner=" .. "),
        Column("win rate 95%", percent=True, joiner=" .. "), *seconds, "replayed",
    )  # fmt: skip
    failed = {(r["game"], r["deal"]) for r in replay.failed}
    for variant_id in patience.VARIANTS:
        group = by_variant.get(variant_id)
        if not group:
            continue
        n = len(group)
        won = sum(1 for r in group if r["verdict"] == Verdict.WON.value)
        lost = sum(1 for r in group if r["verdict"] == Verdict.LOST.value)
        unknown = n - won - lost
        low, _ = wilson(won, n)
        _, high = wilson(won + unknown, n)
        times = sorted(float(str(r["cpu_s"])) for r in group if r["verdict"] != "unknown")
        budgets = sorted({float(str(r["budget_s"])) for r in group})
        budget = " / ".join(f"{s:g} s" for s in budgets)
        bad = sum(1 for r in group if (r["game"], r["deal"]) in failed)
        shares = [percentile(times, q) for q in (0.5, 0.9, 0.99, 1.0)]
        games.add(
            patience.get_variant(variant_id).name, n, budget, won, lost, unknown,
            (won + lost) / n, wilson(won + lost, n), (low, high), *shares,
            f"{won - bad}/{won}",
        )  # fmt: skip
    lines.append(games.markdown())
    lines += [
        "",
        f"Replayed: {replay.won - len(replay.failed):,} of {replay.won:,} WON lines won"
        f" through the rules library ({len(replay.failed)} disagreements).",
        "",
    ]
    return "\n".join(lines)


def write_table(path: Path, text: str) -> None:
    """Puts the table in place of the one before it, keeping the fair player's section."""
    old = path.read_text() if path.exists() else ""
    tail = old[old.index(FAIR_PLAYER_SECTION) :] if FAIR_PLAYER_SECTION in old else ""
    path.write_text(text + ("\n" + tail if tail else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.winnability",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--deals", type=int, default=1000, help="deals per game (1000)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--variants", help="comma-separated subset of the games")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="CPU s per deal (10)")
    parser.add_argument("--minutes", type=float, help="stop taking deals after this long")
    parser.add_argument("--retry-unknown", action="store_true", help="search UNKNOWN deals again")
    parser.add_argument("--data", type=Path, default=DATA, help="the verdicts (JSON lines)")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the runs (JSON lines)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the Markdown table")
    parser.add_argument("--render-only", action="store_true", help="only write the table")
    args = parser.parse_args(argv)
    variants = args.variants.split(",") if args.variants else list(patience.VARIANTS)
    per_game = [
        [Task(variant, deal, args.seconds) for deal in deal_numbers(variant, args.deals)]
        for variant in variants
    ]
    tasks = in_turns(per_game)
    if not args.render_only:
        compact(args.data)
        todo = pending(tasks, latest(read_rows(args.data)), args.retry_unknown)
        print(f"{len(tasks) - len(todo)} deals already done, {len(todo)} to go", file=sys.stderr)
        search(todo, args.jobs, args.data, args.runs, args.minutes)
    verdicts = latest(read_rows(args.data))
    chosen = [verdicts[t.variant, t.deal] for t in tasks if (t.variant, t.deal) in verdicts]
    replay = replay_all(chosen)
    write_table(args.output, render(chosen, args.deals, replay, read_rows(args.runs)))
    print(f"written: {args.output}", file=sys.stderr)
    for row in replay.failed:
        print(f"does not replay to a win: {row['game']} deal {row['deal']}", file=sys.stderr)
    return 1 if replay.failed else 0


if __name__ == "__main__":
    sys.exit(main())
