"""`patience.Game`: a state with its history; push applies, pop undoes exactly."""

from __future__ import annotations

import random

import patience
import pytest
from patience import Game, IllegalMove, Move

from tests.oracle import position

VARIANT_IDS = list(patience.VARIANTS)


def play(game: Game, count: int, seed: str) -> list[patience.State]:
    """Push up to `count` random legal moves; the states before each push."""
    rng = random.Random(seed)
    before = []
    for _ in range(count):
        legal = game.legal_moves()
        if not legal:
            break
        before.append(game.state)
        game.push(rng.choice(legal))
    return before


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_new_game(variant_id: str) -> None:
    game = Game(variant_id, 99)
    assert game.state == patience.get_variant(variant_id).new_game(99)
    assert game.moves == []
    assert game.legal_moves() == game.state.legal_moves()


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_push_then_pop_everything(variant_id: str) -> None:
    game = Game(variant_id, 4321)
    opening = game.state
    before = play(game, 60, variant_id)
    assert len(game.moves) == len(before) > 0
    assert game.state.moves_made == len(before)
    pushed = list(game.moves)
    for i in range(len(before) - 1, -1, -1):
        assert game.pop() == pushed[i]
        assert game.state == before[i]
        assert str(game.state) == str(before[i])
        assert game.moves == pushed[:i]
        assert game.legal_moves() == before[i].legal_moves()
    assert game.state == opening and game.moves == []


def test_pop_after_redeal_restores_the_generator() -> None:
    game = Game("la-belle-lucie", 1)
    opening = game.state
    game.push(Move.redeal())
    redealt = game.state
    assert game.pop() == Move.redeal()
    assert game.state == opening and game.state.draws == 51 and game.state.redeals_left == 2
    game.push(Move.redeal())
    assert game.state == redealt  # the same shuffle again


def test_pop_after_deal_puts_the_card_back() -> None:
    game = Game("napoleon-at-st-helena", 8)
    opening = game.state
    for _ in range(5):
        game.push(Move.deal())
    assert game.state.stock_size == 59
    for _ in range(5):
        assert game.pop() == Move.deal()
    assert game.state == opening


def test_pop_after_withdraw() -> None:
    game = Game("the-fifteen", 15)
    opening = game.state
    game.push(Move.parse("withdraw t6 t14"))
    assert game.state.foundation_cards == 2
    assert game.pop() == Move.parse("withdraw t6 t14")
    assert game.state == opening


def test_illegal_push_changes_nothing() -> None:
    game = Game("usk", 5)
    play(game, 3, "usk-illegal")
    state, moves = game.state, list(game.moves)
    with pytest.raises(IllegalMove) as info:
        game.push(Move.deal())
    assert info.value.rule == "no_stock"
    assert game.state == state and game.moves == moves
    with pytest.raises(IllegalMove):
        game.push(Move.transfer("f1", "t1"))
    assert game.state == state and game.moves == moves


def test_from_state() -> None:
    state = position("bisley", t={"t1": "6C"}, f={"f1": "5C", "f5": "7C"})
    game = Game.from_state(state)
    assert game.state == state and game.moves == []
    game.push(Move.parse("t1-f5"))
    assert game.state.foundation_cards == 52
    assert game.pop() == Move.parse("t1-f5")
    assert game.state == state


def test_options_are_passed_on() -> None:
    game = Game("napoleon-at-st-helena", 3, ["fill_from_waste_only"])
    assert game.state.options == frozenset({"fill_from_waste_only"})
    assert game.state == patience.get_variant("napoleon-at-st-helena").new_game(
        3, options=["fill_from_waste_only"]
    )


def test_game_state_matches_applying_the_moves() -> None:
    game = Game("house-on-the-hill", 2)
    play(game, 40, "hill")
    state = patience.get_variant("house-on-the-hill").new_game(2)
    for move in game.moves:
        state = state.apply(move)
    assert state == game.state
