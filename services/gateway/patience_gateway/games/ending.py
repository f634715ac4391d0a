"""Ending a game without a move, and giving an anonymous game to a player.

- resign (POST .../resign): the player stops. The record closes as `resigned`, or as
  `proven-lost` when the service had proven that no line wins (a hint proved it, or
  the game only goes round in circles): resigning a lost game is not giving up a
  chance. The game takes no more changes.
- abandon (the drain, `records.outbox`): a player's game that has not changed for
  ABANDON_AFTER_SECONDS closes as `abandoned`.
- claim (POST .../claim): an anonymous game, with its token, becomes a player's; from
  then on the player's access token opens it and the game token does not. A claimed
  game counts as practice (the player could choose which games to claim).

Each is one compare-and-set write that also leaves a player's game's outbox entry.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from patience_gateway.games import shares, views
from patience_gateway.games.deps import Games, OwnedGame, known_id, unknown_game
from patience_gateway.games.preconditions import check_tags, etag, require_match
from patience_gateway.games.recording import ended_entry, facts_of, started_entry
from patience_gateway.games.replies import Reply, json_bytes
from patience_gateway.games.security import check_token
from patience_gateway.games.writes import lost_race
from patience_gateway.problems import ProblemError
from patience_gateway.records.outbox import AbandonCheck, AbandonResult
from patience_gateway.records.record import ABANDONED, PRACTICE, PROVEN_LOST, RESIGNED
from patience_gateway.storage.outcomes import Outcome
from patience_gateway.storage.records import CommitResult


async def resign(games: Games, game_id: str, token: str, if_match: str | None) -> Reply:
    check_tags(if_match, "If-Match")
    game = await games.owned(game_id, token)
    require_match(if_match, game.version)
    if game.record.finished:
        raise ProblemError(
            "game-over", f"the game ended already ({game.record.outcome}): nothing to resign"
        )
    view = await games.ask(games.engine.player_view(game.state))
    loaded = game.loaded
    hopeless = views.outlook_name(view, loaded.proven_lost) in views.HOPELESS
    now = games.clock()
    record = game.record.changed("resign", now).ended(PROVEN_LOST if hopeless else RESIGNED, now)
    version = game.version + 1
    payload = json_bytes(game.view_json(view, version=version, record=record))
    entry = ended_entry(game, record, view, loaded.open_deal)
    result = await games.store.end_game(
        game_id,
        expected_version=game.version,
        record=record.encode(),
        event=("resign", payload),
        outbox_entry=entry,
    )
    return await _written(games, game_id, result, payload, entry, if_match)


async def _written(
    games: Games,
    game_id: str,
    result: CommitResult,
    payload: bytes,
    entry: bytes,
    if_match: str | None,
) -> Reply:
    if result.outcome is Outcome.OK:
        if entry:
            await games.announce(game_id)
        return Reply(200, payload, {"ETag": etag(result.version)})
    if result.outcome is Outcome.GONE:
        raise unknown_game(game_id)
    if result.outcome is Outcome.TAKEN:
        raise ProblemError("already-claimed", "another player claimed this game meanwhile")
    raise lost_race(result.version, if_match)


async def claim(games: Games, game_id: str, access_token: str, game_token: str) -> Reply:
    """The anonymous game opened by `game_token` becomes the player's of `access_token`."""
    known_id(game_id)
    player = games.player_of(access_token)
    if player is None:
        raise ProblemError(
            "invalid-token", "claim a game with a player's access token (POST /v1/players)"
        )
    loaded = await games.store.load(game_id)
    if loaded is None:
        raise unknown_game(game_id)
    # the game's own token first: without it nothing is told of the game (a claimed
    # game's token opens it no more, so a second claim is refused here too)
    check_token(game_token, loaded.token_digest)
    game = OwnedGame.of(game_id, loaded)
    if game.record.finished:
        raise ProblemError(
            "game-over", "a game that has ended cannot be claimed: its record is closed"
        )
    view = await games.ask(games.engine.player_view(game.state))
    claimed = OwnedGame.of(game_id, replace(loaded, owner=player, category=PRACTICE))
    version = game.version + 1
    payload = json_bytes(claimed.view_json(view, version=version))
    entry = started_entry(facts_of(claimed, view, loaded.open_deal, claimed=True), claimed.record)
    result = await games.store.claim(
        game_id,
        expected_version=game.version,
        player_id=player,
        category=PRACTICE,
        event_body=payload,
        outbox_entry=entry,
    )
    return await _written(games, game_id, result, payload, entry, None)


async def abandon(games: Games, game_id: str, abandon_after: timedelta, now: int) -> AbandonCheck:
    """Ends a player's game as abandoned if at `now` (milliseconds since the epoch) it
    has not changed for `abandon_after` (for the drain, which finds the games due in
    PostgreSQL; the game may have changed since)."""
    loaded = await games.store.peek(game_id)
    if loaded is None:
        if await games.store.has_outbox(game_id):  # its end waits to be drained
            return AbandonCheck(AbandonResult.LATER, _moment(now) + timedelta(minutes=5))
        return AbandonCheck(AbandonResult.GONE)
    game = OwnedGame.of(game_id, loaded)
    if game.record.finished or not game.owner:
        return AbandonCheck(AbandonResult.ENDED)
    due = game.record.last_change_ms + int(abandon_after.total_seconds() * 1000)
    if due > now:
        return AbandonCheck(AbandonResult.LATER, _moment(due))
    view = await games.ask(games.engine.player_view(game.state))
    record = game.record.ended(ABANDONED, now)
    payload = json_bytes(game.view_json(view, version=game.version + 1, record=record))
    entry = ended_entry(game, record, view, loaded.open_deal)
    result = await games.store.end_game(
        game_id,
        expected_version=game.version,
        record=record.encode(),
        event=("abandon", payload),
        outbox_entry=entry,
    )
    if result.outcome is Outcome.OK:
        await games.announce(game_id)
        return AbandonCheck(AbandonResult.ENDED)
    if result.outcome is Outcome.GONE:
        return AbandonCheck(AbandonResult.GONE)
    return AbandonCheck(AbandonResult.LATER, _moment(now))  # it changed: look again soon


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


async def share(games: Games, game_id: str, token: str) -> Reply:
    """The game's share token, for its owner (not for whoever holds a share already)."""
    await games.owned(game_id, token)
    if games.players is None:
        raise ProblemError("records-unavailable", "this gateway has no key to share games with")
    token_ = shares.share_token(games.players.signing_keys(), game_id)
    return Reply(200, json_bytes(shares.share_json(game_id, token_)), {"Cache-Control": "no-store"})
