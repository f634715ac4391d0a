"""A game's event stream: the one-use tickets that open it, and what it starts from
(the HTTP layer sends the events, `http.routes.streams`)."""

from __future__ import annotations

import hashlib
import secrets

from solitaire.v1 import game_pb2

from patience_gateway.games.answers import Reply, json_bytes
from patience_gateway.games.service import Games, OwnedGame, known_id, unknown_game
from patience_gateway.games.shapes import StreamTicket
from patience_gateway.problems import ProblemError
from patience_gateway.storage.events import StreamStart
from patience_gateway.storage.writes import Outcome

# How long a stream ticket may wait to be used (it opens one stream).
STREAM_TICKET_SECONDS = 60


def ticket_digest(ticket: str) -> str:
    """What Redis keeps of a stream ticket: its SHA-256, so a copy of the data holds
    no ticket that works."""
    return hashlib.sha256(ticket.encode()).hexdigest()


async def stream_ticket(games: Games, game_id: str, token: str) -> Reply:
    """A one-use ticket that opens the game's event stream within
    STREAM_TICKET_SECONDS: a browser's EventSource cannot send the owner token, and
    the token must not go into a URL (where logs and histories keep it)."""
    await games.owned(game_id, token, read_only=True)  # a spectator watches too
    ticket = secrets.token_urlsafe(24)
    ttl_ms = STREAM_TICKET_SECONDS * 1000
    if not await games.store.issue_ticket(game_id, ticket_digest(ticket), ttl_ms):
        raise unknown_game(game_id)
    body: StreamTicket = {
        "ticket": ticket,
        "expires_in": STREAM_TICKET_SECONDS,
        "events": f"/v1/games/{game_id}/events?ticket={ticket}",
    }
    return Reply(201, json_bytes(body), {"Cache-Control": "no-store"})


async def open_stream(games: Games, game_id: str, ticket: str | None) -> StreamStart:
    """Uses up the ticket; what the stream starts from."""
    if not ticket:
        raise ProblemError(
            "missing-ticket", "open the stream with ?ticket= from POST .../stream-tickets"
        )
    known_id(game_id)
    start = await games.store.open_stream(game_id, ticket_digest(ticket))
    if start is Outcome.BAD_TICKET:
        raise ProblemError(
            "bad-ticket", "this stream ticket was used, expired, or is not this game's"
        )
    if not isinstance(start, StreamStart):
        raise unknown_game(game_id)
    return start


async def reopen(games: Games, game_id: str) -> StreamStart | None:
    """Where an open stream's game is now (to catch up); None once it is gone."""
    start = await games.store.open_stream(game_id, None)
    return start if isinstance(start, StreamStart) else None


async def view_body(games: Games, game_id: str, version: int, state: bytes) -> bytes | None:
    """The player's view of a stored state, as GET /v1/games/{id} answers it; None when
    the game is gone meanwhile."""
    view = await games.ask(games.engine.player_view(game_pb2.SealedState.FromString(state)))
    # the settings and a proof of loss live beside the state, in the game's meta hash
    loaded = await games.store.load(game_id)
    if loaded is None:
        return None
    game = OwnedGame.of(game_id, loaded)
    proven_lost = game.meta.proven_lost and game.version == version
    return json_bytes(game.view_json(view, version=version, proven_lost=proven_lost))
