"""Where a game lives in Redis: its keys, all under one hash tag (the game's id), so
that on a Redis Cluster they share a slot and one script may touch them all."""

from __future__ import annotations

import functools
from typing import NamedTuple


class GameKeys(NamedTuple):
    """A game's keys; bytes throughout (redis-py passes bytes on without re-encoding)."""

    meta: bytes
    states: bytes
    moves: bytes
    redo: bytes
    idem: bytes
    idem_order: bytes


def game_keys(game_id: str) -> GameKeys:
    base = f"game:{{{game_id}}}:".encode()
    return GameKeys(
        *(base + name for name in (b"meta", b"states", b"moves", b"redo", b"idem", b"idemq"))
    )


def events_key(game_id: str) -> bytes:
    """The game's recent events (a list) and the pub/sub channel they are published on:
    one name for both (keys and channels are apart in Redis), in the game's slot."""
    return f"game:{{{game_id}}}:events".encode()


def ticket_key(game_id: str, ticket_digest: str) -> bytes:
    return f"game:{{{game_id}}}:ticket:{ticket_digest}".encode()


def legacy_key(game_id: str) -> bytes:
    """The one hash of the earlier layout (read only to upgrade a game kept in it)."""
    return f"game:{{{game_id}}}:data".encode()


def outbox_key(game_id: str) -> bytes:
    """The game's outbox (a stream): what its player's records in PostgreSQL have still
    to learn of it (`records.outbox`)."""
    return f"game:{{{game_id}}}:outbox".encode()


@functools.lru_cache(maxsize=4096)
def script_keys(game_id: str) -> tuple[bytes, ...]:
    """KEYS of every script: the game's keys, the earlier layout's hash, the events,
    the outbox. Kept for the games used lately: a move names them twice."""
    return (*game_keys(game_id), legacy_key(game_id), events_key(game_id), outbox_key(game_id))


def created_answer_key(game_id: str) -> bytes:
    """Where a create sent with an Idempotency-Key keeps its answer (the game's hash
    tag)."""
    return f"game:{{{game_id}}}:created".encode()
