"""An exact solver for the nine games (see docs/solver.md).

``solve(state, budget)`` searches with full knowledge of the stock and the shuffles and
answers WON (with the winning line), LOST (proven: no line wins) or UNKNOWN (budget
spent): the trusted calls. ``hint(state)`` gives the move to play next from what the
player has seen only: where the position hides cards it searches arrangements of the
unseen cards made from the seen position (``hides_cards``, unseen.py), never the
state's own hidden cards; ``hint(state, follow=previous)`` (or ``continue_line``) plays
on the line of the game's previous hint, so following hints never goes round in circles.
``seen_key(state)`` is the position as the player sees it (what a hint is made from).
``outlook(state)`` tells, without a search, a game that only goes round in circles from
one that may still be won; ``safe_foundation_moves(state)`` lists the cards that can go
home now without losing a win (autoplay).
"""

from . import native

# the compiled modules first, where they are to be used (native.py)
__path__ = native.search_path(__path__)

from .autoplay import safe_foundation_moves
from .hints import HINT_BUDGET, Hint, HintKind, continue_line, hint
from .outlook import CYCLE_LIMIT, Outlook, outlook
from .search import Budget, Result, Verdict, solve
from .unseen import SAMPLES, hides_cards, seen_key

__all__ = [
    "CYCLE_LIMIT",
    "HINT_BUDGET",
    "SAMPLES",
    "Budget",
    "Hint",
    "HintKind",
    "Outlook",
    "Result",
    "Verdict",
    "continue_line",
    "hides_cards",
    "hint",
    "outlook",
    "safe_foundation_moves",
    "seen_key",
    "solve",
]
