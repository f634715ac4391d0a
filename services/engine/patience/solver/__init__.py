"""An exact solver for the nine games (see docs/solver.md).

``solve(state, budget)`` searches with full knowledge of the stock and the shuffles and
answers WON (with the winning line), LOST (proven: no line wins) or UNKNOWN (budget
spent). ``hint(state)`` gives the move to play next without naming any hidden card.
"""

from .hints import HINT_BUDGET, Hint, HintKind, hint
from .search import Budget, Result, Verdict, solve

__all__ = [
    "HINT_BUDGET",
    "Budget",
    "Hint",
    "HintKind",
    "Result",
    "Verdict",
    "hint",
    "solve",
]
