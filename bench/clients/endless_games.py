"""Games that never run out of moves: a deal in which some card can go from one pile
to another and straight back (possible where the tableau builds both up and down in
suit, e.g. The House on the Hill), found with the rules library itself.

Repeating such a pair of moves makes a game as long as wanted, so that the cost of a
move can be compared at move 10 and at move 500 of the same game.
"""

from __future__ import annotations

from dataclasses import dataclass

import patience


@dataclass(frozen=True)
class EndlessGame:
    variant: str
    deal: int
    prefix: tuple[str, ...]  # moves that lead from the deal to the position
    cycle: tuple[str, str]  # a move and its reverse, both legal from there on

    def move_at(self, index: int) -> str:
        """The game's move number `index` (from 0): the prefix, then the pair repeated."""
        if index < len(self.prefix):
            return self.prefix[index]
        return self.cycle[(index - len(self.prefix)) % 2]

    def moves(self, count: int) -> list[str]:
        """The first `count` moves of the game."""
        return [self.move_at(index) for index in range(count)]


def _reversible_move(state: patience.State) -> tuple[str, str] | None:
    for move in state.legal_moves():
        if move.kind is not patience.MoveKind.TRANSFER or move.count != 1:
            continue
        back = patience.Move.transfer(move.target, move.source)
        if state.apply(move).is_legal(back):
            return str(move), str(back)
    return None


def find_endless_game(
    variant: str, *, first_deal: int = 1, deals: int = 200, max_prefix: int = 40
) -> EndlessGame:
    """The first deal from `first_deal` on where a reversible move appears within
    `max_prefix` moves (always taking the first legal move in the library's order)."""
    rules = patience.get_variant(variant)
    for deal in range(first_deal, first_deal + deals):
        state = rules.new_game(deal)
        prefix: list[str] = []
        for _ in range(max_prefix + 1):
            pair = _reversible_move(state)
            if pair is not None:
                return EndlessGame(variant, deal, tuple(prefix), pair)
            legal = state.legal_moves()
            if not legal:
                break
            prefix.append(str(legal[0]))
            state = state.apply(legal[0])
    raise LookupError(f"no reversible move in {deals} deals of {variant}")
