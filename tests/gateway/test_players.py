"""Players without passwords: creation, display names, access tokens (every refusal),
refresh tokens (rotation, retries, reuse, sign-out), linking a second device, and
games owned by players (against the suite's real PostgreSQL and Redis)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from patience_gateway.settings import Settings

from tests.gateway.helpers import (
    OLD_PLAYER_KEY,
    PLAYER_KEY,
    Gateway,
    assert_problem,
    running_gateway,
)
from tests.gateway.players import (
    Session,
    new_game,
    new_player,
    session_of,
    signed_token,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_player_is_created_with_an_access_and_a_refresh_token(
    records_gateway: Gateway,
) -> None:
    response = await records_gateway.http.post("/v1/players", json={"display_name": "Ada Byron"})
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == {
        "player",
        "access_token",
        "token_type",
        "expires_in",
        "refresh_token",
        "refresh_expires_in",
    }
    assert body["token_type"] == "Bearer" and body["expires_in"] == 900
    assert body["player"]["display_name"] == "Ada Byron"
    me = await records_gateway.http.get(
        "/v1/players/me", headers={"Authorization": f"Bearer {body['access_token']}"}
    )
    assert me.status_code == 200 and me.json() == body["player"]


async def test_a_player_needs_no_body_at_all(records_gateway: Gateway) -> None:
    response = await records_gateway.http.post("/v1/players")
    assert response.status_code == 201, response.text
    assert response.json()["player"]["display_name"] is None


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("  Ada   Lovelace ", "Ada Lovelace"),
        ("\uff29\uff44\uff41", "Ida"),  # full-width letters: their plain forms (NFKC)
        ("ﬁsh", "fish"),  # a ligature
        ("Zoë", "Zoë"),
        ("a\tb\nc", "a b c"),  # white space of any kind is one space
        ("x" * 32, "x" * 32),
    ],
)
async def test_display_names_are_normalised(
    records_gateway: Gateway, given: str, kept: str
) -> None:
    player = await new_player(records_gateway, given)
    assert player.body["player"]["display_name"] == kept


@pytest.mark.parametrize(
    "refused",
    ["", "   ", "x" * 33, "a\u202eb", "a\u200db", "bell\u0007", "\ue000", "\ud800"],
    ids=[
        "empty",
        "blank",
        "too long",
        "bidi override",
        "zero-width joiner",
        "control",
        "private use",
        "lone surrogate",
    ],
)
async def test_bad_display_names_are_refused_and_nothing_is_made(
    records_gateway: Gateway, database_url: str, refused: str
) -> None:
    await records_gateway.app.state.services.players.schema_ready()
    before = await _players(database_url)
    response = await records_gateway.http.post(
        "/v1/players",
        content=json.dumps({"display_name": refused}).encode(),
        headers={"Content-Type": "application/json"},
    )
    if refused == "x" * 33 or refused.strip() == "" or refused in ("\ud800",):
        assert response.status_code in (400, 422), response.text
    else:
        assert_problem(response, 422, "invalid-display-name")
    assert await _players(database_url) == before


async def _players(database_url: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        row = await (await connection.execute("SELECT count(*) FROM players")).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_player_renames_itself_or_drops_its_name(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway, "First")
    renamed = await records_gateway.http.patch(
        "/v1/players/me", json={"display_name": "  Second "}, headers=player.auth()
    )
    assert renamed.status_code == 200 and renamed.json()["display_name"] == "Second"
    dropped = await records_gateway.http.patch(
        "/v1/players/me", json={"display_name": None}, headers=player.auth()
    )
    assert dropped.json()["display_name"] is None
    bad = await records_gateway.http.patch(
        "/v1/players/me", json={"display_name": "\u0000"}, headers=player.auth()
    )
    assert_problem(bad, 422, "invalid-display-name")


# ---------------------------------------------------------------- access tokens


async def test_the_player_routes_need_an_access_token(records_gateway: Gateway) -> None:
    for path in ("/v1/players/me", "/v1/players/me/games", "/v1/players/me/stats"):
        assert_problem(await records_gateway.http.get(path), 401, "missing-token")


@pytest.mark.parametrize(
    ("token", "code"),
    [
        (lambda: signed_token(None), "invalid-token"),  # another key altogether
        (lambda: signed_token(PLAYER_KEY, expires_in=-60), "expired-token"),
        (lambda: signed_token(PLAYER_KEY, typ="JWT"), "invalid-token"),  # not an access token
        (lambda: signed_token(PLAYER_KEY, issuer="elsewhere"), "invalid-token"),
        (lambda: signed_token(PLAYER_KEY, algorithm="none"), "invalid-token"),
        (lambda: signed_token(None, kid="0123456789abcdef"), "invalid-token"),
        (lambda: "aaa.bbb.ccc", "invalid-token"),
    ],
    ids=[
        "other key",
        "expired",
        "wrong type",
        "wrong issuer",
        "alg none",
        "unknown kid",
        "not a jwt",
    ],
)
async def test_access_tokens_that_do_not_verify_are_refused(
    records_gateway: Gateway, token: Any, code: str
) -> None:
    response = await records_gateway.http.get(
        "/v1/players/me", headers={"Authorization": f"Bearer {token()}"}
    )
    body = assert_problem(response, 401, code)
    assert "Traceback" not in str(body)


async def test_a_token_altered_in_one_character_is_refused(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    head, claims, signature = player.access.split(".")
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    for forged in (f"{head}.{claims}.{flipped}", f"{head}.{claims[:-1]}x.{signature}"):
        response = await records_gateway.http.get(
            "/v1/players/me", headers={"Authorization": f"Bearer {forged}"}
        )
        assert_problem(response, 401, "invalid-token")


async def test_a_token_signed_with_an_older_key_still_opens(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    older = signed_token(OLD_PLAYER_KEY, subject=player.player_id)
    response = await records_gateway.http.get(
        "/v1/players/me", headers={"Authorization": f"Bearer {older}"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["id"] == player.player_id


async def test_a_token_of_a_rotated_out_key_no_longer_opens(
    records_settings: Settings,
) -> None:
    """After a rotation that dropped the old key, tokens it signed are refused."""
    async with running_gateway(records_settings) as before:
        player = await new_player(before)
    rotated = replace(records_settings, player_token_keys=("77" * 32, PLAYER_KEY))
    dropped = replace(records_settings, player_token_keys=("77" * 32,))
    async with running_gateway(rotated) as gateway:
        kept = await gateway.http.get("/v1/players/me", headers=player.auth())
        assert kept.status_code == 200, kept.text
        fresh = await new_player(gateway)
    async with running_gateway(dropped) as gateway:
        assert_problem(
            await gateway.http.get("/v1/players/me", headers=player.auth()), 401, "invalid-token"
        )
        again = await gateway.http.get("/v1/players/me", headers=fresh.auth())
        assert again.status_code == 200


async def test_a_token_for_a_player_that_does_not_exist_is_refused(
    records_gateway: Gateway,
) -> None:
    ghost = signed_token(PLAYER_KEY, subject="nobody-has-this-id-xx")
    response = await records_gateway.http.get(
        "/v1/players/me", headers={"Authorization": f"Bearer {ghost}"}
    )
    assert_problem(response, 401, "invalid-token")


async def test_without_a_database_the_player_routes_answer_503_and_games_go_on(
    gateway: Gateway,
) -> None:
    response = await gateway.http.post("/v1/players", json={})
    body = assert_problem(response, 503, "records-unavailable")
    assert response.headers["retry-after"] == "1"
    assert "DATABASE_URL" in body["detail"]
    game = await gateway.create("bisley", deal=3)
    assert (await gateway.move(game, game.created["legal_moves"][0])).status_code == 200


# ---------------------------------------------------------------- refresh tokens


async def _refresh(gateway: Gateway, token: str) -> Any:
    return await gateway.http.post("/v1/sessions/refresh", json={"refresh_token": token})


async def test_a_refresh_rotates_the_refresh_token(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway, "Rotating")
    first = await _refresh(records_gateway, player.refresh)
    assert first.status_code == 200, first.text
    second = session_of(first)
    assert second.player_id == player.player_id and second.refresh != player.refresh
    assert second.body["player"]["display_name"] == "Rotating"
    me = await records_gateway.http.get("/v1/players/me", headers=second.auth())
    assert me.status_code == 200
    third = await _refresh(records_gateway, second.refresh)
    assert third.status_code == 200


async def test_a_retry_of_a_refresh_gets_the_same_answer(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    first = await _refresh(records_gateway, player.refresh)
    again = await _refresh(records_gateway, player.refresh)
    assert again.status_code == 200 and again.json() == first.json()
    # and the token it handed out works, once
    follow = await _refresh(records_gateway, first.json()["refresh_token"])
    assert follow.status_code == 200


async def test_a_refresh_token_reused_later_revokes_the_whole_family(
    records_gateway: Gateway, database_url: str
) -> None:
    player = await new_player(records_gateway)
    other_device = await new_player(records_gateway)
    rotated = session_of(await _refresh(records_gateway, player.refresh))
    # the first use is older than the retry window: a copy of the token is being used
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        await connection.execute(
            "UPDATE refresh_tokens SET used_at = used_at - interval '2 minutes' "
            "WHERE used_at IS NOT NULL AND player_id = %s",
            (player.player_id,),
        )
    reused = await _refresh(records_gateway, player.refresh)
    assert_problem(reused, 401, "refresh-token-reused")
    # the token the legitimate device holds now is revoked too: it must sign in again
    assert_problem(await _refresh(records_gateway, rotated.refresh), 401, "bad-refresh-token")
    # nobody else's session is touched
    assert (await _refresh(records_gateway, other_device.refresh)).status_code == 200


async def test_signing_out_revokes_the_device_session(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    rotated = session_of(await _refresh(records_gateway, player.refresh))
    out = await records_gateway.http.post(
        "/v1/sessions/sign-out", json={"refresh_token": rotated.refresh}
    )
    assert out.status_code == 204
    assert_problem(await _refresh(records_gateway, rotated.refresh), 401, "bad-refresh-token")
    unknown = await records_gateway.http.post(
        "/v1/sessions/sign-out", json={"refresh_token": "never-issued"}
    )
    assert_problem(unknown, 401, "bad-refresh-token")


@pytest.mark.parametrize(
    "body",
    [{"refresh_token": "made-up"}, {"refresh_token": "x" * 256}],
    ids=["unknown", "long"],
)
async def test_unknown_refresh_tokens_are_refused(records_gateway: Gateway, body: Any) -> None:
    assert_problem(
        await records_gateway.http.post("/v1/sessions/refresh", json=body), 401, "bad-refresh-token"
    )


@pytest.mark.parametrize(
    "body", [{}, {"refresh_token": ""}, {"refresh_token": 7}, {"token": "x"}, []]
)
async def test_malformed_refresh_bodies_are_refused(records_gateway: Gateway, body: Any) -> None:
    response = await records_gateway.http.post("/v1/sessions/refresh", json=body)
    assert_problem(response, 422, "malformed-body")


async def test_a_refresh_token_is_stored_only_as_its_hash(
    records_gateway: Gateway, database_url: str
) -> None:
    player = await new_player(records_gateway)
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        rows = await (
            await connection.execute(
                "SELECT token_hash::text, coalesce(answer, ''::bytea)::text FROM refresh_tokens"
            )
        ).fetchall()
    stored = " ".join(" ".join(row) for row in rows)
    assert player.refresh not in stored and player.access not in stored


# ---------------------------------------------------------------- linking a device


async def _link(gateway: Gateway, code: str, client: str = "") -> Any:
    return await gateway.http.post("/v1/sessions/link", json={"code": code})


async def test_a_link_code_opens_the_player_on_a_second_device_once(
    records_gateway: Gateway,
) -> None:
    phone = await new_player(records_gateway, "Phone")
    made = await records_gateway.http.post("/v1/players/me/link-codes", headers=phone.auth())
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    assert made.json()["expires_in"] == 300 and len(code) == 9 and code[4] == "-"
    typed = code.lower().replace("-", " ")  # as typed on the other device
    linked = await _link(records_gateway, typed)
    assert linked.status_code == 201, linked.text
    web = session_of(linked)
    assert web.player_id == phone.player_id and web.refresh != phone.refresh
    assert_problem(await _link(records_gateway, code), 404, "bad-link-code")
    # two devices, two sessions: signing one out leaves the other
    await records_gateway.http.post("/v1/sessions/sign-out", json={"refresh_token": web.refresh})
    assert (await _refresh(records_gateway, phone.refresh)).status_code == 200


async def test_a_game_started_on_one_device_is_played_on_the_other(
    records_gateway: Gateway,
) -> None:
    phone = await new_player(records_gateway)
    code = (
        await records_gateway.http.post("/v1/players/me/link-codes", headers=phone.auth())
    ).json()["code"]
    web = session_of(await _link(records_gateway, code))
    game = await new_game(records_gateway, phone, deal=5)
    moved = await records_gateway.http.post(
        f"/v1/games/{game.id}/moves",
        json={"move": game.created["legal_moves"][0]},
        headers=web.auth(),
    )
    assert moved.status_code == 200, moved.text


async def test_link_codes_are_rate_limited(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    answers = [
        await records_gateway.http.post("/v1/players/me/link-codes", headers=player.auth())
        for _ in range(6)
    ]
    assert [a.status_code for a in answers[:5]] == [201] * 5
    refused = assert_problem(answers[5], 429, "too-many-requests")
    assert int(answers[5].headers["retry-after"]) >= 1
    assert "5 per 600 s" in refused["detail"]


async def test_guessing_link_codes_is_rate_limited(records_gateway: Gateway, redis: Any) -> None:
    # the tries of one client (the test client's address) within a minute
    try:
        statuses = [(await _link(records_gateway, f"ZZZZ-{n:04d}")).status_code for n in range(12)]
    finally:  # the other tests' links come from the same address
        async for key in redis.scan_iter(match="rate:{link:*"):
            await redis.delete(key)
    assert 429 in statuses
    assert statuses[: statuses.index(429)] == [404] * statuses.index(429)


# ---------------------------------------------------------------- players' games


async def test_a_players_game_opens_to_the_player_only(records_gateway: Gateway) -> None:
    owner = await new_player(records_gateway)
    stranger = await new_player(records_gateway)
    game = await new_game(records_gateway, owner, deal=9)
    path = f"/v1/games/{game.id}"
    assert (await records_gateway.http.get(path, headers=owner.auth())).status_code == 200
    for route in ("", "/legal-moves", "/history", "/hint"):
        response = await records_gateway.http.get(path + route, headers=stranger.auth())
        assert_problem(response, 403, "bad-token")
    moved = await records_gateway.http.post(
        f"{path}/moves", json={"move": game.created["legal_moves"][0]}, headers=stranger.auth()
    )
    assert_problem(moved, 403, "bad-token")
    # a game's kind of token cannot open a player's game
    anonymous = await records_gateway.create("bisley", deal=9)
    opened = await records_gateway.http.get(path, headers=anonymous.auth())
    assert_problem(opened, 403, "bad-token")
    # nor a player's token an anonymous game
    other = await records_gateway.http.get(f"/v1/games/{anonymous.id}", headers=owner.auth())
    assert_problem(other, 403, "bad-token")


async def test_a_game_create_refuses_a_token_that_is_not_a_players(
    records_gateway: Gateway,
) -> None:
    for token, code in (
        ("not-a-player-token", "invalid-token"),
        (signed_token(None), "invalid-token"),
        (signed_token(PLAYER_KEY, expires_in=-1), "expired-token"),
    ):
        response = await records_gateway.http.post(
            "/v1/games", json={"variant": "bisley"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert_problem(response, 401, code)


async def test_a_players_create_retried_with_its_key_is_the_same_game_and_nobody_elses(
    records_gateway: Gateway,
) -> None:
    player, other = await new_player(records_gateway), await new_player(records_gateway)
    headers = {**player.auth(), "Idempotency-Key": "player-create-1"}
    first = await records_gateway.http.post("/v1/games", json={"variant": "usk"}, headers=headers)
    again = await records_gateway.http.post("/v1/games", json={"variant": "usk"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert (
        again.json()["id"] == first.json()["id"] and again.headers["idempotent-replayed"] == "true"
    )
    stolen = await records_gateway.http.post(
        "/v1/games",
        json={"variant": "usk"},
        headers={**other.auth(), "Idempotency-Key": "player-create-1"},
    )
    assert_problem(stolen, 422, "idempotency-key-reused")


async def test_tokens_of_many_players_are_told_apart_under_load(records_gateway: Gateway) -> None:
    players = [await new_player(records_gateway) for _ in range(6)]
    games = [await new_game(records_gateway, p, deal=n) for n, p in enumerate(players)]

    async def peek(player: Session, game_id: str) -> int:
        response = await records_gateway.http.get(f"/v1/games/{game_id}", headers=player.auth())
        return response.status_code

    checks = [(p, g.id, i == j) for i, p in enumerate(players) for j, g in enumerate(games)]
    statuses = await asyncio.gather(*(peek(p, g) for p, g, _ in checks))
    assert [s == 200 for s in statuses] == [own for _, _, own in checks]


async def test_new_players_are_rate_limited_per_client(
    records_settings: Settings, redis: Any
) -> None:
    async for key in redis.scan_iter(match="rate:{new-player:*"):
        await redis.delete(key)  # this client's sign-ups of the other tests
    async with running_gateway(replace(records_settings, new_players_per_minute=3)) as gateway:
        statuses = [(await gateway.http.post("/v1/players")).status_code for _ in range(4)]
        assert statuses == [201, 201, 201, 429]
        # the limit is of sign-ups only: the players made go on
        assert (await gateway.http.get("/v1/variants")).status_code == 200
