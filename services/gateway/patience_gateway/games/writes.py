"""How a change of a game (move, undo, redo, autoplay) is begun and written.

The shape of every change is the same: one read round trip (state, version, token
hash, the idempotency record and the game's record: `begin`), one engine call, one
compare-and-set write (`commit`) that writes the game's next record with the change.
Nothing else writes, so a failure anywhere leaves the game as it was. (A player's game
whose record the change closes then names its outbox as waiting: a second call, after
the change is made, that the drain's sweep stands in for if it fails.)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from patience_contract.client import GameReply
from solitaire.v1 import engine_pb2

from patience_gateway.games import views
from patience_gateway.games.deps import Games, Load, OwnedGame, unknown_game
from patience_gateway.games.idempotency import check_idempotency_key, fingerprint, replayed
from patience_gateway.games.preconditions import check_tags, etag, require_match
from patience_gateway.games.recording import ended_entry
from patience_gateway.games.replies import Reply, json_bytes
from patience_gateway.games.requests import MoveRequest
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import GameRecord
from patience_gateway.storage.outcomes import Outcome
from patience_gateway.storage.records import StoredAnswer

log = logging.getLogger("patience_gateway")


@dataclass(frozen=True, slots=True)
class Change:
    """A change's start: the game loaded for its owner, its Idempotency-Key and the
    request's fingerprint, or the stored answer to give again."""

    game: OwnedGame
    key: str
    fingerprint: str
    replayed: Reply | None


async def begin(
    games: Games,
    operation: str,
    game_id: str,
    token: str,
    if_match: str | None,
    idempotency_key: str | None,
    load: Load,
    request: MoveRequest | None = None,
) -> Change:
    """What every change of a game starts with: the Idempotency-Key and If-Match
    checked, the game loaded for its owner, then either the answer stored for a key
    used before, or the version matched against If-Match."""
    key = check_idempotency_key(idempotency_key)
    check_tags(if_match, "If-Match")
    game = await games.owned(game_id, token, load, key)
    print_ = fingerprint(operation, request) if key else ""
    again = await replayed(games.store, game_id, game.loaded.answer, print_)
    if again is None:
        require_match(if_match, game.version)
        refuse_if_given_up(game.record)
    return Change(game, key, print_, again)


def refuse_if_given_up(record: GameRecord) -> None:
    """A game resigned or abandoned takes no more changes (a game won or stuck does:
    an undo may look back, though its record no longer changes)."""
    if record.given_up:
        raise ProblemError(
            "game-over", f"the game ended ({record.outcome}): it takes no more changes"
        )


async def commit(
    games: Games,
    operation: str,
    change: Change,
    reply: GameReply | engine_pb2.AutoplayResponse,
    if_match: str | None,
    body: Mapping[str, Any],
    *,
    record: GameRecord,
    move: str = "",
    meta: dict[str, str | bytes] | None = None,
    open_deal: str = "",
) -> Reply:
    """Write the change and the game's next `record` if the game is still at the
    version read; else explain why not. `meta`: more fields of the game's meta hash to
    set with it. `open_deal`: the deal number the view keeps showing."""
    game_id, version = change.game.id, change.game.version
    payload = json_bytes(body)
    new_tag = etag(version + 1)
    answer = StoredAnswer(change.fingerprint, 200, new_tag, payload) if change.key else None
    status = views.status_name(reply.view.status)
    meta = dict(meta or {})
    if record != change.game.record:
        meta["record"] = record.encode()
    if status in views.OVER and reply.view.deal:
        # The engine shows a random deal's number at its end: the store keeps it
        # (the sealed state does not let it read it) for the history and for undo.
        meta["deal"] = reply.view.deal
    entry = ended_entry(change.game, record, reply.view, open_deal)
    result = await games.store.commit(
        operation,
        game_id,
        expected_version=version,
        state=reply.state.SerializeToString(),
        status=status,
        move=move,
        idempotency_key=change.key,
        answer=answer,
        meta=meta,
        # every open stream of the game gets the same body as this answer
        event=(operation, payload),
        outbox_entry=entry,
    )
    if result.outcome is Outcome.OK:
        if entry:
            await games.announce(game_id)
        return Reply(200, payload, {"ETag": new_tag})
    if result.outcome is Outcome.IDEMPOTENT_REPLAY:
        # A retry with the same key won the race: answer as it was answered.
        again = await replayed(games.store, game_id, result.answer, change.fingerprint)
        assert again is not None
        return again
    if result.outcome is Outcome.GONE:
        raise unknown_game(game_id)
    if result.outcome is Outcome.STALE:
        raise lost_race(result.version, if_match)
    # EMPTY: the lists changed although the version did not; cannot happen while
    # every write goes through these scripts.
    log.error(
        "%s on game %s found nothing to %s at version %s", operation, game_id, operation, version
    )
    raise ProblemError("internal", "the server failed to process the game")


def lost_race(version: int, if_match: str | None) -> ProblemError:
    """The problem for a write that found the game at another version than it read."""
    current = etag(version)
    if if_match is not None:
        return ProblemError(
            "stale-version",
            f"the game changed to version {current} meanwhile; nothing was applied",
            headers={"ETag": current},
        )
    return ProblemError(
        "concurrent-update",
        "another request changed the game meanwhile; nothing was applied",
        headers={"ETag": current},
    )
