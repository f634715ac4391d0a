"""The player's view never shows what a player at the table could not see: the order
of the stock, the generator state, the sealed state, or a random deal number."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import httpx
import patience
import redis.asyncio as aioredis
from patience_engine.sealing import Sealer
from patience_gateway.storage.keys import game_keys
from solitaire.v1 import game_pb2

from tests.gateway.engines import SEAL_KEY
from tests.gateway.helpers import GameHandle, Gateway

NAPOLEON = "napoleon-at-st-helena"
CARD = re.compile(r'"([A2-9TJQK][CSHD])"')
FORBIDDEN_KEYS = {"draws", "state", "seal", "sealed", "initial", "stock_order", "generator"}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _views(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The player views inside a response body (a game, or nothing for other bodies)."""
    return [body] if "piles" in body else []


def check_private(response: httpx.Response, table: patience.State | None) -> None:
    """Nothing hidden in this response; with `table` (the true state, from the rules
    library), the visible piles are exactly its piles other than the stock."""
    body = response.json()
    assert not (_keys(body) & FORBIDDEN_KEYS), _keys(body) & FORBIDDEN_KEYS
    shown_cards = Counter(CARD.findall(response.text))
    event_cards = Counter(e["card"] for e in body.get("events", ()))
    for view in _views(body):
        piles = {pile["id"]: pile for pile in view["piles"]}
        stock = piles["stock"]
        assert stock["cards"] == [] and stock["size"] == view["counters"]["stock_size"]
        visible = Counter(card for pile in view["piles"] for card in pile["cards"])
        # every card name in the text is a visible pile card or a card that just moved
        assert shown_cards == visible + event_cards, shown_cards - visible - event_cards
        total = view["counters"]["total_cards"]
        assert sum(visible.values()) == total - stock["size"]
        if table is not None:
            for pile_id, pile in piles.items():
                expected = table.pile(pile_id)
                if pile_id == "stock":
                    assert pile["size"] == len(expected)
                else:
                    assert pile["cards"] == [patience.card_name(c) for c in expected], pile_id
    if not _views(body):
        assert not shown_cards, shown_cards


async def _all_reads(gateway: Gateway, game: GameHandle) -> list[httpx.Response]:
    auth = game.auth()
    return [
        await gateway.http.get(f"/v1/games/{game.id}", headers=auth),
        await gateway.http.get(f"/v1/games/{game.id}/legal-moves", headers=auth),
        await gateway.http.get(f"/v1/games/{game.id}/history", headers=auth),
    ]


def _pick(view: dict[str, Any], turn: int) -> str:
    """Deal often, so that the stock is turned and the waste fills."""
    legal: list[str] = view["legal_moves"]
    if "deal" in legal and turn % 3 != 2:
        return "deal"
    return legal[turn % len(legal)]


async def test_napoleon_views_never_show_the_stock(gateway: Gateway) -> None:
    deal = 1234
    game = await gateway.create(NAPOLEON, deal=deal)
    table = patience.get_variant(NAPOLEON).new_game(deal=deal)
    assert table.stock_size > 0
    history: list[patience.State] = [table]
    view = game.created
    for turn in range(40):
        responses = await _all_reads(gateway, game)
        for response in responses:
            check_private(response, table)
        if view["status"] != "playing":
            break
        notation = _pick(view, turn)
        moved = await gateway.move(game, notation)
        assert moved.status_code == 200, moved.text
        table = table.apply(patience.Move.parse(notation))
        history.append(table)
        check_private(moved, table)
        view = moved.json()
        if turn % 7 == 6:  # undo and redo along the way
            undone = await gateway.undo(game)
            check_private(undone, history[-2])
            redone = await gateway.redo(game)
            check_private(redone, table)
            view = redone.json()
    assert table.stock_size < patience.get_variant(NAPOLEON).new_game(deal=deal).stock_size


async def test_random_deal_number_never_leaks(gateway: Gateway, redis: aioredis.Redis) -> None:
    game = await gateway.create(NAPOLEON)
    # Neither the store nor the state in it says the number: only the engine's key opens it.
    keys = game_keys(game.id)
    assert await redis.hget(keys.meta, "deal") == b""
    sealed = game_pb2.SealedState.FromString(await redis.lindex(keys.states, -1))
    deal = game_pb2.GameState.FromString(Sealer(SEAL_KEY).unseal(sealed)).deal
    assert len(deal) >= 10
    assert deal.encode() not in sealed.state
    texts = [json.dumps(game.created, separators=(",", ":"))]
    view = game.created
    for turn in range(10):
        moved = await gateway.move(game, _pick(view, turn))
        assert moved.status_code == 200
        view = moved.json()
        check_private(moved, None)
        texts.append(moved.text)
        texts.extend(r.text for r in await _all_reads(gateway, game))
        texts.append((await gateway.undo(game)).text)
        texts.append((await gateway.redo(game)).text)
    assert all(deal not in text for text in texts)
    assert all(json.loads(text).get("deal") is None for text in texts)
