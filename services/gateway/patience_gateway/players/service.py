"""Players without passwords: what each player route does (docs/api.md, "Players").

A player is created with one request and gets an access token (short-lived, verified
without storage: `access_tokens`) and a refresh token (long-lived, rotated on each use,
kept only as a hash: `sessions`). A second device joins the same player with a link
code made on the first (`storage.link_codes`), and gets a session of its own; or, on
any device, with an outside identity linked to the player (an OpenID Connect ID token:
`outside_identities`).

A deleted player's tokens are refused: its row reads as no player, and the routes that
read no PostgreSQL look for its mark in Redis (`storage.gone_players`).

Sign-ups, refreshes and links need PostgreSQL (the players and their sessions live
there): while it cannot be reached they answer 503 `records-unavailable`, and games
go on as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from patience_gateway.players import repository, sessions
from patience_gateway.players.access_tokens import AccessTokens, Claims, KeySet
from patience_gateway.players.codes import new_code, normal_code, shown_code
from patience_gateway.players.names import BadName, normalise_name
from patience_gateway.players.outside_identities import OutsideIdentities, OutsideIdentity
from patience_gateway.players.repository import Identity, Player
from patience_gateway.players.shapes import IdentityShape, PlayerShape, SessionShape
from patience_gateway.problems import ProblemError
from patience_gateway.storage.database import Database
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.gone_players import GonePlayers
from patience_gateway.storage.link_codes import LINK_CODE_SECONDS, LinkCodes
from patience_gateway.storage.rates import Rate, RateLimits

NEW_PLAYERS: Final = Rate("new-player", 20, 60)
LINK_CODES: Final = Rate("link-code", 5, 600)
LINK_TRIES: Final = Rate("link", 10, 60)
IDENTITY_SIGN_INS: Final = Rate("identity-sign-in", 30, 60)


def iso(when: object) -> str:
    text: str = when.isoformat(timespec="milliseconds")  # type: ignore[attr-defined]
    return text.replace("+00:00", "Z")


def player_json(player: Player) -> PlayerShape:
    return {
        "id": player.player_id,
        "display_name": player.display_name,
        "created": iso(player.created),
    }


def identity_json(identity: Identity) -> IdentityShape:
    return {"issuer": identity.issuer, "subject": identity.subject, "linked": iso(identity.linked)}


def display_name_of(raw: str | None) -> str | None:
    if raw is None:
        return None
    try:
        return normalise_name(raw)
    except BadName as error:
        raise ProblemError("invalid-display-name", str(error)) from None


@dataclass
class Players:
    """The player routes' dependencies: one per app (`Services.players`)."""

    database: Database | None
    tokens: AccessTokens | None
    links: LinkCodes
    rates: RateLimits
    schema_ready: Callable[[], Awaitable[None]]
    retry_after: int = 1
    # new players per client address and minute (Settings.new_players_per_minute)
    new_players: Rate = NEW_PLAYERS
    # the outside identities' issuers (Settings.identity_issuers); none: every ID token
    # is of an issuer not accepted
    identities: OutsideIdentities = field(default_factory=lambda: OutsideIdentities(()))

    def __post_init__(self) -> None:
        self.gone = GonePlayers(self.links.redis)

    # ------------------------------------------------------------------ access tokens

    def verify(self, token: str) -> Claims:
        """The claims of a player's access token, or the problem that refuses it."""
        if self.tokens is None:
            raise self._unconfigured()
        return self.tokens.verify(token)

    async def live(self, token: str) -> str:
        """The player of an access token, refused if the player was deleted (one Redis
        read: for the routes that read no PostgreSQL)."""
        player_id = self.verify(token).player_id
        await self.refuse_deleted(player_id)
        return player_id

    async def refuse_deleted(self, player_id: str) -> None:
        try:
            gone = await self.gone.gone(player_id)
        except STORAGE_DOWN:
            # Redis away: a route that needs it fails by itself; one that reads
            # PostgreSQL reads no deleted player there (the tombstone, or no row)
            return
        if gone:
            raise ProblemError("invalid-token", f"the player {player_id} was deleted")

    def signing_keys(self) -> KeySet:
        """The keys that sign access tokens and results (503 without them)."""
        if self.tokens is None:
            raise self._unconfigured()
        return self.tokens.keys

    def _unconfigured(self) -> ProblemError:
        return ProblemError(
            "records-unavailable",
            "this gateway keeps no players: it has no PostgreSQL (DATABASE_URL) or no "
            "player token key (PLAYER_TOKEN_KEY_FILE)",
            headers={"Retry-After": str(self.retry_after)},
        )

    def _ready(self) -> tuple[Database, AccessTokens]:
        if self.database is None or self.tokens is None:
            raise self._unconfigured()
        return self.database, self.tokens

    async def limit(self, rate: Rate, client: str) -> None:
        wait = await self.rates.wait_needed(rate, client)
        if wait > 0:
            seconds = max(int(wait + 0.999), 1)
            raise ProblemError(
                "too-many-requests",
                f"too many requests of this kind: at most {rate.requests} per "
                f"{rate.window_seconds} s; try again in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )

    # ------------------------------------------------------------------ routes

    async def create(self, display_name: str | None, client: str) -> bytes:
        """A new player and its first session (the answer's JSON)."""
        database, _ = self._ready()
        name = display_name_of(display_name)
        await self.limit(self.new_players, client)
        await self.schema_ready()
        now = sessions.utc_now()
        async with database.transaction() as connection:
            player = await repository.add(connection, repository.new_player_id(), name, now)
            refresh = await sessions.issue(
                connection, player.player_id, sessions.new_family_id(), now
            )
        return self._session_json(player, refresh)

    def _session_json(self, player: Player, refresh_token: str) -> bytes:
        assert self.tokens is not None
        access, lifetime = self.tokens.issue(player.player_id)
        body: SessionShape = {
            "player": player_json(player),
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": lifetime,
            "refresh_token": refresh_token,
            "refresh_expires_in": sessions.REFRESH_TOKEN_DAYS * 86400,
        }
        return orjson.dumps(body)

    async def me(self, player_id: str) -> bytes:
        database, _ = self._ready()
        await self.schema_ready()
        async with database.transaction() as connection:
            player = await repository.find(connection, player_id)
        return orjson.dumps(player_json(self._known(player, player_id)))

    @staticmethod
    def _known(player: Player | None, player_id: str) -> Player:
        if player is None:  # a token signed by this service for a player it lost
            raise ProblemError("invalid-token", f"there is no player {player_id}")
        return player

    async def rename(self, player_id: str, display_name: str | None) -> bytes:
        database, _ = self._ready()
        name = display_name_of(display_name)
        await self.schema_ready()
        async with database.transaction() as connection:
            player = await repository.rename(connection, player_id, name)
        return orjson.dumps(player_json(self._known(player, player_id)))

    async def refresh(self, refresh_token: str) -> bytes:
        """The next session of the device: a new access token and refresh token; the
        one presented is used up (a retry within moments gets the same answer)."""
        database, _ = self._ready()
        await self.schema_ready()
        now = sessions.utc_now()
        async with database.transaction() as connection:
            rotation = await sessions.begin_rotation(connection, refresh_token, now)
            if rotation.replay is not None:
                return rotation.replay
            player = self._known(
                await repository.find(connection, rotation.player_id), rotation.player_id
            )
            following = await sessions.issue(connection, player.player_id, rotation.family_id, now)
            answer = self._session_json(player, following)
            await sessions.keep_answer(connection, refresh_token, answer)
        return answer

    async def sign_out(self, refresh_token: str) -> None:
        """Revokes the device's session (every refresh token of its family)."""
        database, _ = self._ready()
        await self.schema_ready()
        async with database.transaction() as connection:
            known = await sessions.sign_out(connection, refresh_token, sessions.utc_now())
        if not known:
            raise ProblemError("bad-refresh-token", "this refresh token is not known here")

    async def link_code(self, player_id: str) -> bytes:
        """A one-use code that opens this player on another device, for a few minutes."""
        self._ready()
        await self.refuse_deleted(player_id)
        await self.limit(LINK_CODES, player_id)
        while True:  # a live code drawn twice is not expected; draw again if it happens
            code = new_code()
            if await self.links.keep(code, player_id):
                break
        return orjson.dumps({"code": shown_code(code), "expires_in": LINK_CODE_SECONDS})

    async def link(self, code: str, client: str) -> bytes:
        """A new session, on this device, of the player whose link code this is."""
        database, _ = self._ready()
        await self.limit(LINK_TRIES, client)
        await self.schema_ready()
        now = sessions.utc_now()
        # PostgreSQL answers before the code is used up: an outage costs the code nothing
        async with database.transaction() as connection:
            player_id = await self.links.use(normal_code(code))
            if player_id is None:
                raise ProblemError(
                    "bad-link-code",
                    "this link code is not known: it was used, expired or mistyped",
                )
            player = self._known(await repository.find(connection, player_id), player_id)
            refresh = await sessions.issue(connection, player_id, sessions.new_family_id(), now)
        return self._session_json(player, refresh)

    # ------------------------------------------------------------------ identities

    async def link_identity(self, player_id: str, id_token: str, nonce: str | None) -> bytes:
        """Links an outside identity to the player (again: nothing changes)."""
        database, _ = self._ready()
        identity = await self.identities.verify(id_token, nonce)
        await self.schema_ready()
        now = sessions.utc_now()
        async with database.transaction() as connection:
            self._known(await repository.find(connection, player_id), player_id)
            if not await repository.link_identity(
                connection, player_id, identity.issuer, identity.subject, now
            ):
                raise ProblemError(
                    "identity-taken", "this identity is linked to another player already"
                )
            linked = await repository.identities_of(connection, player_id)
        found = next(
            i for i in linked if (i.issuer, i.subject) == (identity.issuer, identity.subject)
        )
        return orjson.dumps(identity_json(found))

    async def identities_of(self, player_id: str) -> bytes:
        database, _ = self._ready()
        await self.schema_ready()
        async with database.transaction() as connection:
            self._known(await repository.find(connection, player_id), player_id)
            linked = await repository.identities_of(connection, player_id)
        return orjson.dumps([identity_json(i) for i in linked])

    async def identity_session(self, id_token: str, nonce: str | None, client: str) -> bytes:
        """A new session, on this device, of the player an outside identity is linked
        to; the player's other sessions are left as they are."""
        database, _ = self._ready()
        await self.limit(IDENTITY_SIGN_INS, client)
        identity: OutsideIdentity = await self.identities.verify(id_token, nonce)
        await self.schema_ready()
        now = sessions.utc_now()
        async with database.transaction() as connection:
            player = await repository.player_of_identity(
                connection, identity.issuer, identity.subject
            )
            if player is None:
                raise ProblemError(
                    "unknown-identity", "no player has linked this identity: link it first"
                )
            refresh = await sessions.issue(
                connection, player.player_id, sessions.new_family_id(), now
            )
        return self._session_json(player, refresh)

    # ------------------------------------------------------------------ export

    async def export_head(self, player_id: str) -> dict[str, Any]:
        """What an export says of the player itself: the player and its identities."""
        database, _ = self._ready()
        await self.schema_ready()
        async with database.transaction() as connection:
            player = self._known(await repository.find(connection, player_id), player_id)
            linked = await repository.identities_of(connection, player_id)
        return {
            "player": player_json(player),
            "identities": [identity_json(i) for i in linked],
        }
