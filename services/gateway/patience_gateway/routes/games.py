"""/v1/games: create, read, play, undo, redo, history, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Path, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.responses import Response

from patience_gateway import models
from patience_gateway.openapi import (
    ETAG_HEADER,
    LOCATION_HEADER,
    REPLAYED_HEADER,
    ok,
    problems,
)
from patience_gateway.security import bearer_token
from patience_gateway.service import GameService, Reply

router = APIRouter(prefix="/v1/games", tags=["games"])

_bearer = HTTPBearer(auto_error=False, scheme_name="gameToken", bearerFormat="opaque")

Credentials = Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)]
GameId = Annotated[
    str,
    Path(
        description="The game's id, as returned on creation.",
        examples=["x7R2kJ0vQp9sYd3mN8a1Zw-_"],
    ),
]
IfMatch = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description='Apply only if the game is at this version (its ETag, e.g. `"7"`); '
        "otherwise 412 `stale-version` and nothing changes.",
        examples=['"7"'],
    ),
]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Any 1..255 printable ASCII characters. A retry with the same key on "
        "the same game gets the first answer again instead of applying twice; the same "
        "key with a different request is refused (422 `idempotency-key-reused`). Kept as "
        "long as the game.",
        examples=["5b0c3f9e-move-12"],
    ),
]


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def _token(credentials: HTTPAuthorizationCredentials | None) -> str:
    return bearer_token(None if credentials is None else f"Bearer {credentials.credentials}")


def _send(reply: Reply) -> Response:
    if not reply.body:
        return Response(status_code=reply.status, headers=reply.headers)
    return Response(reply.body, reply.status, reply.headers, media_type="application/json")


@router.post(
    "",
    status_code=201,
    response_model=models.CreatedGame,
    summary="Deal a new game",
    responses={
        201: ok(
            "The new game, with its owner token (shown only here).",
            Location=LOCATION_HEADER,
            ETag=ETAG_HEADER,
        ),
        **problems(400, 404, 413, 422, 503),
    },
)
async def create_game(request: Request, body: models.NewGameRequest) -> Response:
    game_id, reply = await _service(request).create(body)
    reply.headers["Location"] = f"{router.prefix}/{game_id}"
    return _send(reply)


@router.get(
    "/{game_id}",
    response_model=models.Game,
    summary="The player's view of a game",
    responses={
        200: ok("What the player sees.", ETag=ETAG_HEADER),
        304: ok("If-None-Match names the current version.", ETag=ETAG_HEADER),
        **problems(401, 403, 404, 503),
    },
)
async def get_game(
    request: Request,
    game_id: GameId,
    credentials: Credentials,
    if_none_match: Annotated[
        str | None, Header(alias="If-None-Match", description="A version the client already holds.")
    ] = None,
) -> Response:
    return _send(await _service(request).get(game_id, _token(credentials), if_none_match))


@router.delete(
    "/{game_id}",
    status_code=204,
    summary="Delete a game",
    responses={204: ok("Deleted."), **problems(401, 403, 404, 412, 503)},
)
async def delete_game(
    request: Request, game_id: GameId, credentials: Credentials, if_match: IfMatch = None
) -> Response:
    return _send(await _service(request).delete(game_id, _token(credentials), if_match))


@router.get(
    "/{game_id}/legal-moves",
    response_model=models.LegalMoves,
    summary="The moves that are legal now",
    responses={200: ok("Legal moves.", ETag=ETAG_HEADER), **problems(401, 403, 404, 503)},
)
async def legal_moves(request: Request, game_id: GameId, credentials: Credentials) -> Response:
    return _send(await _service(request).legal_moves(game_id, _token(credentials)))


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
)
async def make_move(
    request: Request,
    game_id: GameId,
    body: models.MoveRequest,
    credentials: Credentials,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    service = _service(request)
    reply = await service.move(game_id, _token(credentials), body, if_match, idempotency_key)
    return _send(reply)


@router.post(
    "/{game_id}/undo",
    response_model=models.Game,
    summary="Take back the last move",
    responses={
        200: ok(
            "The move was taken back; the new view.",
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 403, 404, 409, 412, 422, 503),
    },
)
async def undo(
    request: Request,
    game_id: GameId,
    credentials: Credentials,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    service = _service(request)
    return _send(await service.undo(game_id, _token(credentials), if_match, idempotency_key))


@router.post(
    "/{game_id}/redo",
    response_model=models.MoveResult,
    summary="Make the last undone move again",
    responses={
        200: ok(
            "The move was made again; the new view.",
            ETag=ETAG_HEADER,
            **{"Idempotent-Replayed": REPLAYED_HEADER},
        ),
        **problems(400, 401, 403, 404, 409, 412, 422, 503),
    },
)
async def redo(
    request: Request,
    game_id: GameId,
    credentials: Credentials,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    service = _service(request)
    return _send(await service.redo(game_id, _token(credentials), if_match, idempotency_key))


@router.get(
    "/{game_id}/history",
    response_model=models.History,
    summary="Everything needed to replay the game",
    responses={200: ok("The history.", ETag=ETAG_HEADER), **problems(401, 403, 404, 503)},
)
async def history(request: Request, game_id: GameId, credentials: Credentials) -> Response:
    return _send(await _service(request).history(game_id, _token(credentials)))
