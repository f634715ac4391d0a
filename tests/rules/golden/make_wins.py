"""Find one won game of every variant and write tests/rules/golden/wins.json.

Run: ``.venv/bin/python tests/rules/golden/make_wins.py [variant ...]``

For each variant it tries deal numbers 0, 1, 2, ... and searches each deal with a
best-first search (most cards on the foundations first, then fewest moves), with a
budget of expanded positions per deal. The first deal it wins is written down with its
move list (state notation for moves), so that tests can replay a whole game to WON.
Variants not named keep their entry in the existing file.
"""

from __future__ import annotations

import heapq
import itertools
import json
import sys
from pathlib import Path

import patience
from patience import Move, MoveKind, State

WINS = Path(__file__).with_name("wins.json")
BUDGET = 60_000  # positions expanded per deal
MAX_DEALS = 400


def _key(state: State) -> tuple[object, ...]:
    return (state.piles, state.redeals_left, state.draws)


def _useful(state: State, moves: tuple[Move, ...]) -> list[Move]:
    """The moves worth searching: a card goes to the first empty reserve cell only
    (cells are interchangeable), and a sole card never moves to an empty pile."""
    kept: list[Move] = []
    first_empty_cell: dict[str, str] = {}
    for move in moves:
        if move.kind is MoveKind.TRANSFER:
            if move.target.startswith("r"):
                cell = first_empty_cell.setdefault(move.source, move.target)
                if cell != move.target:
                    continue
            elif (
                move.target.startswith("t")
                and not state.pile(move.target)
                and len(state.pile(move.source)) == move.count
                and move.source.startswith("t")
            ):
                continue
        kept.append(move)
    return kept


def _score(state: State) -> int:
    return state.foundation_cards * 4 - state.stock_size // 8


def solve(state: State, budget: int) -> list[Move] | None:
    """A winning move list from ``state``, or None within the budget."""
    start = _key(state)
    parents: dict[tuple[object, ...], tuple[tuple[object, ...], Move] | None] = {start: None}
    tie = itertools.count()
    frontier = [(-_score(state), 0, next(tie), state)]
    expanded = 0
    while frontier and expanded < budget:
        _, depth, _, current = heapq.heappop(frontier)
        expanded += 1
        if current.foundation_cards == current.total_cards:
            moves: list[Move] = []
            key = _key(current)
            while (link := parents[key]) is not None:
                key, move = link
                moves.append(move)
            return moves[::-1]
        here = _key(current)
        for move in _useful(current, current.legal_moves()):
            child = current.apply(move)
            key = _key(child)
            if key in parents:
                continue
            parents[key] = (here, move)
            heapq.heappush(frontier, (-_score(child), depth + 1, next(tie), child))
    return None


def find_win(variant_id: str) -> dict[str, object]:
    variant = patience.get_variant(variant_id)
    for deal in range(MAX_DEALS):
        moves = solve(variant.new_game(deal), BUDGET)
        if moves is not None:
            print(f"{variant_id}: deal {deal} won in {len(moves)} moves", flush=True)
            return {"deal": deal, "options": [], "moves": [str(m) for m in moves]}
        print(f"{variant_id}: deal {deal} not won within the budget", flush=True)
    raise SystemExit(f"{variant_id}: no win found in deals 0..{MAX_DEALS - 1}")


def main() -> None:
    wins = json.loads(WINS.read_text()) if WINS.exists() else {}
    for variant_id in sys.argv[1:] or list(patience.VARIANTS):
        wins[variant_id] = find_win(variant_id)
    ordered = {v: wins[v] for v in patience.VARIANTS if v in wins}
    WINS.write_text(json.dumps(ordered, indent=1) + "\n")


if __name__ == "__main__":
    main()
