"""Random play of many games of every variant, checking invariants on every step.

Each variant plays ``SOAK_GAMES`` games (default 10; set the environment variable
``SOAK_GAMES`` for a longer soak, e.g. ``SOAK_GAMES=500 pytest tests/rules/test_soak.py``)
until WON or STUCK. Games whose moves can cycle are cut at ``MOVE_CAP`` moves and
reported as capped, not as finished. Half the games follow a greedy policy (a move to
a foundation when there is one) so that won games are met too.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import patience
import pytest
from patience import IllegalMove, Move, MoveKind, State, Status

from .test_smoke import check_events

SOAK_GAMES = int(os.environ.get("SOAK_GAMES", "10"))
MOVE_CAP = 800
FULL_CHECK_EVERY = 50  # steps between brute-force checks of the legal move list


def candidate_moves(state: State) -> list[Move]:
    """Every move that could possibly be legal: transfers between any two piles of up
    to as many cards as the source holds, deal, redeal, and every withdraw."""
    ids = state.variant.pile_ids
    moves = [Move.deal(), Move.redeal()]
    for source, cards in zip(ids, state.piles, strict=True):
        for target in ids:
            for count in range(1, max(len(cards), 1) + 1):
                moves.append(Move.transfer(source, target, count))
    if state.variant.withdraw_row:
        tableau = [p for p in ids if p[0] == "t"]
        moves += [Move.withdraw(a) for a in tableau]
        moves += [Move.withdraw(a, b) for i, a in enumerate(tableau) for b in tableau[i + 1 :]]
    return moves


def check_step(state: State, cards: Counter[int]) -> None:
    moves = state.legal_moves()
    assert len(set(moves)) == len(moves), "a move is listed twice"
    for move in moves:
        after = state.apply(move)  # every listed move applies
        assert after.moves_made == state.moves_made + 1
        if move.kind is MoveKind.TRANSFER and move.target[0] == "f":
            assert after.foundation_cards == state.foundation_cards + move.count
    status = state.status
    if state.foundation_cards == state.total_cards:
        assert status is Status.WON and not moves
    else:
        assert status is (Status.PLAYING if moves else Status.STUCK)
    assert Counter(c for pile in state.piles for c in pile) == cards


def check_listing_is_complete(state: State) -> None:
    listed = set(state.legal_moves())
    for move in candidate_moves(state):
        legal = state.is_legal(move)
        assert legal == (move in listed), f"{move}: is_legal {legal}, listed {not legal}"
        if not legal:
            with pytest.raises(IllegalMove):
                state.apply(move)
    assert patience.parse_state(str(state)) == state


def play(state: State, rng: random.Random, greedy: bool) -> tuple[State, int]:
    cards = Counter(c for pile in state.piles for c in pile)
    for step in range(MOVE_CAP):
        check_step(state, cards)
        if step % FULL_CHECK_EVERY == 0:
            check_listing_is_complete(state)
        moves = state.legal_moves()
        if not moves:
            return state, step
        to_foundation = [m for m in moves if m.target.startswith("f")]
        move = rng.choice(to_foundation if greedy and to_foundation else moves)
        after, events = state.apply_with_events(move)
        check_events(state, after, events)
        state = after
    return state, MOVE_CAP


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_random_play(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    rng = random.Random(f"soak {variant_id}")
    outcomes: Counter[str] = Counter()
    for game in range(SOAK_GAMES):
        deal = rng.randrange(32000) if game % 4 < 2 else rng.randrange(32000, 10**20 + 1)
        options = [o for o in variant.options if rng.random() < 0.5]
        state, steps = play(variant.new_game(deal, options), rng, greedy=game % 2 == 1)
        if steps == MOVE_CAP and state.status is Status.PLAYING:
            outcomes["capped"] += 1
            continue
        outcomes[state.status.value] += 1
        if state.status is Status.WON:
            assert all(
                not cards
                for pid, cards in zip(variant.pile_ids, state.piles, strict=True)
                if pid[0] != "f"
            )
        else:
            assert state.status is Status.STUCK and state.legal_moves() == ()
            for move in candidate_moves(state)[:200]:
                assert not state.is_legal(move)
    print(f"\n{variant_id}: {SOAK_GAMES} games, {dict(outcomes)}")
    assert sum(outcomes.values()) == SOAK_GAMES
