"""Game ids and owner tokens.

A game id is 144 random bits, url-safe; the owner token 256 random bits, shown once
at creation. Redis keeps only the token's SHA-256, so a copy of the database does
not hand out games; the comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

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
