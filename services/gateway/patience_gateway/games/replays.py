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

from patience_contract.client import GameReply
from solitaire.v1 import game_pb2

from patience_gateway.games import shares, views
from patience_gateway.games.deps import Games, authorise, known_id, unknown_game
from patience_gateway.games.entries import RESTART_ENTRY, entry_moves
from patience_gateway.games.preconditions import etag
from patience_gateway.games.replies import Reply, json_bytes
from patience_gateway.problems import ProblemError
from patience_gateway.records import repository
from patience_gateway.records import views as record_views
from patience_gateway.storage.database import Database


def after(moves: list[str], position: int) -> list[str]:
    """The moves to apply to the state as dealt to reach `position`: those after the
    last restart among the first `position` moves."""
    played = moves[:position]
    if RESTART_ENTRY in played:
        played = played[len(played) - played[::-1].index(RESTART_ENTRY) :]
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
        game = await games.owned(game_id, token, games.store.load_for_restart, read_only=True)
    except ProblemError as problem:
        if problem.kind.code != "unknown-game" or database is None:
            raise
        return await _replay_kept(games, database, game_id, token, position)
    history = await games.store.load_history(game_id)
    if history is None:
        raise unknown_game(game_id)
    moves = entry_moves(history.moves)
    position = _position(position, len(moves))
    reply = await _apply(games, game.state, after(moves, position))
    loaded = game.loaded
    body: Any = views.game_json(
        game_id,
        game.version,
        reply.view,
        loaded.open_deal,
        record=game.record_json(),
        autoplay=loaded.autoplay,
    )
    return _step(body, position, moves, game.version)


async def _replay_kept(
    games: Games, database: Database, game_id: str, token: str, position: int
) -> Reply:
    """A player's finished game, replayed from PostgreSQL."""
    shared = shares.is_share_token(token)
    if shared:
        games.check_share(game_id, token, read_only=True)
    player = None if shared else games.player_of(token)
    async with database.transaction() as connection:
        kept = await repository.replayable(connection, game_id)
    if kept is None:
        raise unknown_game(game_id)
    if not shared:
        authorise(token, player, kept.player_id, b"")
    moves = entry_moves(kept.history)
    position = _position(position, len(moves))
    dealt = game_pb2.SealedState.FromString(kept.dealt)
    reply = await _apply(games, dealt, after(moves, position))
    row = kept.row
    record = record_views.record_json(row.record, row.category, kept.player_id, row.daily)
    # the number shown once the game was over; a daily deal's, once its day is over too
    shown = views.visible_deal(row.deal, row.daily or None) or ""
    body: Any = views.game_json(game_id, 0, reply.view, shown, record=record)
    return _step(body, position, moves, 0)


async def _apply(games: Games, state: game_pb2.SealedState, moves: list[str]) -> GameReply:
    batch = games.replay_batch
    reply = await games.ask(games.engine.apply_moves(state, moves[:batch]))
    for start in range(batch, len(moves), batch):
        reply = await games.ask(games.engine.apply_moves(reply.state, moves[start : start + batch]))
    return reply


def _step(body: dict[str, Any], position: int, moves: list[str], version: int) -> Reply:
    body["position"] = position
    body["length"] = len(moves)
    body["last_move"] = moves[position - 1] if position else None
    return Reply(200, json_bytes(body), {"ETag": etag(version), "Cache-Control": "no-store"})
