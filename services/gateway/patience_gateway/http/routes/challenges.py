"""/v1/games/{id}/challenges and /v1/challenges: a game's deal offered to a friend with
a one-use code, and both results side by side (docs/api.md, "Challenges")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from patience_gateway.games import shapes
from patience_gateway.games.challenges import Challenges
from patience_gateway.http.exchange import client_of, players_of, send, services_of, token_of
from patience_gateway.http.openapi import ETAG_HEADER, LOCATION_HEADER, PLAYER_SCHEME, ok, problems
from patience_gateway.http.routes.games import GameId

offers = APIRouter(prefix="/v1/games", tags=["challenges"])
router = APIRouter(prefix="/v1/challenges", tags=["challenges"])

Code = Annotated[str, Path(max_length=32, description="The code as given (XXXX-XXXX).")]
_PLAYER: dict[str, Any] = {"security": [{PLAYER_SCHEME: []}]}


def _challenges_of(request: Request) -> Challenges:
    return services_of(request).challenges


def _json(body: bytes, status: int = 200) -> Response:
    return Response(body, status, {"Cache-Control": "no-store"}, media_type="application/json")


@offers.post(
    "/{game_id}/challenges",
    status_code=201,
    response_model=shapes.ChallengeOffer,
    summary="Offer the game's deal to a friend",
    description="A one-use code, good for 7 days, that deals the same deal to another "
    "player with its number hidden. The friend's game is practice. A daily deal can be "
    "offered once its day is over. For the game's player; rate limited per player.",
    responses={201: ok("The code."), **problems(401, 403, 404, 409, 429, 503)},
    openapi_extra=_PLAYER,
)
async def offer_challenge(request: Request, game_id: GameId) -> Response:
    return _json(await _challenges_of(request).offer(game_id, token_of(request)), 201)


@router.get(
    "/{code}",
    response_model=shapes.Challenge,
    summary="A challenge: both players and, once both games are over, both records",
    description="For whoever has the code. Rate limited per client.",
    responses={200: ok("The challenge."), **problems(404, 429, 503)},
    openapi_extra={"security": []},
)
async def get_challenge(request: Request, code: Code) -> Response:
    return _json(await _challenges_of(request).show(code, client_of(request)))


@router.post(
    "/{code}/games",
    status_code=201,
    response_model=shapes.CreatedGame,
    summary="Take a challenge: the player's game of its deal",
    description="Once: the code deals one game, to a player other than the one who offered "
    "it. Rate limited per client.",
    responses={
        201: ok("The new game.", Location=LOCATION_HEADER, ETag=ETAG_HEADER),
        **problems(401, 404, 409, 429, 503),
    },
    openapi_extra=_PLAYER,
)
async def take_challenge(request: Request, code: Code) -> Response:
    player = players_of(request).verify(token_of(request)).player_id
    game_id, reply = await _challenges_of(request).take(code, player, client_of(request))
    reply.headers["Location"] = f"/v1/games/{game_id}"
    return send(reply)
