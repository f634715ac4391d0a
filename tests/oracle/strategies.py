"""Hypothesis strategies: deal numbers of both generator ranges, and random games."""

from __future__ import annotations

import random
from dataclasses import dataclass

import patience
from hypothesis import strategies as st
from patience import Move, State

deal_numbers = st.one_of(
    st.integers(min_value=0, max_value=31999),
    st.integers(min_value=32000, max_value=10**20),
)


@dataclass(frozen=True)
class Walk:
    """A random game: `states[i + 1] == states[i].apply(moves[i])`."""

    states: tuple[State, ...]
    moves: tuple[Move, ...]

    @property
    def last(self) -> State:
        return self.states[-1]


@st.composite
def played_games(draw: st.DrawFn, variant_id: str, max_moves: int = 16) -> Walk:
    """A new game (either deal range; Napoleon with or without its option) and a random
    walk of legal moves from it. The walk is steered by one drawn seed: Hypothesis
    shrinks the deal, the length and the seed, and each example stays cheap."""
    deal = draw(deal_numbers, label="deal")
    options: tuple[str, ...] = ()
    if variant_id == "napoleon-at-st-helena" and draw(st.booleans(), label="option"):
        options = ("fill_from_waste_only",)
    length = draw(st.integers(0, max_moves), label="length")
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    state = patience.get_variant(variant_id).new_game(deal, options=options)
    states, moves = [state], []
    for _ in range(length):
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        state = state.apply(move)
        states.append(state)
        moves.append(move)
    return Walk(tuple(states), tuple(moves))
