"""/v1/games: play, undo, redo, read, create, history, delete.

The routes read their headers (Authorization, If-Match, Idempotency-Key) from the
request itself instead of declaring them as FastAPI parameters: on the move path
FastAPI's per-parameter resolution cost more than the rest of the route's own work.
The headers are documented in the OpenAPI schema all the same (`openapi_extra`).
Routes are declared hot first: the router tries them in order. Most moves do not
even reach the router: `fast_moves` answers them with `move_response`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from patience_gateway import models
from patience_gateway.openapi import (
    ENTITY_TAGS_SCHEMA,
    ETAG_HEADER,
    IDEMPOTENCY_KEY_SCHEMA,
    LOCATION_HEADER,
    REPLAYED_HEADER,
    TOKEN_SCHEME,
    ok,
    problems,
)
from patience_gateway.security import bearer_token
from patience_gateway.service import GameService, Reply

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
    """openapi_extra of a route that needs the game's token and reads `headers`."""
    extra: dict[str, Any] = {"security": [{TOKEN_SCHEME: []}]}
    if headers:
        extra["parameters"] = list(headers)
    return extra


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def _token(request: Request) -> str:
    return bearer_token(request.headers.get("authorization"))


def _send(reply: Reply) -> Response:
    if not reply.body:
        return Response(status_code=reply.status, headers=reply.headers)
    return Response(reply.body, reply.status, reply.headers, media_type="application/json")


@router.post(
    "/{game_id}/moves",
    response_model=models.MoveResult,
    summary="Make a move",
    responses={
        200: ok(
            "The move was applied; the new view.",
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 403, 404, 409, 412, 413, 422, 503),
    },
    openapi_extra=_owned(_IF_MATCH, _IDEMPOTENCY_KEY),
)
async def make_move(request: Request, game_id: GameId, body: models.MoveRequest) -> Response:
    headers = request.headers
    return await move_response(
        _service(request),
        game_id,
        body,
        authorization=headers.get("authorization"),
        if_match=headers.get("if-match"),
        idempotency_key=headers.get("idempotency-key"),
    )


async def move_response(
    service: GameService,
    game_id: str,
    body: models.MoveRequest,
    *,
    authorization: str | None,
    if_match: str | None,
    idempotency_key: str | None,
) -> Response:
    """What the move route answers; `fast_moves` answers the ordinary requests of
    this route with it too, without FastAPI's layers."""
    reply = await service.move(
        game_id, bearer_token(authorization), body, if_match, idempotency_key
    )
    return _send(reply)


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


HistoryStep = Callable[[str, str, str | None, str | None], Awaitable[Reply]]


async def _take_history_step(request: Request, game_id: str, step: HistoryStep) -> Response:
    headers = request.headers
    reply = await step(
        game_id, _token(request), headers.get("if-match"), headers.get("idempotency-key")
    )
    return _send(reply)


@_history_step_route(
    "undo", models.Game, "Take back the last move", "The move was taken back; the new view."
)
async def undo(request: Request, game_id: GameId) -> Response:
    return await _take_history_step(request, game_id, _service(request).undo)


@_history_step_route(
    "redo",
    models.MoveResult,
    "Make the last undone move again",
    "The move was made again; the new view.",
)
async def redo(request: Request, game_id: GameId) -> Response:
    return await _take_history_step(request, game_id, _service(request).redo)


@router.post(
    "/{game_id}/autoplay",
    response_model=models.AutoplayResult,
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
    return await _take_history_step(request, game_id, _service(request).autoplay)


@router.get(
    "/{game_id}",
    response_model=models.Game,
    summary="The player's view of a game",
    responses={
        200: ok("What the player sees.", ETag=ETAG_HEADER),
        304: ok("If-None-Match names the current version.", ETag=ETAG_HEADER),
        **problems(401, 403, 404, 409, 503),
    },
    openapi_extra=_owned(_IF_NONE_MATCH),
)
async def get_game(request: Request, game_id: GameId) -> Response:
    reply = await _service(request).get(
        game_id, _token(request), request.headers.get("if-none-match")
    )
    return _send(reply)


@router.get(
    "/{game_id}/legal-moves",
    response_model=models.LegalMoves,
    summary="The moves that are legal now, structured",
    responses={200: ok("Legal moves.", ETag=ETAG_HEADER), **problems(401, 403, 404, 409, 503)},
    openapi_extra=_owned(),
)
async def legal_moves(request: Request, game_id: GameId) -> Response:
    return _send(await _service(request).legal_moves(game_id, _token(request)))


@router.get(
    "/{game_id}/hint",
    response_model=models.Hint,
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
    return _send(await _service(request).hint(game_id, _token(request)))


@router.get(
    "/{game_id}/history",
    response_model=models.History,
    summary="Everything needed to replay the game",
    responses={200: ok("The history.", ETag=ETAG_HEADER), **problems(401, 403, 404, 503)},
    openapi_extra=_owned(),
)
async def history(request: Request, game_id: GameId) -> Response:
    return _send(await _service(request).history(game_id, _token(request)))


@router.post(
    "",
    status_code=201,
    response_model=models.CreatedGame,
    summary="Deal a new game",
    responses={
        201: ok(
            "The new game, with its owner token (shown only here, and to a retry "
            "with the same Idempotency-Key).",
            Location=LOCATION_HEADER,
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 404, 413, 422, 503),
    },
    openapi_extra={"parameters": [_CREATE_IDEMPOTENCY_KEY]},
)
async def create_game(request: Request, body: models.NewGameRequest) -> Response:
    game_id, reply = await _service(request).create(body, request.headers.get("idempotency-key"))
    reply.headers["Location"] = f"{router.prefix}/{game_id}"
    return _send(reply)


@router.patch(
    "/{game_id}",
    response_model=models.Game,
    summary="Change the game's settings",
    description="A JSON merge patch (RFC 7396; `application/merge-patch+json` or "
    '`application/json`) of the game\'s settings: `{"autoplay": true}` plays every safe '
    "move to a foundation after each move. A new version (the view shows the settings), "
    "a `settings` event on the game's stream; the position and its history stay as they "
    "are.",
    responses={
        200: ok("The settings were changed; the new view.", ETag=ETAG_HEADER),
        **problems(400, 401, 403, 404, 409, 412, 422, 503),
    },
    openapi_extra=_owned(_IF_MATCH),
)
async def patch_game(request: Request, game_id: GameId, body: models.GamePatch) -> Response:
    reply = await _service(request).patch(
        game_id, _token(request), body, request.headers.get("if-match")
    )
    return _send(reply)


@router.delete(
    "/{game_id}",
    status_code=204,
    summary="Delete a game",
    responses={204: ok("Deleted."), **problems(401, 403, 404, 412, 503)},
    openapi_extra=_owned(_IF_MATCH),
)
async def delete_game(request: Request, game_id: GameId) -> Response:
    reply = await _service(request).delete(
        game_id, _token(request), request.headers.get("if-match")
    )
    return _send(reply)
