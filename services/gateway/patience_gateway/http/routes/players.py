"""/v1/players and /v1/sessions: players without passwords, their sessions, their games
and statistics (docs/api.md, "Players").

Each route hands its request to the players' service (`players.service`) or the
records' (`records.service`) and sends its JSON. A player's own routes (`/me/...`) take
the player's access token, verified without storage, and refuse a deleted player's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Body, Query, Request
from starlette.responses import Response, StreamingResponse

from patience_gateway.games.shapes import JsonWebKeySet
from patience_gateway.http.exchange import client_of, players_of, records_of, token_of
from patience_gateway.http.openapi import PLAYER_SCHEME, ok, problems
from patience_gateway.players.requests import (
    IdentityRequest,
    LinkRequest,
    NewPlayer,
    PlayerPatch,
    RefreshRequest,
)
from patience_gateway.players.shapes import (
    IdentityShape,
    LinkCodeShape,
    PlayerShape,
    SessionShape,
)
from patience_gateway.records.service import MAX_PAGE
from patience_gateway.records.shapes import GameList, StatisticsShape

players = APIRouter(prefix="/v1/players", tags=["players"])
sessions = APIRouter(prefix="/v1/sessions", tags=["players"])
well_known = APIRouter(prefix="/.well-known", tags=["players"])

_PLAYER_ONLY: dict[str, Any] = {"security": [{PLAYER_SCHEME: []}]}
_NO_NAME = NewPlayer()
_PUBLIC: dict[str, Any] = {"security": []}


def _json(body: bytes, status: int = 200, **headers: str) -> Response:
    return Response(
        body,
        status,
        {"Cache-Control": "no-store", **headers},
        media_type="application/json",
    )


async def _me(request: Request) -> str:
    """The player whose access token the request carries (not a deleted one)."""
    return await players_of(request).live(token_of(request))


@players.post(
    "",
    status_code=201,
    response_model=SessionShape,
    summary="Create a player",
    description="A new player, without a password: the answer holds an access token "
    "(short-lived; it opens the player's routes and games) and a refresh token (keep it "
    "on the device: it gets the next access token). Rate limited per client.",
    responses={
        201: ok("The player and its first session."),
        **problems(400, 413, 415, 422, 429, 503),
    },
    openapi_extra=_PUBLIC,
)
async def create_player(
    request: Request, body: Annotated[NewPlayer, Body()] = _NO_NAME
) -> Response:
    # The body's schema is NewPlayer's, not "NewPlayer or null", and not required: a
    # client generated from the document has an optional argument, left out for none.
    answer = await players_of(request).create(body.display_name, client_of(request))
    return _json(answer, 201)


@players.get(
    "/me",
    response_model=PlayerShape,
    summary="The player of the access token",
    responses={200: ok("The player."), **problems(400, 401, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def get_me(request: Request) -> Response:
    service = players_of(request)
    return _json(await service.me(await _me(request)))


@players.patch(
    "/me",
    response_model=PlayerShape,
    summary="Change the player's display name",
    description="A JSON merge patch: `display_name` set, or null to remove it.",
    responses={200: ok("The player."), **problems(400, 401, 413, 415, 422, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def patch_me(request: Request, body: PlayerPatch) -> Response:
    service = players_of(request)
    player = await _me(request)
    if "display_name" not in body.model_fields_set:  # an empty patch changes nothing
        return _json(await service.me(player))
    return _json(await service.rename(player, body.display_name))


@players.delete(
    "/me",
    status_code=204,
    summary="Delete the player and everything of theirs",
    description="The player, its sessions, link codes, outside identities and display "
    "name go; it leaves every board and daily ranking; its games in play end and every "
    "game of its is deleted (docs/api.md, Deleting a player). Every token of the player "
    "is refused from then on. Sent again (a retry, or after an outage answered 503), it "
    "finishes what was left and answers 204 again.",
    responses={204: ok("Deleted."), **problems(400, 401, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def delete_me(request: Request) -> Response:
    player = players_of(request).verify(token_of(request)).player_id  # a retry: deleted
    await records_of(request).delete_player(player)
    return Response(status_code=204, headers={"Cache-Control": "no-store"})


@players.get(
    "/me/export",
    summary="Everything kept of the player, as one JSON document",
    description="The player, its outside identities, statistics, places on the boards, "
    "and every game with its record and moves (docs/api.md, Exporting a player's data). "
    "Streamed: the games come a page at a time.",
    responses={
        200: {
            "description": "The document (`Content-Disposition: attachment`).",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **problems(400, 401, 503),
    },
    openapi_extra=_PLAYER_ONLY,
)
async def export_me(request: Request) -> Response:
    player = await _me(request)
    head = await players_of(request).export_head(player)
    parts = await records_of(request).export(player, head)
    return StreamingResponse(
        parts,
        media_type="application/json",
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="patience-{player}.json"',
        },
    )


@players.post(
    "/me/identities",
    status_code=201,
    response_model=IdentityShape,
    summary="Link an outside identity to the player",
    description="An OpenID Connect ID token of an issuer this service accepts (Sign in "
    "with Apple, Google, the app's own login: docs/operations.md); with it the player "
    "signs in on any device (POST /v1/sessions/identity). An identity belongs to one "
    "player: one linked to another already is 409 `identity-taken`.",
    responses={
        201: ok("The identity, linked."),
        **problems(400, 401, 404, 409, 413, 415, 422, 503),
    },
    openapi_extra=_PLAYER_ONLY,
)
async def link_identity(request: Request, body: IdentityRequest) -> Response:
    player = await _me(request)
    answer = await players_of(request).link_identity(player, body.id_token, body.nonce)
    return _json(answer, 201)


@players.get(
    "/me/identities",
    response_model=list[IdentityShape],
    summary="The outside identities linked to the player",
    responses={200: ok("The identities, oldest first."), **problems(400, 401, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def list_identities(request: Request) -> Response:
    player = await _me(request)
    return _json(await players_of(request).identities_of(player))


@players.post(
    "/me/link-codes",
    status_code=201,
    response_model=LinkCodeShape,
    summary="A code that opens this player on another device",
    description="Shown on this device, typed on the other (POST /v1/sessions/link) within "
    "300 s; it works once. At most 5 codes per 10 minutes.",
    responses={201: ok("The code."), **problems(400, 401, 429, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def create_link_code(request: Request) -> Response:
    service = players_of(request)
    return _json(await service.link_code(await _me(request)), 201)


@players.get(
    "/me/games",
    response_model=GameList,
    summary="The player's games, newest first",
    description="Each with its record. `state=playing` or `finished`, `variant=` filter "
    "them; `next` is the next page's address. A game appears once its beginning has "
    "reached the player's records (moments after it was dealt).",
    responses={200: ok("A page of games."), **problems(400, 401, 422, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def list_my_games(
    request: Request,
    state: Annotated[Literal["playing", "finished"] | None, Query()] = None,
    variant: Annotated[str | None, Query(max_length=64)] = None,
    cursor: Annotated[str | None, Query(max_length=256)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
) -> Response:
    player = await _me(request)
    answer = await records_of(request).games(
        player,
        state=state,
        variant=variant,
        cursor=cursor,
        limit=limit,
        path=request.url.path,
    )
    return _json(answer)


@players.get(
    "/me/stats",
    response_model=StatisticsShape,
    summary="The player's statistics, per variant and category",
    description="Computed by the service from the player's finished games, each counted "
    "once (docs/api.md, Statistics).",
    responses={200: ok("The statistics."), **problems(400, 401, 503)},
    openapi_extra=_PLAYER_ONLY,
)
async def my_statistics(request: Request) -> Response:
    player = await _me(request)
    return _json(await records_of(request).statistics(player))


@sessions.post(
    "/refresh",
    response_model=SessionShape,
    summary="The next access token (and refresh token) of a device",
    description="The refresh token is used up: keep the new one. The same token sent again "
    "within 60 s (a retry) gets the same answer; later, it revokes every session of the "
    "device (someone else may hold a copy).",
    responses={200: ok("The new session."), **problems(400, 401, 413, 415, 422, 503)},
    openapi_extra=_PUBLIC,
)
async def refresh(request: Request, body: RefreshRequest) -> Response:
    return _json(await players_of(request).refresh(body.refresh_token))


@sessions.post(
    "/sign-out",
    status_code=204,
    summary="Sign this device out",
    description="Revokes the device's session: its refresh token (and every one before "
    "it) no longer works. Access tokens already issued work until they expire.",
    responses={204: ok("Signed out."), **problems(400, 401, 413, 415, 422, 503)},
    openapi_extra=_PUBLIC,
)
async def sign_out(request: Request, body: RefreshRequest) -> Response:
    await players_of(request).sign_out(body.refresh_token)
    return Response(status_code=204)


@sessions.post(
    "/link",
    status_code=201,
    response_model=SessionShape,
    summary="Open a player on this device with a link code",
    description="The code from POST /v1/players/me/link-codes on the player's other "
    "device; dashes, spaces and case do not matter. It works once. At most 10 tries a "
    "minute per client.",
    responses={
        201: ok("A new session of the player."),
        **problems(400, 404, 413, 415, 422, 429, 503),
    },
    openapi_extra=_PUBLIC,
)
async def link(request: Request, body: LinkRequest) -> Response:
    return _json(await players_of(request).link(body.code, client_of(request)), 201)


@sessions.post(
    "/identity",
    status_code=201,
    response_model=SessionShape,
    summary="Open a player on this device with an outside identity",
    description="An OpenID Connect ID token of an identity linked to a player (POST "
    "/v1/players/me/identities): a new session of that player, on this device; the "
    "player's other sessions are not changed. At most 30 tries a minute per client.",
    responses={
        201: ok("A new session of the player."),
        **problems(400, 401, 404, 413, 415, 422, 429, 503),
    },
    openapi_extra=_PUBLIC,
)
async def sign_in_with_identity(request: Request, body: IdentityRequest) -> Response:
    service = players_of(request)
    answer = await service.identity_session(body.id_token, body.nonce, client_of(request))
    return _json(answer, 201)


@well_known.get(
    "/jwks.json",
    response_model=JsonWebKeySet,
    summary="The public keys of access tokens and signed results",
    description="A JSON Web Key Set: the current key and the older ones still in use, "
    "each named by its `kid` (the tokens' and results' `kid` header). Check a signed "
    "result (GET /v1/games/{game_id}/result) offline with them.",
    responses={200: ok("The keys."), **problems(503)},
    openapi_extra=_PUBLIC,
)
async def jwks(request: Request) -> Response:
    keys = players_of(request).signing_keys()
    return Response(
        orjson.dumps(keys.jwks()),
        200,
        {"Cache-Control": "public, max-age=300"},
        media_type="application/json",
    )
