"""A stream whose client reads slower than its game changes: once its queue holds
QUEUE_LIMIT events, what is queued is dropped and the stream is told to catch up
(RESYNC), which sends the client the changes it missed (or the whole view) and goes on;
a stream told to close while it is that far behind still closes."""

from __future__ import annotations

import pytest
from patience_gateway.games import streams as game_streams
from patience_gateway.games.service import Games
from patience_gateway.http.routes.streams import game_events
from patience_gateway.storage.events import CLOSING, QUEUE_LIMIT, RESYNC, GameEvent, Listener

from tests.gateway.helpers import Gateway

pytestmark = pytest.mark.asyncio(loop_scope="session")


def change(version: int) -> GameEvent:
    return GameEvent("move", version, b'{"version":%d}' % version)


async def test_an_overflowing_queue_is_replaced_by_one_resync() -> None:
    listener = Listener("game-overflow")
    for version in range(2, 2 + QUEUE_LIMIT):
        listener.put(change(version))
    listener.put(change(2 + QUEUE_LIMIT))  # one too many
    assert await listener.get() is RESYNC
    listener.put(change(3 + QUEUE_LIMIT))  # what comes after follows the resync
    assert (await listener.get()).version == 3 + QUEUE_LIMIT


@pytest.mark.parametrize("closing_at", [0, QUEUE_LIMIT // 2, QUEUE_LIMIT])
async def test_a_stream_told_to_close_while_far_behind_still_closes(closing_at: int) -> None:
    """CLOSING (a stopping gateway) survives the overflow, wherever it was in the queue
    or if it is what overflows it: the stream ends instead of catching up for ever."""
    listener = Listener("game-closing")
    for n in range(QUEUE_LIMIT + 2):
        listener.put(CLOSING if n == closing_at else change(n + 2))
    assert await listener.get() is CLOSING


async def test_the_client_of_an_overflowing_stream_gets_what_it_missed(
    gateway: Gateway,
) -> None:
    """Over the real store: the stream had sent version 1, its queue overflowed while
    three moves were made; it sends those changes (or the whole view) up to the game's
    version, then goes on with the next change."""
    games: Games = gateway.app.state.services.games
    game = await gateway.create("bisley", deal=4)
    start = await game_streams.reopen(games, game.id)
    assert start is not None and start.version == 1
    for _ in range(3):
        view = await gateway.view(game)
        response = await gateway.move(game, view["legal_moves"][0])
        assert response.status_code == 200, response.text
    listener = Listener(game.id)
    for version in range(100, 101 + QUEUE_LIMIT):  # more than the queue holds
        listener.put(change(version))
    listener.put(change(5))  # the next change, after the resync
    listener.put(CLOSING)
    sent = [event async for event in game_events(games, listener, game.id, start, 1)]
    ids = [int(event.id) for event in sent if event.id is not None]
    assert ids[-2:] == [4, 5] or ids == [4, 5], [(e.event, e.id) for e in sent]
    assert all(event.event in ("move", "view") for event in sent)
    assert (await gateway.view(game))["version"] == 4
