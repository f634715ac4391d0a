"""Signed results: a finished game's result verifies with the keys the gateway
publishes at /.well-known/jwks.json, offline; altered in one field it does not; a result
signed before a key rotation still verifies while the old key is kept."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from typing import Any

import jwt
import pytest
from patience_gateway.settings import Settings

from tests.gateway.helpers import PLAYER_KEY, Gateway, assert_problem, running_gateway
from tests.gateway.players import bisley_win, new_game, new_player, play

pytestmark = pytest.mark.asyncio(loop_scope="session")


def verify(result: str, jwks: dict[str, Any]) -> dict[str, Any]:
    """What a backend elsewhere does: the key named by the result's kid, from the
    published set; the signature, the algorithm, the type and the issuer checked."""
    kid = jwt.get_unverified_header(result)["kid"]
    key = next(k for k in jwks["keys"] if k["kid"] == kid)
    public = jwt.PyJWK.from_dict(key).key
    claims: dict[str, Any] = jwt.decode(
        result,
        public,
        algorithms=["EdDSA"],
        issuer="patience-gateway",
        options={"verify_iat": True},
    )
    assert jwt.get_unverified_header(result)["typ"] == "patience-result+jwt"
    return claims


async def won_game(gateway: Gateway) -> tuple[Any, Any]:
    player = await new_player(gateway)
    deal, moves = bisley_win()
    game = await new_game(gateway, player, "bisley", deal=deal)
    await play(gateway, game, moves)
    return player, game


async def test_a_won_games_result_verifies_with_the_published_keys(
    records_gateway: Gateway,
) -> None:
    player, game = await won_game(records_gateway)
    answer = await records_gateway.http.get(f"/v1/games/{game.id}/result", headers=player.auth())
    assert answer.status_code == 200, answer.text
    jwks = (await records_gateway.http.get("/.well-known/jwks.json")).json()
    assert {k["kty"] for k in jwks["keys"]} == {"OKP"} and len(jwks["keys"]) == 2
    claims = verify(answer.json()["result"], jwks)
    assert claims == answer.json()["claims"]
    deal, moves = bisley_win()
    assert claims["sub"] == player.player_id and claims["game"] == game.id
    assert (claims["variant"], claims["deal"], claims["outcome"]) == ("bisley", str(deal), "won")
    assert claims["moves"] == len(moves) and claims["clean"] is True


@pytest.mark.parametrize(
    ("field", "value"),
    [("outcome", "won"), ("moves", 1), ("sub", "someone-else-22-chars-"), ("clean", True)],
)
async def test_a_result_altered_in_one_field_does_not_verify(
    records_gateway: Gateway, field: str, value: Any
) -> None:
    player = await new_player(records_gateway)
    game = await new_game(records_gateway, player, "bisley", deal=3)
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    await records_gateway.http.post(f"/v1/games/{game.id}/resign", headers=player.auth())
    result = (
        await records_gateway.http.get(f"/v1/games/{game.id}/result", headers=player.auth())
    ).json()["result"]
    jwks = (await records_gateway.http.get("/.well-known/jwks.json")).json()
    assert verify(result, jwks)["outcome"] == "resigned"
    head, body, signature = result.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims[field] = value
    forged_body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    with pytest.raises(jwt.InvalidSignatureError):
        verify(f"{head}.{forged_body}.{signature}", jwks)


async def test_a_result_signed_before_a_rotation_still_verifies(
    records_settings: Settings,
) -> None:
    async with running_gateway(records_settings) as before:
        player, game = await won_game(before)
        result = (
            await before.http.get(f"/v1/games/{game.id}/result", headers=player.auth())
        ).json()["result"]
    rotated = replace(records_settings, player_token_keys=("99" * 32, PLAYER_KEY))
    async with running_gateway(rotated) as after:
        jwks = (await after.http.get("/.well-known/jwks.json")).json()
        assert verify(result, jwks)["game"] == game.id
        fresh = (await after.http.get(f"/v1/games/{game.id}/result", headers=player.auth())).json()[
            "result"
        ]
        assert jwt.get_unverified_header(fresh)["kid"] != jwt.get_unverified_header(result)["kid"]
        assert verify(fresh, jwks)["game"] == game.id
    dropped = replace(records_settings, player_token_keys=("99" * 32,))
    async with running_gateway(dropped) as later:
        jwks = (await later.http.get("/.well-known/jwks.json")).json()
        with pytest.raises(StopIteration):
            verify(result, jwks)  # its key is no longer published


async def test_a_game_in_play_has_no_result(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=5)
    response = await records_gateway.http.get(f"/v1/games/{game.id}/result", headers=game.auth())
    assert_problem(response, 409, "game-not-over")


async def test_without_keys_there_are_no_published_keys(gateway: Gateway) -> None:
    assert_problem(await gateway.http.get("/.well-known/jwks.json"), 503, "records-unavailable")
