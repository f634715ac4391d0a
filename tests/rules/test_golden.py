"""Golden data: the first deals of every game never change, and one won game per
variant replays move by move to WON (tests/rules/golden/, made by the scripts there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import patience
import pytest
from patience import Move, Status

GOLDEN = Path(__file__).with_name("golden")
FIRST_DEALS: dict[str, dict[str, str]] = json.loads((GOLDEN / "first_deals.json").read_text())
WINS: dict[str, dict[str, Any]] = json.loads((GOLDEN / "wins.json").read_text())


def test_every_variant_is_pinned() -> None:
    assert list(FIRST_DEALS) == list(patience.VARIANTS)
    assert list(WINS) == list(patience.VARIANTS)


@pytest.mark.parametrize(
    ("variant_id", "deal"),
    [(v, d) for v, deals in FIRST_DEALS.items() for d in deals],
)
def test_first_deals(variant_id: str, deal: str) -> None:
    state = patience.get_variant(variant_id).new_game(int(deal))
    assert str(state) == FIRST_DEALS[variant_id][deal]
    assert patience.parse_state(FIRST_DEALS[variant_id][deal]) == state


@pytest.mark.parametrize("variant_id", list(WINS))
def test_won_game_replays(variant_id: str) -> None:
    win = WINS[variant_id]
    game = patience.Game(variant_id, win["deal"], win["options"])
    for number, text in enumerate(win["moves"]):
        move = Move.parse(text)
        assert game.state.status is Status.PLAYING, f"move {number}: game over too soon"
        assert move in game.legal_moves(), f"move {number} ({text}) is not legal"
        game.push(move)
    state = game.state
    assert state.status is Status.WON
    assert state.foundation_cards == state.total_cards
    assert state.legal_moves() == ()
    assert state.moves_made == len(win["moves"])
    assert all(not state.piles[i] for i, p in enumerate(state.variant.pile_ids) if p[0] != "f")
