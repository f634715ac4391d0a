"""Changing a game: every change goes through one unit of work.

A change is described once, as a `Kind`: its name (the event its streams get, what the
game's record counts, what an Idempotency-Key's fingerprint says), the store's load
that reads what it needs, and `make`, what it makes of the game: the engine's call, the
game's next record, the answer, and what is to be written (`Made`). `run` does the rest,
the same for all: the headers checked, the game loaded for its owner in one round
trip, the answer kept for an Idempotency-Key used before given again, If-Match
matched, then `make`, then one compare-and-set write (`write`) of the new state, the
history's step, the record, the answer, the event for the game's streams and, for a
player's game whose record the change closes, its outbox entry. Nothing else writes,
so a failure anywhere leaves the game as it was. (A player's game whose outbox gains
an entry is then announced to the drain: a second call, after the change is made,
that the drain's sweep stands in for if it fails.)

The kinds: MOVE, AUTOPLAY, UNDO, REDO, RESTART (a change of the position: a step of the
history, undone as one), SETTINGS and RESIGN (the position stays); `claim` and
`abandon` open their game their own way (a game's token and a player's; the drain) and
write it the same way. `delete` ends the game and its keys.

The history keeps one step per change of the position: the notations of the moves it
applied joined by STEP_SEPARATOR (a move and the safe moves played with it, or an
autoplay), or RESTART_STEP.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import Any, Generic

from patience_contract.client import EngineError, GameReply
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.games import answers
from patience_gateway.games.answers import Reply, json_bytes
from patience_gateway.games.enums import MOVE_KIND
from patience_gateway.games.preconditions import (
    check_idempotency_key,
    check_tags,
    etag,
    require_match,
)
from patience_gateway.games.requests import GamePatch, MoveRequest, NotationMove
from patience_gateway.games.service import Games, L, Load, OwnedGame, known_id, unknown_game
from patience_gateway.games.tokens import bearer_token, check_token
from patience_gateway.problems import ProblemError
from patience_gateway.records import record as game_record
from patience_gateway.records.entries import ENDED, STARTED, Entry, GameFacts
from patience_gateway.records.outbox import AbandonCheck, AbandonResult
from patience_gateway.records.record import ABANDONED, PRACTICE, GameRecord
from patience_gateway.storage.reads import AtDeal, ForRedo, ForUndo, Loaded, StoredAnswer
from patience_gateway.storage.store import GameStore
from patience_gateway.storage.writes import Commit, CommitResult, Outcome, Step

log = logging.getLogger("patience_gateway")

STEP_SEPARATOR = ","
# A restart's step: the game back at its deal. Replaying a history, the moves before
# the last restart lead nowhere: the game goes on from the deal.
RESTART_STEP = "restart"
_ENDS = {game_pb2.GAME_STATUS_WON: game_record.WON, game_pb2.GAME_STATUS_STUCK: game_record.STUCK}


def moves_of(steps: Iterable[bytes | str]) -> list[str]:
    """The moves of history steps, in order."""
    moves: list[str] = []
    for step in steps:
        text = step.decode() if isinstance(step, bytes) else step
        moves += text.split(STEP_SEPARATOR)
    return moves


def step_of(applied: Iterable[game_pb2.Move]) -> str:
    """The history step of a change: the notations of the moves it applied."""
    return STEP_SEPARATOR.join(move.notation for move in applied)


# ---------------------------------------------------------------------- Idempotency-Keys


def fingerprint(operation: str, request: MoveRequest | None) -> str:
    """Identifies a request's meaning, so a reused Idempotency-Key can be told apart."""
    canonical = "" if request is None else request.model_dump_json(exclude_defaults=True)
    return hashlib.sha256(f"{operation}\n{canonical}".encode()).hexdigest()[:32]


async def replayed(store: GameStore, game_id: str, answer: StoredAnswer, print_: str) -> Reply:
    """The answer kept for an Idempotency-Key used before. Where changes wait for
    replicas, it is given again only once they have the change too (it may have been
    answered 503 the first time for want of them)."""
    if answer.fingerprint != print_:
        raise ProblemError(
            "idempotency-key-reused",
            "this Idempotency-Key was used on this game for a different request",
        )
    await store.confirm_replicated(game_id)
    return Reply(answer.status, answer.body, {"ETag": answer.etag, "Idempotent-Replayed": "true"})


# ---------------------------------------------------------------------- the game's record


def next_record(
    game: OwnedGame[Any],
    kind: str,
    now_ms: int,
    view: game_pb2.PlayerView | None = None,
    applied: Sequence[game_pb2.Move] = (),
) -> GameRecord:
    """The record after a change of `kind` (records.record: MOVE, AUTOPLAY, UNDO, REDO,
    RESTART) that leads to `view`; `applied`: the moves a move applied (the player's,
    then any safe moves played with it), or the safe moves an autoplay applied. Every
    card moved counts as a move, autoplay's too: a line is as long with autoplay on as
    off, so a day's board that ranks by moves ranks the line, not the setting."""
    if kind == game_record.MOVE and applied:
        first = applied[0].kind
        record = game.record.changed(
            kind,
            now_ms,
            moves=len(applied),
            redeals=int(first == game_pb2.MOVE_KIND_REDEAL),
            deals=int(first == game_pb2.MOVE_KIND_DEAL),
            autoplayed=len(applied) > 1,
        )
    elif kind == game_record.AUTOPLAY:
        record = game.record.changed(kind, now_ms, moves=len(applied))
    else:
        record = game.record.changed(kind, now_ms)
    if view is not None:
        ending = _ENDS.get(view.status)
        if ending is not None:
            record = record.ended(ending, now_ms)
    return record


def facts_of(
    game: OwnedGame[Any], view: game_pb2.PlayerView, open_deal: str, *, claimed: bool = False
) -> GameFacts:
    """What an outbox entry says of the game, from its view: the deal number when the
    player may know it (chosen, or shown at the end)."""
    return GameFacts(
        game.id,
        game.owner,
        view.variant,
        list(view.options),
        game.category,
        open_deal or view.deal or None,
        claimed=claimed,
        replayed=bool(open_deal),
        daily=game.meta.daily or None,
    )


def started_entry(facts: GameFacts, record: GameRecord) -> bytes:
    return Entry(STARTED, facts, record).encode()


def ended_entry(
    game: OwnedGame[Any], record: GameRecord, view: game_pb2.PlayerView, open_deal: str
) -> bytes:
    """The outbox entry of a player's game whose record this change closes; b""
    otherwise (an anonymous game, or a record that stays open or closed before)."""
    if not game.owner or not record.finished or game.record.finished:
        return b""
    return Entry(ENDED, facts_of(game, view, open_deal), record).encode()


# ---------------------------------------------------------------------- the unit of work


@dataclass(frozen=True, slots=True)
class Made:
    """What a change made of the game, to write: `view` and `body` (the answer, and the
    event's data) at the next version, its `record`; with a `step` of the history, the
    new `state` (and `new_step`, the step a NEW one adds). `meta`: more fields of the
    meta hash; `open_deal`: the deal number the view keeps showing (None: as loaded);
    `entry`: the outbox entry (None: the one of a record the change closes)."""

    view: game_pb2.PlayerView
    body: Mapping[str, Any]
    record: GameRecord
    step: Step = Step.NONE
    state: game_pb2.SealedState | None = None
    new_step: str = ""
    meta: Mapping[str, str | bytes] = field(default_factory=dict)
    open_deal: str | None = None
    entry: bytes | None = None
    unowned: bool = False
    keeps_proof: bool = False


Make = Callable[[Games, OwnedGame[L], Any], Awaitable[Made | Reply]]


def refuse_if_given_up(record: GameRecord) -> None:
    """A game resigned or abandoned takes no more changes (a game won or stuck does:
    an undo may look back, though its record no longer changes)."""
    if record.outcome in game_record.GIVEN_UP:
        raise ProblemError(
            "game-over", f"the game ended ({record.outcome}): it takes no more changes"
        )


@dataclass(frozen=True, slots=True)
class Kind(Generic[L]):
    """One kind of change (see the module's doc). `load`: the store's load it reads
    with; `refuse`: what a game must not be for it; `written`: told of each change made
    (not of an answer given again)."""

    name: str
    load: Callable[[GameStore], Load[L]]
    make: Make[L]
    refuse: Callable[[GameRecord], None] = refuse_if_given_up
    written: Callable[[Games, Made], None] | None = None


async def run(
    games: Games,
    kind: Kind[L],
    game_id: str,
    authorization: str | None,
    if_match: str | None,
    idempotency_key: str | None,
    request: Any = None,
) -> Reply:
    """The change of `kind` asked for with these headers (see the module's doc)."""
    token = bearer_token(authorization)
    key = check_idempotency_key(idempotency_key)
    check_tags(if_match, "If-Match")
    game = await games.opened(game_id, token, kind.load(games.store), key)
    print_ = fingerprint(kind.name, request) if key else ""
    kept = game.loaded.answer
    if kept is not None:
        return await replayed(games.store, game_id, kept, print_)
    require_match(if_match, game.version)
    kind.refuse(game.record)
    made = await kind.make(games, game, request)
    if isinstance(made, Reply):
        return made
    result, payload, entry = await _commit(games, kind.name, game, made, key, print_)
    if result.outcome is Outcome.OK and kind.written is not None:
        kind.written(games, made)
    return await _answered(games, game_id, result, payload, entry, if_match, print_)


async def _commit(
    games: Games, name: str, game: OwnedGame[Any], made: Made, key: str = "", print_: str = ""
) -> tuple[CommitResult, bytes, bytes]:
    """Writes what `made` says if the game is still at the version read: the result,
    the answer's body and the outbox entry written."""
    view = made.view
    payload = json_bytes(made.body)
    status = answers.status_name(view.status) if made.step is not Step.NONE else ""
    meta = dict(made.meta)
    if made.record != game.record:
        meta["record"] = made.record.encode()
    if status in answers.OVER and view.deal:
        # The engine shows a random deal's number at its end: the store keeps it (the
        # sealed state does not let it read it) for the history and for undo.
        meta["deal"] = view.deal
    entry = made.entry
    if entry is None:
        open_deal = game.meta.open_deal if made.open_deal is None else made.open_deal
        entry = ended_entry(game, made.record, view, open_deal)
    version = game.version
    answer = StoredAnswer(print_, 200, etag(version + 1), payload) if key else None
    change = Commit(
        version,
        made.step,
        made.state.SerializeToString() if made.state is not None else b"",
        status,
        made.new_step,
        meta,
        # every open stream of the game gets the same body as this answer
        (name, payload),
        key,
        answer,
        entry,
        made.unowned,
        made.keeps_proof,
    )
    return await games.store.commit(game.id, change), payload, entry


async def _answered(
    games: Games,
    game_id: str,
    result: CommitResult,
    payload: bytes,
    entry: bytes,
    if_match: str | None,
    print_: str = "",
) -> Reply:
    """The answer to a change written (`result`), or the problem that says why not."""
    outcome = result.outcome
    if outcome is Outcome.OK:
        if entry:
            await games.announce(game_id)
        return Reply(200, payload, {"ETag": etag(result.version)})
    if outcome is Outcome.IDEMPOTENT_REPLAY:
        # A retry with the same key won the race: answer as it was answered.
        assert result.answer is not None
        return await replayed(games.store, game_id, result.answer, print_)
    if outcome is Outcome.GONE:
        raise unknown_game(game_id)
    if outcome is Outcome.STALE:
        raise lost_race(result.version, if_match)
    if outcome is Outcome.TAKEN:
        raise ProblemError("already-claimed", "another player claimed this game meanwhile")
    # EMPTY: the lists changed although the version did not; cannot happen while
    # every write goes through these scripts.
    log.error("a change of game %s found nothing to change", game_id)
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


# ---------------------------------------------------------------------- the kinds


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


async def _move(games: Games, game: OwnedGame[Loaded], request: MoveRequest) -> Made:
    move = _engine_move(request)
    try:
        reply: GameReply = await games.engine.apply_move(game.state, move)
    except EngineError as error:
        problem = games.client_problem(error)
        if problem.status == 422:  # the game is as it was: its version, to retry from
            problem.headers["ETag"] = etag(game.version)
        raise problem from None
    if game.meta.autoplay and reply.view.status == game_pb2.GAME_STATUS_PLAYING:
        reply = await _with_safe_moves(games, reply)
    record = next_record(game, MOVE.name, games.clock(), reply.view, reply.applied)
    return _played(game, reply, record, Step.NEW, step_of(reply.applied))


def _played(
    game: OwnedGame[Any], reply: GameReply, record: GameRecord, step: Step, new_step: str = ""
) -> Made:
    """A move played, or played again (a redo): its answer, the move and the safe moves
    played with it."""
    meta = game.meta
    body = answers.move_result_json(
        game.id,
        game.version + 1,
        reply,
        meta.open_deal,
        record=game.record_json(record),
        autoplay=meta.autoplay,
    )
    return Made(reply.view, body, record, step, reply.state, new_step)


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


async def _autoplay(games: Games, game: OwnedGame[Loaded], _: None) -> Made | Reply:
    """Every card that can safely go to a foundation, as one change; with none, the
    game as it is (200, the same version, nothing stored or published)."""
    reply = await games.ask(games.engine.autoplay(game.state))
    meta, changed = game.meta, bool(reply.applied)
    record = (
        next_record(game, AUTOPLAY.name, games.clock(), reply.view, reply.applied)
        if changed
        else game.record
    )
    body = answers.autoplay_json(
        game.id,
        game.version + changed,
        reply,
        meta.open_deal,
        record=game.record_json(record),
        proven_lost=meta.proven_lost and not changed,  # a proof holds for its version
        autoplay=meta.autoplay,
    )
    if not changed:
        return Reply(200, json_bytes(body), {"ETag": etag(game.version)})
    return Made(reply.view, body, record, Step.NEW, reply.state, step_of(reply.applied))


async def _undo(games: Games, game: OwnedGame[ForUndo], _: None) -> Made:
    loaded = game.loaded
    if loaded.position == 0:
        raise ProblemError("nothing-to-undo", "the game is at its deal")
    # Replaying from a stored state keeps the hidden stock exactly as it was dealt;
    # the store gives the checkpoint before the target and fewer than K steps (and
    # the deal, when a restart is among them: the replay starts again from there).
    start, moves = game.state, moves_of(loaded.steps)
    if loaded.dealt is not None and RESTART_STEP in moves:
        start = game_pb2.SealedState.FromString(loaded.dealt)
        moves = moves[len(moves) - moves[::-1].index(RESTART_STEP) :]
    reply = await games.replay(start, moves)
    open_deal, meta = game.meta.open_deal, None
    ending = loaded.ending
    if not open_deal and ending.deal_secret and ending.status in answers.OVER:
        # Taking back the end of a random deal: its number has been shown, so the
        # player knows what comes next. The game stays an open one from now on:
        # the view keeps the number and says the game is replayed.
        open_deal = ending.deal or await games.shown_deal(game.id) or ""
        meta = {"open": open_deal}
    record = next_record(game, UNDO.name, games.clock())
    return _back(game, reply, record, Step.UNDO, open_deal=open_deal, meta=meta)


def _back(
    game: OwnedGame[Any],
    reply: GameReply,
    record: GameRecord,
    step: Step,
    new_step: str = "",
    open_deal: str | None = None,
    meta: Mapping[str, str | bytes] | None = None,
) -> Made:
    """A change that takes the position back (undo, restart, the redo of a restart):
    the game's view at the next version, where a proof of loss of the position before
    does not carry over."""
    body = game.view_json(
        reply.view,
        version=game.version + 1,
        record=record,
        open_deal=open_deal,
        proven_lost=False,
    )
    meta = meta or {}
    return Made(reply.view, body, record, step, reply.state, new_step, meta, open_deal)


async def _redo(games: Games, game: OwnedGame[ForRedo], _: None) -> Made:
    next_step = game.loaded.next_step
    if next_step is None:
        raise ProblemError("nothing-to-redo", "no undone move is waiting to be redone")
    now = games.clock()
    if next_step == RESTART_STEP.encode():
        # the state read is the deal: a restart played again
        reply = await games.ask(games.engine.apply_moves(game.state, []))
        return _back(game, reply, next_record(game, REDO.name, now), Step.REDO)
    reply = await games.ask(games.engine.apply_moves(game.state, moves_of([next_step])))
    return _played(game, reply, next_record(game, REDO.name, now, reply.view), Step.REDO)


async def _restart(games: Games, game: OwnedGame[AtDeal], _: None) -> Made:
    """Back to the deal, as one change: undo takes it back whole, and the record counts it
    (a restart shows the player what the deal leads to, so a win after one is not clean)."""
    loaded = game.loaded
    if loaded.at_deal:
        raise ProblemError("nothing-to-restart", "the game stands at its deal already")
    reply = await games.ask(games.engine.apply_moves(game.state, []))
    open_deal, meta = game.meta.open_deal, None
    if not open_deal and loaded.deal_secret and loaded.deal:
        # a random deal whose end was shown: played again, it is an open game (as undo)
        open_deal = loaded.deal
        meta = {"open": open_deal}
    record = next_record(game, RESTART.name, games.clock())
    return _back(game, reply, record, Step.NEW, RESTART_STEP, open_deal, meta)


async def _settings(games: Games, game: OwnedGame[Loaded], patch: GamePatch) -> Made:
    """The game's settings (a JSON merge patch: a field left out stays, null resets it)
    as a new version; the position stays, and so does a proof of its loss."""
    autoplay = game.meta.autoplay
    if "autoplay" in patch.model_fields_set:
        autoplay = bool(patch.autoplay)
    view = await games.ask(games.engine.player_view(game.state))
    body = game.view_json(view, version=game.version + 1, autoplay=autoplay)
    meta: dict[str, str | bytes] = {"autoplay": "1" if autoplay else "0"}
    return Made(view, body, game.record, meta=meta, keeps_proof=True)


def _refuse_if_ended(record: GameRecord) -> None:
    if record.finished:
        raise ProblemError(
            "game-over", f"the game ended already ({record.outcome}): nothing to resign"
        )


async def _resign(games: Games, game: OwnedGame[Loaded], _: None) -> Made:
    """The player stops: the record closes as `resigned`, or as `proven-lost` when the
    service had proven that no line wins (a hint proved it, or the game only goes round
    in circles): resigning a lost game is not giving up a chance."""
    view = await games.ask(games.engine.player_view(game.state))
    hopeless = answers.outlook_name(view, game.meta.proven_lost) in answers.HOPELESS
    now = games.clock()
    ending = game_record.PROVEN_LOST if hopeless else game_record.RESIGNED
    record = game.record.changed(RESIGN.name, now).ended(ending, now)
    return Made(view, game.view_json(view, version=game.version + 1, record=record), record)


def _counted(games: Games, made: Made) -> None:
    games.on_move_applied(made.view.variant)


# The kinds' names are the kinds of change a game's record counts (records.record).
_LOAD = attrgetter("load")
MOVE: Kind[Loaded] = Kind(game_record.MOVE, _LOAD, _move, written=_counted)
AUTOPLAY: Kind[Loaded] = Kind(game_record.AUTOPLAY, _LOAD, _autoplay)
UNDO: Kind[ForUndo] = Kind(game_record.UNDO, attrgetter("load_for_undo"), _undo)
REDO: Kind[ForRedo] = Kind(game_record.REDO, attrgetter("load_for_redo"), _redo)
RESTART: Kind[AtDeal] = Kind(game_record.RESTART, attrgetter("load_dealt"), _restart)
SETTINGS: Kind[Loaded] = Kind("settings", _LOAD, _settings)
RESIGN: Kind[Loaded] = Kind("resign", _LOAD, _resign, _refuse_if_ended)


# ---------------------------------------------------------------------- claim, abandon, delete


async def claim(games: Games, game_id: str, access_token: str, game_token: str) -> Reply:
    """The anonymous game opened by `game_token` becomes the player's of `access_token`:
    from then on the player's access token opens it and the game token does not. A
    claimed game counts as practice (the player could choose which games to claim)."""
    known_id(game_id)
    player = games.player_of(access_token)
    if player is None:
        raise ProblemError(
            "invalid-token", "claim a game with a player's access token (POST /v1/players)"
        )
    if games.players is not None:
        await games.players.refuse_deleted(player)
    loaded = await games.store.load(game_id)
    if loaded is None:
        raise unknown_game(game_id)
    # the game's own token first: without it nothing is told of the game (a claimed
    # game's token opens it no more, so a second claim is refused here too)
    check_token(game_token, loaded.meta.token_digest)
    game = OwnedGame.of(game_id, loaded)
    if game.record.finished:
        raise ProblemError(
            "game-over", "a game that has ended cannot be claimed: its record is closed"
        )
    view = await games.ask(games.engine.player_view(game.state))
    claimed_meta = replace(loaded.meta, owner=player, category=PRACTICE)
    claimed = OwnedGame.of(game_id, replace(loaded, meta=claimed_meta))
    facts = facts_of(claimed, view, loaded.meta.open_deal, claimed=True)
    made = Made(
        view,
        claimed.view_json(view, version=game.version + 1),
        game.record,
        meta={"owner": player, "token": "", "category": PRACTICE},
        entry=started_entry(facts, claimed.record),
        unowned=True,
    )
    result, payload, entry = await _commit(games, "claim", game, made)
    return await _answered(games, game_id, result, payload, entry, None)


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
    outcome = await _end_abandoned(games, game, now)
    if outcome is Outcome.OK:
        return AbandonCheck(AbandonResult.ENDED)
    if outcome is Outcome.GONE:
        return AbandonCheck(AbandonResult.GONE)
    return AbandonCheck(AbandonResult.LATER, _moment(now))  # it changed: look again soon


async def _end_abandoned(games: Games, game: OwnedGame[Loaded], now: int) -> Outcome:
    """Closes the game's record as abandoned at `now`, if it is still at the version
    read: the store's outcome (its end announced to the drain when written)."""
    view = await games.ask(games.engine.player_view(game.state))
    record = game.record.ended(ABANDONED, now)
    made = Made(view, game.view_json(view, version=game.version + 1, record=record), record)
    result, _, _ = await _commit(games, "abandon", game, made)
    if result.outcome is Outcome.OK:
        await games.announce(game.id)
    return result.outcome


# a game that changes between its reading and its end is read again, this many times
_SUPERSEDE_TRIES = 5


async def supersede(games: Games, game_id: str, player_id: str) -> bool:
    """Ends the player's earlier ranked game as abandoned, now that a new one of its
    category and variant was dealt (`games.ranked`); whether it was open until now."""
    for _ in range(_SUPERSEDE_TRIES):
        loaded = await games.store.peek(game_id)
        if loaded is None:
            return False
        game = OwnedGame.of(game_id, loaded)
        if game.record.finished or game.owner != player_id:
            return False
        outcome = await _end_abandoned(games, game, games.clock())
        if outcome is not Outcome.STALE:
            return outcome is Outcome.OK
    log.warning("game %s kept changing; it was not ended for the player's new game", game_id)
    return False


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


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
        entry = ended_entry(game, record, view, game.meta.open_deal)
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
