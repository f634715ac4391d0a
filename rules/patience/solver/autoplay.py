"""Autoplay: the cards that can go to a foundation now without losing a win.

The moves are those the search plays at once (:mod:`patience.solver.safe_moves`, where
each rule is proven to keep every win), found from what the player sees: the tops of the
tableau piles, the waste's top card, the reserve cells, the foundations and the redeals
left. The stock's order and the generator are never read, so autoplay tells the player
nothing a careful look at the table would not.
"""

from __future__ import annotations

import functools

from ..moves import Move
from ..variant import RuleSet, State, rules_of
from .model import Model
from .safe_moves import SafeMoves


@functools.cache
def _safe_moves_of(rules: RuleSet) -> SafeMoves:
    # The deal only matters to redeals that shuffle, which a safe move never makes.
    return SafeMoves(Model(rules))


def safe_foundation_moves(state: State) -> list[Move]:
    """The safe foundation moves from ``state``, in the order to play them (each is legal
    after the ones before it); empty when there are none."""
    safe = _safe_moves_of(rules_of(state))
    _, played = safe.settle(safe.model.position(state))
    return [safe.model.library_move(move) for move in played]
