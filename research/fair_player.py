"""`python -m research.fair_player`: a player who never peeks, measured.

For each game that hides cards (Napoleon at St Helena's stock, the La Belle Lucie
family's shuffled redeals), random deals (the winnability table's deal numbers: the same
seed, so the first N deals of each game are the table's first N) are played twice:

- **the fair player**: from the deal to the end, each move the fair hint's
  (`patience.solver.hint`, which searches arrangements of the unseen cards made from the
  seen position and never the deal's own hidden cards), with a fixed budget of positions
  per hint (positions, not seconds, so that the game played is the same on any machine);
  the player plays safe moves to the foundations without asking (autoplay's moves, which
  are the hint's own first moves wherever they exist), and once nothing is hidden any
  more (the stock dealt out, the last redeal made) one exact search stands for the hints
  that would follow: a winning line is played out, a proven loss ends the game, an
  undecided search gives its best-effort move, as the exact hint would. Each hint is
  asked with the one before (`follow`), as the gateway asks it, so that it plays on the
  line of the last (docs/solver.md, "Following hints"). A hint whose move would lead back
  to a position the player has already seen is replaced by the first legal move that
  does not (a *detour*, counted: there should be none); with none, the game ends lost.
- **full knowledge**: the deal's verdict by `patience.solver.solve` (stock and shuffles
  known) within a CPU budget: the upper bound. It is the winnability table's verdict
  (research/data/winnability.jsonl) where the table searched the deal with that budget,
  else the deal is searched as the table searches it. A deal the fair player won is
  winnable, whatever that search said.

One JSON line per deal in research/data/fair_player.jsonl (in the repository), so a
stopped run resumes where it, or any earlier run, stopped (`--jobs` for more processes);
the table is written into docs/winnability.md, between the markers of its section "A
player who never peeks".

    nice -n 19 .venv/bin/python -m research.fair_player --deals 50 --jobs 2
    .venv/bin/python -m research.fair_player --deals 50 --render-only
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import patience
from patience import Move, State, Status
from patience.solver import (
    SAMPLES,
    Budget,
    Hint,
    Verdict,
    hides_cards,
    hint,
    safe_foundation_moves,
    solve,
)
from patience.solver.unseen import seen_key

from bench.harness import machine
from bench.harness.paths import REPO_ROOT
from bench.harness.report import Column, table
from bench.harness.stats import percentile
from research import winnability
from research.rows import appended, read_rows
from research.winnability import SEED, deal_numbers, replays_to_a_win, wilson

# In the repository, beside the winnability table's verdicts: a run resumes where any
# earlier one stopped, and the section can be written again from them.
ROWS = REPO_ROOT / "research" / "data" / "fair_player.jsonl"
LATENCY_ROWS = REPO_ROOT / "research" / "data" / "fair_hint_latency.jsonl"
OUTPUT = REPO_ROOT / "docs" / "winnability.md"
HIDDEN = ("la-belle-lucie", "house-in-the-wood", "house-on-the-hill", "napoleon-at-st-helena")
# Positions per hint (all the arrangements together): about a third of what the default
# hint budget (0.8 s of wall time) searches on a quiet core, so that the table fits in an
# hour on two cores.
HINT_NODES = 10_000
# The full-knowledge search of each deal, in CPU seconds: the winnability table's.
FULL_SECONDS = winnability.SECONDS
MOVE_LIMIT = 3_000
BEGIN = "<!-- fair player: written by research/fair_player.py -->"
END = "<!-- end of the fair player's section -->"
# The latency is measured apart (`--latency`, on a quiet machine) and kept until measured
# again: a run of the games leaves it as it is.
LATENCY_BEGIN = "<!-- fair hint latency: written by research/fair_player.py --latency -->"
LATENCY_END = "<!-- end of the fair hint latency -->"
LATENCY_MARKERS = (LATENCY_BEGIN, LATENCY_END)


@dataclass(frozen=True)
class Task:
    variant: str
    deal: int
    hint_nodes: int
    full_seconds: float


def key_of(row: dict[str, object]) -> tuple[object, ...]:
    return (row["variant"], row["deal"], row["hint_nodes"], row["full_seconds"])


def play_fair(state: State, nodes: int) -> dict[str, object]:
    """The fair player's game from ``state`` (the module's docstring)."""
    budget = Budget(nodes=nodes, seconds=1e9)
    kinds: Counter[str] = Counter()
    visited = {seen_key(state)}
    previous: Hint | None = None
    detours = hints = 0
    ended = ""
    started = time.process_time()
    while state.status is Status.PLAYING and state.moves_made < MOVE_LIMIT:
        safe = safe_foundation_moves(state)
        if safe:
            for home in safe:
                state = state.apply(home)
            visited.add(seen_key(state))
            continue
        if not hides_cards(state):
            result = solve(state, budget)
            kinds[f"exact {result.verdict.value}"] += 1
            if result.verdict is Verdict.WON:
                for step in result.line:
                    state = state.apply(step)
                break
            if result.verdict is Verdict.LOST:
                ended = "proven lost"
                break
            move: Move | None = result.best_first_move or state.legal_moves()[0]
        else:
            given = hint(state, budget, follow=previous)
            previous = given
            hints += 1
            kinds[given.kind.value] += 1
            move = given.move
            if move is None:
                ended = "proven lost"
                break
        after = state.apply(move)
        if seen_key(after) in visited:
            move = next(
                (m for m in state.legal_moves() if seen_key(state.apply(m)) not in visited), None
            )
            if move is None:
                ended = "cycled"
                break
            detours += 1
            after = state.apply(move)
        state = after
        visited.add(seen_key(state))
    won = state.status is Status.WON
    if not won and not ended:
        ended = "stuck" if state.status is Status.STUCK else "move limit"
    return {
        "fair": "won" if won else "lost",
        "fair_end": "won" if won else ended,
        "fair_moves": state.moves_made,
        "fair_hints": hints,
        "fair_detours": detours,
        "fair_kinds": dict(sorted(kinds.items())),
        "fair_cpu_seconds": round(time.process_time() - started, 3),
    }


@functools.cache
def table_verdicts() -> dict[tuple[str, int], dict[str, object]]:
    """The winnability table's verdicts (research/data/winnability.jsonl), by deal."""
    return winnability.latest(read_rows(winnability.DATA))


def full_knowledge(variant: str, deal: int, seconds: float) -> dict[str, object]:
    """The deal's verdict with full knowledge within ``seconds`` CPU s: the winnability
    table's where it searched the deal with that budget (the deals are the same list),
    else searched here as the table searches."""
    row = table_verdicts().get((variant, deal))
    if row is None or float(str(row["budget_s"])) != seconds:
        row = winnability.run_task(winnability.Task(variant, deal, seconds))
    won = row["verdict"] == Verdict.WON.value
    return {
        "full": row["verdict"],
        "full_cpu_seconds": row["cpu_s"],
        "full_replayed": replays_to_a_win(row) if won else None,
    }


def run_task(task: Task) -> dict[str, object]:
    row: dict[str, object] = {
        "variant": task.variant,
        "deal": task.deal,
        "hint_nodes": task.hint_nodes,
        "samples": SAMPLES,
        "full_seconds": task.full_seconds,
        **full_knowledge(task.variant, task.deal, task.full_seconds),
    }
    state = patience.get_variant(task.variant).new_game(task.deal)
    row.update(play_fair(state, task.hint_nodes))
    return row


# --- latency ---------------------------------------------------------------------------


def latency_positions(variant_id: str, count: int) -> list[State]:
    """``count`` positions that hide cards: the game's deals (its list), each after a
    seeded random number of random moves (deals favoured) and its safe moves."""
    rng = random.Random(f"{SEED}/latency/{variant_id}")
    variant = patience.get_variant(variant_id)
    found: list[State] = []
    deals = iter(deal_numbers(variant_id, 100 * count))
    while len(found) < count:
        state = variant.new_game(next(deals))
        for _ in range(rng.randrange(0, 80)):
            legal = state.legal_moves()
            if not legal:
                break
            others = [m for m in legal if m.kind.name == "DEAL"]
            state = state.apply(rng.choice(others if others and rng.random() < 0.3 else legal))
        for home in safe_foundation_moves(state):
            state = state.apply(home)
        if state.legal_moves() and hides_cards(state):
            found.append(state)
    return found


def measure_latency(variants: list[str], count: int, path: Path) -> None:
    """The default hint (HINT_BUDGET: wall-clock seconds) on ``count`` positions of each
    game, one after another in this process; a row per hint."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        for variant_id in variants:
            for state in latency_positions(variant_id, count):
                wall, cpu = time.perf_counter(), time.process_time()
                given = hint(state)
                row = {
                    "variant": variant_id,
                    "wall_seconds": round(time.perf_counter() - wall, 4),
                    "cpu_seconds": round(time.process_time() - cpu, 4),
                    "kind": given.kind.value,
                    "arrangements": given.arrangements,
                    "nodes": given.nodes,
                    "load": round(os.getloadavg()[0], 2),
                    "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                }
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(f"latency: {variant_id} done", file=sys.stderr)


def render_latency(rows: list[dict[str, object]]) -> str:
    loads = [float(str(r["load"])) for r in rows]
    lines = [
        LATENCY_BEGIN,
        "**Latency** of the fair hint with the default budget (`HINT_BUDGET`: 200,000",
        f"positions, 0.8 s of wall time, shared by the {SAMPLES} arrangements), called in",
        "process on positions of each game (its deals after random moves), one at a time,",
        f"the load average (1 min) between {min(loads):.1f} and {max(loads):.1f} on 2 cores,",
        f"at {rows[-1].get('at', 'a time not recorded')}:",
        "",
    ]
    seconds = ("wall p50", "p95", "max", "CPU p50", "p95")
    hints = table("game", "hints", *(Column(header, 2, unit=" s") for header in seconds), "kinds")
    for variant_id in HIDDEN:
        group = [r for r in rows if r["variant"] == variant_id]
        if not group:
            continue
        wall = sorted(float(str(r["wall_seconds"])) for r in group)
        cpu = sorted(float(str(r["cpu_seconds"])) for r in group)
        kinds = Counter(str(r["kind"]) for r in group)
        given = ", ".join(f"`{k}` {v}" for k, v in kinds.most_common())
        hints.add(
            patience.get_variant(variant_id).name, len(group), percentile(wall, 0.5),
            percentile(wall, 0.95), wall[-1], percentile(cpu, 0.5), percentile(cpu, 0.95), given,
        )  # fmt: skip
    return "\n".join([*lines, hints.markdown(), LATENCY_END])


# --- the table ------------------------------------------------------------------------


def render_section(rows: list[dict[str, object]], machine_line: str, command: str) -> str:
    by_variant: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_variant.setdefault(str(row["variant"]), []).append(row)
    hint_nodes = sorted({int(str(r["hint_nodes"])) for r in rows})
    full_seconds = sorted({float(str(r["full_seconds"])) for r in rows})
    lines = [
        BEGIN,
        "## A player who never peeks",
        "",
        "The table above is for a player who knows the hidden cards. Here the same deals (the",
        f"first of each game's list, seed {SEED}) are played **by the fair hint**: from the deal",
        "to the end, each move the one `patience.solver.hint` gives, which searches",
        f"{SAMPLES} arrangements of the unseen cards made from the seen position and never the",
        'deal\'s own hidden cards (docs/solver.md, "Hints and hidden information"), with '
        + ", ".join(f"{n:,}" for n in hint_nodes)
        + " positions per hint (all",
        "arrangements together; the default hint, 0.8 s of wall time, searches 12,000 to",
        "28,000 on a quiet core). Safe moves to the foundations are played without asking; once",
        "nothing is hidden any more, one exact search stands for the exact hints that would",
        "follow. Beside it, the full-knowledge search of the same deal within "
        + ", ".join(f"{s:g}" for s in full_seconds)
        + " CPU s (its interval counts",
        "its unknown deals both ways, and a deal the fair player won as won).",
        "",
        f"Made by `{command}`. {machine_line}",
        "",
    ]
    games = table(
        "game", "deals", "fair player won", Column("win rate", percent=True),
        Column("95% interval", percent=True, joiner=" .. "), "full knowledge WON", "LOST",
        "UNKNOWN", Column("full-knowledge win rate interval", percent=True, joiner=" .. "),
        "fair wins of full-knowledge WON", Column("hints per game", 0), "CPU s per game",
    )  # fmt: skip
    kinds_total: dict[str, Counter[str]] = {}
    ends: dict[str, Counter[str]] = {}
    for variant_id in HIDDEN:
        group = by_variant.get(variant_id)
        if not group:
            continue
        n = len(group)
        fair_won = sum(1 for r in group if r["fair"] == "won")
        full_won = sum(1 for r in group if r["full"] == "won")
        full_lost = sum(1 for r in group if r["full"] == "lost")
        unknown = n - full_won - full_lost
        # a deal the fair player won is won, whatever the bounded search said
        proven_won = sum(1 for r in group if r["full"] == "won" or r["fair"] == "won")
        low, _ = wilson(proven_won, n)
        _, high = wilson(n - full_lost, n)
        both = sum(1 for r in group if r["full"] == "won" and r["fair"] == "won")
        hints = sum(int(str(r["fair_hints"])) for r in group) / n
        cpu = sum(float(str(r["fair_cpu_seconds"])) for r in group) / n
        name = patience.get_variant(variant_id).name
        games.add(
            name, n, fair_won, fair_won / n, wilson(fair_won, n), full_won, full_lost, unknown,
            (low, high), f"{both}/{full_won}", hints, cpu,
        )  # fmt: skip
        kinds_total[name] = Counter()
        ends[name] = Counter()
        for r in group:
            given: dict[str, int] = r["fair_kinds"]  # type: ignore[assignment]
            kinds_total[name].update(given)
            ends[name][str(r["fair_end"])] += 1
    lines += [
        games.markdown(),
        "",
        "How the fair player's games ended, and the hints it was given:",
        "",
    ]
    for name, counter in ends.items():
        ended = ", ".join(f"{k} {v}" for k, v in counter.most_common())
        hinted = ", ".join(f"`{k}` {v}" for k, v in kinds_total[name].most_common())
        lines.append(f"- {name}: {ended}. Hints: {hinted}.")
    detours = sum(int(str(r["fair_detours"])) for r in rows)
    lines += [
        "",
        f"Detours (a hint that led back to a position already seen, replaced): {detours} in",
        f"{len(rows)} games.",
        END,
    ]
    return "\n".join(lines)


def earlier_machine_line(path: Path) -> str | None:
    """The machine and time of the run that made the section now in the document."""
    text = path.read_text() if path.exists() else ""
    if BEGIN not in text:
        return None
    for line in text.split(BEGIN, 1)[1].splitlines():
        if line.startswith("Made by `"):
            return line.split("`. ", 1)[1] if "`. " in line else None
    return None


def write_section(path: Path, section: str, begin: str = BEGIN, end: str = END) -> None:
    """Puts the section (from ``begin`` to ``end``) into the document, in place of the one
    there, or at its end."""
    text = path.read_text() if path.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.fair_player", description=__doc__)
    parser.add_argument("--deals", type=int, default=50, help="deals per game (50)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--variants", help="comma-separated subset of the games")
    parser.add_argument("--hint-nodes", type=int, default=HINT_NODES, help="positions per hint")
    parser.add_argument("--full-seconds", type=float, default=FULL_SECONDS)
    parser.add_argument("--results", type=Path, default=ROWS, help="the JSON-lines file")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the Markdown document")
    parser.add_argument("--render-only", action="store_true", help="only write the table")
    parser.add_argument(
        "--latency", type=int, metavar="N", help="first time the default hint on N positions each"
    )
    args = parser.parse_args(argv)
    variants = args.variants.split(",") if args.variants else list(HIDDEN)
    if args.latency:
        LATENCY_ROWS.unlink(missing_ok=True)
        measure_latency(variants, args.latency, LATENCY_ROWS)
        write_section(args.output, render_latency(read_rows(LATENCY_ROWS)), *LATENCY_MARKERS)
    # the games taken in turn, deal by deal, so that a run stopped early has all of them
    lists = {variant: deal_numbers(variant, args.deals) for variant in variants}
    tasks = [
        Task(variant, lists[variant][i], args.hint_nodes, args.full_seconds)
        for i in range(args.deals)
        for variant in variants
    ]
    rows = read_rows(args.results)
    if not args.render_only:
        done = {key_of(r) for r in rows}
        todo = [t for t in tasks if (t.variant, t.deal, t.hint_nodes, t.full_seconds) not in done]
        print(f"{len(tasks) - len(todo)} deals already done, {len(todo)} to go", file=sys.stderr)
        started = time.monotonic()
        rows_made = appended(run_task, todo, args.jobs, args.results, per_process=10)
        for count, row in enumerate(rows_made, start=1):
            elapsed = time.monotonic() - started
            print(
                f"{count}/{len(todo)} in {elapsed:.0f} s: {row['variant']} {row['deal']}"
                f" fair {row['fair']} ({row['fair_end']}), full {row['full']}",
                file=sys.stderr,
            )
        rows = read_rows(args.results)
    wanted = {(t.variant, t.deal, t.hint_nodes, t.full_seconds) for t in tasks}
    chosen = [r for r in rows if key_of(r) in wanted]
    command = f".venv/bin/python -m research.fair_player --deals {args.deals}"
    # a table made again from the rows keeps the line of the run that made them
    machine_line = (
        earlier_machine_line(args.output) if args.render_only else None
    ) or machine.describe()
    section = render_section(chosen, machine_line, command)
    write_section(args.output, section)
    print(f"written: {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
