"""A whole winning game of every variant, played through the engine.

The deals and moves are the rules library's golden wins (tests/rules/golden/wins.json);
the engine must reach WON with them and end in exactly the state the library reaches.
"""

from __future__ import annotations

from typing import Any

import patience
import pytest
from patience_contract.client import EngineClient
from solitaire.v1 import game_pb2

from tests.engine.helpers import SEAL_KEY, WINS_FILE, game_state_of, load_wins, state_of


def winning_games() -> dict[str, dict[str, Any]]:
    """Per variant: {"deal": int, "options": [...], "moves": [notation, ...]}. The file
    may list games as an object keyed by variant or as a list with a "variant" key."""
    if not WINS_FILE.exists():
        return {}
    data: Any = load_wins()
    entries = data.get("games", data) if isinstance(data, dict) else data
    if isinstance(entries, dict):
        entries = [{"variant": variant, **game} for variant, game in entries.items()]
    games = {}
    for entry in entries:
        games[entry["variant"]] = {
            "deal": int(entry["deal"]),
            "options": list(entry.get("options", [])),
            "moves": [str(move) for move in entry["moves"]],
        }
    return games


WINS = winning_games()
needs_wins = pytest.mark.skipif(not WINS, reason=f"{WINS_FILE} is not there yet")


def winning_game(variant_id: str) -> dict[str, Any]:
    if variant_id not in WINS:
        pytest.skip(f"{WINS_FILE.name} has no game of {variant_id} yet")
    return WINS[variant_id]


def library_result(game: dict[str, Any], variant_id: str) -> patience.State:
    state = patience.get_variant(variant_id).new_game(game["deal"], game["options"])
    for notation in game["moves"]:
        state = state.apply(patience.Move.parse(notation))
    return state


@needs_wins
def test_every_variant_has_a_winning_game() -> None:
    assert set(WINS) == set(patience.VARIANTS)


@needs_wins
@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
async def test_winning_game_in_one_batch(sealed_client: EngineClient, variant_id: str) -> None:
    game = winning_game(variant_id)
    start = await sealed_client.new_game(variant_id, deal=game["deal"], options=game["options"])
    reply = await sealed_client.apply_moves(start.state, game["moves"])
    assert reply.view.status == game_pb2.GAME_STATUS_WON
    assert reply.view.counters.foundation_cards == reply.view.counters.total_cards
    assert list(reply.view.legal_moves) == []
    assert [move.notation for move in reply.applied] == game["moves"]
    assert state_of(reply.state, SEAL_KEY) == library_result(game, variant_id)
    # The same game as a replay in NewGame ends in the same bytes.
    replay = await sealed_client.new_game(
        variant_id, deal=game["deal"], options=game["options"], moves=game["moves"]
    )
    assert game_state_of(replay.state, SEAL_KEY) == game_state_of(reply.state, SEAL_KEY)


@needs_wins
@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
async def test_winning_game_move_by_move(sealed_client: EngineClient, variant_id: str) -> None:
    game = winning_game(variant_id)
    reply = await sealed_client.new_game(variant_id, deal=game["deal"], options=game["options"])
    for notation in game["moves"]:
        assert reply.view.status == game_pb2.GAME_STATUS_PLAYING
        assert notation in {move.notation for move in reply.view.legal_moves}
        reply = await sealed_client.apply_move(reply.state, notation)
        assert reply.applied[0].notation == notation
    assert reply.view.status == game_pb2.GAME_STATUS_WON
    assert state_of(reply.state, SEAL_KEY) == library_result(game, variant_id)
