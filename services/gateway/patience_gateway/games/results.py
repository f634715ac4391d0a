"""Signed results: a finished game's result as a JWS that another backend can check
offline with the public keys at /.well-known/jwks.json (docs/api.md, "Signed results").

The result is signed with the players' current key (Ed25519, EdDSA), the keys that sign
access tokens and rotate with them: a result signed before a rotation still verifies
while its key stays among the old keys. Its claims say what the service vouches for:
whose game it was, what was played (variant, options, the deal number when the player
may know it), how it ended (outcome, moves, active time, clean) and when.
"""

from __future__ import annotations

import time
from typing import Any, Final

import jwt

from patience_gateway.games import answers
from patience_gateway.games.answers import Reply, json_bytes
from patience_gateway.games.preconditions import etag
from patience_gateway.games.service import Games, OwnedGame
from patience_gateway.players.access_tokens import ALGORITHM, ISSUER
from patience_gateway.problems import ProblemError

RESULT_TYPE: Final = "patience-result+jwt"


def result_claims(
    game: OwnedGame[Any], variant: str, options: list[str], deal: str | None
) -> dict[str, Any]:
    record = game.record
    assert record.finished_ms is not None
    return {
        "iss": ISSUER,
        "sub": game.owner or None,
        "iat": int(time.time()),
        "game": game.id,
        "variant": variant,
        "options": options,
        "deal": deal,
        "outcome": record.outcome,
        "moves": record.moves,
        "active_seconds": record.active_ms / 1000,
        "clean": record.clean,
        "category": game.category,
        "daily": game.meta.daily or None,
        "finished": record.finished_ms // 1000,
    }


async def signed_result(games: Games, game_id: str, token: str) -> Reply:
    """The game's result, signed; 409 game-not-over while its record is open."""
    game = await games.owned(game_id, token, read_only=True)
    if not game.record.finished:
        raise ProblemError("game-not-over", "the game has not ended: it has no result yet")
    if games.players is None:
        raise ProblemError("records-unavailable", "this gateway has no signing key")
    keys = games.players.signing_keys()
    view = await games.ask(games.engine.player_view(game.state))
    meta = game.meta
    deal = answers.visible_deal(meta.open_deal or view.deal or None, meta.daily or None)
    claims = result_claims(game, view.variant, list(view.options), deal)
    signed = jwt.encode(
        claims,
        keys.signing,
        algorithm=ALGORITHM,
        headers={"kid": keys.signing_id, "typ": RESULT_TYPE},
    )
    body = {"result": signed, "claims": claims}
    return Reply(200, json_bytes(body), {"ETag": etag(game.version), "Cache-Control": "no-store"})
