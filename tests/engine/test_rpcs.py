"""Every RPC over a real channel, checked against the rules library's own answers."""

from __future__ import annotations

import json
from pathlib import Path

import patience
import pytest
from patience_contract.client import EngineClient, SyncEngineClient
from patience_engine.codec import CARD_NAMES
from solitaire.v1 import game_pb2

from tests.engine.helpers import state_of, unsealed

PILE_KINDS = {
    "tableau": game_pb2.PILE_KIND_TABLEAU,
    "reserve": game_pb2.PILE_KIND_RESERVE,
    "foundation": game_pb2.PILE_KIND_FOUNDATION,
    "stock": game_pb2.PILE_KIND_STOCK,
    "waste": game_pb2.PILE_KIND_WASTE,
}


async def test_list_variants_gives_all_nine_in_order(client: EngineClient) -> None:
    variants = await client.list_variants()
    assert [variant.id for variant in variants] == list(patience.VARIANTS)
    assert len(variants) == 9


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
async def test_get_variant_matches_the_library(client: EngineClient, variant_id: str) -> None:
    message = await client.get_variant(variant_id)
    description = patience.get_variant(variant_id).describe()
    assert (message.id, message.name, message.summary) == (
        description["id"],
        description["name"],
        description["summary"],
    )
    assert (message.packs, message.redeals) == (description["packs"], description["redeals"])
    assert [pile.id for pile in message.piles] == [pile["id"] for pile in description["piles"]]
    assert [pile.kind for pile in message.piles] == [
        PILE_KINDS[pile["kind"]] for pile in description["piles"]
    ]
    for pile, described in zip(message.piles, description["piles"], strict=True):
        assert pile.layout != game_pb2.LAYOUT_UNSPECIFIED
        assert pile.suit == (described.get("suit") or "")
        if pile.kind == game_pb2.PILE_KIND_FOUNDATION:
            assert pile.direction in (game_pb2.DIRECTION_UP, game_pb2.DIRECTION_DOWN)
    assert {option.name: option.description for option in message.options} == dict(
        patience.get_variant(variant_id).options
    )


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
async def test_new_game_deals_the_library_deal(client: EngineClient, variant_id: str) -> None:
    reply = await client.new_game(variant_id, deal=1234)
    expected = patience.get_variant(variant_id).new_game(1234)
    assert state_of(reply.state) == expected
    assert reply.state.seal == b""
    view = reply.view
    assert view.variant == variant_id
    assert view.deal == "1234"
    assert view.status == game_pb2.GAME_STATUS_PLAYING
    assert [pile.id for pile in view.piles] == list(expected.variant.pile_ids)
    assert [move.notation for move in view.legal_moves] == [
        str(move) for move in expected.legal_moves()
    ]
    counters = view.counters
    assert (counters.moves_made, counters.foundation_cards, counters.stock_size) == (
        0,
        expected.foundation_cards,
        expected.stock_size,
    )
    assert (counters.redeals_left, counters.total_cards) == (
        expected.redeals_left,
        expected.total_cards,
    )
    assert list(reply.applied) == []
    assert list(reply.events) == []


async def test_new_game_with_options(client: EngineClient) -> None:
    reply = await client.new_game(
        "napoleon-at-st-helena", deal="77", options=["fill_from_waste_only"]
    )
    assert list(reply.view.options) == ["fill_from_waste_only"]
    assert state_of(reply.state).options == frozenset({"fill_from_waste_only"})


async def test_new_game_replays_moves(client: EngineClient) -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    moves = []
    for _ in range(3):
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    reply = await client.new_game("la-belle-lucie", deal=1, moves=moves)
    assert state_of(reply.state) == state
    assert [move.notation for move in reply.applied] == moves
    assert reply.view.counters.moves_made == 3


async def test_list_legal_moves(client: EngineClient) -> None:
    state = patience.get_variant("the-fifteen").new_game(99)
    moves = await client.legal_moves(unsealed(state))
    assert [move.notation for move in moves] == [str(move) for move in state.legal_moves()]
    for move in moves:
        assert move.kind != game_pb2.MOVE_KIND_UNSPECIFIED


async def test_apply_move_gives_state_view_applied_and_events(client: EngineClient) -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(8)
    reply = await client.apply_move(unsealed(state), "deal")
    expected, events = state.apply_with_events(patience.Move.deal())
    assert state_of(reply.state) == expected
    assert [(move.kind, move.notation, move.count) for move in reply.applied] == [
        (game_pb2.MOVE_KIND_DEAL, "deal", patience.Move.deal().count)
    ]
    assert [
        (event.card, event.source, event.source_index, event.target, event.target_index)
        for event in reply.events
    ] == [(CARD_NAMES[e.card], e.source, e.source_index, e.target, e.target_index) for e in events]
    assert reply.view.counters.moves_made == 1
    assert reply.view.counters.stock_size == expected.stock_size


async def test_apply_move_by_fields(client: EngineClient) -> None:
    state = patience.get_variant("bisley").new_game(21)
    move = state.legal_moves()[0]
    by_fields = game_pb2.Move(
        kind=game_pb2.MOVE_KIND_TRANSFER, source=move.source, target=move.target, count=move.count
    )
    reply = await client.apply_move(unsealed(state), by_fields)
    assert state_of(reply.state) == state.apply(move)
    applied = reply.applied[0]
    assert (applied.notation, applied.source, applied.target, applied.count) == (
        str(move),
        move.source,
        move.target,
        move.count,
    )


async def test_apply_moves_in_order(client: EngineClient) -> None:
    state = patience.get_variant("house-on-the-hill").new_game(5)
    start = state
    moves: list[patience.Move] = []
    all_events: list[patience.CardMoved] = []
    for _ in range(6):
        move = state.legal_moves()[-1]
        state, events = state.apply_with_events(move)
        moves.append(move)
        all_events.extend(events)
    reply = await client.apply_moves(unsealed(start), [str(move) for move in moves])
    assert state_of(reply.state) == state
    assert [move.notation for move in reply.applied] == [str(move) for move in moves]
    assert len(reply.events) == len(all_events)


async def test_apply_no_moves_keeps_the_state(client: EngineClient) -> None:
    state = patience.get_variant("cody").new_game(3)
    reply = await client.apply_moves(unsealed(state), [])
    assert state_of(reply.state) == state
    assert list(reply.applied) == []


async def test_player_view_equals_the_view_in_replies(client: EngineClient) -> None:
    game = await client.new_game("little-billee", deal=40)
    view = await client.player_view(game.state)
    assert view == game.view


async def test_player_view_shows_every_card_but_the_stock(client: EngineClient) -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(12)
    for _ in range(5):
        state = state.apply(patience.Move.deal())
    view = await client.player_view(unsealed(state))
    for pile, cards in zip(view.piles, state.piles, strict=True):
        assert pile.size == len(cards)
        if pile.kind == game_pb2.PILE_KIND_STOCK:
            assert list(pile.cards) == []
        else:
            assert list(pile.cards) == [CARD_NAMES[card] for card in cards]


async def test_status_agrees_with_the_library(client: EngineClient) -> None:
    # Play the first legal move until the game ends, checking the status on the way.
    state = patience.get_variant("la-belle-lucie").new_game(2)
    reply = await client.new_game("la-belle-lucie", deal=2)
    for _ in range(300):
        assert reply.view.status == game_pb2.GameStatus.Value("GAME_STATUS_" + state.status.name)
        if state.status != patience.Status.PLAYING:
            break
        move = state.legal_moves()[0]
        state = state.apply(move)
        reply = await client.apply_move(reply.state, str(move))
    assert state.status != patience.Status.PLAYING
    assert reply.view.status != game_pb2.GAME_STATUS_PLAYING
    assert list(reply.view.legal_moves) == []


def test_sync_client_speaks_every_rpc(sync_client: SyncEngineClient) -> None:
    assert sync_client.health()
    assert len(sync_client.list_variants()) == 9
    assert sync_client.get_variant("usk").id == "usk"
    game = sync_client.new_game("usk", deal=11)
    moves = sync_client.legal_moves(game.state)
    assert moves == list(game.view.legal_moves)
    one = sync_client.apply_move(game.state, moves[0])
    many = sync_client.apply_moves(game.state, [moves[0]])
    # Two reply types with the same fields: the same bytes.
    assert one.SerializeToString() == many.SerializeToString()
    assert sync_client.player_view(one.state) == one.view


async def test_a_given_deal_kept_hidden_shows_only_at_the_end(client: EngineClient) -> None:
    """hide_deal: the deal is the one given, its number hidden from the views until the
    game is over, as a random deal's."""
    reply = await client.new_game("bisley", deal=1, hide_deal=True)
    assert state_of(reply.state) == patience.get_variant("bisley").new_game(1)
    assert reply.view.deal == ""
    shown = await client.new_game("bisley", deal=1)
    assert shown.view.deal == "1"
    line = _golden_bisley_win()
    played = await client.apply_moves(reply.state, line[:-1])
    assert played.view.deal == "" and played.view.status == game_pb2.GAME_STATUS_PLAYING
    won = await client.apply_moves(played.state, line[-1:])
    assert won.view.status == game_pb2.GAME_STATUS_WON and won.view.deal == "1"


def _golden_bisley_win() -> list[str]:
    wins = json.loads((Path(__file__).parents[1] / "rules" / "golden" / "wins.json").read_text())
    assert wins["bisley"]["deal"] == 1
    return list(wins["bisley"]["moves"])
