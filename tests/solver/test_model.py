"""The solver's own positions and move generation agree with the rules library, move for
move: every solver move is legal in the library and every legal move is the solver's,
and applying it gives the same position; the moves the search tries are legal moves."""

from __future__ import annotations

import random

import patience
import pytest
from hypothesis import HealthCheck, given, settings
from patience.compiled import rules_of
from patience.solver.model import Model
from patience.solver.pruning import MoveChooser

from tests.oracle import Walk, played_games
from tests.solver.positions import small_position

VARIANT_IDS = list(patience.VARIANTS)


def check_agreement(state: patience.State) -> None:
    model = Model(rules_of(state), state.deal)
    pos = model.position(state)
    solver_moves = model.legal_moves(pos)
    assert sorted(map(str, map(model.library_move, solver_moves))) == sorted(
        map(str, state.legal_moves())
    )
    for move in solver_moves:
        assert model.apply(pos, move) == model.position(state.apply(model.library_move(move)))
        assert model.solver_move(model.library_move(move)) == move
    chosen = MoveChooser(model)(pos)
    assert len(set(chosen)) == len(chosen) and set(chosen) <= set(solver_moves)
    back = model.state(pos, state.deal, state.moves_made)
    assert back == state


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_moves_agree_along_random_games(variant_id: str) -> None:
    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(walk=played_games(variant_id, max_moves=60))
    def check(walk: Walk) -> None:
        for state in walk.states[::3]:
            check_agreement(state)

    check()


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_moves_agree_near_the_end(variant_id: str) -> None:
    """Positions with few cards left, empty piles, cells and redeals of few cards."""
    rng = random.Random(variant_id)
    for _ in range(30):
        check_agreement(small_position(variant_id, rng, rng.randint(1, 12)))
