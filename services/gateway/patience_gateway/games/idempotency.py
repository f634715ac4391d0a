"""Idempotency-Keys on the changes of a game: the key's form, the request's
fingerprint, and the stored answer given again to a retry."""

from __future__ import annotations

import hashlib

from patience_gateway.games.replies import Reply
from patience_gateway.games.requests import MoveRequest
from patience_gateway.problems import ProblemError
from patience_gateway.storage.records import StoredAnswer
from patience_gateway.storage.store import GameStore

MAX_IDEMPOTENCY_KEY = 255


def check_idempotency_key(key: str | None) -> str:
    """The key ("" for none), or malformed-header."""
    if key is None:
        return ""
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise ProblemError(
            "malformed-header", "Idempotency-Key must be 1..255 printable ASCII characters"
        )
    return key


def fingerprint(operation: str, request: MoveRequest | None) -> str:
    """Identifies a request's meaning, so a reused Idempotency-Key can be told apart."""
    canonical = "" if request is None else request.model_dump_json(exclude_defaults=True)
    return hashlib.sha256(f"{operation}\n{canonical}".encode()).hexdigest()[:32]


def stored_reply(answer: StoredAnswer) -> Reply:
    return Reply(answer.status, answer.body, {"ETag": answer.etag, "Idempotent-Replayed": "true"})


async def replayed(
    store: GameStore, game_id: str, answer: StoredAnswer | None, print_: str
) -> Reply | None:
    """The stored answer when this Idempotency-Key was used before. Where changes
    wait for replicas, the answer is given again only once they have the change
    too (it may have been answered 503 the first time for want of them)."""
    if answer is None:
        return None
    if answer.fingerprint != print_:
        raise ProblemError(
            "idempotency-key-reused",
            "this Idempotency-Key was used on this game for a different request",
        )
    await store.confirm_replicated(game_id)
    return stored_reply(answer)
