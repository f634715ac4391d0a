"""Sessions of players' devices: refresh tokens, kept only as their SHA-256, in
PostgreSQL.

A refresh token is 256 random bits that a device keeps (long-lived,
REFRESH_TOKEN_DAYS). Each use rotates it: the token is marked used and a new one of the
same family (the device's chain of tokens) is issued with a new access token. A used
token presented again means two parties hold it: the whole family is revoked and the
device must sign in again (link a device, or create a player). Signing out revokes the
family.

A client that sent a refresh and lost the answer retries with the same token: within
RETRY_SECONDS of the first use it gets the same answer again (kept sealed under a key
derived from the token, which the server does not keep), not a revocation.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from psycopg import AsyncConnection

from patience_gateway.problems import ProblemError

REFRESH_TOKEN_DAYS: Final = 90
RETRY_SECONDS: Final = 60
TOKEN_BYTES: Final = 32


def new_refresh_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _answer_key(token: str) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"patience refresh answer"
    ).derive(token.encode())


def seal_answer(token: str, answer: bytes) -> bytes:
    nonce = secrets.token_bytes(12)
    return nonce + AESGCM(_answer_key(token)).encrypt(nonce, answer, None)


def open_answer(token: str, sealed: bytes) -> bytes:
    return AESGCM(_answer_key(token)).decrypt(sealed[:12], sealed[12:], None)


def new_family_id() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(12)).decode()


@dataclass(frozen=True)
class Rotation:
    """A refresh that went through: the player, and the new token's family. `replay`:
    the answer given to the same token moments ago (a retry), to give again."""

    player_id: str
    family_id: str
    replay: bytes | None = None


async def issue(connection: AsyncConnection, player_id: str, family_id: str, now: datetime) -> str:
    """A new refresh token of `family_id` for `player_id` (in the caller's transaction)."""
    token = new_refresh_token()
    await connection.execute(
        "INSERT INTO refresh_tokens (token_hash, family_id, player_id, issued_at, expires_at)"
        " VALUES (%s, %s, %s, %s, %s)",
        (token_hash(token), family_id, player_id, now, now + timedelta(days=REFRESH_TOKEN_DAYS)),
    )
    return token


async def begin_rotation(connection: AsyncConnection, token: str, now: datetime) -> Rotation:
    """Checks `token` and marks it used (the caller then issues the next one and calls
    `keep_answer`, all in one transaction), or raises the problem that refuses it. A reuse after the
    retry window revokes the family and commits that at once."""
    row = await (
        await connection.execute(
            "SELECT player_id, family_id, expires_at, used_at, revoked_at, answer"
            " FROM refresh_tokens WHERE token_hash = %s FOR UPDATE",
            (token_hash(token),),
        )
    ).fetchone()
    if row is None:
        raise ProblemError("bad-refresh-token", "this refresh token is not known here")
    player_id, family_id, expires_at, used_at, revoked_at, answer = row
    if revoked_at is not None:
        raise ProblemError(
            "bad-refresh-token", "this refresh token was revoked (signed out): sign in again"
        )
    if used_at is not None:
        if answer is not None and now - used_at <= timedelta(seconds=RETRY_SECONDS):
            return Rotation(player_id, family_id, open_answer(token, answer))
        await revoke_family(connection, family_id, now)
        await connection.commit()
        raise ProblemError(
            "refresh-token-reused",
            "this refresh token was used before: every session of this device is revoked",
        )
    if expires_at <= now:
        raise ProblemError("bad-refresh-token", "this refresh token has expired: sign in again")
    await connection.execute(
        "UPDATE refresh_tokens SET used_at = %s WHERE token_hash = %s", (now, token_hash(token))
    )
    return Rotation(player_id, family_id)


async def keep_answer(connection: AsyncConnection, token: str, answer: bytes) -> None:
    """The answer to `token`'s refresh, sealed, for a retry within RETRY_SECONDS."""
    await connection.execute(
        "UPDATE refresh_tokens SET answer = %s WHERE token_hash = %s",
        (seal_answer(token, answer), token_hash(token)),
    )


async def revoke_family(connection: AsyncConnection, family_id: str, now: datetime) -> None:
    await connection.execute(
        "UPDATE refresh_tokens SET revoked_at = %s WHERE family_id = %s AND revoked_at IS NULL",
        (now, family_id),
    )


async def sign_out(connection: AsyncConnection, token: str, now: datetime) -> bool:
    """Revokes the family of `token`; False when the token is not known."""
    row = await (
        await connection.execute(
            "SELECT family_id FROM refresh_tokens WHERE token_hash = %s", (token_hash(token),)
        )
    ).fetchone()
    if row is None:
        return False
    await revoke_family(connection, row[0], now)
    return True


def utc_now() -> datetime:
    return datetime.now(UTC)
