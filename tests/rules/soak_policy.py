"""How the soak plays: a seeded random player that does not go round in circles.

Pure random play never ends in games whose moves can be undone by other moves (Usk,
The House in the Wood, Napoleon): it shuttles a card between two piles for ever. The
player here stays random but remembers every position of the game and picks, at random,
a move to a position it has not seen yet. Only when every legal move leads back to a
seen position does it make a random move anyway (a "trapped" step); the soak then asks
`search_for_an_end` whether the game can still end at all.

A position is a state without its move counter: the same cards in the same places with
the same redeals and generator position play on identically, however many moves led
there.
"""

from __future__ import annotations

import enum
import random
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

from patience import Move, MoveKind, State, Status

# The groups a move falls in. The player picks a group first and a move in it second, so
# that a rare kind (a deal, a redeal, a withdraw, a run) is tried as often as a common
# one and not drowned by the many single-card moves of a 35-pile tableau.
FOUNDATION = "foundation"
TABLEAU = "tableau"
RUN = "run"
CELL = "cell"
DEAL = "deal"
REDEAL = "redeal"
WITHDRAW = "withdraw"
GROUPS = (FOUNDATION, TABLEAU, RUN, CELL, DEAL, REDEAL, WITHDRAW)


def position(state: State) -> Hashable:
    return state.piles, state.redeals_left, state.draws


def move_group(move: Move) -> str:
    if move.kind is MoveKind.DEAL:
        return DEAL
    if move.kind is MoveKind.REDEAL:
        return REDEAL
    if move.kind is MoveKind.WITHDRAW:
        return WITHDRAW
    if move.target[0] == "f":
        return FOUNDATION
    if move.target[0] == "r":
        return CELL
    return RUN if move.count > 1 else TABLEAU


def reverse_of(move: Move | None) -> Move | None:
    """The transfer that would put the cards straight back (legal or not)."""
    if move is None or move.kind is not MoveKind.TRANSFER:
        return None
    return Move.transfer(move.target, move.source, move.count)


@dataclass(frozen=True)
class Choice:
    move: Move
    after: State
    fresh: bool  # the move leads to a position not seen before in this game


@dataclass
class RandomPlayer:
    """Random moves, steered only away from positions already seen.

    `foundation_first` is the chance that, on a given step, moves to a foundation are
    tried before every other group: greedy enough to win now and then, random enough to
    play every other kind of move too. `redeal_last` is the chance that a redeal is
    kept as the last resort of a step rather than tried in random group order: a redeal
    spent early rarely helps, and with it last the games get further.
    """

    rng: random.Random
    foundation_first: float = 0.8
    redeal_last: float = 0.9

    def preference(self, moves: tuple[Move, ...]) -> list[Move]:
        """The legal moves in the order this step tries them."""
        groups: dict[str, list[Move]] = {}
        for move in moves:
            groups.setdefault(move_group(move), []).append(move)
        names = list(groups)
        self.rng.shuffle(names)
        if REDEAL in groups and self.rng.random() < self.redeal_last:
            names.remove(REDEAL)
            names.append(REDEAL)
        if FOUNDATION in groups and self.rng.random() < self.foundation_first:
            names.remove(FOUNDATION)
            names.insert(0, FOUNDATION)
        ordered: list[Move] = []
        for name in names:
            group = groups[name]
            self.rng.shuffle(group)
            ordered += group
        return ordered

    def choose(self, state: State, seen: set[Hashable], previous: Move | None) -> Choice:
        """The first move in preference order that reaches an unseen position, or, when
        there is none, a random legal move other than the reverse of the previous one
        (if there is another). `state` must have a legal move."""
        moves = state.legal_moves()
        back = reverse_of(previous)
        for move in self.preference(moves):
            if move == back:  # it leads to the previous position: seen by definition
                continue
            after = state.apply(move)
            if position(after) not in seen:
                return Choice(move, after, fresh=True)
        onward = [m for m in moves if m != back] or list(moves)
        move = self.rng.choice(onward)
        return Choice(move, state.apply(move), fresh=False)


class Reach(enum.Enum):
    """What a search of the positions reachable from a trapped position found."""

    ENDLESS = "every reachable position is PLAYING: the game can never end"
    CAN_END = "a WON or STUCK position is reachable"
    UNKNOWN = "more positions than the search may visit"


def search_for_an_end(state: State, limit: int) -> Reach:
    """Visits the positions reachable from `state`, at most `limit` of them, breadth
    first, until it meets one that is not PLAYING."""
    found = {position(state)}
    queue = deque([state])
    while queue:
        current = queue.popleft()
        if current.status is not Status.PLAYING:
            return Reach.CAN_END
        for move in current.legal_moves():
            after = current.apply(move)
            key = position(after)
            if key not in found:
                if len(found) == limit:
                    return Reach.UNKNOWN
                found.add(key)
                queue.append(after)
    return Reach.ENDLESS
