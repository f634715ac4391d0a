"""A game with its history, like python-chess's Board: push, pop, legal moves."""

from __future__ import annotations

from collections.abc import Iterable

from .moves import Move
from .registry import get_variant
from .variant import State


class Game:
    """A state plus the moves that led to it from where the game started."""

    def __init__(
        self, variant_id: str, deal: int | None = None, options: Iterable[str] = ()
    ) -> None:
        self._states = [get_variant(variant_id).new_game(deal, options)]
        self.moves: list[Move] = []

    @classmethod
    def from_state(cls, state: State) -> Game:
        game = cls.__new__(cls)
        game._states = [state]
        game.moves = []
        return game

    @property
    def state(self) -> State:
        return self._states[-1]

    def push(self, move: Move) -> State:
        """Play ``move``; raises :class:`IllegalMove` and changes nothing if illegal."""
        state = self._states[-1].apply(move)
        self._states.append(state)
        self.moves.append(move)
        return state

    def pop(self) -> Move:
        """Take back the last move (IndexError when there is none)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self._states.pop()
        return self.moves.pop()

    def legal_moves(self) -> tuple[Move, ...]:
        return self._states[-1].legal_moves()
