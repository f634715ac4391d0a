"""The player's view hides what a player at the table would not see."""

from __future__ import annotations

from collections import Counter

import patience
from patience_contract.client import EngineClient, EngineError
from patience_engine.codec import CARD_NAMES
from solitaire.v1 import game_pb2

from tests.engine.helpers import expect_error, state_of, unsealed


def visible_cards(view: game_pb2.PlayerView) -> Counter[str]:
    return Counter(card for pile in view.piles for card in pile.cards)


def cards_outside_the_stock(state: patience.State) -> Counter[str]:
    return Counter(
        CARD_NAMES[card]
        for pile_id, pile in zip(state.variant.pile_ids, state.piles, strict=True)
        if pile_id != "stock"
        for card in pile
    )


def test_views_have_no_place_for_the_generator_state() -> None:
    for message in (game_pb2.PlayerView, game_pb2.PileView, game_pb2.Counters):
        assert "draws" not in message.DESCRIPTOR.fields_by_name
    assert "draws" not in game_pb2.CardMoved.DESCRIPTOR.fields_by_name


async def test_the_stock_shows_its_size_only(client: EngineClient) -> None:
    game = await client.new_game("napoleon-at-st-helena", deal=31)
    state = state_of(game.state)
    (stock,) = [pile for pile in game.view.piles if pile.kind == game_pb2.PILE_KIND_STOCK]
    assert list(stock.cards) == []
    assert stock.size == state.stock_size == len(state.pile("stock")) > 0
    assert visible_cards(game.view) == cards_outside_the_stock(state)
    for _ in range(3):
        before = state_of(game.state)
        game = await client.apply_move(game.state, "deal")
        after = state_of(game.state)
        # Exactly the card turned up is revealed: the stock's old top card.
        assert [event.card for event in game.events] == [CARD_NAMES[before.pile("stock")[-1]]]
        assert visible_cards(game.view) == cards_outside_the_stock(after)


async def test_a_random_deal_number_stays_hidden_while_playing(client: EngineClient) -> None:
    game = await client.new_game("la-belle-lucie")
    deal = str(state_of(game.state).deal)
    assert game.view.deal == ""
    game = await client.apply_move(game.state, game.view.legal_moves[0])
    assert game.view.deal == ""
    assert (await client.player_view(game.state)).deal == ""
    # Nor do errors tell it.
    errors: list[EngineError] = [
        await expect_error(client.apply_move(game.state, "deal")),
        await expect_error(client.apply_move(game.state, "t1-t1")),
        await expect_error(client.apply_moves(game.state, ["redeal", "t3 t4"])),
    ]
    for error in errors:
        assert deal not in error.message
        assert all(deal not in value for value in error.metadata.values())


async def test_a_chosen_deal_number_is_shown(client: EngineClient) -> None:
    game = await client.new_game("la-belle-lucie", deal=123456789012)
    assert game.view.deal == "123456789012"


async def test_a_random_deal_number_is_shown_once_the_game_is_over(client: EngineClient) -> None:
    # Play the first legal move until La Belle Lucie ends (won or stuck).
    last = patience.get_variant("la-belle-lucie").new_game(10**17 + 3)
    while True:
        final_move = last.legal_moves()[0]
        if last.apply(final_move).status != patience.Status.PLAYING:
            break
        last = last.apply(final_move)
    before = await client.player_view(unsealed(last, deal_secret=True))
    assert before.status == game_pb2.GAME_STATUS_PLAYING
    assert before.deal == ""
    reply = await client.apply_move(unsealed(last, deal_secret=True), str(final_move))
    assert reply.view.status in (game_pb2.GAME_STATUS_WON, game_pb2.GAME_STATUS_STUCK)
    assert reply.view.deal == str(10**17 + 3)
