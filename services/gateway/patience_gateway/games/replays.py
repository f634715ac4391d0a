"""Replays: a game's table after any number of its moves (GET .../replay?position=k),
for its owner or whoever holds its share link (`shares`).

The table after k moves is the state as dealt with the first k moves of the history
applied, by the engine: the stock stays hidden, as it was when the game was played. A
restart in the history takes the table back to the deal. A game still in Redis is
replayed from there; a player's finished game that Redis no longer keeps, from its
record in PostgreSQL (its history and its state as dealt).
"""

from __future__ import annotations

from typing import Any

from solitaire.v1 import game_pb2

from patience_gateway.games import answers, tokens
from patience_gateway.games.answers import Reply, json_bytes
from patience_gateway.games.change import RESTART_STEP, moves_of
from patience_gateway.games.preconditions import etag
from patience_gateway.games.service import Games, known_id, unknown_game
from patience_gateway.games.tokens import authorise
from patience_gateway.problems import ProblemError
from patience_gateway.records import repository
from patience_gateway.records.answers import record_json
from patience_gateway.storage.database import Database


def after(moves: list[str], position: int) -> list[str]:
    """The moves to apply to the state as dealt to reach `position`: those after the
    last restart among the first `position` moves."""
    played = moves[:position]
    if RESTART_STEP in played:
        played = played[len(played) - played[::-1].index(RESTART_STEP) :]
    return played


def _position(position: int, length: int) -> int:
    if not 0 <= position <= length:
        raise ProblemError(
            "invalid-position", f"position must be from 0 to {length}, the moves played"
        )
    return position


async def replay(
    games: Games, database: Database | None, game_id: str, token: str, position: int
) -> Reply:
    known_id(game_id)
    try:
        game = await games.opened(game_id, token, games.store.load_dealt, read_only=True)
    except ProblemError as problem:
        if problem.kind.code != "unknown-game" or database is None:
            raise
        return await _replay_kept(games, database, game_id, token, position)
    history = await games.store.load_history(game_id)
    if history is None:
        raise unknown_game(game_id)
    moves = moves_of(history.steps)
    position = _position(position, len(moves))
    reply = await games.replay(game.state, after(moves, position))
    body: Any = game.view_json(reply.view, proven_lost=False)
    return _step(body, position, moves, game.version)


async def _replay_kept(
    games: Games, database: Database, game_id: str, token: str, position: int
) -> Reply:
    """A player's finished game, replayed from PostgreSQL."""
    shared = tokens.is_share_token(token)
    if shared:
        games.check_share(game_id, token, read_only=True)
    player = None if shared else games.player_of(token)
    async with database.transaction() as connection:
        kept = await repository.replayable(connection, game_id)
    if kept is None:
        raise unknown_game(game_id)
    if not shared:
        authorise(token, player, kept.player_id, b"")
    moves = moves_of(kept.history)
    position = _position(position, len(moves))
    dealt = game_pb2.SealedState.FromString(kept.dealt)
    reply = await games.replay(dealt, after(moves, position))
    row = kept.row
    record = record_json(row.record, row.category, kept.player_id, row.daily)
    # the number shown once the game was over; a daily deal's, once its day is over too
    shown = answers.visible_deal(row.deal, row.daily or None) or ""
    body: Any = answers.game_json(game_id, 0, reply.view, shown, record=record)
    return _step(body, position, moves, 0)


def _step(body: dict[str, Any], position: int, moves: list[str], version: int) -> Reply:
    body["position"] = position
    body["length"] = len(moves)
    body["last_move"] = moves[position - 1] if position else None
    return Reply(200, json_bytes(body), {"ETag": etag(version), "Cache-Control": "no-store"})
