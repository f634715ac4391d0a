"""/v1/games: play, undo, redo, read, create, history, delete.

Each route hands its request to a game operation (`games.create`, `games.read`,
`games.change`) and sends its reply; the headers are read as `exchange` says. Routes
are declared hot first: the router tries them in order. Most moves do not even reach
the router: the move speed path (`speed.moves`) answers them as `make_move` does, and
this route is its reference (what answers when PATIENCE_SPEED_PATHS is off).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.responses import Response

from patience_gateway.games import change, create, read, replays, results, shapes
from patience_gateway.games.requests import GamePatch, MoveRequest, NewGameRequest
from patience_gateway.games.tokens import bearer_token
from patience_gateway.http.exchange import games_of, send, services_of, token_of
from patience_gateway.http.openapi import (
    ENTITY_TAGS_SCHEMA,
    ETAG_HEADER,
    IDEMPOTENCY_KEY_SCHEMA,
    LOCATION_HEADER,
    PLAYER_SCHEME,
    REPLAYED_HEADER,
    TOKEN_SCHEME,
    ok,
    problems,
)
from patience_gateway.players.requests import ClaimRequest

router = APIRouter(prefix="/v1/games", tags=["games"])

GameId = Annotated[
    str,
    Path(
        description="The game's id, as returned on creation.",
        examples=["x7R2kJ0vQp9sYd3mN8a1Zw-_"],
    ),
]

_IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'Apply only if the game is at this version (its ETag, e.g. `"7"`); '
    "otherwise 412 `stale-version` and nothing changes. Without it a change still "
    "cannot overwrite a concurrent one: the loser gets 409 `concurrent-update`.",
    "schema": ENTITY_TAGS_SCHEMA,
}
_IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "1..255 printable ASCII characters. A retry with the same key on the "
    "same game gets the first answer again (same status, body and ETag) instead of "
    "applying twice; the same key with a different request is refused (422 "
    "`idempotency-key-reused`). A game keeps the answers of its latest 32 keyed "
    "requests, for as long as the game. Any other key: 400 `malformed-header`.",
    "schema": IDEMPOTENCY_KEY_SCHEMA,
}
_CREATE_IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "1..255 printable ASCII characters; use a fresh random one (a UUID) per "
    "game and keep it as secret as the token. A retry with the same key within 24 hours "
    "gets the first answer again (the same game, token and body, `Idempotent-Replayed: "
    "true`) instead of a second game; the same key with a different request is refused "
    "(422 `idempotency-key-reused`). Any other key: 400 `malformed-header`.",
    "schema": IDEMPOTENCY_KEY_SCHEMA,
}
_IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "A version the client already holds: 304 if it is still current.",
    "schema": ENTITY_TAGS_SCHEMA,
}


def _owned(*headers: dict[str, Any]) -> dict[str, Any]:
    """openapi_extra of a route that needs the game's token (an anonymous game) or its
    player's access token (a player's game), and reads `headers`."""
    extra: dict[str, Any] = {"security": [{TOKEN_SCHEME: []}, {PLAYER_SCHEME: []}]}
    if headers:
        extra["parameters"] = list(headers)
    return extra


@router.post(
    "/{game_id}/moves",
    response_model=shapes.MoveResult,
    summary="Make a move",
    responses={
        200: ok(
            "The move was applied; the new view.",
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 503),
    },
    openapi_extra=_owned(_IF_MATCH, _IDEMPOTENCY_KEY),
)
async def make_move(request: Request, game_id: GameId, body: MoveRequest) -> Response:
    return await _change(request, game_id, change.MOVE, body)


async def _change(
    request: Request, game_id: str, kind: change.Kind[Any], body: Any = None
) -> Response:
    """The change of `kind` (the headers as every change reads them: Authorization,
    If-Match, Idempotency-Key)."""
    headers = request.headers
    reply = await change.run(
        games_of(request),
        kind,
        game_id,
        headers.get("authorization"),
        headers.get("if-match"),
        headers.get("idempotency-key"),
        body,
    )
    return send(reply)


HistoryRoute = Callable[[Request, str], Awaitable[Response]]


def _history_step_route(
    step: str, model: type[Any], summary: str, done: str
) -> Callable[[HistoryRoute], HistoryRoute]:
    """The route of undo or redo: the same headers, answers and problems, only the
    step and what its 200 says differ."""
    return router.post(
        f"/{{game_id}}/{step}",
        response_model=model,
        summary=summary,
        responses={
            200: ok(done, ETag=ETAG_HEADER, **{"Idempotent-Replayed": REPLAYED_HEADER}),
            **problems(400, 401, 403, 404, 409, 412, 422, 503),
        },
        openapi_extra=_owned(_IF_MATCH, _IDEMPOTENCY_KEY),
    )


@_history_step_route(
    "undo", shapes.Game, "Take back the last move", "The move was taken back; the new view."
)
async def undo(request: Request, game_id: GameId) -> Response:
    return await _change(request, game_id, change.UNDO)


@_history_step_route(
    "redo",
    shapes.MoveResult,
    "Make the last undone move again",
    "The move was made again; the new view.",
)
async def redo(request: Request, game_id: GameId) -> Response:
    return await _change(request, game_id, change.REDO)


@router.post(
    "/{game_id}/autoplay",
    response_model=shapes.AutoplayResult,
    summary="Play every card that can safely go to a foundation",
    description="The safe moves (no winning line is lost by playing them, and they use "
    "nothing the player cannot see), in order, as one change: one new version, one entry "
    "in the history (undo takes them all back, redo plays them again), one `autoplay` "
    "event on the game's stream. With no safe move the game is answered as it is: 200, "
    "`moves` empty, the same version and ETag, nothing stored.",
    responses={
        200: ok(
            "The safe moves played (or none); the view.",
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 403, 404, 409, 412, 422, 503),
    },
    openapi_extra=_owned(_IF_MATCH, _IDEMPOTENCY_KEY),
)
async def autoplay(request: Request, game_id: GameId) -> Response:
    return await _change(request, game_id, change.AUTOPLAY)


@router.get(
    "/{game_id}",
    response_model=shapes.Game,
    summary="The player's view of a game",
    responses={
        200: ok("What the player sees.", ETag=ETAG_HEADER),
        304: ok("If-None-Match names the current version.", ETag=ETAG_HEADER),
        **problems(401, 403, 404, 409, 503),
    },
    openapi_extra=_owned(_IF_NONE_MATCH),
)
async def get_game(request: Request, game_id: GameId) -> Response:
    reply = await read.get(
        games_of(request), game_id, token_of(request), request.headers.get("if-none-match")
    )
    return send(reply)


@router.get(
    "/{game_id}/legal-moves",
    response_model=shapes.LegalMoves,
    summary="The moves that are legal now, structured",
    responses={200: ok("Legal moves.", ETag=ETAG_HEADER), **problems(401, 403, 404, 409, 503)},
    openapi_extra=_owned(),
)
async def legal_moves(request: Request, game_id: GameId) -> Response:
    return send(await read.legal_moves(games_of(request), game_id, token_of(request)))


@router.get(
    "/{game_id}/hint",
    response_model=shapes.Hint,
    summary="The move to play next, as the solver sees it",
    description="A search of the game as it is now, within the engine's hint budget "
    "(under a second). The search may look at the stock's order, but the answer is one "
    "of the legal moves and never names a card the player cannot see. An answer of kind "
    "`lost` is kept for this version: the view's `outlook` says `lost` until the game "
    "changes (a move, undo, redo or autoplay).",
    responses={
        200: ok("The hint, for the version in its ETag.", ETag=ETAG_HEADER),
        **problems(401, 403, 404, 409, 503),
    },
    openapi_extra=_owned(),
)
async def hint(request: Request, game_id: GameId) -> Response:
    return send(await read.hint(games_of(request), game_id, token_of(request)))


@router.get(
    "/{game_id}/history",
    response_model=shapes.History,
    summary="Everything needed to replay the game",
    responses={200: ok("The history.", ETag=ETAG_HEADER), **problems(401, 403, 404, 503)},
    openapi_extra=_owned(),
)
async def history(request: Request, game_id: GameId) -> Response:
    return send(await read.history(games_of(request), game_id, token_of(request)))


@router.post(
    "",
    status_code=201,
    response_model=shapes.CreatedGame,
    summary="Deal a new game",
    responses={
        201: ok(
            "The new game, with its owner token (shown only here, and to a retry "
            "with the same Idempotency-Key).",
            Location=LOCATION_HEADER,
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 404, 413, 415, 422, 429, 503),
    },
    openapi_extra={
        "parameters": [_CREATE_IDEMPOTENCY_KEY],
        # anonymous (a game token in the answer), or a player's game
        "security": [{}, {PLAYER_SCHEME: []}],
    },
)
async def create_game(request: Request, body: NewGameRequest) -> Response:
    key = request.headers.get("idempotency-key")
    authorization = request.headers.get("authorization")
    access_token = None if authorization is None else bearer_token(authorization)
    game_id, reply = await create.create(games_of(request), body, key, access_token)
    reply.headers["Location"] = f"{router.prefix}/{game_id}"
    return send(reply)


@router.patch(
    "/{game_id}",
    response_model=shapes.Game,
    summary="Change the game's settings",
    description="A JSON merge patch (RFC 7396; `application/merge-patch+json` or "
    '`application/json`) of the game\'s settings: `{"autoplay": true}` plays every safe '
    "move to a foundation after each move. A new version (the view shows the settings), "
    "a `settings` event on the game's stream; the position and its history stay as they "
    "are.",
    responses={
        200: ok("The settings were changed; the new view.", ETag=ETAG_HEADER),
        **problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 503),
    },
    openapi_extra=_owned(_IF_MATCH),
)
async def patch_game(request: Request, game_id: GameId, body: GamePatch) -> Response:
    return await _change(request, game_id, change.SETTINGS, body)


@_history_step_route(
    "restart",
    shapes.Game,
    "Take the game back to its deal",
    "The game is at its deal again (one change: undo takes it back); the new view.",
)
async def restart(request: Request, game_id: GameId) -> Response:
    return await _change(request, game_id, change.RESTART)


@router.post(
    "/{game_id}/resign",
    response_model=shapes.Game,
    summary="Resign the game",
    description="Ends the game as lost: its record closes as `resigned` (or `proven-lost` "
    "when the service had proven that no line wins: a hint said so, or the game only "
    "goes round in circles). The game takes no more changes.",
    responses={
        200: ok("The game is resigned; the view.", ETag=ETAG_HEADER),
        **problems(400, 401, 403, 404, 409, 412, 503),
    },
    openapi_extra=_owned(_IF_MATCH),
)
async def resign(request: Request, game_id: GameId) -> Response:
    return await _change(request, game_id, change.RESIGN)


@router.post(
    "/{game_id}/claim",
    response_model=shapes.Game,
    summary="Make an anonymous game the player's",
    description="With the player's access token (Authorization) and the game's own token "
    "(the body): the game becomes the player's. From then on the player's access token "
    "opens it and the game token does not. A claimed game counts as practice in the "
    "player's statistics (the player could choose which games to claim); a game whose "
    "record has closed cannot be claimed.",
    responses={
        200: ok("The game is the player's; the view.", ETag=ETAG_HEADER),
        **problems(400, 401, 403, 404, 409, 413, 415, 422, 503),
    },
    openapi_extra={"security": [{PLAYER_SCHEME: []}]},
)
async def claim(request: Request, game_id: GameId, body: ClaimRequest) -> Response:
    reply = await change.claim(games_of(request), game_id, token_of(request), body.token)
    return send(reply)


@router.post(
    "/{game_id}/shares",
    response_model=shapes.Share,
    summary="A read-only token of the game, for spectators and replays",
    description="The owner's: the same token each time (it is derived from the game's "
    "id under the service's keys). Whoever holds it sees the game as its player does and "
    "can change nothing.",
    responses={200: ok("The share token."), **problems(401, 403, 404, 503)},
    openapi_extra=_owned(),
)
async def share(request: Request, game_id: GameId) -> Response:
    return send(await read.share(games_of(request), game_id, token_of(request)))


@router.get(
    "/{game_id}/replay",
    response_model=shapes.ReplayStep,
    summary="The table after a number of the game's moves",
    description="The game as its player saw it after `position` moves (0: the deal), "
    "replayed by the engine from the state as dealt: the stock stays hidden. For the "
    "owner, or whoever holds the game's share token.",
    responses={200: ok("The table then.", ETag=ETAG_HEADER), **problems(400, 401, 403, 404, 503)},
    openapi_extra=_owned(),
)
async def replay(
    request: Request,
    game_id: GameId,
    position: Annotated[int, Query(ge=0, le=1_000_000, description="Moves played.")] = 0,
) -> Response:
    reply = await replays.replay(
        games_of(request), services_of(request).database, game_id, token_of(request), position
    )
    return send(reply)


@router.get(
    "/{game_id}/result",
    response_model=shapes.SignedResult,
    summary="The game's result, signed",
    description="For a game whose record has closed: who played what and how it ended, "
    "as a JWS another backend can check offline with the keys at /.well-known/jwks.json "
    "(docs/api.md, Signed results).",
    responses={
        200: ok("The signed result.", ETag=ETAG_HEADER),
        **problems(401, 403, 404, 409, 503),
    },
    openapi_extra=_owned(),
)
async def result(request: Request, game_id: GameId) -> Response:
    return send(await results.signed_result(games_of(request), game_id, token_of(request)))


@router.delete(
    "/{game_id}",
    status_code=204,
    summary="Delete a game",
    responses={204: ok("Deleted."), **problems(401, 403, 404, 412, 503)},
    openapi_extra=_owned(_IF_MATCH),
)
async def delete_game(request: Request, game_id: GameId) -> Response:
    reply = await change.delete(
        games_of(request), game_id, token_of(request), request.headers.get("if-match")
    )
    return send(reply)
