"""Outside identities against a real OpenID Connect issuer on loopback (its own keys,
its key set served over HTTP): linking an identity, signing in with it on a new device,
one player an identity, and the ID tokens refused (signature, expiry, audience, issuer,
nonce); the issuer's keys rotating, and its host down."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace

import jwt
import pytest
from patience_gateway.players.outside_identities import OutsideIdentities
from patience_gateway.problems import ProblemError
from patience_gateway.settings import IdentityIssuer, Settings, SettingsError

from tests.gateway.helpers import Gateway, assert_problem, running_gateway
from tests.gateway.issuer import AUDIENCE, LoopbackIssuer, SigningKey
from tests.gateway.players import Session, new_player, session_of

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(scope="module")
def issuer() -> Iterator[LoopbackIssuer]:
    server = LoopbackIssuer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def identity_gateway(
    records_settings: Settings, issuer: LoopbackIssuer
) -> AsyncIterator[Gateway]:
    settings = replace(
        records_settings,
        identity_issuers=(IdentityIssuer(issuer.url, AUDIENCE, issuer.jwks_url),),
        identity_refetch_seconds=0,  # a key id the set lacks is fetched for at once
    )
    async with running_gateway(settings) as gateway:
        yield gateway


def someone() -> str:
    return f"user-{uuid.uuid4().hex}"


async def link(gateway: Gateway, player: Session, id_token: str, **body: str) -> int:
    answer = await gateway.http.post(
        "/v1/players/me/identities", json={"id_token": id_token, **body}, headers=player.auth()
    )
    return answer.status_code


async def test_a_player_comes_back_on_a_new_device_with_its_identity(
    identity_gateway: Gateway, issuer: LoopbackIssuer
) -> None:
    gateway = identity_gateway
    player = await new_player(gateway)
    subject = someone()
    linked = await gateway.http.post(
        "/v1/players/me/identities",
        json={"id_token": issuer.token(subject)},
        headers=player.auth(),
    )
    assert linked.status_code == 201, linked.text
    assert linked.json()["issuer"] == issuer.url and linked.json()["subject"] == subject
    listed = await gateway.http.get("/v1/players/me/identities", headers=player.auth())
    assert [i["subject"] for i in listed.json()] == [subject]

    signed_in = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(subject)}
    )
    assert signed_in.status_code == 201, signed_in.text
    phone = session_of(signed_in)
    assert phone.player_id == player.player_id and phone.refresh != player.refresh
    assert (await gateway.http.get("/v1/players/me", headers=phone.auth())).status_code == 200
    # the first device's session is left as it was
    refreshed = await gateway.http.post(
        "/v1/sessions/refresh", json={"refresh_token": player.refresh}
    )
    assert refreshed.status_code == 200, refreshed.text


async def test_an_identity_belongs_to_one_player(
    identity_gateway: Gateway, issuer: LoopbackIssuer
) -> None:
    gateway = identity_gateway
    first, second = await new_player(gateway), await new_player(gateway)
    subject = someone()
    assert await link(gateway, first, issuer.token(subject)) == 201
    assert await link(gateway, first, issuer.token(subject)) == 201  # again: nothing changes
    taken = await gateway.http.post(
        "/v1/players/me/identities",
        json={"id_token": issuer.token(subject)},
        headers=second.auth(),
    )
    assert_problem(taken, 409, "identity-taken")
    unknown = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(someone())}
    )
    assert_problem(unknown, 404, "unknown-identity")


async def test_a_deleted_players_identity_opens_nothing_and_is_free_again(
    identity_gateway: Gateway, issuer: LoopbackIssuer
) -> None:
    gateway = identity_gateway
    player, subject = await new_player(gateway), someone()
    assert await link(gateway, player, issuer.token(subject)) == 201
    assert (await gateway.http.delete("/v1/players/me", headers=player.auth())).status_code == 204
    signed_in = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(subject)}
    )
    assert_problem(signed_in, 404, "unknown-identity")
    assert await link(gateway, await new_player(gateway), issuer.token(subject)) == 201


async def test_id_tokens_that_do_not_verify_are_refused(
    identity_gateway: Gateway, issuer: LoopbackIssuer
) -> None:
    gateway = identity_gateway
    subject = someone()
    player = await new_player(gateway)
    forger = SigningKey.rsa()
    forged = replace(forger, kid=issuer.published[-1].kid)  # a published key's id, not its key
    refused = {
        "expired": issuer.token(subject, expires_in=-120),
        "another app": issuer.token(subject, audience="another.app"),
        "unknown issuer": issuer.token(subject, issuer="https://elsewhere.example"),
        "forged signature": issuer.token(subject, key=forged),
        "unpublished key": issuer.token(subject, key=SigningKey.ec()),
        "wrong nonce": issuer.token(subject, nonce="n-1"),
        "symmetric": jwt.encode(
            {"iss": issuer.url, "sub": subject, "aud": AUDIENCE, "exp": 2**31, "iat": 0},
            "a shared secret of some length here",
            algorithm="HS256",
            headers={"kid": issuer.published[-1].kid},
        ),
        "not a JWT": "nonsense",
    }
    for what, id_token in refused.items():
        body = (
            {"id_token": id_token, "nonce": "n-2"}
            if what == "wrong nonce"
            else {"id_token": id_token}
        )
        for path, headers in (
            ("/v1/sessions/identity", {}),
            ("/v1/players/me/identities", player.auth()),
        ):
            answer = await gateway.http.post(path, json=body, headers=headers)
            problem = assert_problem(answer, 401, "bad-identity-token")
            assert 'error="invalid_token"' in answer.headers["www-authenticate"], what
            assert problem["detail"], what
    listed = await gateway.http.get("/v1/players/me/identities", headers=player.auth())
    assert listed.json() == []
    # the nonce the sign-in sent, in the token: taken
    assert await link(gateway, player, issuer.token(subject, nonce="n-3"), nonce="n-3") == 201


async def test_a_rotated_key_is_fetched_and_the_host_down_keeps_the_known_keys(
    identity_gateway: Gateway, issuer: LoopbackIssuer
) -> None:
    gateway = identity_gateway
    player, subject = await new_player(gateway), someone()
    assert await link(gateway, player, issuer.token(subject)) == 201
    before = issuer.fetches
    rotated = issuer.rotate(SigningKey.ec())
    signed_in = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(subject, key=rotated)}
    )
    assert signed_in.status_code == 201, signed_in.text
    assert issuer.fetches == before + 1  # the unknown key id fetched the set again
    cached = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(subject, key=rotated)}
    )
    assert cached.status_code == 201 and issuer.fetches == before + 1

    issuer.stop()
    try:
        known = await gateway.http.post(
            "/v1/sessions/identity", json={"id_token": issuer.token(subject, key=rotated)}
        )
        assert known.status_code == 201, known.text
        newer = issuer.rotate(SigningKey.rsa())
        unknown = await gateway.http.post(
            "/v1/sessions/identity", json={"id_token": issuer.token(subject, key=newer)}
        )
        assert_problem(unknown, 503, "identity-unavailable")
        assert int(unknown.headers["retry-after"]) >= 1
    finally:
        issuer.start()
    back = await gateway.http.post(
        "/v1/sessions/identity", json={"id_token": issuer.token(subject, key=newer)}
    )
    assert back.status_code == 201, back.text


async def test_keys_that_verified_are_used_past_the_sets_lifetime_while_the_host_is_down() -> None:
    """The set's cache expired (a second's lifetime, waited out) and the host down: a
    key that verified a token before still verifies; one never seen is a 503."""
    issuer = LoopbackIssuer().start()
    try:
        identities = OutsideIdentities(
            [IdentityIssuer(issuer.url, AUDIENCE, issuer.jwks_url)], keys_seconds=1
        )
        first = await identities.verify(issuer.token("someone"))
        assert first.subject == "someone" and first.issuer == issuer.url
        issuer.stop()
        await asyncio.sleep(1.2)  # past the set's lifetime: the next use fetches it
        again = await identities.verify(issuer.token("someone"))
        assert again == first
        with pytest.raises(ProblemError) as refused:
            await identities.verify(issuer.token("someone", key=issuer.rotate(SigningKey.ec())))
        assert refused.value.kind.code == "identity-unavailable"
    finally:
        issuer.stop()


async def test_issuers_are_read_from_the_environment() -> None:
    given = (
        '[{"issuer": "https://accounts.google.com", "audience": "123.apps", '
        '"jwks_url": "https://www.googleapis.com/oauth2/v3/certs"}, '
        '{"issuer": "https://appleid.apple.com", "audience": "com.example.patience", '
        '"jwks_url": "https://appleid.apple.com/auth/keys"}]'
    )
    settings = Settings.from_env({"IDENTITY_ISSUERS": given})
    assert [i.issuer for i in settings.identity_issuers] == [
        "https://accounts.google.com",
        "https://appleid.apple.com",
    ]
    for wrong in (
        "not json",
        '{"issuer": "x"}',
        '[{"issuer": "x", "audience": "y"}]',
        '[{"issuer": "x", "audience": "y", "jwks_url": "file:///etc/passwd"}]',
    ):
        with pytest.raises(SettingsError, match="IDENTITY_ISSUERS"):
            Settings.from_env({"IDENTITY_ISSUERS": wrong})
