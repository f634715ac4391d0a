"""Changing a game: a move, autoplay, undo, redo and restart (each one change of the
history, begun and written by `writes`), its settings (PATCH), and its deletion. Each
change is a new version, and goes to the game's event streams; each but the settings
counts in the game's record (`recording`)."""

from __future__ import annotations

from patience_contract.client import EngineError, GameReply
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.games import views
from patience_gateway.games.deps import Games, unknown_game
from patience_gateway.games.entries import RESTART_ENTRY, entry_moves, history_entry
from patience_gateway.games.enums import MOVE_KIND
from patience_gateway.games.preconditions import check_tags, etag, require_match
from patience_gateway.games.read import shown_deal
from patience_gateway.games.recording import ended_entry, next_record
from patience_gateway.games.replies import Reply, json_bytes
from patience_gateway.games.requests import GamePatch, MoveRequest, NotationMove
from patience_gateway.games.writes import begin, commit, lost_race, refuse_if_given_up
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import ABANDONED, AUTOPLAY, MOVE, REDO, RESTART, UNDO
from patience_gateway.storage.outcomes import Outcome
from patience_gateway.storage.records import DealEnding


def _engine_move(request: MoveRequest) -> str | game_pb2.Move:
    """The engine's move for a request: its notation, or a Move message."""
    body = request.root
    if isinstance(body, NotationMove):
        return body.move
    return game_pb2.Move(
        kind=game_pb2.MoveKind.ValueType(MOVE_KIND.number(body.kind)),
        source=body.source,
        target=body.target,
        count=body.count,
        columns=body.columns,
    )


async def move(
    games: Games,
    game_id: str,
    token: str,
    request: MoveRequest,
    if_match: str | None,
    idempotency_key: str | None,
) -> Reply:
    change = await begin(
        games, "move", game_id, token, if_match, idempotency_key, games.store.load, request
    )
    if change.replayed is not None:
        return change.replayed
    game = change.game
    try:
        reply: GameReply = await games.engine.apply_move(game.state, _engine_move(request))
    except EngineError as error:
        problem = games.client_problem(error)
        if problem.status == 422:  # the game is as it was: its version, to retry from
            problem.headers["ETag"] = etag(game.version)
        raise problem from None
    loaded = game.loaded
    if loaded.autoplay and reply.view.status == game_pb2.GAME_STATUS_PLAYING:
        reply = await _with_safe_moves(games, reply)
    record = next_record(game, MOVE, games.clock(), reply.view, reply.applied)
    body = views.move_result_json(
        game_id,
        game.version + 1,
        reply,
        loaded.open_deal,
        record=game.record_json(record),
        autoplay=loaded.autoplay,
    )
    result = await commit(
        games,
        "move",
        change,
        reply,
        if_match,
        body,
        record=record,
        move=history_entry(reply.applied),
        open_deal=loaded.open_deal,
    )
    if result.status == 200 and "Idempotent-Replayed" not in result.headers:
        games.on_move_applied(reply.view.variant)
    return result


async def _with_safe_moves(games: Games, reply: GameReply) -> GameReply:
    """The move's reply followed by the engine's autoplay: one change, the move's
    events first."""
    safe = await games.ask(games.engine.autoplay(reply.state))
    if not safe.applied:
        return reply
    return engine_pb2.ApplyMovesResponse(
        state=safe.state,
        view=safe.view,
        applied=[*reply.applied, *safe.applied],
        events=[*reply.events, *safe.events],
    )


async def autoplay(
    games: Games, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
) -> Reply:
    """Every card that can safely go to a foundation, as one change; with none, the
    game as it is (200, the same version, nothing stored or published)."""
    change = await begin(
        games, "autoplay", game_id, token, if_match, idempotency_key, games.store.load
    )
    if change.replayed is not None:
        return change.replayed
    game, loaded = change.game, change.game.loaded
    reply = await games.ask(games.engine.autoplay(game.state))
    changed = bool(reply.applied)
    record = next_record(game, AUTOPLAY, games.clock(), reply.view) if changed else game.record
    body = views.autoplay_json(
        game_id,
        game.version + changed,
        reply,
        loaded.open_deal,
        record=game.record_json(record),
        proven_lost=loaded.proven_lost and not changed,  # a proof holds for its version
        autoplay=loaded.autoplay,
    )
    if not changed:
        return Reply(200, json_bytes(body), {"ETag": etag(game.version)})
    return await commit(
        games,
        "autoplay",
        change,
        reply,
        if_match,
        body,
        record=record,
        move=history_entry(reply.applied),
        open_deal=loaded.open_deal,
    )


def _ends_a_random_deal(ending: DealEnding | None) -> bool:
    """Whether an undo from here takes back the end of a random deal, whose number the
    engine showed when the game ended."""
    return ending is not None and ending.deal_secret and ending.status in views.OVER


async def undo(
    games: Games, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
) -> Reply:
    change = await begin(
        games, "undo", game_id, token, if_match, idempotency_key, games.store.load_for_undo
    )
    if change.replayed is not None:
        return change.replayed
    game, loaded = change.game, change.game.loaded
    if loaded.position == 0:
        raise ProblemError("nothing-to-undo", "the game is at its deal")
    # Replaying from a stored state keeps the hidden stock exactly as it was dealt;
    # the store gives the checkpoint before the target and fewer than K moves (and the
    # deal, when a restart is among them: the replay starts again from there).
    start, moves = game.state, entry_moves(loaded.moves)
    if loaded.dealt is not None and RESTART_ENTRY in moves:
        start = game_pb2.SealedState.FromString(loaded.dealt)
        moves = moves[len(moves) - moves[::-1].index(RESTART_ENTRY) :]
    reply = await games.ask(_replay(games, start, moves))
    open_deal: str = loaded.open_deal
    meta: dict[str, str | bytes] | None = None
    if not open_deal and _ends_a_random_deal(loaded.ending):
        # Taking back the end of a random deal: its number has been shown, so the
        # player knows what comes next. The game stays an open one from now on:
        # the view keeps the number and says the game is replayed.
        assert loaded.ending is not None
        open_deal = loaded.ending.deal or await shown_deal(games, game_id) or ""
        meta = {"open": open_deal}
    record = next_record(game, UNDO, games.clock())
    body = game.changed_json(reply.view, record, open_deal)
    return await commit(
        games, "undo", change, reply, if_match, body, record=record, meta=meta, open_deal=open_deal
    )


async def _replay(games: Games, state: game_pb2.SealedState, moves: list[str]) -> GameReply:
    """The state after `moves` from `state`: one engine call, or a few for a history
    longer than the engine takes in one batch."""
    batch = games.replay_batch
    reply = await games.engine.apply_moves(state, moves[:batch])
    for start in range(batch, len(moves), batch):
        reply = await games.engine.apply_moves(reply.state, moves[start : start + batch])
    return reply


async def redo(
    games: Games, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
) -> Reply:
    change = await begin(
        games, "redo", game_id, token, if_match, idempotency_key, games.store.load_for_redo
    )
    if change.replayed is not None:
        return change.replayed
    game, loaded = change.game, change.game.loaded
    if loaded.next_redo is None:
        raise ProblemError("nothing-to-redo", "no undone move is waiting to be redone")
    now = games.clock()
    if loaded.next_redo == RESTART_ENTRY.encode():
        # the state read is the deal: a restart played again
        reply = await games.ask(games.engine.apply_moves(game.state, []))
        record = next_record(game, REDO, now)
        body = game.changed_json(reply.view, record)
    else:
        moves = entry_moves([loaded.next_redo])
        reply = await games.ask(games.engine.apply_moves(game.state, moves))
        record = next_record(game, REDO, now, reply.view)
        body = views.move_result_json(
            game_id,
            game.version + 1,
            reply,
            loaded.open_deal,
            record=game.record_json(record),
            autoplay=loaded.autoplay,
        )
    return await commit(
        games, "redo", change, reply, if_match, body, record=record, open_deal=loaded.open_deal
    )


async def restart(
    games: Games, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
) -> Reply:
    """Back to the deal, as one change: undo takes it back whole, and the record counts it
    (a restart shows the player what the deal leads to, so a win after one is not clean)."""
    change = await begin(
        games, "restart", game_id, token, if_match, idempotency_key, games.store.load_for_restart
    )
    if change.replayed is not None:
        return change.replayed
    game, loaded = change.game, change.game.loaded
    if loaded.at_deal:
        raise ProblemError("nothing-to-restart", "the game stands at its deal already")
    reply = await games.ask(games.engine.apply_moves(game.state, []))
    open_deal: str = loaded.open_deal
    meta: dict[str, str | bytes] | None = None
    if not open_deal and loaded.deal_secret and loaded.deal:
        # a random deal whose end was shown: played again, it is an open game (as undo)
        open_deal = loaded.deal
        meta = {"open": open_deal}
    record = next_record(game, RESTART, games.clock())
    body = game.changed_json(reply.view, record, open_deal)
    return await commit(
        games,
        "restart",
        change,
        reply,
        if_match,
        body,
        record=record,
        move=RESTART_ENTRY,
        meta=meta,
        open_deal=open_deal,
    )


async def patch(
    games: Games, game_id: str, token: str, patch: GamePatch, if_match: str | None
) -> Reply:
    """Changes the game's settings (a JSON merge patch: a field left out stays, null
    resets it) as a new version; the view answers, and goes to the game's streams."""
    check_tags(if_match, "If-Match")
    game = await games.owned(game_id, token)
    loaded = game.loaded
    require_match(if_match, game.version)
    refuse_if_given_up(game.record)
    autoplay = loaded.autoplay
    if "autoplay" in patch.model_fields_set:
        autoplay = bool(patch.autoplay)
    view = await games.ask(games.engine.player_view(game.state))
    version = game.version + 1
    payload = json_bytes(game.view_json(view, version=version, autoplay=autoplay))
    result = await games.store.set_settings(
        game_id, expected_version=game.version, autoplay=autoplay, event_body=payload
    )
    if result.outcome is Outcome.OK:
        return Reply(200, payload, {"ETag": etag(version)})
    if result.outcome is Outcome.GONE:
        raise unknown_game(game_id)
    raise lost_race(result.version, if_match)


async def delete(games: Games, game_id: str, token: str, if_match: str | None) -> Reply:
    """Deletes the game. A player's game that had not ended ends as abandoned (a loss,
    once a move was made): deleting a game does not take it out of the statistics."""
    check_tags(if_match, "If-Match")
    game = await games.owned(game_id, token)
    require_match(if_match, game.version)
    entry = b""
    if game.owner and not game.record.finished:
        view = await games.ask(games.engine.player_view(game.state))
        record = game.record.ended(ABANDONED, games.clock())
        entry = ended_entry(game, record, view, game.loaded.open_deal)
    expected = game.version if if_match is not None else None
    result = await games.store.delete(game_id, expected, entry)
    if result.outcome is Outcome.OK and entry:
        await games.announce(game_id)
    if result.outcome is Outcome.STALE:
        raise ProblemError(
            "stale-version",
            f"the game changed to version {etag(result.version)} meanwhile; not deleted",
            headers={"ETag": etag(result.version)},
        )
    if result.outcome is Outcome.GONE:
        raise unknown_game(game_id)
    return Reply(204, b"")
