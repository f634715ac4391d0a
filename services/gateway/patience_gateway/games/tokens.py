"""A game's id and the tokens that open it.

A game id is 144 random bits, url-safe; the owner token 256 random bits, shown once
at creation. Redis keeps only the token's SHA-256, so a copy of the database does
not hand out games; the comparison is constant-time. A player's game opens to its
player's access token instead (players/access_tokens.py).

Share links: a read-only token of one game, for spectators and replays. The owner asks
for the game's share token (POST .../shares); whoever holds it may read the game as its
player sees it (the view, its legal moves and history, its event stream, its replay,
its signed result) and nothing more: no move, no undo, no hint (a hint would count in
the player's record). The token is an HMAC of the game's id under a secret derived from
the players' keys, so nothing is stored, and it verifies under every key still kept (a
rotation keeps shares working while the old key stays). It is told apart from the other
tokens by its prefix.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import Final

from patience_gateway.players.access_tokens import KeySet
from patience_gateway.problems import ProblemError

# token_urlsafe(18) encodes 18 random bytes (144 bits) as 24 characters, no padding.
_ID_BYTES = 18
_TOKEN_BYTES = 32
# Text shaped like a game id (anything else cannot name a game).
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{24}$")
# A game token is 43 characters, a player's access token (a JWT) about 300; room to spare.
MAX_TOKEN_CHARS = 1024
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def new_game_id() -> str:
    return secrets.token_urlsafe(_ID_BYTES)


def new_token() -> str:
    return secrets.token_urlsafe(_TOKEN_BYTES)


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header: missing-token without
    one, malformed-header when the token is not RFC 6750's token68 (ASCII letters,
    digits and `-._~+/`, then `=` padding) of at most MAX_TOKEN_CHARS."""
    if authorization:
        scheme, _, token = authorization.partition(" ")
        token = token.strip(" ")
        if scheme.lower() == "bearer" and token:
            if len(token) > MAX_TOKEN_CHARS or not _TOKEN68.fullmatch(token):
                raise ProblemError(
                    "malformed-header",
                    f"the bearer token must be at most {MAX_TOKEN_CHARS} characters of "
                    "ASCII letters, digits and -._~+/",
                )
            return token
    raise ProblemError(
        "missing-token",
        "send a token as `Authorization: Bearer <token>` (the game's own, or a player's "
        "access token)",
    )


def check_token(token: str, stored_digest: bytes) -> None:
    """Raise bad-token unless `token` is the game's token."""
    if not hmac.compare_digest(token_digest(token), stored_digest):
        raise ProblemError("bad-token", "this token does not own this game")


def authorise(token: str, player: str | None, owner: str, token_digest: bytes) -> None:
    """Lets the request touch the game, or raises bad-token: a player's game opens to its
    player's access token only; an anonymous game to its own token only."""
    if player is not None:
        if player != owner:
            raise ProblemError("bad-token", "this game is not this player's")
        return
    if owner:
        raise ProblemError(
            "bad-token", "this game belongs to a player: send the player's access token"
        )
    check_token(token, token_digest)


PREFIX: Final = "sh."
_PURPOSE: Final = b"patience share token"


def is_share_token(token: str) -> bool:
    return token.startswith(PREFIX)


def _mac(secret: bytes, game_id: str) -> str:
    digest = hmac.new(secret, game_id.encode(), hashlib.sha256).digest()[:24]
    return PREFIX + base64.urlsafe_b64encode(digest).decode()


def share_token(keys: KeySet, game_id: str) -> str:
    """The game's share token under the current key."""
    return _mac(keys.secrets(_PURPOSE)[0], game_id)


def opens(keys: KeySet, game_id: str, token: str) -> bool:
    """Whether `token` is the share token of this game under one of the keys."""
    return any(
        hmac.compare_digest(token, _mac(secret, game_id)) for secret in keys.secrets(_PURPOSE)
    )


def share_json(game_id: str, token: str) -> dict[str, str]:
    """Where the share token opens the game (it is sent as a bearer token)."""
    return {
        "token": token,
        "view": f"/v1/games/{game_id}",
        "replay": f"/v1/games/{game_id}/replay?position=0",
        "stream_tickets": f"/v1/games/{game_id}/stream-tickets",
    }
