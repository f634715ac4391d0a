"""What the search may take for granted in one game: the position key, the safe moves
(safe_moves.py), the moves worth trying (pruning.py) and the dead ends (dead_ends.py).

Each part can be switched off, which the tests do to check every verdict of the full
policy against a plain search of the same positions.

**Orders**: the moves worth trying, best first (``candidates``), and the orders of the
other searches (``other_orders``): the redeal first, and the other transfers reversed.

**Key**: two positions with the same key can be won from equally. It holds the tableau
piles sorted while the columns are interchangeable (no redeal left: a redeal gathers the
piles in their order), the reserve cells sorted, the lengths of foundations of the same
suit and direction sorted, the stock's length (the stock only shrinks from its top), the
waste, the redeals left and, where redeals shuffle, the generator's draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from .dead_ends import dead_end_check
from .model import Model, Position, SolverMove
from .pruning import MoveChooser, RedealFirst, Reversed
from .safe_moves import SafeMoves

_blake2b = hashlib.blake2b


def _no_dead_ends(pos: Position) -> bool:
    return False


class Policy:
    """The search's view of one game; ``plain`` switches every part off."""

    def __init__(
        self,
        model: Model,
        *,
        safe_moves: bool = True,
        pruning: bool = True,
        dead_ends: bool = True,
        canonical: bool = True,
    ) -> None:
        self.model = model
        self.has_redeal = model.redeals > 0
        self.canonical = canonical
        self._safe = SafeMoves(model)
        if safe_moves:
            self.settle: Callable[[Position], tuple[Position, list[SolverMove]]] = self._safe.settle
            self.settle_after: Callable[
                [Position, SolverMove], tuple[Position, list[SolverMove]]
            ] = self._safe.settle_after
        else:
            self.settle = _unsettled
            self.settle_after = _unsettled_after
        self.candidates: Callable[[Position], list[SolverMove]] = (
            MoveChooser(model) if pruning else model.legal_moves
        )
        # whether the search skips a redeal that deals the piles as they lay (search.py)
        self.prunes = pruning
        # The orders of the searches beside the first (search.py, ``other_orders``).
        self.redeal_first: Callable[[Position], list[SolverMove]] | None = None
        self.reversed: Callable[[Position], list[SolverMove]] | None = None
        if pruning:
            self.reversed = Reversed(self.candidates, model.found_base)
            if self.has_redeal:
                self.redeal_first = RedealFirst(self.candidates)
        check = dead_end_check(model) if dead_ends else None
        self.dead: Callable[[Position], bool] = check or _no_dead_ends

    @classmethod
    def plain(cls, model: Model) -> Policy:
        """Every legal move tried, nothing played at once, no dead end, exact key."""
        return cls(model, safe_moves=False, pruning=False, dead_ends=False, canonical=False)

    def choosing(self, candidates: Callable[[Position], list[SolverMove]]) -> Policy:
        """This policy with another choice of the moves to try, the rest shared."""
        other = Policy(
            self.model, safe_moves=False, pruning=False, dead_ends=False, canonical=self.canonical
        )
        other.settle = self.settle
        other.settle_after = self.settle_after
        other.dead = self.dead
        other.candidates = candidates
        other.prunes = self.prunes
        return other

    def other_orders(self, root: Position) -> list[Callable[[Position], list[SolverMove]]]:
        """The orders of the searches that run in turns with the first from ``root``;
        none for one search alone (no pruning, or another choice of moves).

        The moves that do not go to a foundation in the reverse order: where the first
        order's choice of builds leads a long way from the win, the other's rarely does
        too (The Fifteen's deals left undecided at 10 s by the first order are nearly
        all won by the two in turns within 5 s). With a redeal left, and ahead of it, the
        redeal first: a redeal tried last comes after every line of the round before
        it, and a round with a redeal to come has no dead ends to cut it short
        (dead_ends.py)."""
        orders: list[Callable[[Position], list[SolverMove]]] = []
        if self.redeal_first is not None and root[5] > 0:
            orders.append(self.redeal_first)
        if self.reversed is not None:
            orders.append(self.reversed)
        return orders

    def key(self, pos: Position) -> bytes:
        tab, cells, found, stock, waste, redeals, draws = pos
        model = self.model
        if not self.canonical:
            parts = list(tab)
        else:
            parts = sorted(tab) if redeals == 0 or not self.has_redeal else list(tab)
            cells = bytes(sorted(cells))
            if model.found_interchangeable:
                found = bytes(
                    n for group in model.found_groups for n in sorted(found[j] for j in group)
                )
        raw = b"\xff".join(parts) + b"\xfe" + cells + found + b"\xfe" + waste
        raw += bytes((len(stock), redeals)) + draws.to_bytes(2, "little")
        return _blake2b(raw, digest_size=16).digest()


def _unsettled(pos: Position) -> tuple[Position, list[SolverMove]]:
    return pos, []


def _unsettled_after(pos: Position, move: SolverMove) -> tuple[Position, list[SolverMove]]:
    return pos, []


def policy_for(model: Model) -> Policy:
    """The full policy of the model's game."""
    return Policy(model)
