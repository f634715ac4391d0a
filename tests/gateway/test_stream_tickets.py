"""A game's stream tickets and what an event stream starts from, in the gateway's own
process (test_gateway_events.py has the same rules over real HTTP, between two gateway
processes): a ticket is made for the game's owner only, kept in Redis by its digest
alone, lives STREAM_TICKET_SECONDS and opens one stream of its own game; what a stream
starts from, and the view it sends, are the game's as GET answers it."""

from __future__ import annotations

import hashlib
import json
import string

import pytest
import redis.asyncio as aioredis
from patience_gateway.games import streams as game_streams
from patience_gateway.games.service import Games
from patience_gateway.problems import ProblemError
from patience_gateway.storage.events import EventHub
from patience_gateway.storage.keys import ticket_key
from redis.asyncio.cluster import RedisCluster

from tests.gateway.helpers import GameHandle, Gateway, assert_problem

pytestmark = pytest.mark.asyncio(loop_scope="session")

URL_SAFE = set(string.ascii_letters + string.digits + "-_")
# What each refusal tells the client to do (the code is the contract; the detail is what
# a developer reads).
DETAILS = {
    "missing-ticket": "open the stream with ?ticket= from POST .../stream-tickets",
    "bad-ticket": "this stream ticket was used, expired, or is not this game's",
}


async def issue(gateway: Gateway, game: GameHandle) -> str:
    response = await gateway.http.post(f"/v1/games/{game.id}/stream-tickets", headers=game.auth())
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    ticket = body["ticket"]
    assert body == {
        "ticket": ticket,
        "expires_in": game_streams.STREAM_TICKET_SECONDS,
        "events": f"/v1/games/{game.id}/events?ticket={ticket}",
    }
    # 24 random bytes (192 bits), URL-safe base64 without padding
    assert len(ticket) == 32 and set(ticket) <= URL_SAFE
    return str(ticket)


async def test_a_ticket_is_kept_by_its_digest_for_its_time(
    gateway: Gateway, redis: aioredis.Redis | RedisCluster
) -> None:
    """Redis keeps the SHA-256 of a ticket, never the ticket: a copy of the data opens
    no stream. The ticket expires STREAM_TICKET_SECONDS after it is issued, and two
    tickets are never alike."""
    game = await gateway.create("bisley", deal=5)
    first, second = await issue(gateway, game), await issue(gateway, game)
    assert first != second and len(first) >= 32
    digest = hashlib.sha256(first.encode()).hexdigest()
    assert game_streams.ticket_digest(first) == digest
    assert await redis.exists(ticket_key(game.id, first)) == 0
    # (half its time is far more than the moment since it was issued)
    full_ms = game_streams.STREAM_TICKET_SECONDS * 1000
    assert full_ms // 2 < await redis.pttl(ticket_key(game.id, digest)) <= full_ms


async def test_only_the_owner_gets_a_ticket(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=5)
    path = f"/v1/games/{game.id}/stream-tickets"
    assert_problem(await gateway.http.post(path), 401, "missing-token")
    wrong = await gateway.http.post(path, headers={"Authorization": "Bearer nope"})
    assert_problem(wrong, 403, "bad-token")
    deleted = await gateway.http.delete(f"/v1/games/{game.id}", headers=game.auth())
    assert deleted.status_code == 204, deleted.text
    assert_problem(await gateway.http.post(path, headers=game.auth()), 404, "unknown-game")


async def test_a_ticket_opens_one_stream_of_its_own_game(gateway: Gateway) -> None:
    """The first use opens the stream where the game is; the same ticket again, a made-up
    one, another game's, or none at all is refused, each with its code."""
    games: Games = gateway.app.state.services.games
    game, other = await gateway.create("bisley", deal=5), await gateway.create("bisley", deal=6)
    view = await gateway.view(game)
    hub: EventHub = gateway.app.state.services.events
    async with hub.listen(game.id):  # a stream hears the change: it is kept
        response = await gateway.move(game, view["legal_moves"][0])
    assert response.status_code == 200, response.text
    ticket = await issue(gateway, game)
    start = await game_streams.open_stream(games, game.id, ticket)
    assert start.version == 2 and [entry.version for entry in start.recent][-1:] == [2]
    with pytest.raises(ProblemError) as used:
        await game_streams.open_stream(games, game.id, ticket)
    assert (used.value.kind.code, used.value.status) == ("bad-ticket", 403)
    events = f"/v1/games/{game.id}/events"
    for url, status, code in (
        (f"{events}?ticket={ticket}", 403, "bad-ticket"),
        (f"{events}?ticket=made-up", 403, "bad-ticket"),
        (events, 401, "missing-ticket"),
        (f"{events}?ticket=", 401, "missing-ticket"),
        (f"/v1/games/{other.id}/events?ticket={await issue(gateway, game)}", 403, "bad-ticket"),
        (f"/v1/games/not-a-game/events?ticket={await issue(gateway, game)}", 404, "unknown-game"),
    ):
        refused = assert_problem(await gateway.http.get(url), status, code)
        assert refused["detail"] == DETAILS.get(code, "there is no game not-a-game"), url
    # a ticket of a game deleted since: the game is gone
    kept = await issue(gateway, other)
    deleted = await gateway.http.delete(f"/v1/games/{other.id}", headers=other.auth())
    assert deleted.status_code == 204, deleted.text
    gone = await gateway.http.get(f"/v1/games/{other.id}/events?ticket={kept}")
    assert assert_problem(gone, 404, "unknown-game")["detail"] == f"there is no game {other.id}"


async def test_a_stream_starts_from_the_game_as_it_is_and_its_view_is_the_games(
    gateway: Gateway,
) -> None:
    """What a stream catching up reads is the game's version and state; the view it sends
    is GET's, byte for byte, and there is none once the game is gone."""
    games: Games = gateway.app.state.services.games
    game = await gateway.create("napoleon-at-st-helena", deal=3)
    view = await gateway.view(game)
    await gateway.move(game, view["legal_moves"][0])
    start = await game_streams.reopen(games, game.id)
    assert start is not None and start.version == 2
    body = await game_streams.view_body(games, game.id, start.version, start.state)
    assert body is not None
    assert json.loads(body) == await gateway.view(game)
    deleted = await gateway.http.delete(f"/v1/games/{game.id}", headers=game.auth())
    assert deleted.status_code == 204, deleted.text
    assert await game_streams.reopen(games, game.id) is None
    assert await game_streams.view_body(games, game.id, start.version, start.state) is None


async def test_the_streams_view_keeps_the_settings_and_a_proof_of_loss_for_its_version(
    gateway: Gateway,
) -> None:
    """Bisley's deal 9 is lost from the deal: once a hint proved it, the view a stream
    sends says so, with the game's autoplay setting, as GET does; the proof holds for the
    version it was made at only."""
    games: Games = gateway.app.state.services.games
    game = await gateway.create("bisley", deal=9)
    patched = await gateway.autoplay_on(game)
    assert patched.status_code == 200, patched.text
    hint = await gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
    assert hint.json()["kind"] == "lost", hint.text
    start = await game_streams.reopen(games, game.id)
    assert start is not None
    body = await game_streams.view_body(games, game.id, start.version, start.state)
    assert body is not None
    view = json.loads(body)
    assert view == await gateway.view(game)
    assert (view["outlook"], view["autoplay"]) == ("lost", True)
    earlier = await game_streams.view_body(games, game.id, start.version - 1, start.state)
    assert earlier is not None and json.loads(earlier)["outlook"] == "open"
