"""An account's deletion on a single Redis server and on a Redis Cluster alike: the
player's keys under its hash tag found and deleted on either (a cluster's are listed
from the tag's slot), and nothing of the player left in either store."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gateway.accounts import leftovers
from tests.gateway.helpers import Gateway, assert_problem
from tests.gateway.players import bisley_win, drained, new_game, new_player, play

pytestmark = [pytest.mark.both_stores, pytest.mark.asyncio(loop_scope="session")]


async def test_a_deleted_player_leaves_nothing_on_either_store(
    records_gateway: Gateway, database_url: str, redis: Any
) -> None:
    gateway = records_gateway
    player = await new_player(gateway)
    code = await gateway.http.post("/v1/players/me/link-codes", headers=player.auth())
    assert code.status_code == 201
    deal, moves = bisley_win()
    won = await new_game(gateway, player, "bisley", deal=deal)
    await play(gateway, won, moves)
    playing = await new_game(gateway, player, "usk", deal=4)
    await drained(gateway)

    deleted = await gateway.http.delete("/v1/players/me", headers=player.auth())
    assert deleted.status_code == 204, deleted.text
    assert_problem(
        await gateway.http.post("/v1/games", json={"variant": "bisley"}, headers=player.auth()),
        401,
        "invalid-token",
    )
    await drained(gateway)
    games = [won.id, playing.id]
    assert await leftovers(gateway, database_url, redis, player.player_id, games) == []
