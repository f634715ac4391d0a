"""The solver's own positions and move generation agree with the rules library, move for
move: every solver move is legal in the library and every legal move is the solver's,
and applying it gives the same position; the moves the search tries are legal moves."""

from __future__ import annotations

import random

import patience
import pytest
from hypothesis import HealthCheck, given, settings
from patience.solver.model import Model
from patience.solver.pruning import MoveChooser
from patience.variant import rules_of

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
    assert (back.foundation_cards, back.status) == (state.foundation_cards, state.status)


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


def test_the_fifteens_withdraws_agree_at_the_deal() -> None:
    """The Fifteen's withdraws, where the deal leaves them (the random games above meet few
    of them): from the first column too, an ace and a king together but never two aces
    or two kings, and none while an ace or king is a column's top card."""
    variant = patience.get_variant("the-fifteen")
    seen: dict[str, int] = {"from t1": 0, "pairs": 0, "same rank in row six": 0, "blocked": 0}
    for deal in range(1, 301):
        state = variant.new_game(deal)
        check_agreement(state)
        texts = [str(m) for m in state.legal_moves() if m.kind is patience.MoveKind.WITHDRAW]
        seen["from t1"] += any(text.split()[1] == "t1" for text in texts)
        seen["pairs"] += any(len(text.split()) == 3 for text in texts)
        sixth = [p[5] % 13 for p in state.piles[:15] if len(p) > 6 and p[5] % 13 in (0, 12)]
        seen["same rank in row six"] += len(sixth) > len(set(sixth))
        tops = [p[-1] % 13 for p in state.piles[:15] if p]
        seen["blocked"] += bool(sixth) and any(top in (0, 12) for top in tops)
    assert all(seen.values()), seen
