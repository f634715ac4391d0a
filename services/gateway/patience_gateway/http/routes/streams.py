"""A game's live events as Server-Sent Events (sse-starlette), and the tickets that
open them.

`GET /v1/games/{id}/events?ticket=...` first sends where the game is (a `view` event
with the whole view, or, with `Last-Event-ID`, the changes missed since that version
when the game's recent events still hold them), then every change as it happens: one
event per change, named after it (`move`, `undo`, `redo`, `autoplay`, `settings`), whose
id is the game's new version and whose data is the body that the change's own answer
had. `deleted` and `expired` end the stream. A comment line goes out every STREAM_HEARTBEAT_SECONDS.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.responses import Response

from patience_gateway.games import shapes
from patience_gateway.games import streams as game_streams
from patience_gateway.games.service import Games
from patience_gateway.http.exchange import games_of, send, services_of, token_of
from patience_gateway.http.openapi import PLAYER_SCHEME, TICKET_SCHEME, TOKEN_SCHEME, problems
from patience_gateway.http.routes.games import GameId
from patience_gateway.problems import ProblemError
from patience_gateway.storage.events import (
    CLOSING,
    RESYNC,
    GameEvent,
    Listener,
    StreamStart,
)

router = APIRouter(prefix="/v1/games", tags=["games"])


@router.post(
    "/{game_id}/stream-tickets",
    status_code=201,
    response_model=shapes.StreamTicket,
    summary="A ticket that opens the game's event stream once",
    responses={201: {"description": "The ticket, valid for 60 s."}, **problems(401, 403, 404)},
    openapi_extra={"security": [{TOKEN_SCHEME: []}, {PLAYER_SCHEME: []}]},
)
async def stream_ticket(request: Request, game_id: GameId) -> Response:
    return send(await game_streams.stream_ticket(games_of(request), game_id, token_of(request)))


# A version as Last-Event-ID carries it: digits, at most 18 (empty: none seen); anything
# else is 400 malformed-header. (The HTTP server trims the blanks around a header's value.)
VERSION_PATTERN = r"^[0-9]{0,18}$"
_LAST_EVENT_ID = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "The last version seen (an EventSource sends it when it reconnects): "
    "the stream starts with what was missed since.",
    "schema": {"type": "string", "maxLength": 64, "pattern": VERSION_PATTERN},
}


@router.get(
    "/{game_id}/events",
    summary="The game's changes as they happen (Server-Sent Events)",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "`text/event-stream`: events `view`, `move`, `undo`, `redo`, "
            "`autoplay`, `settings`, `restart`, `resign`, `claim`, `abandon`, `deleted`, "
            "`expired`; each id is the game's version.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **problems(401, 403, 404),
    },
    openapi_extra={"security": [{TICKET_SCHEME: []}], "parameters": [_LAST_EVENT_ID]},
)
async def events(
    request: Request,
    game_id: GameId,
    ticket: Annotated[str | None, Query(description="From POST .../stream-tickets.")] = None,
    last_event_id: Annotated[
        str | None,
        Query(
            description="The last version seen, when the Last-Event-ID header cannot be set.",
            json_schema_extra={"pattern": VERSION_PATTERN},
        ),
    ] = None,
) -> Response:
    games = games_of(request)
    hub = services_of(request).events
    seen = _version(request.headers.get("last-event-id") or last_event_id)
    opened = contextlib.AsyncExitStack()
    # Subscribed before the first read: whatever changes after that read is heard of.
    listener = await opened.enter_async_context(hub.listen(game_id))
    try:
        start = await game_streams.open_stream(games, game_id, ticket)
    except BaseException:
        await opened.aclose()
        raise

    async def stream() -> AsyncIterator[ServerSentEvent]:
        async with opened:
            async for event in game_events(games, listener, game_id, start, seen):
                yield event

    heartbeat = services_of(request).settings.stream_heartbeat_seconds
    return EventSourceResponse(stream(), ping=heartbeat, headers={"Cache-Control": "no-store"})


def _version(raw: str | None) -> int | None:
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise ProblemError("malformed-header", "Last-Event-ID must be a version number")
    return int(raw)


def _sent(event: GameEvent) -> ServerSentEvent:
    return ServerSentEvent(data=event.body.decode(), event=event.kind, id=str(event.version))


async def catching_up(
    games: Games, game_id: str, start: StreamStart, seen: int | None
) -> list[GameEvent]:
    """What a stream that saw version `seen` (None: nothing) must be sent to be at
    `start.version`: nothing, the changes it missed, or the whole view."""
    if seen == start.version:
        return []
    if seen is not None:
        missed = [event for event in start.recent if event.version > seen]
        if missed and missed[0].version == seen + 1 and missed[-1].version == start.version:
            return missed
    body = await game_streams.view_body(games, game_id, start.version, start.state)
    return [] if body is None else [GameEvent("view", start.version, body)]


async def game_events(
    games: Games,
    listener: Listener,
    game_id: str,
    start: StreamStart,
    seen: int | None,
) -> AsyncIterator[ServerSentEvent]:
    for event in await catching_up(games, game_id, start, seen):
        yield _sent(event)
        seen = event.version
    gone = GameEvent("expired", 0, b'{"id":"%s"}' % game_id.encode())
    while True:
        event = await listener.get()
        if event is CLOSING:
            return
        if event.kind == "expired":
            yield ServerSentEvent(data=gone.body.decode(), event="expired")
            return
        if event is RESYNC or (seen is not None and event.version > seen + 1):
            again = await game_streams.reopen(games, game_id)
            if again is None:
                yield ServerSentEvent(data=gone.body.decode(), event="expired")
                return
            for missed in await catching_up(games, game_id, again, seen):
                yield _sent(missed)
                seen = missed.version
            continue
        if seen is not None and event.version <= seen:
            continue  # already sent (read when the stream opened)
        yield _sent(event)
        seen = event.version
        if event.kind == "deleted":
            return
