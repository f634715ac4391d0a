"""`python -m research.following_hints`: a player who presses Hint and plays its move,
again and again, from the deal, measured on every game.

For each game, deal numbers 1..N are played by the library's hint
(`patience.solver.hint`), each asked with the one before (`follow`), as the gateway
asks it (docs/solver.md, "Following hints"), until the hint names no move. Budgets are
in positions only, so each game played is the same on any machine: open games with the
hint's own 200,000 positions (the default hint's time, 0.8 s, searches about as many on a
quiet core), games that hide cards with `--hidden-nodes` (default 20,000: the fair hint
searches 8 arrangements, and a whole game asks a hundred hints). Each row says whether
the first hint proved the deal winnable, how the game ended (won, stuck, proven lost,
or a position played twice: a cycle), the hints, the searches among them, and the CPU.

One JSON line per deal in bench/results/following_hints.jsonl (a stopped run resumes);
the table is printed, for research/README.md.

    nice -n 19 .venv/bin/python -m research.following_hints --deals 50 --jobs 2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import patience
from patience import State, Status
from patience.solver import HINT_BUDGET, Budget, Hint, HintKind, hides_cards, hint, seen_key

from bench.harness.paths import RESULTS
from bench.harness.report import table
from research.rows import appended, read_rows

ROWS = RESULTS / "following_hints.jsonl"
MOVE_LIMIT = 100_000
# CPU seconds a game may take: The Fifteen's winning lines run to tens of thousands of
# moves, searched again every 512 moves or so ("CPU limit")
CPU_LIMIT = 600.0
# Searches an open game whose first hint is undecided may make: each costs a search of
# the whole budget at each line's end (tens of seconds a search in Usk), so such games
# are followed only so far ("search limit").
SEARCH_LIMIT = 5


@dataclass(frozen=True)
class Task:
    variant: str
    deal: int
    nodes: int


def follow(state: State, budget: Budget) -> dict[str, object]:
    """Plays hint after hint from ``state``: how it ended, and what it cost."""
    started = time.process_time()
    played = {seen_key(state)}
    previous: Hint | None = None
    first: Hint | None = None
    hints = searched = 0
    end = "move limit"
    while state.moves_made < MOVE_LIMIT:
        given = hint(state, budget, follow=previous)
        first = first or given
        hints += 1
        searched += given.nodes > 0
        undecided = first.kind is not HintKind.WINNING and not hides_cards(state)
        if undecided and searched > SEARCH_LIMIT:
            end = "search limit"
            break
        if time.process_time() - started > CPU_LIMIT:
            end = "CPU limit"
            break
        if given.move is None:
            end = {Status.WON: "won", Status.STUCK: "stuck"}.get(state.status, "proven lost")
            break
        state = state.apply(given.move)
        key = seen_key(state)
        if key in played:
            end = "cycle"
            break
        played.add(key)
        previous = given
    assert first is not None
    return {
        "first": first.kind.value,
        "end": end,
        "moves": state.moves_made,
        "hints": hints,
        "searched": searched,
        "cpu_seconds": round(time.process_time() - started, 3),
    }


def run_task(task: Task) -> dict[str, object]:
    state = patience.get_variant(task.variant).new_game(task.deal)
    row: dict[str, object] = {
        "variant": task.variant,
        "deal": task.deal,
        "nodes": task.nodes,
        "hides_cards": hides_cards(state),
    }
    row.update(follow(state, Budget(nodes=task.nodes, seconds=1e9)))
    return row


def following_table(rows: Sequence[dict[str, object]]) -> str:
    games = table(
        "game", "deals", "positions a hint", "first hint `winning`", "of those won", "cycles",
        "won", "stuck", "proven lost", "search or CPU limit", "hints a game",
        "searches a game", "CPU s a game",
    )  # fmt: skip
    for variant_id, variant in patience.VARIANTS.items():
        mine = [r for r in rows if r["variant"] == variant_id]
        if not mine:
            continue
        proven = [r for r in mine if r["first"] == HintKind.WINNING.value]

        def ended(how: str, among: Sequence[dict[str, object]] = mine) -> int:
            return sum(1 for r in among if r["end"] == how)

        def mean(field: str, among: Sequence[dict[str, object]] = mine) -> float:
            return sum(float(str(r[field])) for r in among) / len(among)

        games.add(
            variant.name, len(mine), mine[0]["nodes"], len(proven),
            f"{ended('won', proven)}/{len(proven)}", ended("cycle"), ended("won"),
            ended("stuck"), ended("proven lost"), ended("search limit") + ended("CPU limit"),
            mean("hints"), mean("searched"), mean("cpu_seconds"),
        )  # fmt: skip
    return games.markdown()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.following_hints", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--deals", type=int, default=50, help="deal numbers 1..N of each game")
    parser.add_argument("--hidden-nodes", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated variant ids")
    args = parser.parse_args(argv)
    variants = [v for v in args.only.split(",") if v] or list(patience.VARIANTS)
    done = {(row["variant"], row["deal"], row["nodes"]): row for row in read_rows(ROWS)}
    tasks = []
    for variant_id in variants:
        opened = not hides_cards(patience.get_variant(variant_id).new_game(1))
        nodes = HINT_BUDGET.nodes if opened else args.hidden_nodes
        for deal in range(1, args.deals + 1):
            if (variant_id, deal, nodes) not in done:
                tasks.append(Task(variant_id, deal, nodes))
    for row in appended(run_task, tasks, args.jobs, ROWS, per_process=20):
        done[(row["variant"], row["deal"], row["nodes"])] = row
        print(row, file=sys.stderr, flush=True)
    wanted = [
        r for r in done.values() if r["variant"] in variants and int(str(r["deal"])) <= args.deals
    ]
    print(following_table(wanted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
