"""Hints: the move to play next, and what a hint may use.

A hint is searched with full knowledge (the stock's order and the shuffles of later
redeals, as the winnability table is), but what it says is only one of the position's
legal moves, which a player at the table can see anyway: it never names a card the
player cannot see. When the search proves a win, the hint is the first move of a
winning line; when it proves the game lost, there is no winning move to give; when the
budget runs out first, the hint is a best-effort move (the first move of the line that
brought the most cards to the foundations), labelled as such.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from ..moves import Move
from ..state import State
from .search import Budget, Verdict, solve

HINT_BUDGET = Budget(nodes=200_000, seconds=0.8)


class HintKind(enum.Enum):
    WINNING = "winning"  # the first move of a line proven to win
    BEST_EFFORT = "best_effort"  # the search ran out of budget: a promising move
    LOST = "lost"  # no line wins from here: no move to recommend
    NONE = "none"  # the game is over (won, or no legal move)


@dataclass(frozen=True)
class Hint:
    kind: HintKind
    move: Move | None
    verdict: Verdict
    nodes: int
    seconds: float


def hint(
    state: State, budget: Budget = HINT_BUDGET, *, stop: Callable[[], bool] | None = None
) -> Hint:
    """The move to play next from ``state`` (see the module's docstring); ``stop`` as
    for :func:`~patience.solver.search.solve`."""
    legal = state.legal_moves()
    if not legal:
        verdict = Verdict.WON if state.foundation_cards == state.total_cards else Verdict.LOST
        return Hint(HintKind.NONE, None, verdict, 0, 0.0)
    result = solve(state, budget, stop=stop)
    if result.verdict is Verdict.LOST:
        return Hint(HintKind.LOST, None, result.verdict, result.nodes, result.seconds)
    move = result.best_first_move
    if move is None or move not in legal:
        move = legal[0]
    kind = HintKind.WINNING if result.verdict is Verdict.WON else HintKind.BEST_EFFORT
    return Hint(kind, move, result.verdict, result.nodes, result.seconds)
